// Data movement against its yardsticks, in one program so the ratios come
// from the same run: for each layout a reshape meets, glibc's memcpy and a
// streaming-store copy of the same bytes (yardstick_copy, the driver's own
// from src/driver/yardstick.cpp: the same buffers, split over the same
// threads as the kernel may use), our kernel (a movement program planned once
// and run, as `kernel` lowerings run it) and a direct oneDNN reorder between the same layouts
// (for the dtypes it takes). Bytes counted are read plus written, as in
// reshaper-run --mode=perf.
//
//   movement_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//                  --benchmark_report_aggregates_only=true
// gives medians of interleaved repeats (scripts/bench.sh does this).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include <oneapi/tbb/task_arena.h>

#include "core/line_aligned.hpp"
#include "core/logical_tensor.hpp" // dense_strides
#include "driver/yardstick.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/strided_copy.hpp"

using namespace reshaper::impl;
namespace driver = reshaper::driver;

namespace {

// A move between two strided views of the same dims (element strides).
struct layout_case {
    std::string name;
    dims_t dims, src_strides, dst_strides;
    dim_t src_elements, dst_elements; // buffer sizes
};


// One buffer pair per size, reused by every mover so each sees warm pages;
// line-aligned as framework allocators give them.
line_aligned_bytes &buffer(int which, std::size_t bytes) {
    static line_aligned_bytes buffers[2];
    if (buffers[which].size() < bytes) buffers[which].assign(bytes, static_cast<std::uint8_t>(0x5A + which));
    return buffers[which];
}

// NHWC data seen as NCHW into dense NCHW: the transpose of the table.
layout_case nhwc_to_nchw(dim_t n, dim_t c, dim_t hw) {
    return {"nhwc_to_nchw", {n, c, hw}, {c * hw, 1, c}, {c * hw, hw, 1}, n * c * hw, n * c * hw};
}
// The inverse: NCHW data seen as NHWC into dense NHWC ([n, hw, c]).
layout_case nchw_to_nhwc(dim_t n, dim_t c, dim_t hw) {
    return {"nchw_to_nhwc", {n, hw, c}, {c * hw, 1, hw}, {c * hw, c, 1}, n * c * hw, n * c * hw};
}
// Every other row of a [rows, 2 * cols] tensor into a dense [rows, cols]: a slice.
layout_case sliced(dim_t rows, dim_t cols) {
    return {"sliced", {rows, cols}, {2 * cols, 1}, {cols, 1}, 2 * rows * cols, rows * cols};
}
// nChw16c (or 8c) as strided over [n, C/b, hw, b] into dense NCHW.
layout_case blocked_to_plain(dim_t n, dim_t c, dim_t hw, dim_t b) {
    const dim_t cb = c / b;
    return {"nChw" + std::to_string(b) + "c_to_nchw", {n, cb, b, hw},
            {cb * hw * b, hw * b, 1, b}, {c * hw, b * hw, hw, 1}, n * c * hw, n * c * hw};
}
// ABcd16a16b weights (oneDNN's blocked format for convolution weights: 16x16
// blocks over the first two dims) into plain abcd: a 2-D block, so both
// the source and the destination have a stride-1 dim that the other lacks.
layout_case abcd16a16b_to_plain(dim_t a, dim_t b, dim_t c, dim_t d) {
    const dim_t block = 16, blocks_b = b / block;
    // Dims (a/16, a%16, b/16, b%16, c, d), strides of each side over them.
    return {"ABcd16a16b_to_abcd", {a / block, block, blocks_b, block, c, d},
            {blocks_b * c * d * block * block, block, c * d * block * block, 1, d * block * block, block * block},
            {block * b * c * d, b * c * d, block * c * d, c * d, d, 1}, a * b * c * d, a * b * c * d};
}
// Plain NCHW into nChw16c: the blocked format's producer side.
layout_case plain_to_blocked(dim_t n, dim_t c, dim_t hw, dim_t b) {
    layout_case back = blocked_to_plain(n, c, hw, b);
    return {"nchw_to_nChw" + std::to_string(b) + "c", back.dims, back.dst_strides, back.src_strides,
            back.dst_elements, back.src_elements};
}
// A dense copy into a separate buffer (what an alias lowering executes
// when the caller gives it a new output buffer).
layout_case dense_copy(dim_t elements) {
    return {"dense_copy", {elements}, {1}, {1}, elements, elements};
}
// One row broadcast to every row (source stride 0).
layout_case broadcast(dim_t rows, dim_t cols) {
    return {"broadcast_rows", {rows, cols}, {0, 1}, {cols, 1}, cols, rows * cols};
}
// The attention merge-heads case: [16,2048,16,64] seen as [16,16,2048,64].
layout_case attention() {
    const dims_t dims{16, 16, 2048, 64};
    return {"attention_bhsd", dims, {2048 * 16 * 64, 64, 16 * 64, 1}, dense_strides(dims).value(), 16 * 2048 * 16 * 64,
            16 * 2048 * 16 * 64};
}

std::size_t bytes_of(data_type t, dim_t elements) {
    return static_cast<std::size_t>(elements) * element_bits(t) / 8;
}

void set_counters(benchmark::State &state, std::size_t moved) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * moved));
}

