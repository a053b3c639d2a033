// The driver's reports: one JSON object per graph file and line (contract,
// section 2), or a table for people.
#pragma once

#include <cstdio>
#include <string>

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
    std::string text_;

private:
    static constexpr std::size_t piece_bytes = std::size_t{1} << 16;
    void hand_on() {
        std::fwrite(text_.data(), 1, text_.size(), to_);
        text_.clear();
    }
    std::FILE *to_;
};

// Both written to `to` as they are made, a piece at a time (they can be
// tens of MB); the JSON report is one line, without its newline.
void write_json_report(std::FILE *to, const graph_run &run, const options &opts);
void write_text_report(std::FILE *to, const graph_run &run, const options &opts);
// The text report's last line: "summary: ok, 5 partitions, 3 claimed,
// lowerings: 2 alias, 1 reorder, 0 kernel, check: 3 passed, 0 failed, 1.234 ms".
std::string summary_line(const graph_run &run, const options &opts);

} // namespace reshaper::driver
