// The grouped transpose's micro blocks with shared lanes at the AVX2 level
// (compiled with -mavx2, called only when the CPU has it): where the
// source's first L elements and the destination's first L elements share
// some dims (random permutations of 2s mostly do: a dim of 2 that is
// among the three innermost of both tensors), the L x L transpose does
// not apply, and the tile went to the buffer and its gathers (a quarter of
// f32 rank 22 of 2s's profile in vpgatherdd).
// Each block here is R = 2^K vectors of L = 2^W elements, K the source's
// lane dims the destination's lanes do not hold: loaded from the source
// (one vector per index over the destination's K other lane dims), their
// lanes permuted so that the shared dims come first (`pre`), K stages each
// swapping one lane bit (units of N << (W - K + j) bytes) with register
// bit j, the lanes permuted into the destination's order (`post`), and
// stored (one vector per index over the source's K other lane dims).
// The planner (grouped_transpose_planner.cpp) makes the tables.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/grouped_transpose.hpp"

namespace reshaper::impl {
namespace {

using byte = std::uint8_t;

template <typename Vector>
Vector load_vector(const byte *at) {
    if constexpr (sizeof(Vector) == 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at));
    else return _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
}

template <typename Vector>
void store_vector(byte *at, Vector v) {
    if constexpr (sizeof(Vector) == 32) _mm256_storeu_si256(reinterpret_cast<__m256i *>(at), v);
    else _mm_storeu_si128(reinterpret_cast<__m128i *>(at), v);
}

// Lanes permuted: 256-bit vectors by 32-bit units (vpermd), 128-bit ones
// by bytes (pshufb); the index vector as the planner encoded it.
inline __m256i permute_lanes(__m256i v, __m256i index) { return _mm256_permutevar8x32_epi32(v, index); }
inline __m128i permute_lanes(__m128i v, __m128i index) { return _mm_shuffle_epi8(v, index); }

// Swaps lane bit `U` (units of U bytes) of a and b with the register bit
// that tells them apart: a keeps the units whose bit is 0 of both (a's at
// 0, b's at 1), b those whose bit is 1.
template <int U>
inline void swap_units(__m256i &a, __m256i &b) {
    __m256i lo, hi;
    if constexpr (U == 16) {
        lo = _mm256_permute2x128_si256(a, b, 0x20);
        hi = _mm256_permute2x128_si256(a, b, 0x31);
    } else if constexpr (U == 8) {
        lo = _mm256_unpacklo_epi64(a, b);
        hi = _mm256_unpackhi_epi64(a, b);
    } else if constexpr (U == 4) {
        lo = _mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xAA);
        hi = _mm256_blend_epi32(_mm256_srli_epi64(a, 32), b, 0xAA);
    } else if constexpr (U == 2) { // within each 128-bit half (two 128-bit blocks side by side)
        lo = _mm256_blend_epi16(a, _mm256_slli_epi32(b, 16), 0xAA);
        hi = _mm256_blend_epi16(_mm256_srli_epi32(a, 16), b, 0xAA);
    } else {
        static_assert(U == 1);
        const __m256i odd = _mm256_set1_epi16(static_cast<short>(0xFF00));
        lo = _mm256_blendv_epi8(a, _mm256_slli_epi16(b, 8), odd);
        hi = _mm256_blendv_epi8(_mm256_srli_epi16(a, 8), b, odd);
    }
    a = lo;
    b = hi;
}

template <int U>
inline void swap_units(__m128i &a, __m128i &b) {
    __m128i lo, hi;
    if constexpr (U == 8) {
        lo = _mm_unpacklo_epi64(a, b);
        hi = _mm_unpackhi_epi64(a, b);
    } else if constexpr (U == 4) {
        lo = _mm_blend_epi32(a, _mm_slli_epi64(b, 32), 0xA);
        hi = _mm_blend_epi32(_mm_srli_epi64(a, 32), b, 0xA);
    } else if constexpr (U == 2) {
        lo = _mm_blend_epi16(a, _mm_slli_epi32(b, 16), 0xAA);
        hi = _mm_blend_epi16(_mm_srli_epi32(a, 16), b, 0xAA);
    } else {
        static_assert(U == 1);
        const __m128i odd = _mm_set1_epi16(static_cast<short>(0xFF00));
        lo = _mm_blendv_epi8(a, _mm_slli_epi16(b, 8), odd);
        hi = _mm_blendv_epi8(_mm_srli_epi16(a, 8), b, odd);
    }
    a = lo;
    b = hi;
}

