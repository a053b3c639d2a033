// What one op of the data-movement family (reshapes, transposes, squeezes,
// unsqueezes, flattens) does to the index space of its data input, as the
// backend needs it: the adapter between every schema of the family and the
// one lowering that composes chains of them. Each family resolves through
// its own rule (ops/reshape_rule, the permutation rule, the axes rule); this
// is only the common face.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op_schema.hpp"
#include "ops/reshape_request.hpp"

namespace reshaper::impl {

// The op's effect on its data input (input 0) for concrete input dims.
struct movement_transform {
    dims_t output_dims;
    // Empty: the elements keep their row-major order (reshape, squeeze,
    // unsqueeze, flatten), so the op is a reshape to output_dims. Otherwise
    // output axis i is input axis permutation[i] (transpose); output_dims are
    // then the input dims permuted.
    std::vector<std::size_t> permutation;

    bool is_permutation() const { return !permutation.empty(); }
};

// Everything of the op that does not depend on the data input's dims, read
// once (at compile) from its attributes and inputs.
struct movement_request {
    // Set for reshape schemas (op_schema::reshape): the reshape rule's request.
    std::optional<reshape_request> reshape;
    // Index of the input whose values (a target shape, axes) may arrive only
    // at execute; nothing when the op has no such input (or it is absent).
    std::optional<std::size_t> values_input;
    // Those values when known now (an attribute, or an input with values);
    // nothing when they arrive only at execute.
    std::optional<std::vector<std::int64_t>> values;
    // How many values that input holds, when known but not the values.
    std::optional<std::size_t> value_count;

    // Set for the other members (op_schema::movement): which rule resolves
    // the values and how it reads them.
    std::optional<movement_form> movement;
    // The op states no values: a transpose without perm, a Squeeze without
    // axes (no attribute, an empty Squeeze-1/11 attribute, or input 1 not
    // connected). `values` is then empty and the rule's default applies: the
    // axes reversed, every size-1 dim removed.
    bool values_absent = false;
};

// True for every schema of the family (every schema this backend lowers).
bool is_movement_schema(const op_schema &schema);

// Reads the request of `o` (verified against `schema` beforehand). Throws
// error naming the op and the rule for attributes or inputs that are wrong.
movement_request read_movement_request(const op_schema &schema, const op &o, const graph &g);

// The transform for concrete `data_dims`, with the request's values or
// `runtime_values` (values that arrived at execute). Throws error naming the
// op, the rule and the values (invalid_shape for wrong axes or shapes,
// invalid_arguments when values are needed and none were given).
movement_transform resolve_movement(const op &o, const dims_t &data_dims,
                                    const movement_request &request,
                                    const std::vector<std::int64_t> *runtime_values = nullptr);

// As resolve_movement with the request's own values, for `data_dims` that may
// hold unknown_dim (shape inference): the output dims as far as they are
// known. Nothing when not even the output rank is (a Squeeze without axes of
// an input with unknown dims) or when the values arrive only at execute.
std::optional<movement_transform> resolve_partial_movement(const op &o, const dims_t &data_dims,
                                                           const movement_request &request);

} // namespace reshaper::impl
