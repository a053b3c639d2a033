// Where streaming stores start to pay once the next op reads the output:
// an f32 move (a transpose, [N, 256, 196] NCHW windows as NHWC, and a
// dense copy) of 2 to 64 MiB, each followed by a sum over its output,
// with streaming stores forced on and off (the testing override of
// streaming_threshold_bytes()). The crossover, set against the machine's
// last-level cache, chose the threshold's fraction (docs/performance.md,
// "Streaming stores and the last-level cache").
//
//   llc_stream_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//                    --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

#include "core/line_aligned.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/strided_copy.hpp"

using namespace reshaper::impl;

namespace {

// A read at memory speed (integer words: the adds vectorise).
std::uint64_t sum_of(const line_aligned_bytes &b, std::size_t bytes) {
    const auto *w = reinterpret_cast<const std::uint64_t *>(b.data());
    return std::accumulate(w, w + bytes / sizeof(std::uint64_t), std::uint64_t{0});
}

void move_then_read(benchmark::State &state, bool transpose, bool streamed) {
    const std::size_t mib = static_cast<std::size_t>(state.range(0)), bytes = mib << 20;
    constexpr dim_t c = 256, hw = 196;
    const dim_t n = static_cast<dim_t>(bytes / (c * hw * 4));
    const std::size_t used = static_cast<std::size_t>(n * c * hw * 4);
    line_aligned_bytes src(used, 0x3F), dst(used, 0);
    const dims_t dims{n, hw, c};
    const strided_tensor from{src.data(), 0, transpose ? dims_t{c * hw, 1, hw} : dims_t{c * hw, c, 1}};
    const strided_tensor to{dst.data(), 0, {c * hw, c, 1}};
    override_streaming_threshold_for_testing(streamed ? 1 : std::numeric_limits<std::size_t>::max());
    for (auto _ : state) {
        strided_copy(data_type::f32, dims, from, to);
        benchmark::DoNotOptimize(sum_of(dst, used));
    }
    override_streaming_threshold_for_testing(std::nullopt);
    state.counters["llc_MiB"] = static_cast<double>(last_level_cache_bytes() >> 20);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * used));
}

void register_all() {
    for (bool transpose : {true, false})
        for (bool streamed : {false, true}) {
            const std::string name = std::string(transpose ? "transpose" : "copy") + (streamed ? "/streamed" : "/cached");
            benchmark::RegisterBenchmark(name.c_str(), move_then_read, transpose, streamed)
                ->ArgName("MiB")
                ->Arg(2)->Arg(4)->Arg(6)->Arg(8)->Arg(12)->Arg(16)->Arg(32)->Arg(64)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
        }
}

const int registered = (register_all(), 0);

} // namespace
