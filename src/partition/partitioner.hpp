// The partitioner: claims the ops this backend handles, fuses chains of
// reshapes, and leaves every other op to other backends.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/engine_kind.hpp"
#include "core/graph.hpp"

namespace reshaper::impl {

// What a backend claims on one engine kind. The partitioner knows the op
// family (the op registry) and leaves ops whose tensors have an unknown
// rank; of the rest it asks the backend, which knows what its engine can
// move (backend/claims.hpp). The partitioner sits below the backend, so it
// receives this instead of reaching up into it.
class backend_support {
public:
    virtual ~backend_support() = default;
    // The engine kind partitioned for (named in the verbose lines).
    virtual engine_kind engine() const = 0;
    // Why the backend leaves `o` (an op of the family whose tensors have
    // known ranks) to others on this engine, or "" when it claims it.
    // Asked from several threads at once for large graphs (get_partitions).
    virtual std::string refusal(const graph &g, const op &o) const = 0;
};

enum class partition_policy { fusion, debug };

using partition_ops = absl::InlinedVector<std::size_t, 2>;

struct partition {
    std::size_t id = 0;
    bool supported = false;
    // Lists held inside the record up to two entries (most partitions of a
    // large file are one op with one input and one output): three heap
    // blocks per partition otherwise, 100,000 partitions' worth at once.
    partition_ops op_indices; // into graph::ops, producers first
    tensor_ids inputs;        // boundary tensors, in op input order
    tensor_ids outputs;
    std::string reason;                  // why unsupported
};

// Partitions covering every op exactly once, producers before consumers.
// fusion: a chain of claimed ops (each output consumed only by the next op
// of the chain, and perhaps also a graph output, which the partition then
// produces too) is one partition; debug: one op per partition.
// `backend` says which ops of the family it claims on its engine. Linear in
// the number of ops. The graph must be valid (validate_graph) beforehand.
std::vector<partition> get_partitions(const graph &g, partition_policy policy, const backend_support &backend);
// The same over the graph's topology, built already (infer_graph_shapes
// returns it).
std::vector<partition> get_partitions(const graph &g, const graph_topology &topo, partition_policy policy,
                                      const backend_support &backend);

// Where the partition's data input (its first op's first input: what a
// chain moves) stands among p.inputs; nothing when it is not a
// boundary input.
std::optional<std::size_t> data_input_position(const graph &g, const partition &p);

} // namespace reshaper::impl