// Bytes read plus written by the move (the destination elements twice).
std::size_t moved_bytes(data_type t, const layout_case &c) {
    dim_t volume = 1;
    for (dim_t d : c.dims) volume *= d;
    return 2 * bytes_of(t, volume);
}

// A yardstick copy of the move's bytes (half read, half written) between
// the kernel's buffers, on as many threads as the kernel may take.
void bm_copy(benchmark::State &state, driver::yardstick kind, data_type t, layout_case c) {
    const std::size_t half = moved_bytes(t, c) / 2;
    auto &src = buffer(0, half), &dst = buffer(1, half);
    const int threads = oneapi::tbb::this_task_arena::max_concurrency();
    for (auto _ : state) {
        driver::yardstick_copy(kind, dst.data(), src.data(), half, threads);
        benchmark::ClobberMemory();
    }
    state.counters["threads"] = driver::yardstick_threads(half, threads);
    set_counters(state, 2 * half);
}

// As a kernel lowering executes: the move planned once (plan_movement, at
// compile time there), then run.
void bm_kernel(benchmark::State &state, data_type t, layout_case c) {
    auto &src = buffer(0, bytes_of(t, c.src_elements)), &dst = buffer(1, bytes_of(t, c.dst_elements));
    const movement_program program =
        plan_movement(make_copy_plan(c.dims, c.src_strides, 0, c.dst_strides, 0), t, current_machine());
    for (auto _ : state) {
        run_movement(program, src.data(), dst.data());
        benchmark::ClobberMemory();
    }
    set_counters(state, moved_bytes(t, c));
}

std::optional<dnnl::memory::data_type> native(data_type t) {
    switch (t) {
    case data_type::f32: return dnnl::memory::data_type::f32;
    case data_type::bf16: return dnnl::memory::data_type::bf16;
    case data_type::f16: return dnnl::memory::data_type::f16;
    case data_type::s32: return dnnl::memory::data_type::s32;
    case data_type::s8: return dnnl::memory::data_type::s8;
    case data_type::u8: return dnnl::memory::data_type::u8;
    default: return std::nullopt;
    }
}

void bm_onednn(benchmark::State &state, data_type t, layout_case c) {
    static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    auto &src = buffer(0, bytes_of(t, c.src_elements)), &dst = buffer(1, bytes_of(t, c.dst_elements));
    const dnnl::memory::dims dims(c.dims.begin(), c.dims.end());
    const dnnl::memory::desc from_md(dims, *native(t), dnnl::memory::dims(c.src_strides.begin(), c.src_strides.end()));
    const dnnl::memory::desc to_md(dims, *native(t), dnnl::memory::dims(c.dst_strides.begin(), c.dst_strides.end()));
    dnnl::memory from(from_md, eng, src.data()), to(to_md, eng, dst.data());
    dnnl::reorder r;
    try {
        r = dnnl::reorder(from, to);
    } catch (const dnnl::error &e) {
        state.SkipWithError(e.what());
        return;
    }
    dnnl::stream s(eng);
    for (auto _ : state) {
        r.execute(s, from, to);
        s.wait();
        benchmark::ClobberMemory();
    }
    set_counters(state, moved_bytes(t, c));
}

