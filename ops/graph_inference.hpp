// Whole-graph validation and shape inference: structure (unique op ids, one
// producer per tensor, no cycles, ports refer to graph tensors), then every
// op the registry knows against its schema, then shape inference in
// topological order. Ops of unknown kinds are kept and left alone.
#pragma once

#include "core/graph.hpp"

namespace reshaper::impl {

// Throws error (invalid_graph, invalid_graph_op, invalid_data_type,
// invalid_shape) naming the op, the rule and the values.
void validate_graph(const graph &g);

// validate_graph, then infers every output dtype and shape it can, in
// place: ops run in topological order and each is verified once its inputs
// are inferred, so a dtype only inference reveals is checked too. Throws as
// validate_graph does (g may be partly inferred then). Returns the graph's
// topology, which inference leaves as it was: partitioning reuses it
// instead of building it again (a 100,000-op graph's topology is a few
// milliseconds, issue 7).
// Large graphs (4096 ops and more) are inferred on the threads oneTBB may
// use, with the outcome of inferring op by op (graph_inference.cpp).
graph_topology infer_graph_shapes(graph &g);

namespace detail {
// infer_graph_shapes' side-by-side inference after check_structure, in
// stretches of `stretch` ops of the topological order (for tests).
void infer_in_stretches(graph &g, const graph_topology &topology, std::size_t stretch);
} // namespace detail

} // namespace reshaper::impl
