#include "core/status.hpp"

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

std::string_view rule_in_message(std::string_view message) {
    if (message.empty() || message.back() != ']') return {};
    const auto open = message.rfind('[');
    if (open == std::string_view::npos) return {};
    const std::string_view id = message.substr(open + 1, message.size() - open - 2);
    return find_rule(id) ? id : std::string_view{};
}

std::string describe(const op_ref &o) {
    return "op " + std::to_string(o.id) + " '" + o.name + "' (" + o.kind + ")";
}

} // namespace reshaper::impl
