#include "driver/partition_perf.hpp"

#include <algorithm>
#include <functional>

#include <tbb/global_control.h>

#include "core/checked_math.hpp"
#include "core/element_codec.hpp"
#include "driver/partition_data.hpp"
#include "driver/perf_timing.hpp"
#include "driver/yardstick.hpp"
#include "kernels/cpu_isa.hpp"

namespace reshaper::driver {
namespace {

std::int64_t logical_bytes(const impl::logical_tensor &lt) {
    const auto count = impl::checked_volume(lt.shape).value_or(0);
    return static_cast<std::int64_t>(impl::dense_bytes(lt.dtype, static_cast<std::size_t>(count)));
}

int driver_threads() {
    return static_cast<int>(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

} // namespace

void time_partition(partition_run &pr, const impl::compiled_partition &cp, const impl::graph &g,
                    const options &opts) {
    std::vector<host_tensor> inputs = make_inputs(g, pr.part, cp.inputs());
    std::vector<host_tensor> outputs = make_outputs(cp);
    const auto in_ptrs = input_pointers(inputs);
    const auto out_ptrs = output_pointers(outputs);

    perf_figures f;
    const std::size_t data_at = data_position(g, pr.part);
    f.bytes = logical_bytes(cp.inputs().at(data_at));
    for (const impl::logical_tensor &d : cp.outputs()) f.bytes += logical_bytes(d);
    // The yardsticks: copies of as many bytes (half read, half written)
    // from the data input's buffer into the first output's (line-aligned,
    // written once before: host_tensor), timed in turn with the execute so
    // a noisy neighbour slows all alike.
    const std::size_t copy_bytes =
        std::min({static_cast<std::size_t>(f.bytes / 2), inputs[data_at].buffer_bytes(),
                  outputs.empty() ? std::size_t{0} : outputs[0].buffer_bytes()});
    std::vector<std::function<void()>> runs{[&] { cp.execute(in_ptrs, out_ptrs); }};
    const int threads = driver_threads();
    if (copy_bytes > 0) {
        void *to = outputs[0].data();
        const void *from = inputs[data_at].data();
        runs.push_back([=] { yardstick_copy(yardstick::memcpy, to, from, copy_bytes, threads); });
        runs.push_back([=] { yardstick_copy(yardstick::streaming_copy, to, from, copy_bytes, threads); });
    }
    std::vector<std::vector<void *>> shared;
    if (cp.lowering() == impl::lowering_kind::alias) {
        shared.push_back(in_place_outputs(cp, inputs));
        runs.push_back([&] { cp.execute(in_ptrs, shared[0]); });
    }
    // Moves whose input and outputs fit the last-level cache are timed
    // from the cache, as their in-cache yardsticks are.
    const bool fits_cache = static_cast<std::size_t>(f.bytes) <= impl::last_level_cache_bytes();
    const std::vector<timed> t =
        time_in_turn(opts.reps, runs, fits_cache ? sample_start::in_cache : sample_start::as_left);
    f.ms = t[0].ms;
    f.batch = t[0].batch;
    f.gbps = f.ms > 0 ? static_cast<double>(f.bytes) / (f.ms * 1e6) : 0;
    const auto gbps_of = [&](const timed &copy) { return 2.0 * static_cast<double>(copy_bytes) / (copy.ms * 1e6); };
    if (copy_bytes > 0) {
        if (t[1].ms > 0) f.memcpy_gbps = gbps_of(t[1]);
        if (t[2].ms > 0) f.stream_gbps = gbps_of(t[2]);
        f.yardstick_threads = yardstick_threads(copy_bytes, threads);
    }
    if (!shared.empty()) f.inplace_ms = t.back().ms;
    pr.perf = f;
}

std::optional<double> cores_of_driver_threads() {
    const int threads = driver_threads();
    if (threads < 2) return std::nullopt;
    static const double cores = cores_got(threads, 3);
    return cores;
}

timed_machine timing_machine() {
    timed_machine m;
    m.facts = impl::current_machine();
    m.tuning = impl::active_kernel_tuning();
    m.listed_last_level_cache_bytes = impl::listed_last_level_cache_bytes();
    m.last_level_cache_bytes = impl::last_level_cache_bytes();
    m.core_cache_bytes = impl::core_cache_bytes();
    return m;
}

} // namespace reshaper::driver
