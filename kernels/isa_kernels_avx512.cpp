// AVX-512 (F + BW) level: compiled with -mavx512f -mavx512bw; only called
// when the CPU has both (see cpu_isa).
#include <immintrin.h>

#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

struct avx512_ops {
    using vec = __m512i;
    static constexpr int bytes = 64;
    static constexpr int lanes = 4;
    // Measured on an AMD EPYC with AVX-512 (2 cores; the CI machine),
    // reshaper-run --mode=perf, NHWC as NCHW, 64-256 MiB, 3-4 rounds of
    // interleaved runs at real-time priority, GB/s read+written (the
    // machine's speed drifts by up to 1.5x between minutes: only figures
    // of one round compare). Against strip_walk (this level's walk until
    // then, tuned on an Intel machine), the AVX2 level's column blocks
    // with prefetch: rows a page or more apart ([64,256,64,64]), 8 tiles
    // side by side: s8 43 -> 60-65, f64 and c64 49-59 -> 73-82, f32, s32,
    // bf16 and f16 even (57-62); then 2 tiles side by side against 8: f32
    // and s32 41 -> 54 (1 tile 41, 4 tiles 49; 64 KiB blocks as 128, 256
    // KiB as 128), bf16 42 -> 48, s8 40 -> 46, f64 and c64 48 -> 55 (4
    // tiles: between). Rows under a page apart ([N,256,32,32],
    // [N,256,14,14]): s8 32-42 -> 34-60, bf16 29-56 -> 32-67, f64 62-71 ->
    // 73; f32 kept single tiles' speed only with 4 tiles side by side
    // (14x14: 40 -> 45; 8 tiles 34, 2 tiles 31-33), bf16 was 5-10% faster
    // with 2 tiles than with 4, s8 5-10% slower with 4 than with 2. Later,
    // bf16 [64,256,32,32] (rows line-aligned, 2 KiB apart): 4 tiles and
    // 128 KiB blocks 53 -> 64 GB/s against 2 tiles and 64 KiB, at a cost
    // to 14x14 (rows staged, line_staging): 32 -> 28.5; the first is the
    // common shape.
    // Moves that stay in the caches (in_cache; 512 KiB NHWC as NCHW),
    // against those walks: f32 (rows 4 KiB apart) 32 -> 64, bf16 43 ->
    // 67, s8 35 -> 59 (rows 1 KiB apart: 57 -> 67), f64 41 -> 63; 8 tiles
    // side by side beat 4 and 2 at every element size (f32 65 / 48 / 31);
    // backend_bench's [1,16,64,64] f32 transpose (64 KiB, rows 4 KiB
    // apart): 2.15 -> 1.39 us.
    static constexpr level_walks walk = {{{{{2, 0, 64, true}, {4, 0, 128, true}, {4, 0, 64, true}, {8, 0, 128, true}, {1, 4}}},
                                          {{{2, 0, 128, true}, {2, 0, 128, true}, {2, 0, 128, true}, {2, 0, 128, true}, {1, 4}}},
                                          {{{8, 0, 128}, {8, 0, 128}, {8, 0, 128}, {8, 0, 128}, {1, 4}}}}};

    static vec load(const std::uint8_t *p) { return _mm512_loadu_si512(p); }
    static void store(std::uint8_t *p, vec v) { _mm512_storeu_si512(p, v); }
    static void stream(std::uint8_t *p, vec v) { _mm512_stream_si512(reinterpret_cast<vec *>(p), v); }

