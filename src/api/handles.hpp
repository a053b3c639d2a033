// What the C API's opaque handles hold. Graph snapshots are shared and
// immutable, so partition lists and compiled partitions outlive the handle
// they came from.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "core/graph.hpp"
#include "partition/partitioner.hpp"

// A graph is built (reshaper_graph_create and the builder) or read from
// JSON, then finalized once: validated and its shapes inferred, by the same
// code for both. Finalized, it is immutable and shared by any number of
// threads; `mutex` guards everything before that.
struct reshaper_graph {
    reshaper_graph() = default;
    explicit reshaper_graph(std::shared_ptr<const reshaper::impl::graph> g) : graph(std::move(g)) {}

    // Read from JSON: the graph as read, then (finalized) as inferred.
    std::shared_ptr<const reshaper::impl::graph> graph;
    // Built in code: the ops and tensors added so far (graph is null until
    // finalize).
    bool built = false;
    reshaper::impl::graph building;
    std::atomic<bool> finalized{false};
    mutable std::mutex mutex;
};

// The op a builder fills (reshaper_op_create ...): copied into the graph by
// reshaper_graph_add_op.
struct reshaper_op {
    reshaper::impl::op op;
    std::vector<reshaper::impl::logical_tensor> inputs, outputs;
};

struct reshaper_partition {
    std::shared_ptr<const reshaper::impl::graph> graph;
    reshaper::impl::partition partition;
};

struct reshaper_partition_list {
    std::vector<reshaper_partition> partitions;
};

struct reshaper_engine {
    std::shared_ptr<const reshaper::impl::engine> engine;
};

// A compiled partition copies what it needs from the graph.
struct reshaper_compiled_partition {
    explicit reshaper_compiled_partition(
            std::shared_ptr<const reshaper::impl::compiled_partition> cp)
        : compiled(std::move(cp)) {}

    std::shared_ptr<const reshaper::impl::compiled_partition> compiled;
    // lowering_details() and why_not_alias() return by value; the C API
    // hands out pointers. Made at the first query, not per compile (a
    // cache-hit compile costs the handle only).
    std::once_flag details_once, why_not_alias_once;
    std::string details, why_not_alias;
};
