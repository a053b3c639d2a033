// The driver's reports: one JSON object per graph file and line (contract,
// section 2), or a table for people.
#pragma once

#include <cstdio>
#include <string>

#include "driver/graph_run.hpp"

namespace reshaper::driver {

std::string json_report(const graph_run &run, const options &opts);
// Written to `to` as it is made, a piece at a time (it can be tens of MB).
void write_text_report(std::FILE *to, const graph_run &run, const options &opts);
// The text report's last line: "summary: ok, 5 partitions, 3 claimed,
// lowerings: 2 alias, 1 reorder, 0 kernel, check: 3 passed, 0 failed, 1.234 ms".
std::string summary_line(const graph_run &run, const options &opts);

} // namespace reshaper::driver
