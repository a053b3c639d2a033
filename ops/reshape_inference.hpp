// The one shape-inference function of every reshape schema: output dtype
// from the data input, output shape from the reshape rule, merged with what
// the graph already gives for the output.
#pragma once

#include "ops/op_schema.hpp"

namespace reshaper::impl {

// Expects `o` verified against `schema` (verify_op). Fills an undef output
// dtype and the output dims the rule knows; a given output dim must agree
// with the inferred one (invalid_shape naming both) and fills an unknown
// inferred dim. Strides are left alone.
void infer_reshape_shapes(const op_schema &schema, const op &o, graph &g);

// Every op of the family keeps the element count: an output whose dims are
// all given must hold the input's elements (invalid_shape naming both
// counts, [volume_mismatch]). Nothing to check while a dim is unknown.
void check_output_volume(const op_schema &schema, const op &o, const dims_t &input,
                         const dims_t &output);

} // namespace reshaper::impl
