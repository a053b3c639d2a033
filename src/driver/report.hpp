// The driver's reports: one JSON object per graph file and line (contract,
// section 2), or a table for people.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/parallel_for.h>

#include "driver/graph_run.hpp"

namespace reshaper::driver {

// Report text appended in place and handed on to a FILE a piece at a time:
// both reports are written as they are made (tens of MB for large graphs),
// never held whole. The text and JSON writers build on it.
class piece_writer {
public:
    explicit piece_writer(std::FILE *to) : to_(to) { text_.reserve(2 * piece_bytes); }
    ~piece_writer() { hand_on(); }
    piece_writer(const piece_writer &) = delete;
    piece_writer &operator=(const piece_writer &) = delete;

    // Hands the text on once it is a piece long.
    void at_a_break() {
        if (text_.size() >= piece_bytes) hand_on();
    }

protected:
    // Appends items 0 to count - 1, item i by `append(text, i)`. Strips of
    // items are made side by side on the threads --threads allows, a round
    // of them at a time (a few hundred KB of text held), and written in
    // order: made one at a time, the partitions and tensors of a 100,000-op
    // graph were a serial stretch after the check's parallel one. `append`
    // must only read what it is given.
    template <class Append>
    void append_in_strips(std::size_t count, Append &&append) {
        constexpr std::size_t strip = 64, strips_a_round = 16;
        std::vector<std::string> strips(strips_a_round); // kept from round to round, with their capacity
        for (std::size_t from = 0; from < count; from += strip * strips_a_round) {
            const std::size_t to = std::min(count, from + strip * strips_a_round);
            const std::size_t made = (to - from + strip - 1) / strip;
            tbb::parallel_for(std::size_t{0}, made, [&](std::size_t s) {
                std::string &text = strips[s];
                text.clear();
                for (std::size_t i = from + s * strip; i < std::min(to, from + (s + 1) * strip); ++i) append(text, i);
            });
            for (std::size_t s = 0; s < made; ++s) {
                text_ += strips[s];
                at_a_break();
            }
        }
    }

    std::string text_;

private:
    static constexpr std::size_t piece_bytes = std::size_t{1} << 16;
    void hand_on() {
        std::fwrite(text_.data(), 1, text_.size(), to_);
        text_.clear();
    }
    std::FILE *to_;
};

// `s` as a JSON string in the JSON report: quoted, escaped as
// nlohmann::json dumps it (invalid UTF-8 replaced).
std::string json_string_text(std::string_view s);

// Both written to `to` as they are made, a piece at a time (they can be
// tens of MB); the JSON report is one line, without its newline.
void write_json_report(std::FILE *to, const graph_run &run, const options &opts);
void write_text_report(std::FILE *to, const graph_run &run, const options &opts);
// The text report's last line: "summary: ok, 5 partitions, 3 claimed,
// lowerings: 2 alias, 1 reorder, 0 kernel, check: 3 passed, 0 failed, 1.234 ms".
std::string summary_line(const graph_run &run, const options &opts);

} // namespace reshaper::driver
