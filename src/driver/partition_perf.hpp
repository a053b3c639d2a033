// Perf mode for one compiled partition: its execute timed against the
// yardstick copies of the same bytes between the same buffers.
#pragma once

#include "backend/compiled_partition.hpp"
#include "driver/graph_run.hpp"

namespace reshaper::driver {

// Fills pr.perf: the median time of one execute (batched where one is under
// batch_below_ns, perf_timing.hpp), the bytes it reads and writes, and
// memcpy's and the streaming copy's speeds on the same bytes, buffers and
// thread limit, timed in turn with it.
void time_partition(partition_run &pr, const impl::compiled_partition &cp, const impl::graph &g,
                    const options &opts);

// How many cores the driver's threads really get (yardstick.hpp's
// cores_got), measured once per process; nothing on one thread.
std::optional<double> cores_of_driver_threads();

// The facts of this machine the kernels count on (read once by them).
timed_machine timing_machine();

} // namespace reshaper::driver
