// A high-rank permutation against its yardsticks in one process: our
// kernel (strided_copy, the mover of `kernel` lowerings: the grouped
// transpose where it applies), a streaming-store copy of the same bytes
// and glibc memcpy (yardstick_copy on one thread: the driver's perf mode's
// yardsticks, src/driver/yardstick.cpp), on the same pre-faulted,
// line-aligned buffers, in interleaved rounds.
//
//   high_rank_bench ELEMENT_BYTES ROUNDS D0,D1,... P0,P1,...
//
// permutes a dense tensor of dims D as numpy's
// ascontiguousarray(a.transpose(P)) does and prints one JSON line: the
// median seconds of each mover over the rounds, the path taken and a
// checksum of the kernel's output. The source's byte i is
// (i * 2654435761) >> 13 (its low 8 bits).
// benchmarks/high_rank_bench.py runs it beside numpy and PyTorch.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <time.h>

#include <oneapi/tbb/global_control.h>

#include "core/line_aligned.hpp"
#include "core/logical_tensor.hpp" // dense_strides
#include "driver/yardstick.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/strided_copy.hpp"

using namespace reshaper::impl;

namespace {

dims_t parse_list(const char *text) {
    dims_t out;
    for (const char *p = text; *p;) {
        char *end = nullptr;
        out.push_back(std::strtoll(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) return {};
    }
    return out;
}

data_type type_of(std::size_t bytes) {
    switch (bytes) {
    case 1: return data_type::u8;
    case 2: return data_type::bf16;
    case 4: return data_type::f32;
    case 8: return data_type::c64;
    case 16: return data_type::c128;
    }
    return data_type::undef;
}

// Wall-clock seconds; with RESHAPER_BENCH_CPU_TIME set, the thread's CPU
// time instead (for tuning on a machine others load: time spent
// descheduled is not counted, memory contention still is).
double now() {
    static const bool cpu_time = std::getenv("RESHAPER_BENCH_CPU_TIME") != nullptr;
    if (cpu_time) {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double seconds(F &&f) {
    const double t0 = now();
    f();
    return now() - t0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s ELEMENT_BYTES ROUNDS D0,D1,... P0,P1,...\n", argv[0]);
        return 2;
    }
    const auto e = static_cast<std::size_t>(std::atoi(argv[1]));
    const int rounds = std::max(1, std::atoi(argv[2]));
    const dims_t dims = parse_list(argv[3]), perm = parse_list(argv[4]);
    const data_type type = type_of(e);
    if (type == data_type::undef || dims.empty() || perm.size() != dims.size()) {
        std::fprintf(stderr, "bad arguments\n");
        return 2;
    }
    // One thread: the yardsticks are one-thread copies.
    oneapi::tbb::global_control one_thread(oneapi::tbb::global_control::max_allowed_parallelism, 1);
    const dims_t src_dense = dense_strides(dims).value();
    dims_t out_dims, src_strides;
    for (dim_t p : perm) {
        out_dims.push_back(dims[static_cast<std::size_t>(p)]);
        src_strides.push_back(src_dense[static_cast<std::size_t>(p)]);
    }
    const dims_t dst_strides = dense_strides(out_dims).value();
    dim_t volume = 1;
    for (dim_t d : dims) volume *= d;
    const std::size_t bytes = static_cast<std::size_t>(volume) * e;
    line_aligned_bytes src(bytes), dst(bytes);
    for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<std::uint8_t>(i * 2654435761u >> 13);
    std::memset(dst.data(), 0, bytes); // pre-faulted

    const strided_tensor from{src.data(), 0, src_strides}, to{dst.data(), 0, dst_strides};
    const fast_path path = strided_copy_path(type, out_dims, src_strides, dst_strides);
    std::vector<double> kernel, stream, libc;
    strided_copy(type, out_dims, from, to); // warm-up: pages, tables
    using reshaper::driver::yardstick;
    const auto yardstick_copy = [&](yardstick kind) {
        reshaper::driver::yardstick_copy(kind, dst.data(), src.data(), bytes, 1);
    };
    yardstick_copy(yardstick::streaming_copy);
    for (int r = 0; r < rounds; ++r) {
        kernel.push_back(seconds([&] { strided_copy(type, out_dims, from, to); }));
        stream.push_back(seconds([&] { yardstick_copy(yardstick::streaming_copy); }));
        libc.push_back(seconds([&] { yardstick_copy(yardstick::memcpy); }));
    }
    // The kernel's output, for the caller to compare with numpy's: the sum
    // of its 8-byte words, word i weighted by i + 1, modulo 2^64.
    strided_copy(type, out_dims, from, to);
    std::uint64_t checksum = 0;
    for (std::size_t i = 0; i < bytes / 8; ++i) {
        std::uint64_t word = 0;
        std::memcpy(&word, dst.data() + 8 * i, 8);
        checksum += word * (i + 1);
    }
    std::printf("{\"bytes\": %zu, \"path\": \"%s\", \"isa\": \"%s\", \"kernel_s\": %.9f, \"stream_copy_s\": %.9f, "
                "\"memcpy_s\": %.9f, \"checksum\": %llu}\n",
                bytes, std::string(to_string(path)).c_str(), std::string(to_string(active_cpu_isa())).c_str(),
                median(kernel), median(stream), median(libc), static_cast<unsigned long long>(checksum));
    return 0;
}
