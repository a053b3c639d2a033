// The AVX2 level's in-cache tile walk alone against memcpy of the same
// bytes: an [HW, 64] -> [64, HW] transpose (NHWC as NCHW of [1, HW, 64]),
// walked as the in-cache strips walk it (strips of 64 rows, steps of the
// walk's tiles side by side), on buffers that stay in the caches.
//
//   in_cache_tile_bench ELEMENT_BYTES KIB [ROW_PAD [DST_OFFSET]]
//
// ROW_PAD: bytes added to the destination's row pitch (HW * E), so rows a
// multiple of 4 KiB apart (256 KiB and up) can be compared with rows that
// are not (64: each of a tile's 64 destination lines in its own L1 set);
// DST_OFFSET: the destination's distance past a page from the source (4K
// aliasing). Prints the median and fastest time per run over interleaved
// rounds (each round a batch of runs of each, the transpose's output
// checked against an element copy once).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/isa_kernels_simd.hpp"

using namespace reshaper::impl;

namespace {

using byte_t = std::uint8_t;

double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Every strip and step as the in-cache walk takes them: W tiles side by
// side (avx2_ops::walk[in_cache]), ordinary stores.
template <int E>
void transpose(const byte_t *src, byte_t *dst, long hw, long dst_pitch) {
    constexpr int W = avx2_ops::walk[in_cache][E == 1 ? 0 : E == 2 ? 1 : 2].wide;
    constexpr long T = 64 / E;
    const long src_pitch = 64 * E;
    for (long col = 0; col + W * T <= hw; col += W * T)
        for (long row = 0; row < 64; row += T)
            transpose_tiles<avx2_ops, E, W, false>(src + col * src_pitch + row * E, src_pitch,
                                                   dst + row * dst_pitch + col * E, dst_pitch, false, nullptr);
}

void run(int e, const byte_t *src, byte_t *dst, long hw, long dst_pitch) {
    if (e == 1) transpose<1>(src, dst, hw, dst_pitch);
    else if (e == 2) transpose<2>(src, dst, hw, dst_pitch);
    else transpose<4>(src, dst, hw, dst_pitch);
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s ELEMENT_BYTES(1|2|4) KIB [ROW_PAD [DST_OFFSET]]\n", argv[0]);
        return 2;
    }
    const int e = std::atoi(argv[1]);
    const long bytes = std::atol(argv[2]) << 10;
    const long pad = argc > 3 ? std::atol(argv[3]) : 0, offset = argc > 4 ? std::atol(argv[4]) : 0;
    const long hw = bytes / e / 64, dst_pitch = hw * e + pad;
    const long wide_cols = 8 * 64; // the widest step's columns (1-byte elements)
    if ((e != 1 && e != 2 && e != 4) || hw < wide_cols / e || hw % (wide_cols / e) != 0 || pad < 0 ||
        pad % 64 != 0 || offset < 0 || offset % 64 != 0) {
        std::fprintf(stderr, "ELEMENT_BYTES 1, 2 or 4; KIB a multiple of 32; ROW_PAD, DST_OFFSET multiples of 64\n");
        return 2;
    }
    const long dst_bytes = 64 * dst_pitch;
    std::vector<byte_t> src_buffer(bytes + 4096), dst_buffer(dst_bytes + offset + 4096), copy_buffer(bytes + 4096);
    const auto page = [](std::vector<byte_t> &b) {
        return b.data() + (4096 - reinterpret_cast<std::uintptr_t>(b.data()) % 4096) % 4096;
    };
    byte_t *src = page(src_buffer), *dst = page(dst_buffer) + offset, *copy = page(copy_buffer);
    for (long i = 0; i < bytes; ++i) src[i] = static_cast<byte_t>(i * 7 + i / 251);

    run(e, src, dst, hw, dst_pitch);
    for (long c = 0; c < 64; ++c)
        for (long p = 0; p < hw; ++p)
            if (std::memcmp(dst + c * dst_pitch + p * e, src + p * 64 * e + c * e, e) != 0) {
                std::fprintf(stderr, "wrong output at channel %ld position %ld\n", c, p);
                return 1;
            }

    const int rounds = 201, batch = static_cast<int>(std::max(1L, (2L << 20) / bytes));
    std::vector<double> moved, copied;
    for (int r = 0; r < rounds; ++r) {
        const double t0 = seconds();
        for (int i = 0; i < batch; ++i) run(e, src, dst, hw, dst_pitch);
        const double t1 = seconds();
        for (int i = 0; i < batch; ++i) {
            std::memcpy(copy, src, bytes);
            asm volatile("" ::: "memory");
        }
        const double t2 = seconds();
        moved.push_back((t1 - t0) / batch * 1e6);
        copied.push_back((t2 - t1) / batch * 1e6);
    }
    std::sort(moved.begin(), moved.end());
    std::sort(copied.begin(), copied.end());
    const double m = moved[rounds / 2], c = copied[rounds / 2];
    std::printf("E=%d %ld KiB row_pad=%ld dst_offset=%ld: transpose %.2f us (fastest %.2f), memcpy %.2f us "
                "(fastest %.2f), x memcpy %.2f\n",
                e, bytes >> 10, pad, offset, m, moved[0], c, copied[0], c / m);
    return 0;
}
