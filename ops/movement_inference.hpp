// The one shape-inference function of the transposes, squeezes, unsqueezes
// and flattens: output dtype from the data input, output shape from the op's
// rule (through movement_request), merged with what the graph already gives
// for the output. The reshapes have theirs in ops/reshape_inference.
#pragma once

#include "ops/op_schema.hpp"

namespace reshaper::impl {

// Expects `o` verified against `schema` (verify_op). Fills an undef output
// dtype and the output dims the rule knows; a given output must have the
// inferred rank, and each dim known on both sides must agree (invalid_shape
// naming both, [output_shape_match]). Axes that arrive only at execute still
// fix the output rank when their count is known. Every member keeps the
// element count, so an output given in full must hold the input's
// [volume_mismatch]. Strides are left alone.
void infer_movement_shapes(const op_schema &schema, const op &o, graph &g);

} // namespace reshaper::impl
