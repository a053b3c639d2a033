#include "core/status.hpp"

#include "core/fail.hpp"
#include "core/rules.hpp"

namespace reshaper::impl {

std::string_view to_string(status s) {
    switch (s) {
    case status::success: return "success";
    case status::invalid_arguments: return "invalid_arguments";
    case status::invalid_graph: return "invalid_graph";
    case status::invalid_graph_op: return "invalid_graph_op";
    case status::invalid_shape: return "invalid_shape";
    case status::invalid_data_type: return "invalid_data_type";
    case status::unimplemented: return "unimplemented";
    case status::unavailable: return "unavailable";
    case status::out_of_memory: return "out_of_memory";
    case status::runtime_error: return "runtime_error";
    }
    return "runtime_error";
}

std::string with_rule_id(rule r, std::string message) {
    const std::string_view id = to_string(r);
    message.reserve(message.size() + id.size() + 3);
    message += " [";
    message += id;
    message += ']';
    return message;
}

namespace {

bool ends_with_id(std::string_view message, std::string_view id) {
    return message.size() >= id.size() + 2 && message.back() == ']' &&
           message[message.size() - id.size() - 2] == '[' &&
           message.substr(message.size() - id.size() - 1, id.size()) == id;
}

} // namespace

error::error(impl::rule r, std::string message, std::optional<op_ref> op)
    : std::runtime_error(ends_with_id(message, to_string(r)) ? std::move(message)
                                                            : with_rule_id(r, std::move(message))),
      code_(info(r).code), op_(std::move(op)), rule_(r) {}

std::string_view error::rule() const noexcept { return to_string(rule_); }

void fail(rule r, std::string message, std::optional<op_ref> op) {
    throw error(r, std::move(message), std::move(op));
}

std::string describe(const op_ref &o) {
    return "op " + std::to_string(o.id) + " '" + o.name + "' (" + o.kind + ")";
}

} // namespace reshaper::impl
