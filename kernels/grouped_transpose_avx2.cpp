// The grouped transpose's gathers at the AVX2 level (compiled with -mavx2,
// called only when the CPU has it; the AVX-512 level uses them too): a
// destination run is gathered from the tile's buffer 32 bytes at a time
// with vpgatherdd / vpgatherdq, then stored, streamed where a whole line
// of the run starts on a line. 1- and 2-byte elements are gathered as the
// 4 bytes starting at each (the buffer is readable past its end) and
// packed down.
#include <immintrin.h>

#include <cstring>

#include "kernels/grouped_transpose.hpp"

namespace reshaper::impl {
namespace {

using byte = std::uint8_t;

// 32 bytes of a run: the gathers of elements [j, j + 32 / N).
template <std::size_t N>
__m256i gather32(const byte *base, const std::int32_t *gather) {
    if constexpr (N == 4) {
        const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(gather));
        return _mm256_i32gather_epi32(reinterpret_cast<const int *>(base), idx, 4);
    } else if constexpr (N == 8) {
        const __m128i idx = _mm_loadu_si128(reinterpret_cast<const __m128i *>(gather));
        return _mm256_i32gather_epi64(reinterpret_cast<const long long *>(base), idx, 8);
    } else if constexpr (N == 2) {
        const __m256i mask = _mm256_set1_epi32(0xFFFF);
        const __m256i a = _mm256_and_si256(
            _mm256_i32gather_epi32(reinterpret_cast<const int *>(base),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i *>(gather)), 2),
            mask);
        const __m256i b = _mm256_and_si256(
            _mm256_i32gather_epi32(reinterpret_cast<const int *>(base),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i *>(gather + 8)), 2),
            mask);
        // Per 128-bit lane: a0-3 b0-3 | a4-7 b4-7; then the quarters in order.
        return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    } else { // N == 1
        const __m256i mask = _mm256_set1_epi32(0xFF);
        __m256i v[4];
        for (int i = 0; i < 4; ++i)
            v[i] = _mm256_and_si256(
                _mm256_i32gather_epi32(reinterpret_cast<const int *>(base),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i *>(gather + 8 * i)), 1),
                mask);
        // Per 128-bit lane: a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7.
        const __m256i packed = _mm256_packus_epi16(_mm256_packus_epi32(v[0], v[1]), _mm256_packus_epi32(v[2], v[3]));
        return _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
}

template <std::size_t N>
void gather_runs_avx2(const byte *buffer, const std::int32_t *gather, dim_t run, const std::int32_t *run_base,
                      const std::ptrdiff_t *run_offset, dim_t runs, byte *dst, bool stream) {
    constexpr dim_t per_vector = 32 / static_cast<dim_t>(N);
    const dim_t vectors = run / per_vector;
    const auto run_bytes = static_cast<std::ptrdiff_t>(run * static_cast<dim_t>(N));
    for (dim_t r = 0; r < runs; ++r) {
        const byte *base = buffer + static_cast<std::ptrdiff_t>(run_base[r]) * static_cast<std::ptrdiff_t>(N);
        byte *to = dst + run_offset[r];
        // Streamed where the run is whole lines starting on a line.
        const bool streamed = stream && run_bytes % 64 == 0 && reinterpret_cast<std::uintptr_t>(to) % 64 == 0;
        dim_t j = 0;
        if (streamed) {
            for (dim_t v = 0; v < vectors; ++v, j += per_vector)
                _mm256_stream_si256(reinterpret_cast<__m256i *>(to + j * static_cast<dim_t>(N)), gather32<N>(base, gather + j));
        } else {
            for (dim_t v = 0; v < vectors; ++v, j += per_vector)
                _mm256_storeu_si256(reinterpret_cast<__m256i *>(to + j * static_cast<dim_t>(N)), gather32<N>(base, gather + j));
        }
        for (; j < run; ++j)
            std::memcpy(to + j * static_cast<dim_t>(N), base + static_cast<std::ptrdiff_t>(gather[j]) * static_cast<std::ptrdiff_t>(N), N);
    }
}

// 16-byte elements: one vector load and store each.
void gather_runs_avx2_16(const byte *buffer, const std::int32_t *gather, dim_t run, const std::int32_t *run_base,
                         const std::ptrdiff_t *run_offset, dim_t runs, byte *dst, bool stream) {
    for (dim_t r = 0; r < runs; ++r) {
        const byte *base = buffer + static_cast<std::ptrdiff_t>(run_base[r]) * 16;
        byte *to = dst + run_offset[r];
        const bool streamed = stream && run % 4 == 0 && reinterpret_cast<std::uintptr_t>(to) % 64 == 0;
        for (dim_t j = 0; j < run; ++j) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(base + static_cast<std::ptrdiff_t>(gather[j]) * 16));
            if (streamed) _mm_stream_si128(reinterpret_cast<__m128i *>(to + j * 16), v);
            else _mm_storeu_si128(reinterpret_cast<__m128i *>(to + j * 16), v);
        }
    }
}

// Micro blocks: L vectors of L elements transposed in registers.
template <typename Store>
void store_vector(std::uint8_t *to, Store v, bool stream);
template <>
inline void store_vector<__m256i>(std::uint8_t *to, __m256i v, bool stream) {
    if (stream) _mm256_stream_si256(reinterpret_cast<__m256i *>(to), v);
    else _mm256_storeu_si256(reinterpret_cast<__m256i *>(to), v);
}
template <>
inline void store_vector<__m128i>(std::uint8_t *to, __m128i v, bool stream) {
    if (stream) _mm_stream_si128(reinterpret_cast<__m128i *>(to), v);
    else _mm_storeu_si128(reinterpret_cast<__m128i *>(to), v);
}

