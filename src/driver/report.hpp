// The driver's reports: one JSON object per graph file and line (contract,
// section 2), or a table for people.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/parallel_pipeline.h>

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
    // items are made side by side on the threads --threads allows and
    // written in order as each is done, at most `strips_held` of them made
    // and not yet written (a few hundred KB of text held): made one at a
    // time, the partitions and tensors of a 100,000-op graph were a serial
    // stretch after the check's parallel one. One pipeline for the whole
    // list: a parallel_for per round of 16 strips, as before, let the other
    // thread fall asleep between rounds (it made 2-3% of the strips, and
    // the report took as long on two threads as on one). `append` must
    // only read what it is given.
    template <class Append>
    void append_in_strips(std::size_t count, Append &&append) {
        constexpr std::size_t strip = 64, strips_held = 16;
        const std::size_t strips = (count + strip - 1) / strip;
        // Strip s is made in slot s % strips_held: at most strips_held
        // strips are in flight and the last stage writes them in order, so
        // strip s is written before strip s + strips_held is begun.
        std::vector<std::string> slots(std::min(strips, strips_held)); // kept with their capacity
        std::size_t next = 0;
        const auto next_strip = [&](tbb::flow_control &flow) -> std::size_t {
            if (next == strips) flow.stop();
            return next++;
        };
        const auto make_strip = [&](std::size_t s) {
            // In a string object of this thread's own (its buffer the
            // slot's): the slots' objects share cache lines, and each
            // append writes the size in the object (two threads appending
            // beside each other took 1.6 times as long as one).
            std::string text = std::move(slots[s % strips_held]);
            text.clear();
            for (std::size_t i = s * strip; i < std::min(count, (s + 1) * strip); ++i) append(text, i);
            slots[s % strips_held] = std::move(text);
            return s;
        };
        const auto write_strip = [&](std::size_t s) {
            text_ += slots[s % strips_held];
            at_a_break();
        };
        tbb::parallel_pipeline(strips_held,
                               tbb::make_filter<void, std::size_t>(tbb::filter_mode::serial_in_order, next_strip) &
                                   tbb::make_filter<std::size_t, std::size_t>(tbb::filter_mode::parallel, make_strip) &
                                   tbb::make_filter<std::size_t, void>(tbb::filter_mode::serial_in_order, write_strip));
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
