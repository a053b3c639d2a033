// A graph: ops plus the table of logical tensors they connect. Ops refer to
// tensors by id; each tensor is stored once (graph files repeat a tensor at
// its producer and every consumer; the reader checks they agree).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/logical_tensor.hpp"
#include "core/op.hpp"
#include "core/tensor_map.hpp"

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
    tensor_map tensors;
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

// Connectivity, computed once. Flat arrays over a slot per tensor id, not a
// hash node and a vector per tensor: a 100,000-op graph's topology was
// mostly allocator work and cache misses (perf, issue 7). Each op's ports are
// copied once into two flat lists, so the walks over them (here and in the
// partitioner) do not follow every op's own vectors through the heap.
class graph_topology {
public:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    // Throws invalid_graph on a tensor produced twice or a cycle.
    static graph_topology build(const graph &g);

    // Index (into graph::ops) of the op that produces `t`, or none.
    std::size_t producer(tensor_id t) const;
    // Indices of the ops that consume `t`, in op order (repeated when one op
    // consumes it twice); empty for a tensor no op reads.
    std::span<const std::size_t> consumers(tensor_id t) const;

    // The tensors op `op_index` reads / writes, as in graph::ops, from the
    // flat lists.
    std::span<const tensor_id> inputs(std::size_t op_index) const;
    std::span<const tensor_id> outputs(std::size_t op_index) const;

    // Op indices with producers before consumers.
    std::vector<std::size_t> topological_order;

private:
    // Slot of a tensor id: when the ids are dense enough (as graph files
    // number them), id - first_id; else its place in the sorted list of
    // every id the ops name.
    std::size_t slot(tensor_id t) const;

    bool direct_ = false;
    tensor_id first_id_ = 0;            // when dense
    std::vector<tensor_id> sorted_ids_; // when sparse
    std::size_t slot_count_ = 0;
    // Every op's inputs, then its outputs, op after op; op i's inputs are
    // ports_[port_begin_[2i], port_begin_[2i+1]), its outputs up to
    // port_begin_[2i+2]. port_slots_ holds each port's slot.
    std::vector<tensor_id> ports_;
    std::vector<std::size_t> port_slots_;
    std::vector<std::size_t> port_begin_;
    std::vector<std::size_t> producer_;   // per slot
    std::vector<std::size_t> consumer_begin_; // per slot, and one past the last
    std::vector<std::size_t> consumer_ops_;
};

// The graph's inputs and outputs: the ports when given, else the tensors no
// op produces / no op consumes (each once, in order of first appearance).
std::vector<tensor_id> graph_inputs(const graph &g);
std::vector<tensor_id> graph_outputs(const graph &g);

// The first tensor `o` reads or writes whose rank is unknown
// (logical_tensor::rank_known), or nothing: such an op is left unverified,
// uninferred and unclaimed, never taken for one on scalars.
std::optional<tensor_id> tensor_of_unknown_rank(const graph &g, const op &o);

} // namespace reshaper::impl
