// One thread's streamed 1-byte and 4-bit transpose steps at the AVX2
// level, with the source in L2 (the same 128 KiB / 64 KiB step over and
// over), so that what is left is the step's compute and its streamed
// writes; and the streamed writes alone, by the run each destination row
// gets at a time. Times per 64 MiB written (medians of the rounds).
//
//   byte_stream_bench s8       the far-rows wide tile of 1-byte elements
//                              (8 tiles, rows 4 KiB apart) as the DRAM
//                              NHWC-as-NCHW walk calls it
//   byte_stream_bench s4       the streamed 4-bit step (byte tiles split
//                              in registers), rows 2 KiB apart
//   byte_stream_bench runs     streaming stores only, rows 4 KiB apart,
//                              runs of 64 B .. 4 KiB per row at a time
//
// (docs/performance.md, "Why the kernels are tuned as they are": the
// dram10 bullet.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/isa_kernels_simd.hpp"
#include "kernels/isa_nibble_stream.hpp"

using namespace reshaper::impl;

namespace {

using byte_t = std::uint8_t;

double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

byte_t *buffer(std::size_t bytes) {
    auto *p = static_cast<byte_t *>(std::aligned_alloc(4096, bytes));
    for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<byte_t>(i * 7 + (i >> 9));
    return p;
}

// Median seconds of `rounds` runs of `run`.
template <class Run>
double median(int rounds, const Run &run) {
    std::vector<double> t;
    for (int r = 0; r < rounds; ++r) {
        const double a = seconds();
        run();
        t.push_back(seconds() - a);
    }
    _mm_sfence();
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    const std::string what = argc > 1 ? argv[1] : "s8";
    if (what == "s8") { // 512 source rows of 256 bytes (128 KiB), 4 steps of 64 columns
        constexpr int W = avx2_ops::walk[far_rows][0].wide;
        constexpr long src_pitch = 256, dst_pitch = 4096, rows = W * 64;
        byte_t *src = buffer(rows * src_pitch), *dst = buffer(256 * dst_pitch);
        const double s = median(301, [&] {
            for (int c = 0; c < 4; ++c)
                transpose_tiles<avx2_ops, 1, W, true>(src + c * 64, src_pitch, dst + c * 64 * dst_pitch, dst_pitch,
                                                      true, nullptr);
        });
        std::printf("s8 wide tile (%d tiles), source in L2: %.2f ms per 64 MiB\n", W, s * (64 << 20) / (rows * 256) * 1e3);
    } else if (what == "s4") { // 512 source rows of 128 bytes (64 KiB) into 256 rows 2 KiB apart
        constexpr int W = 8;
        constexpr long src_pitch = 128, dst_pitch = 2048, rows = W * 64;
        byte_t *src = buffer(rows * src_pitch), *dst = buffer(256 * dst_pitch);
        const double s = median(301, [&] {
            byte_tiles_split_streamed_parts<avx2_ops, W>(src, src_pitch, dst, dst_pitch, 2, nullptr, nullptr);
        });
        std::printf("s4 streamed step (%d tiles), source in L2: %.2f ms per 64 MiB\n", W,
                    s * (64 << 20) / (rows * 128) * 1e3);
    } else if (what == "runs") { // 64 MiB of 16384 rows 4 KiB apart, a run of each row, then the next run
        constexpr long pitch = 4096, rows = 16384;
        byte_t *dst = buffer(rows * pitch);
        alignas(64) static byte_t line[4096];
        for (const long run : {64L, 128L, 256L, 512L, 1024L, 2048L, 4096L}) {
            const double s = median(5, [&] {
                for (long col = 0; col < pitch; col += run)
                    for (long r = 0; r < rows; ++r)
                        for (long p = 0; p < run; p += avx2_ops::bytes)
                            avx2_ops::stream(dst + r * pitch + col + p, avx2_ops::load(line + p));
            });
            std::printf("streaming stores, %4ld-byte runs per row: %.2f ms per 64 MiB\n", run, s * 1e3);
        }
    } else {
        std::printf("usage: byte_stream_bench s8|s4|runs\n");
        return 1;
    }
    return 0;
}
