// The streamed 4-bit transposes' whole steps with the nibbles regrouped
// before the byte transpose (isa_kernels::byte_tiles_split_streamed at the
// levels that take it): two source rows' nibbles swapped in registers, then
// plain byte tiles. Included by the AVX-512 level (internal linkage, as
// isa_kernels_simd.hpp explains).
#pragma once

#include <cstddef>
#include <cstdint>

#include <immintrin.h>

#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

// Source rows a and b (2j and 2j + 1) byte for byte: a's high nibbles
// and b's low ones trade places (a delta swap: three logic ops and two
// shifts a vector pair), so that byte c of a becomes byte j of
// destination row 2c (column 2c of rows 2j and 2j + 1, low then high) and
// byte c of b byte j of row 2c + 1. The 16-bit shifts move bits across
// bytes only where the mask or the zero nibbles of t drop them.
template <class Ops>
[[gnu::always_inline]]
inline void swap_nibble_pairs(typename Ops::vec &a, typename Ops::vec &b) {
    static_assert(Ops::bytes == 64);
    const __m512i t = _mm512_and_si512(_mm512_xor_si512(_mm512_srli_epi16(a, 4), b), _mm512_set1_epi8(0x0F));
    b = _mm512_xor_si512(b, t);
    a = _mm512_xor_si512(a, _mm512_slli_epi16(t, 4));
}

// The same step as byte_tiles_split_streamed (W byte tiles' source rows,
// Parts 64-byte parts of each, into destination rows 2c and 2c + 1, W * 32
// bytes each, streamed; rows aligned to a line) with the nibbles
// regrouped before the byte transpose instead of after it: each pair of
// source rows is nibble-swapped (swap_nibble_pairs) into two L1 buffers
// (the halves of `scratch`),
// even rows' and odd rows', and each buffer part is then W / 2 plain byte
// tiles side by side whose rows are the destination rows 2c (2c + 1): a
// few logic ops per source vector instead of the split's eight and a pack
// per destination vector, and no second pass over the transposed bytes.
// Both parts of a row at once read the step's source in memory order (a
// part at a time read every other line). Each destination row gets its
// W * 32 bytes as one run of streamed lines (runs of single lines
// measured far slower). `ahead`, with Prefetch: the next step's lines, a
// share per row pair, into the cache level Locality names
// (tile_walk::prefetch_locality). Measured: docs/performance.md.
template <class Ops, int W, int Parts, bool Prefetch, int Locality>
void nibble_pair_tiles_of(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                          std::ptrdiff_t dst_pitch, line_prefetch *ahead, std::uint8_t *scratch) {
    static_assert(W % 2 == 0 && Ops::lanes == 4);
    using vec = typename Ops::vec;
    constexpr int row = Parts * static_cast<int>(tile_bytes); // source bytes per row
    constexpr int vecs = row / Ops::bytes;
    constexpr int pairs = W / 2 * static_cast<int>(tile_bytes); // source row pairs
    static_assert(2 * std::size_t{pairs * row} <= byte_tiles_split_scratch_bytes);
    std::uint8_t *const swapped[2] = {scratch, scratch + pairs * row};
    const int per_pair = Prefetch && ahead ? (Parts * ahead->per_call + pairs - 1) / pairs : 0;
    const std::uint8_t *rows = src;
    for (int j = 0; j < pairs; ++j, rows += 2 * src_pitch) {
        if constexpr (Prefetch)
            if (ahead) ahead->issue<Locality>(per_pair);
        for (int p = 0; p < vecs; ++p) {
            vec a = Ops::load(rows + p * Ops::bytes), b = Ops::load(rows + src_pitch + p * Ops::bytes);
            swap_nibble_pairs<Ops>(a, b);
            Ops::store(swapped[0] + j * row + p * Ops::bytes, a);
            Ops::store(swapped[1] + j * row + p * Ops::bytes, b);
        }
    }
    // A quarter of each tile at a time (load_quarter), its 16 rows
    // streamed as made.
    constexpr int G = 16;
    for (int part = 0; part < Parts; ++part)
        for (int q = 0; q < 2; ++q)
            for (int g = 0; g < 4; ++g)
                for (int w = 0; w < W / 2; ++w) {
                    vec v[G];
                    load_quarter<Ops, 1>(swapped[q] + w * static_cast<int>(tile_bytes) * row + part * tile_bytes,
                                         row, g, v);
                    transpose_in_lanes<Ops, 1>(v);
                    std::uint8_t *out = dst + (2 * (part * static_cast<int>(tile_bytes) + g * G) + q) * dst_pitch +
                                        w * tile_bytes;
                    for (int r = 0; r < G; ++r, out += 2 * dst_pitch) {
                        asm("" : "+r"(out));
                        Ops::stream(out, v[r]);
                    }
                }
}
// `parts`: 1 or 2 (the whole 128-byte rows of a strip of 256 elements).
template <class Ops, int W, bool Prefetch, int Locality = 3>
void nibble_pair_tiles(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                       std::ptrdiff_t dst_pitch, int parts, line_prefetch *ahead, std::uint8_t *scratch) {
    if (parts == 2)
        return nibble_pair_tiles_of<Ops, W, 2, Prefetch, Locality>(src, src_pitch, dst, dst_pitch, ahead, scratch);
    nibble_pair_tiles_of<Ops, W, 1, Prefetch, Locality>(src, src_pitch, dst, dst_pitch, ahead, scratch);
}

} // namespace
} // namespace reshaper::impl
