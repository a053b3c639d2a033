// Check and infer mode over threads: partitions run side by side, level by
// level, with the outcome of running them one at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "driver/graph_run.hpp"

namespace reshaper::driver {

// What one partition's compile and check change outside its partition_run:
// kept apart so that partitions can run side by side and be applied in
// partition order.
struct partition_result {
    std::optional<bool> passed;         // checked: whether it passed
    std::vector<output_values> values;  // --values: its outputs' values
    // Side by side: the graph's descriptions of its outputs before
    // compile's replaced them, to put back should an earlier partition fail.
    std::vector<impl::logical_tensor> replaced;
};

// The check counts and values of the first `count` partitions' results, in
// partition order, into `run`.
void gather(graph_run &run, std::vector<partition_result> &results, std::size_t count);

// Runs `run_one(i, result)` for every partition i that `runs` (asked when its
// turn comes) over oneTBB's threads. A partition reads the descriptions its
// producers' compiles wrote into the graph, so partitions run level by
// level: a partition's level is one past its producers' highest (a graph of
// independent partitions is one level). Within a level none reads what
// another writes. The outcome is the one-at-a-time outcome: should a
// partition fail (run_one throws), the partitions before it still run,
// those after it are undone (their summaries and the graph descriptions
// they wrote: result.replaced), and its error is thrown.
void run_in_levels(graph_run &run, const std::function<bool(const partition_run &)> &runs,
                   const std::function<void(std::size_t, partition_result &)> &run_one);

} // namespace reshaper::driver
