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

#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

// Per 16-bit pair v = a | b << 8 of a vector: (a & 0x0F) | (b & 0x0F) << 4
// in the pair's low byte (a low-nibble row's byte; of v >> 4, the
// high-nibble row's), as a multiply-add of v's bytes masked to their low
// nibbles by {1, 16} (vpmaddubsw, on the multiply pipes). The shuffle pipes
// run the byte transposes and the vector shifts: masks of v >> 4 and
// v >> 8 had taken 3 shifts a vector where this takes one for both rows
// (docs/performance.md).
[[gnu::always_inline]] inline __m256i nibble_row_bytes(__m256i v) {
    return _mm256_maddubs_epi16(_mm256_and_si256(v, _mm256_set1_epi8(0x0F)), _mm256_set1_epi16(0x1001));
}

// Two vectors of 16 pairs each (x, then y) as 32 bytes of the low-nibble
// row and 32 of the high one, in order: packus packs per 128-bit lane (x's
// 8, y's 8, x's next 8, y's next 8); the 64-bit permute puts them back.
[[gnu::always_inline]] inline __m256i low_nibble_row(__m256i x, __m256i y) {
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(nibble_row_bytes(x), nibble_row_bytes(y)), 0xD8);
}
[[gnu::always_inline]] inline __m256i high_nibble_row(__m256i x, __m256i y) {
    return low_nibble_row(_mm256_srli_epi16(x, 4), _mm256_srli_epi16(y, 4));
}

// As split_nibble_pairs, for `count` a multiple of 32 and `low`, `high`
// 32-byte aligned: 32 pairs (64 bytes) make 32 bytes of each row.
void split_nibble_pairs_streamed(const std::uint8_t *pairs, std::size_t count, std::uint8_t *low,
                                 std::uint8_t *high) {
    for (std::size_t j = 0; j < count; j += 32) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(pairs + 2 * j));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(pairs + 2 * j + 32));
        _mm256_stream_si256(reinterpret_cast<__m256i *>(low + j), low_nibble_row(a, b));
        _mm256_stream_si256(reinterpret_cast<__m256i *>(high + j), high_nibble_row(a, b));
    }
}

// W byte tiles side by side (source rows w * 64 .. w * 64 + 63, 64 bytes
// each) transposed and split at once: byte c of the W * 64 source rows
// makes destination rows 2c (low nibbles) and 2c + 1 (high), W * 32 bytes
// each, streamed (rows 32-byte aligned). The tiles' register blocks are
// split as they come out of the transpose (low_nibble_row,
// high_nibble_row), not stored into a byte-row buffer and read back.
// `ahead`: the next step's prefetches, a share per register block (as
// transpose_tiles issues them).
template <class Ops, int W>
void byte_tiles_split_streamed(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                               std::ptrdiff_t dst_pitch, line_prefetch *ahead) {
    static_assert(Ops::bytes == 32);
    using vec = typename Ops::vec;
    constexpr int parts = static_cast<int>(tile_bytes) / Ops::bytes; // 2
    constexpr int B = Ops::bytes;                                    // 32 rows of a block
    constexpr int blocks = parts * parts * W;
    const int per_block = ahead ? (ahead->per_call + blocks - 1) / blocks : 0;
    for (int b = 0; b < parts; ++b) { // source bytes b * 32 ...
        vec out[W][parts][B];
        for (int w = 0; w < W; ++w)
            for (int a = 0; a < parts; ++a) {
                if (ahead) ahead->issue(per_block);
                transpose_block<Ops, 1>(src + (w * 64 + a * B) * src_pitch + b * Ops::bytes, src_pitch, out[w][a]);
            }
        for (int c = 0; c < B; ++c) {
            std::uint8_t *low = dst + 2 * (b * B + c) * dst_pitch, *high = low + dst_pitch;
            for (int w = 0; w < W; ++w) {
                // out[w][0][c], out[w][1][c]: byte c of source rows w * 64 ..
                // w * 64 + 63, 32 pairs.
                const vec x = out[w][0][c], y = out[w][1][c];
                Ops::stream(low + w * 32, low_nibble_row(x, y));
                Ops::stream(high + w * 32, high_nibble_row(x, y));
            }
        }
    }
}

// byte_tiles_split_streamed for `parts` (1 or 2) 64-byte parts of each
// source row, one after the other (the split needs no scratch).
template <class Ops, int W>
void byte_tiles_split_streamed_parts(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                                     std::ptrdiff_t dst_pitch, int parts, line_prefetch *ahead, std::uint8_t *) {
    for (int part = 0; part < parts; ++part)
        byte_tiles_split_streamed<Ops, W>(src + part * tile_bytes, src_pitch, dst + 2 * part * tile_bytes * dst_pitch,
                                          dst_pitch, ahead);
}

} // namespace
} // namespace reshaper::impl
