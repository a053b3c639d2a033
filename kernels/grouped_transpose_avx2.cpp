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

} // namespace

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
