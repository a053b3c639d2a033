// How each reshape op states its target: the adapter between a schema's
// attributes/inputs and the shared reshape rule. Used by shape inference at
// graph time and by compile/execute when shape values arrive late.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op_schema.hpp"
#include "ops/reshape_rule.hpp"

namespace reshaper::impl {

struct reshape_request {
    zero_rule zeros = zero_rule::copy_from_input;
    // Index of the input that carries the target shape at run time
    // (DynamicReshape, Reshape-1, ONNX Reshape >= 5); nothing when the target
    // is an attribute (StaticReshape, ONNX Reshape-1).
    std::optional<std::size_t> shape_input;
    // The requested values when known now (attribute, or a constant shape
    // input with values); nothing when they arrive only at execute.
    std::optional<std::vector<std::int64_t>> target;
    // The output rank when the target values are unknown but the shape
    // tensor's length is known.
    std::optional<std::size_t> target_rank;
    // The shape input is 0-D: its one value must be 1 and means a scalar
    // output (oneDNN / OpenVINO reshapes only).
    bool target_is_0d = false;
};

// Reads the request of `o` (validated against `schema` beforehand).
reshape_request read_reshape_request(const op_schema &schema, const op &o, const graph &g);

// Output dims for concrete `data_dims` and the request's target (or
// `runtime_target` for values that arrive at execute). Throws error naming
// the op, the rule and the values.
dims_t resolve_for_op(const op &o, const dims_t &data_dims, const reshape_request &request,
                      const std::vector<std::int64_t> *runtime_target = nullptr);

} // namespace reshaper::impl
