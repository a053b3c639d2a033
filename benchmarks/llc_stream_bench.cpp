// Where streaming stores start to pay once the next op reads the output:
// a move on one thread (a bf16 NHWC -> NCHW transpose, [N, 32, 32, 256] as
// the stop hook's; an f32 one, [N, 256, 196] NCHW windows as NHWC; a dense
// f32 copy) of 4 to 128 MiB, each followed at once by a sum over its output,
// with streaming stores forced on and off (the testing override of
// streaming_threshold_bytes()). The crossover, set against the machine's
// last-level cache, chose the threshold's fraction (docs/performance.md,
// "Streaming stores and the last-level cache", and the bullet on the
// cache counted).
//
//   chrt -f 10 llc_stream_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//                               --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <oneapi/tbb/global_control.h>

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

enum class move_kind { bf16_nhwc_as_nchw, f32_transpose, f32_copy };

void move_then_read(benchmark::State &state, move_kind kind, bool streamed) {
    const oneapi::tbb::global_control one_thread(oneapi::tbb::global_control::max_allowed_parallelism, 1);
    const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
    const bool bf16 = kind == move_kind::bf16_nhwc_as_nchw;
    const dim_t c = 256, hw = bf16 ? 1024 : 196, size = bf16 ? 2 : 4;
    const dim_t n = static_cast<dim_t>(bytes / static_cast<std::size_t>(c * hw * size));
    const std::size_t used = static_cast<std::size_t>(n * c * hw * size);
    line_aligned_bytes src(used, 0x3F), dst(used, 0);
    // dims (n, c, hw): the destination is NCHW; the source NHWC (bf16),
    // or NCHW read as NHWC (f32: dims (n, hw, c)), or the destination's own.
    const dims_t dims = bf16 ? dims_t{n, c, hw} : dims_t{n, hw, c};
    const strided_tensor from{src.data(), 0,
                              kind == move_kind::f32_copy ? dims_t{c * hw, c, 1} : dims_t{c * hw, 1, bf16 ? c : hw}};
    const strided_tensor to{dst.data(), 0, bf16 ? dims_t{c * hw, hw, 1} : dims_t{c * hw, c, 1}};
    const data_type type = bf16 ? data_type::bf16 : data_type::f32;
    override_streaming_threshold_for_testing(streamed ? 1 : std::numeric_limits<std::size_t>::max());
    for (auto _ : state) {
        strided_copy(type, dims, from, to);
        benchmark::DoNotOptimize(sum_of(dst, used));
    }
    override_streaming_threshold_for_testing(std::nullopt);
    state.counters["llc_MiB"] = static_cast<double>(last_level_cache_bytes() >> 20);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * used));
}

void register_all() {
    const std::pair<move_kind, const char *> kinds[] = {{move_kind::bf16_nhwc_as_nchw, "bf16_nhwc_as_nchw"},
                                                        {move_kind::f32_transpose, "f32_transpose"},
                                                        {move_kind::f32_copy, "f32_copy"}};
    for (const auto &[kind, kind_name] : kinds)
        for (bool streamed : {false, true}) {
            const std::string name = std::string(kind_name) + (streamed ? "/streamed" : "/cached");
            benchmark::RegisterBenchmark(name.c_str(), move_then_read, kind, streamed)
                ->ArgName("MiB")
                ->Arg(4)->Arg(6)->Arg(8)->Arg(12)->Arg(16)->Arg(32)->Arg(64)->Arg(128)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
        }
}

const int registered = (register_all(), 0);

} // namespace
