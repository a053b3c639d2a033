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
#include "backend/compiled_partition_cache.hpp"
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

// The request a partition handle was last compiled with and the cache
// entry that served it. Hosts compile one partition with the same tensors
// again and again; a request equal to the last one byte for byte (the same
// C tensors, which were checked then, and the same engine) goes to that
// entry directly: no conversion, no key read (hashing and comparing the key
// were half of a cache-hit compile: callgrind, api_bench). The cache still
// decides: an entry evicted or cleared meanwhile sends the request the
// whole way.
struct reshaper_compile_memo {
    std::mutex mutex;
    std::shared_ptr<const reshaper::impl::engine> engine; // held: its address stays unique
    std::size_t num_inputs = 0;
    std::vector<reshaper_logical_tensor_t> given; // the inputs then the outputs, as passed
    reshaper::impl::compiled_partition_cache::entry_ref served;
};

struct reshaper_partition {
    std::shared_ptr<const reshaper::impl::graph> graph;
    reshaper::impl::partition partition;
    // Shared by copies of the handle: they name one partition.
    std::shared_ptr<reshaper_compile_memo> compile_memo = std::make_shared<reshaper_compile_memo>();
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
        : compiled(std::move(cp)), prepared(compiled->prepared()) {}

    std::shared_ptr<const reshaper::impl::compiled_partition> compiled;
    // A copy of compiled's prepared execute: the execute reads it from the
    // handle, without the loads through the partition to its program.
    reshaper::impl::prepared_execute prepared;
    // lowering_details() and why_not_alias() return by value; the C API
    // hands out pointers. Made at the first query, not per compile (a
    // cache-hit compile costs the handle only).
    std::once_flag details_once, why_not_alias_once;
    std::string details, why_not_alias;
};
