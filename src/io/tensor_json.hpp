// A logical tensor in graph files: read with its checks (dims, strides,
// ndims, dtype, layout and property names, values), written in oneDNN's
// field order. Internal to src/io.
#pragma once

#include "core/logical_tensor.hpp"
#include "io/json_fields.hpp"

namespace reshaper::impl::graph_io {

// `place`: where the tensor is named (a port of an op, context::port).
logical_tensor read_tensor(json_view j, const context &place);
ojson tensor_to_ojson(const logical_tensor &lt);

} // namespace reshaper::impl::graph_io
