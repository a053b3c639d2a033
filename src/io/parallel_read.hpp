// A large graph file's ops parsed on every thread (issue 27). Parsing the
// text was the critical path of reading on two threads: some 1.28 G
// instructions per 100,000 ops against 0.45 G for building the ops from
// the parsed text, so the thread that built them idled half the time.
//
// A scan finds the top-level "graph" array and the bounds of its elements
// (commas and the closing bracket outside strings and nested brackets, 64
// bytes at a time); the elements are parsed side by side, a chunk of them
// a task (json_value_reader), and built into the graph in their order
// (graph_builder::add), so the graph and its first error are those of
// reading in turn; the text around the array is read last
// (parse_json_tree_around). The scan only guesses where the ops lie: each
// piece is read as JSON of its own and the commas between them are the
// scan's, so the pieces read well exactly when the whole text does. When
// any piece does not (malformed text, a file laid out otherwise: the key
// "graph" twice or escaped, not an array), nothing is kept and the caller
// reads the whole text in turn, which gives the error with its place.
// Internal to src/io.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.hpp"

namespace reshaper::impl::graph_io {

// Where the array of `key` in a JSON text's top-level object opens (the
// offset of its '['), when the text starts as a graph file does: an object
// (after a byte order mark and white space) whose members before `key`
// have keys without escapes. Nothing otherwise, or when `key` holds no
// array. A guess for well-formed text only.
std::optional<std::size_t> find_top_level_array(std::string_view text, std::string_view key);

struct text_span {
    std::size_t begin, end;
    bool operator==(const text_span &) const = default;
};

// The elements of a JSON array, found from just after its '['.
class array_elements_scan {
public:
    array_elements_scan(std::string_view text, std::size_t first) : text_(text), at_(first), element_(first) {}

    // Scans on until `count` more elements (white space trimmed) are in
    // `out` or the array closes. False when the text cannot be such an
    // array: a NUL byte, an empty element, the text ending first.
    bool next(std::size_t count, std::vector<text_span> &out);
    bool closed() const { return closed_; }
    // The closing bracket's offset, once closed.
    std::size_t close() const { return close_; }

private:
    bool block(const char *p, std::vector<text_span> &out);     // 64 bytes, no backslash
    bool bytes(std::size_t n, std::vector<text_span> &out);     // any, one at a time
    bool element_ends(std::size_t at, std::vector<text_span> &out); // a comma at depth 0
    void closes(std::size_t at, std::vector<text_span> &out);       // the array's bracket

    std::string_view text_;
    std::size_t at_;       // the next byte to scan
    std::size_t element_;  // where the element being scanned began
    std::size_t commas_ = 0;
    std::size_t depth_ = 0; // brackets open inside the array
    bool in_string_ = false, escaped_ = false;
    bool closed_ = false, failed_ = false;
    std::size_t close_ = 0;
};

// The graph of `text`, its ops parsed on the threads of the arena, each
// task `ops_per_task` ops; nothing when the text is not laid out as the
// scan expects or does not read (see above): the caller then reads it in
// turn. `owned`, when given, holds `text` (a file's, which holds no NUL
// byte): ops are parsed in place and the pages of those built let go of;
// on nothing it is put back as it was, unless `*text_lost` is set (pages
// went: the caller reads the file again); on a graph it is let go of
// before the graph is finished. The size limit is the caller's to have
// checked; `max_depth` is the nesting limit.
std::optional<graph> read_graph_side_by_side(std::string_view text, std::string *owned, std::uint64_t max_depth,
                                             std::size_t ops_per_task, bool *text_lost);

} // namespace reshaper::impl::graph_io
