// AVX2 level: compiled with -mavx2; only called when the CPU has it.
#include <immintrin.h>

#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

struct avx2_ops {
    using vec = __m256i;
    static constexpr int bytes = 32;
    static constexpr int lanes = 2;
    // Tuned on an AMD EPYC (Zen 3, no AVX-512), NHWC as NCHW, 64 MiB,
    // medians of 3-5 interleaved runs at real-time priority on a loaded
    // 2-core machine, time against memcpy of the same bytes: the AVX-512
    // walk (strips a tile high along all columns: each source line read
    // from memory out of order, 64 bytes per destination row at a time) ran
    // f32 at 1.0x memcpy, bf16 1.0x, f64 1.3x. Column blocks of 64 KiB read
    // in order and transposed from the cache, with 4 tiles side by side
    // (256-byte destination runs): f32 1.5x, bf16 1.2x, f64 1.6x; with 8
    // (512-byte runs) faster again for every element size: f32 6.4 -> 5.7
    // ms, bf16 8.1 -> 6.4, s8 8.9 -> 7.5, f64 6.5 -> 5.0, s4 16.3 -> 11.3,
    // nChw16c -> nchw 6.3 -> 5.6; 16 side by side slower (f32 7.5 ms).
    // 16-byte elements keep the AVX-512 walk (column blocks: 1.55x against
    // 1.5x). Prefetching the next column step measured no better.
    static constexpr tile_walk walk[5] = {{8, 0}, {8, 0}, {8, 0}, {8, 0}, {1, 4}};

    static vec load(const std::uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const vec *>(p)); }
    static void store(std::uint8_t *p, vec v) { _mm256_storeu_si256(reinterpret_cast<vec *>(p), v); }
    static void stream(std::uint8_t *p, vec v) { _mm256_stream_si256(reinterpret_cast<vec *>(p), v); }

    template <int E> static vec unpacklo(vec a, vec b) {
        if constexpr (E == 1) return _mm256_unpacklo_epi8(a, b);
        else if constexpr (E == 2) return _mm256_unpacklo_epi16(a, b);
        else if constexpr (E == 4) return _mm256_unpacklo_epi32(a, b);
        else return _mm256_unpacklo_epi64(a, b);
    }
    template <int E> static vec unpackhi(vec a, vec b) {
        if constexpr (E == 1) return _mm256_unpackhi_epi8(a, b);
        else if constexpr (E == 2) return _mm256_unpackhi_epi16(a, b);
        else if constexpr (E == 4) return _mm256_unpackhi_epi32(a, b);
        else return _mm256_unpackhi_epi64(a, b);
    }
    // v[l] := the l-th 128-bit lanes of v[0..1].
    static void lane_transpose(vec *v) {
        const vec lo = _mm256_permute2x128_si256(v[0], v[1], 0x20);
        const vec hi = _mm256_permute2x128_si256(v[0], v[1], 0x31);
        v[0] = lo;
        v[1] = hi;
    }
};

isa_kernels make_avx2_kernels() {
    isa_kernels table = make_simd_kernels<avx2_ops>(cpu_isa::avx2);
    const auto &walk = avx2_ops::walk;
    table.half_wide_tile[0] = &transpose_half_tiles<avx2_ops, 1, walk[0].wide>;
    table.half_wide_tile[1] = &transpose_half_tiles<avx2_ops, 2, walk[1].wide>;
    table.half_wide_tile[2] = &transpose_half_tiles<avx2_ops, 4, walk[2].wide>;
    table.half_wide_tile[3] = &transpose_half_tiles<avx2_ops, 8, walk[3].wide>;
    table.half_wide_tile[4] = &transpose_half_tiles<avx2_ops, 16, walk[4].wide>;
    return table;
}

} // namespace

const isa_kernels &avx2_kernels() {
    static const isa_kernels table = make_avx2_kernels();
    return table;
}

} // namespace reshaper::impl
