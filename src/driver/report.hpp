// The driver's reports: one JSON object per graph file and line (contract,
// section 2), or a table for people.
#pragma once

#include <string>

#include "driver/graph_run.hpp"

namespace reshaper::driver {

std::string json_report(const graph_run &run, const options &opts);
std::string text_report(const graph_run &run, const options &opts);

} // namespace reshaper::driver
