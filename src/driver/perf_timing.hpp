// Perf mode's clock work: medians of samples timed in turn, and samples
// that hold a batch of runs where one run is too short for the clock.
// Pure timing: what is run (executes, yardstick copies) is the caller's.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace reshaper::driver {

// A run shorter than this is timed in batches: a single timed 4 KiB
// memcpy measured 220 ns here and 89 ns in a loop (issue 27): the clock's
// own cost, not the copy's, would be the figure.
inline constexpr double batch_below_ns = 10'000;
// The most runs one sample holds (a run of a few ns: a sample of ~10 us).
inline constexpr std::size_t max_runs_per_sample = std::size_t{1} << 16;

// How many runs one timed sample holds, given one run's time in ns: 1 from
// batch_below_ns on; below, enough runs that a sample lasts about
// batch_below_ns (at most max_runs_per_sample).
std::size_t runs_per_sample(double one_run_ns);

struct timed {
    double ms = 0;          // median time of one run
    std::size_t batch = 1;  // runs per timed sample
};

// Whether each timed sample is preceded by untimed runs of the same.
// Runs in turn disturb each other's caches: a streaming copy timed before
// an execute evicts the lines the execute writes, so a move the caches
// would hold starts cold, while the memcpy after it finds them warm.
// With `in_cache`, each run is timed in the cache state its own previous
// runs leave, as in a loop of it alone.
// One untimed run after the streaming copy does not settle the caches (the
// same execute measured slower there than after memcpy; after two untimed
// runs both positions measured alike: docs/performance.md, "Run grids and
// the in-cache timing"), so in_cache samples follow two.
enum class sample_start { as_left, in_cache };
inline constexpr int in_cache_settling_runs = 2;

// After two rounds of the runs in turn, the warm-up runs each one alone, in
// a loop, for at least this long: a process's first milliseconds of vector
// work run short moves slower (the execute more than memcpy), the samples
// of a 32 KiB move all fell in them, and rounds in turn with the streaming
// copy between did not end that state where a loop of each run alone did.
// Twice the loop that sufficed (docs/performance.md, "The driver's warm-up").
inline constexpr double warm_up_alone_ns = 1'000'000;

// `runs` timed in turn, sample by sample (so that a noisy neighbour slows
// them all alike), `samples` samples each, after a warm-up (two rounds in
// turn, then each alone for `warm_up_alone` ns) and one run of each timed
// alone to size its batch (runs_per_sample). Returns each one's median
// time per run.
std::vector<timed> time_in_turn(int samples, const std::vector<std::function<void()>> &runs,
                                sample_start start = sample_start::as_left,
                                double warm_up_alone = warm_up_alone_ns);

} // namespace reshaper::driver