// 8 x 8 4-byte elements.
void transpose_8x8_32(const __m256i *in, __m256i *out) {
    __m256 r[8], t[8], q[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_castsi256_ps(in[i]);
    for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) { // rows 0-3, then 4-7
        q[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
        q[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
        q[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
        q[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
        out[i] = _mm256_castps_si256(_mm256_permute2f128_ps(q[i], q[4 + i], 0x20));
        out[4 + i] = _mm256_castps_si256(_mm256_permute2f128_ps(q[i], q[4 + i], 0x31));
    }
}

// 4 x 4 8-byte elements.
void transpose_4x4_64(const __m256i *in, __m256i *out) {
    const __m256d r0 = _mm256_castsi256_pd(in[0]), r1 = _mm256_castsi256_pd(in[1]), r2 = _mm256_castsi256_pd(in[2]),
                  r3 = _mm256_castsi256_pd(in[3]);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
                  t3 = _mm256_unpackhi_pd(r2, r3);
    out[0] = _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x20));
    out[1] = _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x20));
    out[2] = _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x31));
    out[3] = _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x31));
}

// 8 x 8 2-byte elements (128-bit vectors).
void transpose_8x8_16(const __m128i *r, __m128i *out) {
    __m128i a[8], b[8];
    for (int i = 0; i < 4; ++i) {
        a[2 * i] = _mm_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) { // rows 0-3, then 4-7
        b[4 * h + 0] = _mm_unpacklo_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 1] = _mm_unpackhi_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 2] = _mm_unpacklo_epi32(a[4 * h + 1], a[4 * h + 3]);
        b[4 * h + 3] = _mm_unpackhi_epi32(a[4 * h + 1], a[4 * h + 3]);
    }
    for (int i = 0; i < 4; ++i) {
        out[2 * i] = _mm_unpacklo_epi64(b[i], b[4 + i]);
        out[2 * i + 1] = _mm_unpackhi_epi64(b[i], b[4 + i]);
    }
}

// 4 x 4 4-byte elements (128-bit vectors).
void transpose_4x4_32(const __m128i *in, __m128i *out) {
    __m128 r0 = _mm_castsi128_ps(in[0]), r1 = _mm_castsi128_ps(in[1]), r2 = _mm_castsi128_ps(in[2]),
           r3 = _mm_castsi128_ps(in[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    out[0] = _mm_castps_si128(r0);
    out[1] = _mm_castps_si128(r1);
    out[2] = _mm_castps_si128(r2);
    out[3] = _mm_castps_si128(r3);
}

// 2 x 2 8-byte elements (128-bit vectors).
void transpose_2x2_64(const __m128i *in, __m128i *out) {
    out[0] = _mm_unpacklo_epi64(in[0], in[1]);
    out[1] = _mm_unpackhi_epi64(in[0], in[1]);
}

template <typename Vector, int L, std::size_t N, void (*Transpose)(const Vector *, Vector *)>
void micro_blocks_avx2(const byte *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                       const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset, dim_t blocks, byte *dst,
                       bool stream) {
    static_assert(sizeof(Vector) == L * N);
    for (dim_t i = 0; i < blocks; ++i) {
        const byte *base = src + block_source[i];
        byte *to = dst + block_offset[i];
        Vector in[L], out[L];
        for (int b = 0; b < L; ++b) {
            const byte *at = base + load[b];
            if constexpr (sizeof(Vector) == 32) in[b] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at));
            else in[b] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
        }
        Transpose(in, out);
        // Streamed where the whole block's rows are vector-aligned.
        const bool streamed = stream && reinterpret_cast<std::uintptr_t>(to) % sizeof(Vector) == 0;
        for (int a = 0; a < L; ++a) store_vector<Vector>(to + store[a], out[a], streamed);
    }
}

} // namespace

micro_transpose_fn avx2_grouped_micro_kernel(int log2e, dim_t lanes) {
    if (log2e == 1 && lanes == 8) return &micro_blocks_avx2<__m128i, 8, 2, transpose_8x8_16>;
    if (log2e == 2 && lanes == 8) return &micro_blocks_avx2<__m256i, 8, 4, transpose_8x8_32>;
    if (log2e == 2 && lanes == 4) return &micro_blocks_avx2<__m128i, 4, 4, transpose_4x4_32>;
    if (log2e == 3 && lanes == 4) return &micro_blocks_avx2<__m256i, 4, 8, transpose_4x4_64>;
    if (log2e == 3 && lanes == 2) return &micro_blocks_avx2<__m128i, 2, 8, transpose_2x2_64>;
    return nullptr;
}

gather_runs_fn avx2_grouped_gather_kernel(int log2e) {
    switch (log2e) {
    case 0: return &gather_runs_avx2<1>;
    case 1: return &gather_runs_avx2<2>;
    case 2: return &gather_runs_avx2<4>;
    case 3: return &gather_runs_avx2<8>;
    case 4: return &gather_runs_avx2_16;
    }
    return nullptr;
}

} // namespace reshaper::impl