    template <int E> static vec unpacklo(vec a, vec b) {
        if constexpr (E == 1) return _mm512_unpacklo_epi8(a, b);
        else if constexpr (E == 2) return _mm512_unpacklo_epi16(a, b);
        else if constexpr (E == 4) return _mm512_unpacklo_epi32(a, b);
        else return _mm512_unpacklo_epi64(a, b);
    }
    template <int E> static vec unpackhi(vec a, vec b) {
        if constexpr (E == 1) return _mm512_unpackhi_epi8(a, b);
        else if constexpr (E == 2) return _mm512_unpackhi_epi16(a, b);
        else if constexpr (E == 4) return _mm512_unpackhi_epi32(a, b);
        else return _mm512_unpackhi_epi64(a, b);
    }
    // v[l] := the l-th 128-bit lanes of v[0..3]. 0x88 picks lanes 0 and 2
    // of each source, 0xdd lanes 1 and 3.
    static void lane_transpose(vec *v) {
        const vec x0 = _mm512_shuffle_i32x4(v[0], v[1], 0x88);
        const vec x1 = _mm512_shuffle_i32x4(v[0], v[1], 0xdd);
        const vec y0 = _mm512_shuffle_i32x4(v[2], v[3], 0x88);
        const vec y1 = _mm512_shuffle_i32x4(v[2], v[3], 0xdd);
        v[0] = _mm512_shuffle_i32x4(x0, y0, 0x88);
        v[1] = _mm512_shuffle_i32x4(x1, y1, 0x88);
        v[2] = _mm512_shuffle_i32x4(x0, y0, 0xdd);
        v[3] = _mm512_shuffle_i32x4(x1, y1, 0xdd);
    }
};

// The first `bytes` (0..64) bytes of a vector.
__mmask64 first_bytes(int bytes) {
    return bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
}

// The first `bytes` bytes at p, the rest zero, never touching memory past
// them. Plain 128/256-bit accesses where the width allows: byte-masked
// loads and stores measured 3x slower here (nChw8c f32: 7 vs 22 GB/s).
__m512i load_first(const std::uint8_t *p, int bytes, __mmask64 mask) {
    switch (bytes) {
    case 64: return _mm512_loadu_si512(p);
    case 32: return _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
    case 16: return _mm512_zextsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    default: return _mm512_maskz_loadu_epi8(mask, p);
    }
}
void store_first(std::uint8_t *p, __m512i v, int bytes, __mmask64 mask) {
    switch (bytes) {
    case 64: _mm512_storeu_si512(p, v); return;
    case 32: _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), _mm512_castsi512_si256(v)); return;
    case 16: _mm_storeu_si128(reinterpret_cast<__m128i *>(p), _mm512_castsi512_si128(v)); return;
    default: _mm512_mask_storeu_epi8(p, mask, v);
    }
}

// A partial tile costs about what a whole one does: each valid source row
// part is loaded (the rest reads as zero), each valid destination row part
// stored.
template <int E>
void tile_partial(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                  std::ptrdiff_t dst_pitch, int src_rows, int dst_rows, bool stream) {
    constexpr int T = 64 / E;
    const int load_bytes = dst_rows * E, store_bytes = src_rows * E;
    const __mmask64 load_mask = first_bytes(load_bytes), store_mask = first_bytes(store_bytes);
    __m512i out[T];
    transpose_rows<avx512_ops, E>(
        [&](int r) {
            return r < src_rows ? load_first(src + r * src_pitch, load_bytes, load_mask)
                                : _mm512_setzero_si512();
        },
        out);
    for (int c = 0; c < dst_rows; ++c) {
        if (stream && src_rows == T)
            avx512_ops::stream(dst + c * dst_pitch, out[c]);
        else
            store_first(dst + c * dst_pitch, out[c], store_bytes, store_mask);
    }
}

isa_kernels make_avx512_kernels() {
    isa_kernels table = make_simd_kernels<avx512_ops>(cpu_isa::avx512);
    // 4-bit transposes: 4 byte tiles side by side (isa_kernels::packed_wide).
    table.packed_wide = 4;
    table.packed_tile = &transpose_tiles<avx512_ops, 1, 4, false>;
    table.tile_partial[0] = &tile_partial<1>;
    table.tile_partial[1] = &tile_partial<2>;
    table.tile_partial[2] = &tile_partial<4>;
    table.tile_partial[3] = &tile_partial<8>;
    table.tile_partial[4] = &tile_partial<16>;
    return table;
}

} // namespace

const isa_kernels &avx512_kernels() {
    static const isa_kernels table = make_avx512_kernels();
    return table;
}

} // namespace reshaper::impl