void add_case(data_type t, const layout_case &c, const std::string &size_label, bool with_onednn = true) {
    const std::string base = c.name + "/" + std::string(to_string(t)) + "/" + size_label + "/";
    benchmark::RegisterBenchmark((base + "memcpy").c_str(), bm_copy, driver::yardstick::memcpy, t, c)
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((base + "stream").c_str(), bm_copy, driver::yardstick::streaming_copy, t, c)
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((base + "reshaper").c_str(), bm_kernel, t, c)->UseRealTime()->Unit(benchmark::kMicrosecond);
    if (with_onednn && native(t))
        benchmark::RegisterBenchmark((base + "onednn").c_str(), bm_onednn, t, c)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

std::string size_label(std::size_t bytes) {
    if (bytes >= (std::size_t{1} << 20)) return std::to_string(bytes >> 20) + "MiB";
    return std::to_string(bytes >> 10) + "KiB";
}

void register_all() {
    const data_type classes[] = {data_type::f32, data_type::bf16, data_type::s8, data_type::s64,
                                 data_type::boolean, data_type::c128, data_type::s4, data_type::s2};
    // The table: [N,256,64,64] NHWC as NCHW, 64 MiB of f32 (N = 16).
    for (data_type t : classes) {
        const dim_t n = static_cast<dim_t>((std::size_t{64} << 20) * 8 / element_bits(t) / (256 * 4096));
        const layout_case c = nhwc_to_nchw(n, 256, 4096);
        add_case(t, c, size_label(moved_bytes(t, c) / 2));
    }
    // The issue's own size, N = 64: 256 MiB of f32 and 128 MiB of bf16,
    // past the size where glibc's memcpy turns to streaming stores (there
    // it ran 1.3-1.6x faster than at 64 MiB). oneDNN's bf16 reorder is its
    // reference kernel here (3.5 s a run at this size), so f32 only.
    for (data_type t : {data_type::f32, data_type::bf16}) {
        const layout_case c = nhwc_to_nchw(64, 256, 4096);
        add_case(t, c, size_label(moved_bytes(t, c) / 2), t == data_type::f32);
    }
    for (data_type t : {data_type::f16, data_type::s32, data_type::u8, data_type::f64})
        add_case(t, nhwc_to_nchw(16 * 4 / static_cast<dim_t>(element_bits(t) / 8), 256, 4096), "64MiB");
    // Cache levels: 4 KiB to 128 MiB in steps of 8x, then 512 MiB (far past
    // any cache; 1 GiB of buffers per dtype), of f32 and bf16, [N, 64, HW]
    // transposes.
    std::vector<std::size_t> size_steps;
    for (std::size_t bytes = std::size_t{4} << 10; bytes <= (std::size_t{128} << 20); bytes *= 8)
        size_steps.push_back(bytes);
    size_steps.push_back(std::size_t{512} << 20);
    for (data_type t : {data_type::f32, data_type::bf16})
        for (std::size_t bytes : size_steps) {
            const dim_t elements = static_cast<dim_t>(bytes * 8 / element_bits(t));
            const dim_t hw = std::max<dim_t>(1, std::min<dim_t>(4096, elements / 64));
            const layout_case c = nhwc_to_nchw(std::max<dim_t>(1, elements / (64 * hw)), 64, hw);
            add_case(t, layout_case{"sizes", c.dims, c.src_strides, c.dst_strides, c.src_elements, c.dst_elements},
                     size_label(bytes));
        }
    // The other layouts at 64 MiB of f32.
    add_case(data_type::f32, sliced(4096, 4096), "64MiB");
    add_case(data_type::f32, blocked_to_plain(16, 256, 4096, 16), "64MiB");
    add_case(data_type::f32, blocked_to_plain(16, 256, 4096, 8), "64MiB");
    add_case(data_type::f32, abcd16a16b_to_plain(256, 256, 16, 16), "64MiB");
    add_case(data_type::f32, plain_to_blocked(16, 256, 4096, 16), "64MiB");
    // The producer side's other layouts: 8-channel blocks (32-byte rows of
    // f32) and 2-byte elements in 16-channel blocks (32-byte rows too).
    add_case(data_type::f32, plain_to_blocked(16, 256, 4096, 8), "64MiB");
    add_case(data_type::bf16, plain_to_blocked(32, 256, 4096, 16), "64MiB");
    // Spatial sizes whose NCHW rows are no whole number of lines (14x14:
    // 784 bytes of f32, 392 of bf16), so the kernel stages them to stream.
    for (data_type t : {data_type::f32, data_type::bf16}) {
        const dim_t n = static_cast<dim_t>((std::size_t{64} << 20) * 8 / element_bits(t) / (256 * 196));
        const layout_case c = nhwc_to_nchw(n, 256, 196);
        add_case(t, layout_case{"nhwc14x14_to_nchw", c.dims, c.src_strides, c.dst_strides, c.src_elements, c.dst_elements},
                 "64MiB", t == data_type::f32);
    }
    // Images of 3 channels ([N,3,224,224]) NHWC as NCHW and back: too few
    // rows to tile, so split and joined rows.
    {
        const dim_t n = static_cast<dim_t>((std::size_t{64} << 20) / (3 * 50176 * 4));
        const layout_case c = nhwc_to_nchw(n, 3, 50176), back = nchw_to_nhwc(n, 3, 50176);
        add_case(data_type::f32, layout_case{"nhwc_c3_to_nchw", c.dims, c.src_strides, c.dst_strides, c.src_elements, c.dst_elements},
                 "64MiB");
        add_case(data_type::f32, layout_case{"nchw_c3_to_nhwc", back.dims, back.src_strides, back.dst_strides,
                                             back.src_elements, back.dst_elements},
                 "64MiB");
    }
    add_case(data_type::f32, broadcast(4096, 4096), "64MiB");
    add_case(data_type::f32, dense_copy(16 << 20), "64MiB");
    add_case(data_type::bf16, attention(), "64MiB");
}

} // namespace

int main(int argc, char **argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
