#include "ops/op_schema.hpp"

namespace reshaper::impl {

std::string op_schema::versioned_name() const {
    std::string prefix = domain.empty() ? "" : domain + ".";
    return prefix + kind + "-" + std::to_string(since_version);
}

std::string op_label(const op &o, const op_schema *schema) {
    std::string label = "op " + std::to_string(o.id) + " '" + o.name + "' ";
    if (schema) return label + schema->versioned_name();
    label += o.domain.empty() ? o.kind : o.domain + "." + o.kind;
    if (o.version) label += " (version " + std::to_string(*o.version) + ")";
    return label;
}

} // namespace reshaper::impl
