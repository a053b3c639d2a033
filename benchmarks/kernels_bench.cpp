// GB/s of strided_copy on 64 MiB tensors: dense (one memcpy-like run) and
// permuted (a 2-D transpose: the inner loop gathers), for f32, s64 and the
// packed s4 and s2. Bytes counted are bytes read plus bytes written, as in
// reshaper-run --mode=perf.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/strided_copy.hpp"

using namespace reshaper::impl;

namespace {

constexpr std::size_t buffer_bytes = std::size_t{64} << 20;

void copy_benchmark(benchmark::State &state, data_type type, bool permuted) {
    const auto elements = static_cast<dim_t>(buffer_bytes * 8 / element_bits(type));
    const dim_t cols = 4096, rows = elements / cols;
    std::vector<std::uint8_t> src(buffer_bytes, 0x5A), dst(buffer_bytes, 0);
    // Permuted: the source holds the [cols, rows] transpose, read as [rows, cols].
    const strided_tensor from{src.data(), 0, permuted ? dims_t{1, rows} : dims_t{cols, 1}};
    const strided_tensor to{dst.data(), 0, {cols, 1}};
    for (auto _ : state) {
        strided_copy(type, {rows, cols}, from, to);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                            static_cast<std::int64_t>(buffer_bytes));
}

} // namespace

BENCHMARK_CAPTURE(copy_benchmark, f32_dense, data_type::f32, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, f32_permuted, data_type::f32, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, s64_dense, data_type::s64, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, s64_permuted, data_type::s64, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, s4_dense, data_type::s4, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, s4_permuted, data_type::s4, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, s2_dense, data_type::s2, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(copy_benchmark, s2_permuted, data_type::s2, true)->Unit(benchmark::kMillisecond)->UseRealTime();