// Stage J of K: lane bit W - K + J against register bit J.
template <typename Vector, int N, int W, int K, int J>
inline void swap_stage(Vector *v) {
    constexpr int R = 1 << K;
    constexpr int unit = N << (W - K + J);
    for (int r = 0; r < R; ++r)
        if ((r & (1 << J)) == 0) swap_units<unit>(v[r], v[r | (1 << J)]);
}

template <typename Vector, int N, int W, int K, int... J>
inline void swap_stages(Vector *v, std::integer_sequence<int, J...>) {
    (swap_stage<Vector, N, W, K, J>(v), ...);
}

template <typename Vector, int N, int W, int K>
void shared_lanes_avx2(const byte *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                       const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset, dim_t blocks,
                       const dim_t * /*across*/, dim_t /*across_steps*/, byte *dst, bool /*stream*/, const byte *pre,
                       const byte *post) {
    static_assert(sizeof(Vector) == (std::size_t{1} << W) * N && K >= 1 && K < W);
    constexpr int R = 1 << K;
    const Vector pre_index = pre ? load_vector<Vector>(pre) : Vector{};
    const Vector post_index = post ? load_vector<Vector>(post) : Vector{};
    std::ptrdiff_t from[R], to[R];
    for (int r = 0; r < R; ++r) {
        from[r] = load[r];
        to[r] = store[r];
    }
    dim_t i = 0;
    if constexpr (sizeof(Vector) == 16) {
        // Two blocks at a time, one in each half of 256-bit vectors (every
        // step but the loads and stores works within halves): half the
        // instructions, which bound the 1- and 2-byte blocks as much as
        // their memory traffic (docs/performance.md, "High rank,
        // highrank7").
        const __m256i pre_pair = _mm256_broadcastsi128_si256(pre_index);
        const __m256i post_pair = _mm256_broadcastsi128_si256(post_index);
        for (; i + 1 < blocks; i += 2) {
            const byte *base = src + block_source[i], *base_high = src + block_source[i + 1];
            byte *out = dst + block_offset[i], *out_high = dst + block_offset[i + 1];
            __m256i v[R];
            for (int r = 0; r < R; ++r)
                v[r] = _mm256_loadu2_m128i(reinterpret_cast<const __m128i *>(base_high + from[r]),
                                           reinterpret_cast<const __m128i *>(base + from[r]));
            if (pre)
                for (int r = 0; r < R; ++r) v[r] = _mm256_shuffle_epi8(v[r], pre_pair);
            swap_stages<__m256i, N, W, K>(v, std::make_integer_sequence<int, K>{});
            if (post)
                for (int r = 0; r < R; ++r) v[r] = _mm256_shuffle_epi8(v[r], post_pair);
            for (int r = 0; r < R; ++r)
                _mm256_storeu2_m128i(reinterpret_cast<__m128i *>(out_high + to[r]), reinterpret_cast<__m128i *>(out + to[r]), v[r]);
        }
    }
    for (; i < blocks; ++i) {
        const byte *base = src + block_source[i];
        byte *out = dst + block_offset[i];
        Vector v[R];
        for (int r = 0; r < R; ++r) v[r] = load_vector<Vector>(base + from[r]);
        if (pre)
            for (int r = 0; r < R; ++r) v[r] = permute_lanes(v[r], pre_index);
        swap_stages<Vector, N, W, K>(v, std::make_integer_sequence<int, K>{});
        if (post)
            for (int r = 0; r < R; ++r) v[r] = permute_lanes(v[r], post_index);
        for (int r = 0; r < R; ++r) store_vector<Vector>(out + to[r], v[r]);
    }
}

} // namespace

micro_transpose_fn avx2_grouped_shared_lanes_kernel(int log2e, int swaps) {
    switch (log2e * 8 + swaps) {
    case 0 * 8 + 1: return &shared_lanes_avx2<__m128i, 1, 4, 1>;
    case 0 * 8 + 2: return &shared_lanes_avx2<__m128i, 1, 4, 2>;
    case 0 * 8 + 3: return &shared_lanes_avx2<__m128i, 1, 4, 3>;
    case 1 * 8 + 1: return &shared_lanes_avx2<__m128i, 2, 3, 1>;
    case 1 * 8 + 2: return &shared_lanes_avx2<__m128i, 2, 3, 2>;
    case 2 * 8 + 1: return &shared_lanes_avx2<__m256i, 4, 3, 1>;
    case 2 * 8 + 2: return &shared_lanes_avx2<__m256i, 4, 3, 2>;
    case 3 * 8 + 1: return &shared_lanes_avx2<__m256i, 8, 2, 1>;
    }
    return nullptr;
}

} // namespace reshaper::impl
