// The driver's reports: one JSON object per graph file and line (contract,
// section 2), or a table for people.
#pragma once

#include <cstdio>
#include <string>

#include "driver/graph_run.hpp"

namespace reshaper::driver {

// Both written to `to` as they are made, a piece at a time (they can be
// tens of MB); the JSON report is one line, without its newline.
void write_json_report(std::FILE *to, const graph_run &run, const options &opts);
void write_text_report(std::FILE *to, const graph_run &run, const options &opts);
// The text report's last line: "summary: ok, 5 partitions, 3 claimed,
// lowerings: 2 alias, 1 reorder, 0 kernel, check: 3 passed, 0 failed, 1.234 ms".
std::string summary_line(const graph_run &run, const options &opts);

} // namespace reshaper::driver
