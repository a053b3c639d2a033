// Reading graph files: large texts on more than one thread with their ops
// parsed side by side (io/parallel_read.hpp); else, and when a text does
// not read so, the text through the JSON reader, each op of "graph" into
// the graph as the reader hands it over (io/graph_builder.hpp), on a TBB
// worker for large texts (io/op_pipeline.hpp). Writing: graph_write.cpp.
#include "io/graph_json.hpp"
#include "core/fail.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <system_error>

#include <tbb/global_control.h>

#include "core/limits.hpp"
#include "io/graph_builder.hpp"
#include "io/json_dom.hpp"
#include "io/op_pipeline.hpp"
#include "io/parallel_read.hpp"
#include "io/values_json.hpp"

namespace reshaper::impl {
namespace {

using graph_io::graph_builder;
using graph_io::op_reading_pipeline;

[[noreturn]] void too_large(const std::string &what, std::uint64_t limit) {
    fail(rule::max_graph_bytes, what + " is larger than the limit of " + format_bytes(limit) +
                                    " (RESHAPER_MAX_GRAPH_BYTES)");
}

// Texts from this size on are read through the pipeline when two threads
// may run (tbb::global_control, as reshaper-run --threads sets it): below,
// handing ops over costs more than it saves.
constexpr std::size_t pipelined_text_bytes = std::size_t{1} << 20;

bool pipelined(std::size_t text_bytes) {
    return text_bytes >= pipelined_text_bytes &&
           tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) > 1;
}

// Ops per task when they are parsed side by side: some 40 KB of text, a
// few hundred microseconds of parsing, against some microseconds a task.
constexpr std::size_t ops_per_task = 128;

// `owned`, when given, holds `text` and is released once the text is read,
// before the graph is finished (a file's text is its size again in memory).
// `pipeline_batch`: ops per batch of the pipeline, which 0 leaves to the
// text's size and the threads. `side_by_side_ops`: ops per task, to
// read ops side by side whatever the text's size and the threads.
// `reread`: the text of `owned` once more (its file's), should reading
// side by side have let go of a part of it and then not read.
graph read_streamed(std::string_view text, std::string *owned, std::size_t pipeline_batch = 0,
                    std::size_t side_by_side_ops = 0, const std::function<std::string()> &reread = {}) {
    const resource_limits limits = current_limits();
    if (text.size() > limits.max_graph_bytes)
        too_large("the graph's JSON text (" + std::to_string(text.size()) + " bytes)", limits.max_graph_bytes);
    // Large texts on more than one thread: ops parsed side by side, when
    // the text reads so (io/parallel_read.hpp); else in turn, below.
    if (side_by_side_ops > 0 || (pipeline_batch == 0 && pipelined(text.size()))) {
        bool lost = false;
        if (auto g = graph_io::read_graph_side_by_side(text, owned, limits.max_json_depth,
                                                       side_by_side_ops > 0 ? side_by_side_ops : ops_per_task, &lost))
            return std::move(*g);
        if (lost) {
            if (!reread) fail(rule::file_readable, "cannot read the graph's text again"); // never: only files lose it
            *owned = reread();
            text = *owned;
        }
    }
    graph_builder builder(text.size());
    std::optional<op_reading_pipeline> pipeline;
    if (pipeline_batch > 0) pipeline.emplace(builder, pipeline_batch, 2);
    else if (pipelined(text.size())) pipeline.emplace(builder);
    const streamed_array ops{"graph", [&] { pipeline ? pipeline->start() : builder.start(); },
                             [&](json_view j) { pipeline ? pipeline->element(j) : builder.add(j); }};
    // A text of our own is read in place (then dropped: the tree holds what is left to read).
    const json_tree tree = owned ? parse_json_tree_in_place(*owned, limits.max_json_depth, &ops)
                                 : parse_json_tree(text, limits.max_json_depth, &ops);
    if (pipeline) pipeline->finish();
    if (owned) std::string().swap(*owned);
    return builder.finish(tree.root(), true);
}
} // namespace

graph read_graph_json(std::string_view text) { return read_streamed(text, nullptr); }



namespace {
std::string file_text(const std::string &path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        fail(rule::file_readable, "cannot read graph file '" + path + "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(rule::file_readable, "cannot read graph file '" + path + "': " +
                                      std::generic_category().message(errno));
    // Read in chunks: JSON text never holds a NUL byte, so an endless stream
    // such as /dev/zero stops at its first chunk instead of filling memory.
    const std::uint64_t limit = current_limits().max_graph_bytes;
    std::string text;
    // A regular file's size is known: one allocation of exactly that, not a
    // doubling string (whose last growth held twice the file at its peak).
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size <= limit)
        text.reserve(static_cast<std::size_t>(size));
    std::array<char, 1 << 16> chunk;
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
        const auto n = static_cast<std::size_t>(in.gcount());
        if (text.size() + n > limit) too_large("graph file '" + path + "'", limit);
        if (const void *nul = std::memchr(chunk.data(), 0, n))
            fail(rule::json_syntax,
                 "malformed JSON: graph file '" + path + "' holds a NUL byte at offset " +
                     std::to_string(text.size() + static_cast<std::size_t>(
                                                      static_cast<const char *>(nul) -
                                                      chunk.data())));
        text.append(chunk.data(), n);
    }
    if (in.bad()) fail(rule::file_readable, "cannot read graph file '" + path + "'");
    return text;
}

graph read_file(const std::string &path, std::size_t side_by_side_ops) {
    std::string text = file_text(path);
    return read_streamed(text, &text, 0, side_by_side_ops, [&] { return file_text(path); });
}
} // namespace

graph read_graph_file(const std::string &path) { return read_file(path, 0); }

namespace detail {
graph read_graph_json_pipelined(std::string_view text, std::size_t batch_ops) {
    return read_streamed(text, nullptr, std::max<std::size_t>(1, batch_ops));
}

graph read_graph_json_side_by_side(std::string_view text, std::size_t ops_per_task) {
    return read_streamed(text, nullptr, 0, std::max<std::size_t>(1, ops_per_task));
}
graph read_graph_file_side_by_side(const std::string &path, std::size_t ops_per_task) {
    return read_file(path, std::max<std::size_t>(1, ops_per_task));
}

graph read_graph_json_whole(std::string_view text) {
    const resource_limits limits = current_limits();
    if (text.size() > limits.max_graph_bytes)
        too_large("the graph's JSON text (" + std::to_string(text.size()) + " bytes)", limits.max_graph_bytes);
    const json_tree tree = parse_json_tree(text, limits.max_json_depth);
    return graph_builder().finish(tree.root(), false);
}
} // namespace detail


tensor_values values_from_json(std::string_view list, data_type type, std::size_t count) {
    return graph_io::values_from(parse_json_tree(list, current_limits().max_json_depth).root(), type, count);
}


} // namespace reshaper::impl
