#include "driver/perf_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace reshaper::driver {
namespace {

using clock_type = std::chrono::steady_clock;

double ns_of(clock_type::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

// Wall time of `count` runs, in ns.
double elapsed_ns(const std::function<void()> &run, std::size_t count) {
    const auto start = clock_type::now();
    for (std::size_t i = 0; i < count; ++i) run();
    return ns_of(clock_type::now() - start);
}

double median(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

} // namespace

std::size_t runs_per_sample(double one_run_ns) {
    if (!(one_run_ns < batch_below_ns)) return 1; // NaN too
    const double runs = std::ceil(batch_below_ns / std::max(one_run_ns, 0.01));
    return std::min(max_runs_per_sample, static_cast<std::size_t>(runs));
}

std::vector<timed> time_in_turn(int samples, const std::vector<std::function<void()>> &runs, sample_start start,
                                double warm_up_alone) {
    std::vector<timed> out(runs.size());
    // Warm-up: two runs of each in turn, then each alone for warm_up_alone
    // ns (warm_up_alone_ns: why), then one timed alone (the least of three)
    // to size its batch.
    for (int i = 0; i < 2; ++i)
        for (const auto &run : runs) run();
    for (const auto &run : runs)
        for (const auto alone_start = clock_type::now(); ns_of(clock_type::now() - alone_start) < warm_up_alone;) run();
    for (std::size_t k = 0; k < runs.size(); ++k) {
        double least = elapsed_ns(runs[k], 1);
        for (int i = 0; i < 2; ++i) least = std::min(least, elapsed_ns(runs[k], 1));
        out[k].batch = runs_per_sample(least);
    }
    std::vector<std::vector<double>> per_run(runs.size());
    for (int s = 0; s < std::max(samples, 1); ++s)
        for (std::size_t k = 0; k < runs.size(); ++k) {
            if (start == sample_start::in_cache)
                for (int i = 0; i < in_cache_settling_runs; ++i) runs[k]();
            per_run[k].push_back(elapsed_ns(runs[k], out[k].batch) / static_cast<double>(out[k].batch));
        }
    for (std::size_t k = 0; k < runs.size(); ++k) out[k].ms = median(std::move(per_run[k])) / 1e6;
    return out;
}

} // namespace reshaper::driver
