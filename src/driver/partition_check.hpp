// Compile every supported partition (in infer mode: those whose shapes are
// all known), then execute it on the tensors' values or generated data and
// compare with the reference (check) or time it (perf).
#pragma once

#include "driver/graph_run.hpp"

namespace reshaper::driver {

// Fills run.partitions[*].compiled / check_passed / perf, run.outputs and the
// check counts, and writes the compiled output layouts into run.graph.
void compile_and_run_partitions(graph_run &run, const options &opts);

} // namespace reshaper::driver
