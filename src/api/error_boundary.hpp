// The C API's error boundary: every entry point runs its body through
// `guarded`, which turns any exception into a status and keeps the message
// as this thread's last error. Nothing escapes, not even bad_alloc.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "core/fail.hpp"
#include "core/status.hpp"
#include "reshaper/reshaper.h"

namespace reshaper::api {

// Records a violation of `r` (the table's status, `message`, the id) as this
// thread's last error; returns the status.
reshaper_status_t record_error(impl::rule r, const std::string &message) noexcept;
// The status, message and rule id recorded last on this thread.
reshaper_status_t last_error_status() noexcept;
const char *last_error_message() noexcept;
const char *last_error_rule() noexcept;

inline reshaper_status_t to_c(impl::status s) { return static_cast<reshaper_status_t>(s); }

// Argument checks with the entry point's name in the message.
class call {
public:
    explicit call(const char *function) : function_(function) {}

    // error(invalid_arguments) "reshaper_graph_destroy: graph is NULL".
    template <typename T>
    void require(const T *pointer, const char *argument) const {
        if (pointer == nullptr) fail(std::string(argument) + " is NULL");
    }
    [[noreturn]] void fail(const std::string &what) const;

private:
    const char *function_;
};

// Inlined into each entry point: as a call of its own (GCC's clone per
// entry point) it was 8% of a 4 KiB execute, its frame and the chain of
// loads through the body's captured references.
template <typename Body>
[[gnu::always_inline]] inline reshaper_status_t guarded(const char *function, Body &&body) noexcept {
    try {
        body(call(function));
        return reshaper_success;
    } catch (const impl::error &e) {
        return record_error(e.rule_id(), e.what());
    } catch (const std::bad_alloc &) {
        return record_error(impl::rule::memory_limit,
                            impl::with_rule_id(impl::rule::memory_limit, std::string(function) + ": out of memory"));
    } catch (const std::exception &e) {
        return record_error(impl::rule::internal_invariant,
                            impl::with_rule_id(impl::rule::internal_invariant,
                                               std::string(function) + ": internal error: " + e.what()));
    } catch (...) {
        return record_error(impl::rule::internal_invariant,
                            impl::with_rule_id(impl::rule::internal_invariant,
                                               std::string(function) + ": unknown internal error"));
    }
}

} // namespace reshaper::api
