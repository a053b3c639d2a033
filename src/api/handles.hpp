// What the C API's opaque handles hold. Graph snapshots are shared and
// immutable, so partition lists and compiled partitions outlive the handle
// they came from.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "core/graph.hpp"
#include "partition/partitioner.hpp"

struct reshaper_graph {
    std::shared_ptr<const reshaper::impl::graph> graph;
    bool inferred = false; // validated and shapes inferred
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
        : compiled(std::move(cp)), why_not_alias(compiled->why_not_alias()) {}

    std::shared_ptr<const reshaper::impl::compiled_partition> compiled;
    // lowering_details() returns by value; the C API hands out a pointer.
    std::once_flag details_once;
    std::string details;
    std::string why_not_alias;
};
