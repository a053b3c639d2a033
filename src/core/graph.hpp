// A graph: ops plus the table of logical tensors they connect. Ops refer to
// tensors by id; each tensor is stored once (graph files repeat a tensor at
// its producer and every consumer; the reader checks they agree).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/logical_tensor.hpp"
#include "core/op.hpp"

namespace reshaper::impl {

struct graph {
    std::string version = "3.3.0";
    std::string engine_kind = "cpu";
    std::string fpmath_mode = "strict";
    // Other top-level keys of the file, kept verbatim as JSON text.
    std::map<std::string, std::string> extra_fields;
    // As given in the file; nothing = derived (see graph_inputs/graph_outputs).
    std::optional<std::vector<tensor_id>> input_ports;
    std::optional<std::vector<tensor_id>> output_ports;

    std::vector<op> ops;                        // in file order
    std::map<tensor_id, logical_tensor> tensors;
    // What loading forgave (contract section 1: a consumer's shape that
    // disagrees with the producer's, a port naming a tensor no op uses).
    // Notes about where a graph came from: graphs equal without them.
    struct load_warnings : std::vector<std::string> {
        bool operator==(const load_warnings &) const { return true; }
    };
    load_warnings warnings;

    bool operator==(const graph &) const = default;

    const logical_tensor &tensor(tensor_id id) const;   // throws invalid_graph if absent
    logical_tensor &tensor(tensor_id id);
};

// Connectivity, computed once and queried in O(1).
struct graph_topology {
    // tensor id -> index (into graph::ops) of the op that produces it
    std::unordered_map<tensor_id, std::size_t> producer;
    // tensor id -> indices of the ops that consume it (in op order, repeated
    // when one op consumes it twice)
    std::unordered_map<tensor_id, std::vector<std::size_t>> consumers;
    // op indices with producers before consumers
    std::vector<std::size_t> topological_order;

    // Throws invalid_graph on a tensor produced twice or a cycle.
    static graph_topology build(const graph &g);
};

// The graph's inputs and outputs: the ports when given, else the tensors no
// op produces / no op consumes (each once, in order of first appearance).
std::vector<tensor_id> graph_inputs(const graph &g);
std::vector<tensor_id> graph_outputs(const graph &g);

} // namespace reshaper::impl
