#include "ops/op_schema.hpp"

namespace reshaper::impl {

std::string op_schema::versioned_name() const {
    std::string prefix = domain.empty() ? "" : domain + ".";
    return prefix + kind + "-" + std::to_string(since_version);
}

std::string type_list(const std::vector<data_type> &types) {
    std::string s;
    for (data_type t : types) s += (s.empty() ? "" : ", ") + std::string(to_string(t));
    return s;
}

std::string range_text(const attribute_spec &a) {
    if (a.min_value && a.max_value)
        return std::to_string(*a.min_value) + ".." + std::to_string(*a.max_value);
    if (a.min_value) return ">= " + std::to_string(*a.min_value);
    if (a.max_value) return "<= " + std::to_string(*a.max_value);
    return "";
}

std::string op_label(const op &o, const op_schema *schema) {
    std::string label = "op " + std::to_string(o.id) + " '" + o.name + "' ";
    if (schema) return label + schema->versioned_name();
    label += o.domain.empty() ? o.kind : o.domain + "." + o.kind;
    if (o.version) label += " (version " + std::to_string(*o.version) + ")";
    return label;
}

} // namespace reshaper::impl
