// The streamed 4-bit transposes' nibble split (isa_kernels::split_nibbles_streamed):
// split_nibble_pairs' rows written straight to memory with AVX2 streaming
// stores, so the two destination rows no longer pass through an L1 pair
// buffer and the streaming run copy (`packed_strip<4>`). Included by the
// levels that have AVX2, each compiled for its own ISA (internal linkage,
// as isa_kernels_simd.hpp explains).
#pragma once

#include <cstddef>
#include <cstdint>

#include <immintrin.h>

namespace reshaper::impl {
namespace {

// As split_nibble_pairs, for `count` a multiple of 32 and `low`, `high`
// 32-byte aligned: 32 pairs (64 bytes) make 32 bytes of each row.
void split_nibble_pairs_streamed(const std::uint8_t *pairs, std::size_t count, std::uint8_t *low,
                                 std::uint8_t *high) {
    const __m256i low4 = _mm256_set1_epi16(0x000F), high4 = _mm256_set1_epi16(0x00F0);
    // Per 16-bit pair v = a | b << 8: (a & 0x0F) | (b << 4) and
    // (a >> 4) | (b & 0xF0), each in the pair's low byte.
    const auto low_of = [&](__m256i v) {
        return _mm256_or_si256(_mm256_and_si256(v, low4), _mm256_and_si256(_mm256_srli_epi16(v, 4), high4));
    };
    const auto high_of = [&](__m256i v) {
        return _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), low4),
                               _mm256_and_si256(_mm256_srli_epi16(v, 8), high4));
    };
    for (std::size_t j = 0; j < count; j += 32) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(pairs + 2 * j));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(pairs + 2 * j + 32));
        // packus packs per 128-bit lane (a's 8, b's 8, a's next 8, b's
        // next 8); the 64-bit permute puts them back in order.
        const __m256i lo = _mm256_permute4x64_epi64(_mm256_packus_epi16(low_of(a), low_of(b)), 0xD8);
        const __m256i hi = _mm256_permute4x64_epi64(_mm256_packus_epi16(high_of(a), high_of(b)), 0xD8);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(low + j), lo);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(high + j), hi);
    }
}

} // namespace
} // namespace reshaper::impl
