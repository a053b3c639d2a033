#include "api/error_boundary.hpp"

#include "core/fail.hpp"
#include "core/rules.hpp"

namespace reshaper::api {

namespace {
thread_local reshaper_status_t last_status = reshaper_success;
thread_local std::string last_message;
thread_local std::string last_rule;
} // namespace

reshaper_status_t record_error(impl::rule r, const std::string &message) noexcept {
    last_status = to_c(impl::info(r).code);
    try {
        last_rule.clear(); // rule ids are short: within the SSO buffer
        last_rule = impl::to_string(r);
        last_message = message;
    } catch (...) {
        // No memory for the text: keep the status and say so without
        // allocating (an empty string, then a literal within its SSO buffer).
        std::string().swap(last_message);
        last_message.assign("out of memory");
    }
    return last_status;
}

reshaper_status_t last_error_status() noexcept { return last_status; }
const char *last_error_message() noexcept { return last_message.c_str(); }
const char *last_error_rule() noexcept { return last_rule.c_str(); }

void call::fail(const std::string &what) const {
    impl::fail(impl::rule::api_argument, std::string(function_) + ": " + what);
}

} // namespace reshaper::api
