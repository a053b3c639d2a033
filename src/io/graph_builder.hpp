// The graph of a graph file, from its JSON as the reader hands it over.
// Internal to src/io.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <unordered_set>

#include "core/graph.hpp"
#include "core/limits.hpp"
#include "io/json_dom.hpp"
#include "io/tensor_table.hpp"

namespace reshaper::impl::graph_io {

// The graph of a file, built from the ops of "graph" as the parser hands
// them over one by one (json_dom.hpp: streamed_array), then from the other
// top-level fields. Errors come out as a reader of the whole DOM would give
// them: a syntax or nesting error anywhere first (the parser meets it, so
// an op's error waits until the text is read), then the top level's shape,
// the op limit, the first bad op, and the other fields.
class graph_builder {
public:
    // `text_bytes`: the size of the text being read, 0 when unknown.
    explicit graph_builder(std::size_t text_bytes = 0) : text_bytes_(text_bytes) {}

    // The streamed array opens (again, for a repeated key): the ops read
    // so far are dropped.
    void start();
    // The next op of "graph"; its error is kept for finish().
    void add(json_view j);
    // `root` is the DOM of the whole text with "graph" read already, or
    // else `streamed` is false and its elements are read now.
    graph finish(json_view root, bool streamed);

private:
    // Files number their ops in increasing order: an id above every earlier
    // one needs no look-up, and the set is made at the first that is not.
    bool id_repeats(std::int64_t id);

    std::uint64_t max_ops_ = current_limits().max_ops;
    std::size_t text_bytes_;
    graph g_;
    tensor_table tensors_{g_.ops};
    std::unordered_set<std::int64_t> op_ids_; // once the ids are out of order
    std::size_t ops_seen_ = 0;
    std::exception_ptr failure_; // of the first op that failed
};

} // namespace reshaper::impl::graph_io
