// A supported partition read as what it is: a chain of data-movement ops
// (reshapes, transposes, squeezes, unsqueezes, flattens) from one data input
// to its outputs (the chain's end, and any op result along it that is also
// a graph output). Resolves every op along the chain at compile time through
// its rule (resolve_movement), and checks values (shapes, axes) that arrive
// only at execute against what was compiled.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "core/graph.hpp"
#include "layout/chain_view.hpp"
#include "ops/movement_request.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::impl {

// An input whose values (a target shape, axes) the caller passes only at
// execute (DynamicReshape-1, Reshape-1, ONNX Reshape >= 5, Squeeze and
// Unsqueeze >= 13 with non-constant inputs).
struct runtime_shape_input {
    op reshape; // copied: a compiled partition outlives the graph
    movement_request request;
    std::size_t input_position = 0; // index into the partition's inputs
    logical_tensor shape_tensor;
    dims_t data_dims;     // the op's data input as compiled
    dims_t compiled_dims; // the op's output as compiled
};

// One op of the chain as execute re-resolves it when the output shape is
// known only then.
struct chain_op {
    op reshape;
    movement_request request;
    std::optional<std::size_t> runtime; // index into runtime_shapes
};

struct resolved_chain {
    std::vector<logical_tensor> inputs; // in the partition's input order
    std::size_t data_position = 0;      // the data input among them
    // The partition's outputs in its order (the chain's end last), shapes
    // resolved, layouts as given; for each, how many of `steps` lead to it.
    std::vector<logical_tensor> outputs;
    std::vector<std::size_t> output_step_counts;
    // The ops' schemas, in chain order (the registry's, which live as long
    // as the process): their versioned names are only spelled out for
    // verbose lines, not at every compile.
    std::vector<const op_schema *> op_schemas;
    std::vector<dims_t> shapes;         // the data input's, then each op output's
    std::vector<chain_step> steps;      // what each op does, in chain order
    std::vector<runtime_shape_input> runtime_shapes;
    // Every op, in chain order, for a dynamic chain (see resolve_at_execute);
    // empty otherwise (nothing re-resolves a static chain, and copying every
    // op of a large graph was a cost of compiling it, issue 7).
    std::vector<chain_op> ops;
    // Some output dims depend on shape values that arrive only at execute
    // and were not given at compile: they stay unknown (-1) until then.
    bool dynamic = false;
};

// `inputs` / `outputs`: the caller's boundary tensors, matched by id; a
// boundary tensor not among them is taken from the graph. Throws error:
// unimplemented for partitions that are not a chain of handled ops,
// invalid_shape naming the op and the rule for shapes that disagree or
// remain unknown, invalid_data_type for dtypes that differ from the graph's.
resolved_chain resolve_chain(const graph &g, const partition &p,
                             const std::vector<logical_tensor> &inputs,
                             const std::vector<logical_tensor> &outputs);

// Reads the shape values from `buffer` (the shape tensor's host buffer) and
// throws error(invalid_shape), naming the op, the values and the compiled
// shape, when they resolve to anything but the compiled output dims.
void check_runtime_shape(const runtime_shape_input &r, const void *buffer);

// A dynamic chain at execute: reads every run-time shape from `inputs` (in
// the partition's input order), resolves every op from `data_dims` through
// the reshape rule and returns the output dims; they must agree with the
// known dims of `compiled_output` (else error(invalid_shape)).
dims_t resolve_at_execute(const std::vector<chain_op> &ops,
                          const std::vector<runtime_shape_input> &runtime_shapes,
                          std::span<const void *const> inputs, const dims_t &data_dims,
                          const dims_t &compiled_output);

} // namespace reshaper::impl
