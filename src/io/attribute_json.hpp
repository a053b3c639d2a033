// An op's attributes in graph files: {"type": ..., "value": ...} read as an
// attribute_value of the type named, and written back. Internal to src/io.
#pragma once

#include <string_view>

#include "core/op.hpp"
#include "io/json_fields.hpp"

namespace reshaper::impl::graph_io {

// `op_ctx`: the op the attribute belongs to.
attribute_value read_attribute(std::string_view name, json_view j, const context &op_ctx);
ojson attribute_to_json(const attribute_value &v);

} // namespace reshaper::impl::graph_io
