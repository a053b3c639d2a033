// The SIMD tile transpose and streaming copy, written once over a small
// vector-ops class and instantiated by isa_kernels_avx2.cpp and
// isa_kernels_avx512.cpp, each compiled for its own ISA.
//
// Everything here has internal linkage on purpose: each including file is
// compiled with different -m flags, and an inline function with external
// linkage could be merged by the linker into the other level's copy (and
// so run AVX-512 code on a CPU without it). Include no header that
// instantiates templates.
//
// The helpers that hand a register block on through an array (out, v) are
// always inlined: out of line, the array goes through the stack (a store
// and a reload per vector), and whether GCC inlines them otherwise turns on
// how many callers an instantiation has, so a change elsewhere in a level's
// file had made f32 in-cache tiles a sixth slower (docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <immintrin.h>

#include "kernels/isa_kernels.hpp"
#include "kernels/isa_split_rows.hpp"
#include "kernels/isa_tiny_tiles.hpp"
#include "kernels/short_copy.hpp"

namespace reshaper::impl {
namespace {

// The vector ops transpose_rows needs, for 128-bit and 256-bit vectors
// (each including file's ISA has both: AVX2 and AVX-512 include them).
struct sse_ops {
    using vec = __m128i;
    static constexpr int bytes = 16;
    static constexpr int lanes = 1;

    static vec load(const std::uint8_t *p) { return _mm_loadu_si128(reinterpret_cast<const vec *>(p)); }
    static void store(std::uint8_t *p, vec v) { _mm_storeu_si128(reinterpret_cast<vec *>(p), v); }
    static void stream(std::uint8_t *p, vec v) { _mm_stream_si128(reinterpret_cast<vec *>(p), v); }

    template <int E> static vec unpacklo(vec a, vec b) {
        if constexpr (E == 1) return _mm_unpacklo_epi8(a, b);
        else if constexpr (E == 2) return _mm_unpacklo_epi16(a, b);
        else if constexpr (E == 4) return _mm_unpacklo_epi32(a, b);
        else return _mm_unpacklo_epi64(a, b);
    }
    template <int E> static vec unpackhi(vec a, vec b) {
        if constexpr (E == 1) return _mm_unpackhi_epi8(a, b);
        else if constexpr (E == 2) return _mm_unpackhi_epi16(a, b);
        else if constexpr (E == 4) return _mm_unpackhi_epi32(a, b);
        else return _mm_unpackhi_epi64(a, b);
    }
    static void lane_transpose(vec *) {} // one lane: nothing to exchange
};

struct avx2_ops {
    using vec = __m256i;
    static constexpr int bytes = 32;
    static constexpr int lanes = 2;
    // The AVX2 level's walk (tile_walk), tuned on an AMD EPYC without
    // AVX-512 (Zen 3): column blocks read in order and transposed from the
    // cache, the next step's lines prefetched, tiles side by side by how
    // far apart destination rows lie; longer runs where the move stays in
    // the caches. Figures: docs/performance.md, "Why the kernels are tuned
    // as they are".
    static constexpr level_walks walk = with_far_sources_in_single_tiles(
            {{{{{2, 0, 64, true}, {4, 0, 64, true}, {8, 0, 128, true}, {8, 0, 128, true}, {4, 0, 64, true}}},
              {{{8, 0, 128, true}, {8, 0, 128, true}, {8, 0, 128, true}, {8, 0, 128, true}, {4, 0, 64, true}}},
              {{{8, 0, 128}, {8, 0, 128}, {4, 0, 64}, {4, 0, 64}, {1, 4}}},
              {{{8, 0, 128, true}, {8, 0, 128, true}, {4, 0, 64, true}, {4, 0, 64, true}, {4, 0, 64, true}}}}});

    static vec load(const std::uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const vec *>(p)); }
    // 16 bytes from lo in the low lane, 16 from hi in the high one.
    static vec load_halves(const std::uint8_t *lo, const std::uint8_t *hi) {
        return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(lo))),
                                       _mm_loadu_si128(reinterpret_cast<const __m128i *>(hi)), 1);
    }
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

// Transposes, within each 128-bit lane, the G = 16 / E rows v[0..G-1]
// by log2(G) rounds of unpacking vector i with vector i + G/2 (a perfect
// shuffle): afterwards v[j] lane l holds the lane's column j, the rows in
// order.
// (With U, the rounds unpack elements of U bytes instead of E, over
// G = 16 / E vectors still: the 1-byte lane block's halves.)
template <class Ops, int E, int U = E>
[[gnu::always_inline]]
inline void transpose_in_lanes(typename Ops::vec *v, std::integral_constant<int, U> = {}) {
    using vec = typename Ops::vec;
    constexpr int G = 16 / E;
    for (int round = 1; round < G; round *= 2) {
        vec next[G];
        for (int i = 0; i < G / 2; ++i) {
            next[2 * i] = Ops::template unpacklo<U>(v[i], v[i + G / 2]);
            next[2 * i + 1] = Ops::template unpackhi<U>(v[i], v[i + G / 2]);
        }
        for (int i = 0; i < G; ++i) v[i] = next[i];
    }
}

// Transposes a block of T x T elements of E bytes held in T vectors of
// Ops::bytes (T = Ops::bytes / E): source row r at src + r * pitch (or as
// load_row gives it); out[c] receives column c.
//
// Two stages. Within each 128-bit lane, groups of G = 16 / E rows are
// transposed by log2(G) rounds of unpacking vector i with vector i + G/2
// (a perfect shuffle: after log2(G) rounds vector j lane l holds column
// l * G + j of the group). Then the lanes are transposed across groups:
// the l-th lanes of group 0, 1, ... of vector j make output row l * G + j.
// `load_row(r)` gives source row r.
template <class Ops, int E, class LoadRow>
[[gnu::always_inline]]
inline void transpose_rows(const LoadRow &load_row, typename Ops::vec *out) {
    using vec = typename Ops::vec;
    constexpr int G = 16 / E;
    constexpr int L = Ops::lanes;
    vec group[L][G];
    for (int g = 0; g < L; ++g) {
        for (int r = 0; r < G; ++r) group[g][r] = load_row(g * G + r);
        transpose_in_lanes<Ops, E>(group[g]);
    }
    for (int j = 0; j < G; ++j) {
        vec lanes[L];
        for (int g = 0; g < L; ++g) lanes[g] = group[g][j];
        Ops::lane_transpose(lanes);
        for (int l = 0; l < L; ++l) out[l * G + j] = lanes[l];
    }
}

template <class Ops, int E>
[[gnu::always_inline]]
inline void transpose_block(const std::uint8_t *src, std::ptrdiff_t pitch, typename Ops::vec *out) {
    transpose_rows<Ops, E>([&](int r) { return Ops::load(src + r * pitch); }, out);
}

// Quarter g of a tile's transpose for vectors of four lanes (AVX-512's):
// vector r loads 16-byte piece g of rows r, G + r, 2G + r and 3G + r, one
// per lane, so that the in-lane transpose alone leaves whole destination
// rows g * G .. g * G + G-1: the loads' inserts (any of two ports) take the
// place of the cross-lane shuffles (one port, which the unpacks keep busy).
// The G rows are stored as made, row c at dst + c * dst_pitch: G vectors
// live, within the 32 registers. The row addresses step along opaque
// pointers (see transpose_block_into): with an address per row, GCC kept a
// pointer per source and destination row of the unrolled tiles on the
// stack and reloaded one before each access (perf annotate of s8 NHWC as
// NCHW).
template <class Ops, int E>
[[gnu::always_inline]]
inline void load_quarter(const std::uint8_t *src, std::ptrdiff_t pitch, int g, typename Ops::vec *v) {
    static_assert(Ops::lanes == 4);
    constexpr int G = 16 / E;
    const std::uint8_t *row = src + g * 16;
    for (int r = 0; r < G; ++r, row += pitch) {
        asm("" : "+r"(row));
        v[r] = Ops::load_quarters(row, G * pitch);
    }
}
template <class Ops, int E>
[[gnu::always_inline]]
inline void finish_quarter_into(typename Ops::vec *v, int g, std::uint8_t *dst, std::ptrdiff_t dst_pitch) {
    constexpr int G = 16 / E;
    transpose_in_lanes<Ops, E>(v);
    std::uint8_t *out = dst + g * G * dst_pitch;
    for (int j = 0; j < G; ++j, out += dst_pitch) {
        asm("" : "+r"(out));
        Ops::store(out, v[j]);
    }
}
template <class Ops, int E>
[[gnu::always_inline]]
inline void transpose_quarter_into(const std::uint8_t *src, std::ptrdiff_t pitch, int g, std::uint8_t *dst,
                                   std::ptrdiff_t dst_pitch) {
    typename Ops::vec v[16 / E];
    load_quarter<Ops, E>(src, pitch, g, v);
    finish_quarter_into<Ops, E>(v, g, dst, dst_pitch);
}

// K tiles side by side (source rows T apart, destination bytes 64 apart), a
// quarter of each at a time: the G rows of all K tiles before the next G
// (runs of K lines), so that the K tiles' source, read 4 times, stays in
// L1. Where a quarter is at most 8 vectors (2-byte and wider elements),
// each quarter's loads are issued before the stores of the one before:
// its stores wait long on their lines (rows a multiple of 4 KiB apart
// share one L1 set), and a load after a store to an address with the same
// low 12 bits waits for it (4K aliasing); 1-byte quarters (16 vectors)
// twice spilled to the stack.
template <class Ops, int E, int K>
inline void transpose_tiles_by_quarters(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                        std::ptrdiff_t dst_pitch) {
    using vec = typename Ops::vec;
    constexpr int G = 16 / E, T = 64 / E;
    if constexpr (G > 8) {
        for (int g = 0; g < 4; ++g)
            for (int w = 0; w < K; ++w)
                transpose_quarter_into<Ops, E>(src + w * T * pitch, pitch, g, dst + w * tile_bytes, dst_pitch);
    } else {
        vec v[2][G];
        load_quarter<Ops, E>(src, pitch, 0, v[0]);
#pragma GCC unroll 32
        for (int q = 0; q < 4 * K; ++q) { // quarter q / K of tile q % K
            if (q + 1 < 4 * K)
                load_quarter<Ops, E>(src + (q + 1) % K * T * pitch, pitch, (q + 1) / K, v[(q + 1) % 2]);
            finish_quarter_into<Ops, E>(v[q % 2], q / K, dst + q % K * tile_bytes, dst_pitch);
        }
    }
}

// Quarter g of W tiles side by side (destination rows g * G .. g * G + G-1,
// G = 16 / E, bytes 0 .. W * 64 of each from its start) where those rows
// start off a line boundary, a whole number of dwords into their line
// (tile_walk::line_stores): each row's run is stored as the aligned lines
// it covers, line k joined from tiles k - 1 and k in registers
// (Ops::join_lines), the first and last line masked to the run's bytes,
// instead of each tile's row straddling two lines. Both ends' lines are
// shared with the neighbouring runs, whose bytes the masks leave alone.
// Three vectors a row live (the tile before, the tile, the join's index):
// at most 8 rows (2-byte and wider elements) within the 32 registers.
template <class Ops, int E, int W>
[[gnu::always_inline]]
inline void transpose_quarters_in_lines(const std::uint8_t *src, std::ptrdiff_t pitch, int g, std::uint8_t *dst,
                                        std::ptrdiff_t dst_pitch) {
    static_assert(Ops::lanes == 4 && E >= 2 && W >= 2);
    using vec = typename Ops::vec;
    constexpr int G = 16 / E, T = 64 / E;
    vec before[G], now[G], join[G];
    unsigned offset[G]; // dwords into the line
    std::uint8_t *line[G];
    std::uint8_t *row = dst + g * G * dst_pitch;
    for (int j = 0; j < G; ++j, row += dst_pitch) {
        const auto at = reinterpret_cast<std::uintptr_t>(row);
        offset[j] = static_cast<unsigned>(at % tile_bytes) / 4;
        line[j] = row - at % tile_bytes;
        join[j] = Ops::join_index(offset[j]);
    }
    load_quarter<Ops, E>(src, pitch, g, before);
    transpose_in_lanes<Ops, E>(before);
    for (int j = 0; j < G; ++j)
        Ops::store_dwords(line[j], Ops::join_lines(before[j], join[j], before[j]), Ops::dwords_from(offset[j]));
#pragma GCC unroll 8
    for (int w = 1; w < W; ++w) {
        load_quarter<Ops, E>(src + w * T * pitch, pitch, g, now);
        transpose_in_lanes<Ops, E>(now);
        for (int j = 0; j < G; ++j) {
            Ops::store(line[j] + w * tile_bytes, Ops::join_lines(before[j], join[j], now[j]));
            before[j] = now[j];
        }
    }
    for (int j = 0; j < G; ++j)
        Ops::store_dwords(line[j] + W * tile_bytes, Ops::join_lines(before[j], join[j], before[j]),
                          Ops::dwords_below(offset[j]));
}

// How many of W tiles side by side (a power of two) the line joins of
// transpose_quarters_in_lines take at once: they read those tiles' source
// four times over (a quarter of every tile, then the next), so it should
// stay in L1. Rows p lines apart fall in l1_sets / 2^k of L1's sets, 2^k
// the largest power of two (up to l1_sets) that divides p; at most
// source_lines_per_l1_set a set leaves the destination lines room (the
// Intel Xeon's L1, whose table alone takes the joins, has 12 ways). W
// tiles at once whose source could not stay there measured slower than
// single tiles' straddling stores (bf16 at 128 channels), except for the
// `fewest` tiles the caller takes at any pitch. Below 2, no joins (0).
inline constexpr int l1_sets = 64;
inline constexpr int source_lines_per_l1_set = 8;
// L1 sets that rows src_pitch apart fall in (all of them where rows lie
// off a line multiple apart).
inline int l1_sets_of_rows(std::ptrdiff_t src_pitch) {
    int sets = l1_sets;
    if (src_pitch % tile_bytes == 0)
        for (std::ptrdiff_t lines = src_pitch / tile_bytes; lines % 2 == 0 && sets > 1; lines /= 2) sets /= 2;
    return sets;
}
// The in-cache tiles of two-lane vectors copy a tile's source into L1
// first where its rows put more lines than this in each L1 set they fall
// in (half the ways: at 4 a set, staging measured slower, at 8 and 16
// rows of the tile read from L2 over and over measured 1.5-2x slower;
// docs/performance.md).
inline constexpr int staged_source_lines_per_set = 4;
inline int line_store_tiles(std::ptrdiff_t src_pitch, int tile_rows, int W, int fewest) {
    const int sets = l1_sets_of_rows(src_pitch);
    int K = W;
    while (K > fewest && (K * tile_rows + sets - 1) / sets > source_lines_per_l1_set) K /= 2;
    if (K < fewest) K = fewest;
    return K >= 2 ? K : 0;
}

// transpose_block for vectors of two lanes (AVX2's): each vector loads the
// same half of rows r and G + r, one per lane, so that the in-lane
// transpose alone leaves whole destination rows, without the cross-lane
// permutes (and the second group's vectors live until them). Stores each
// destination row as it is made: row c at dst + c * dst_pitch.
//
// Every row address is one of two bases (rows 0 and G) plus 0 to 3
// pitches, an x86 addressing mode each (3 * pitch the one extra register).
// The empty asm makes the bases opaque: without it GCC strength-reduced
// the callers' loops into a pointer per row (16 for the 16 x 16 f32 tile),
// spilled them to the stack and reloaded one before every load (objdump of
// transpose_tiles<avx2_ops, 4, 1, false>).
template <class Ops, int E>
inline void transpose_block_into(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                 std::ptrdiff_t dst_pitch) {
    static_assert(Ops::lanes == 2 && 16 / E <= 4);
    constexpr int G = 16 / E;
    const std::uint8_t *low = src, *high = src + G * pitch;
    std::uint8_t *first = dst, *second = dst + G * dst_pitch;
    asm("" : "+r"(low), "+r"(high), "+r"(first), "+r"(second));
    for (int l = 0; l < 2; ++l) { // columns l * G ...
        typename Ops::vec v[G];
        for (int r = 0; r < G; ++r) v[r] = Ops::load_halves(low + r * pitch + l * 16, high + r * pitch + l * 16);
        transpose_in_lanes<Ops, E>(v);
        for (int j = 0; j < G; ++j) Ops::store((l == 0 ? first : second) + j * dst_pitch, v[j]);
    }
}

// transpose_block_into from whole-row loads: rows 0 .. G-1 and G .. 2G-1
// each transposed within lanes, then destination row j's halves joined
// across the two groups by a lane permute (Ops::lane_transpose) and stored
// as made. Half the loads of transpose_block_into (2G of 32 bytes instead
// of 4G of 16, half of them inserts) for G permutes: on the Zen 3 EPYC an
// insert from memory issues about one a cycle (the unpacks two), and an
// 8 x 8 f32 block with its source and destination in L1 took 10.7 TSC
// ticks with the inserts, 9.0 with the permutes, a copy of its 256 bytes
// 6.3 (docs/performance.md).
template <class Ops, int E>
[[gnu::always_inline]]
inline void transpose_block_permuted_into(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                          std::ptrdiff_t dst_pitch) {
    static_assert(Ops::lanes == 2 && 16 / E <= 4);
    constexpr int G = 16 / E;
    const std::uint8_t *low = src, *high = src + G * pitch;
    std::uint8_t *first = dst, *second = dst + G * dst_pitch;
    asm("" : "+r"(low), "+r"(high), "+r"(first), "+r"(second)); // see transpose_block_into
    typename Ops::vec v[2][G];
    for (int r = 0; r < G; ++r) {
        v[0][r] = Ops::load(low + r * pitch);
        v[1][r] = Ops::load(high + r * pitch);
    }
    transpose_in_lanes<Ops, E>(v[0]);
    transpose_in_lanes<Ops, E>(v[1]);
    for (int j = 0; j < G; ++j) {
        typename Ops::vec lanes[2] = {v[0][j], v[1][j]};
        Ops::lane_transpose(lanes);
        Ops::store(first + j * dst_pitch, lanes[0]);
        Ops::store(second + j * dst_pitch, lanes[1]);
    }
}

// Two register blocks of transpose_block_into that make B = 32 / E whole
// destination lines: source rows 0 .. B-1 their first 32 bytes (waiting in
// a buffer in L1), rows B .. 2B-1 their second; each line then stored as
// two back-to-back stores. For destination rows a multiple of 4 KiB apart,
// where the B lines share one L1 set and their first halves left it
// before the second halves came (see transpose_lane_lines_into).
// Never inlined: inlined into the AVX2 level's 4-tile walk (once the
// helpers above were always inlined) it measured a tenth slower, for no
// cause the VM's counters could show (docs/performance.md).
// (transpose_block_lines_from: source rows 0 .. B-1 from `src`, rows B ..
// 2B-1 from `rest`, each `pitch` and `rest_pitch` apart; the partial tiles
// take the second from a buffer.)
template <class Ops, int E>
[[gnu::noinline]] void transpose_block_lines_from(const std::uint8_t *src, std::ptrdiff_t pitch,
                                                  const std::uint8_t *rest, std::ptrdiff_t rest_pitch,
                                                  std::uint8_t *dst, std::ptrdiff_t dst_pitch) {
    constexpr int G = 16 / E, B = 2 * G;
    alignas(32) std::uint8_t first[B * Ops::bytes];
    transpose_block_into<Ops, E>(src, pitch, first, Ops::bytes);
    pitch = rest_pitch;
    const std::uint8_t *low = rest, *high = low + G * pitch;
    asm("" : "+r"(low), "+r"(high), "+r"(dst));
    for (int l = 0; l < 2; ++l) {
        typename Ops::vec v[G];
        for (int r = 0; r < G; ++r) v[r] = Ops::load_halves(low + r * pitch + l * 16, high + r * pitch + l * 16);
        transpose_in_lanes<Ops, E>(v);
        for (int j = 0; j < G; ++j) {
            const int row = l * G + j;
            Ops::store(dst + row * dst_pitch, Ops::load(first + row * Ops::bytes));
            Ops::store(dst + row * dst_pitch + Ops::bytes, v[j]);
        }
    }
}
template <class Ops, int E>
[[gnu::always_inline]]
inline void transpose_block_lines_into(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                       std::ptrdiff_t dst_pitch) {
    transpose_block_lines_from<Ops, E>(src, pitch, src + 2 * (16 / E) * pitch, pitch, dst, dst_pitch);
}

// W tiles side by side of 4-byte elements where destination rows lie a
// multiple of 4 KiB apart, in quads: G = 4 destination rows' whole line of
// one tile (16 source rows' 16 bytes: two in-lane transposes of rows r and
// r + G in one vector's halves, 8 vectors live), each line's halves stored
// back to back, the quads of a row group tile after tile. So at most G
// lines in a row go to one L1 set, then the next tile's lines to the next
// set. On the Zen 3 EPYC, stores of whole lines into 64 rows 4 KiB apart
// took 11 us a 256 KiB when 8 lines in a row went to one set (the two
// blocks of transpose_block_lines_into), 6.5 us at 4 and 5.4-5.5 us at 1-2,
// against 8 us for memcpy (a store-order microbenchmark; docs/performance.md); the quads also need no
// buffer for the lines' first halves.
template <class Ops, int E, int W>
inline void transpose_tiles_in_quads(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                     std::ptrdiff_t dst_pitch) {
    static_assert(Ops::lanes == 2 && E == 4);
    using vec = typename Ops::vec;
    constexpr int G = 16 / E, T = 64 / E;
    for (int q = 0; q < T / G; ++q) { // destination rows q * G ..: source bytes q * 16 ..
        std::uint8_t *row = dst + q * G * dst_pitch;
#pragma GCC unroll 8
        for (int w = 0; w < W; ++w) {
            vec v[2][G];
            for (int a = 0; a < 2; ++a) {
                const std::uint8_t *low = src + (w * T + a * 2 * G) * pitch + q * 16, *high = low + G * pitch;
                asm("" : "+r"(low), "+r"(high)); // see transpose_block_into
                for (int r = 0; r < G; ++r) v[a][r] = Ops::load_halves(low + r * pitch, high + r * pitch);
                transpose_in_lanes<Ops, E>(v[a]);
            }
            std::uint8_t *to = row + w * tile_bytes;
            asm("" : "+r"(to));
            for (int j = 0; j < G; ++j) {
                Ops::store(to + j * dst_pitch, v[0][j]);
                Ops::store(to + j * dst_pitch + Ops::bytes, v[1][j]);
            }
        }
    }
}

// The register blocks of transpose_block_into for W tiles side by side,
// in quarters of G = 16 / E vectors (16 source bytes of 2G rows: G
// destination rows of 32 bytes), each quarter's loads issued before the
// stores of the one before: a load after a store to an address with the
// same low 12 bits waits for it (4K aliasing), and two buffers of a size
// allocated one after the other lie 16 bytes past a multiple of 4 KiB
// apart (the 4 KiB f32 transpose measured clearly slower at distances of
// 8-96 and 4032-4088 bytes than at 0, 64 or 2048).
template <class Ops, int E, int W>
inline void transpose_blocks_into(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                  std::ptrdiff_t dst_pitch) {
    static_assert(Ops::lanes == 2 && 16 / E <= 4);
    using vec = typename Ops::vec;
    constexpr int G = 16 / E, B = 2 * G, T = 64 / E;
    constexpr int quarters = 2 * W * 2 * 2; // per tile: 2 column halves x 2 row blocks x 2 lanes
    // Quarter q: column half b, tile w, row block a, lane l (b outermost).
    const auto source = [&](int q) {
        const int l = q % 2, a = q / 2 % 2, w = q / 4 % W, b = q / (4 * W);
        return src + (w * T + a * B) * pitch + b * Ops::bytes + l * 16;
    };
    const auto target = [&](int q) {
        const int l = q % 2, a = q / 2 % 2, w = q / 4 % W, b = q / (4 * W);
        return dst + (b * B + l * G) * dst_pitch + w * tile_bytes + a * Ops::bytes;
    };
    const auto load = [&](int q, vec *v) {
        const std::uint8_t *low = source(q), *high = low + G * pitch;
        asm("" : "+r"(low), "+r"(high)); // see transpose_block_into
        for (int r = 0; r < G; ++r) v[r] = Ops::load_halves(low + r * pitch, high + r * pitch);
    };
    vec v[2][G];
    load(0, v[0]);
#pragma GCC unroll 64
    for (int q = 0; q < quarters; ++q) {
        vec *now = v[q % 2];
        if (q + 1 < quarters) load(q + 1, v[(q + 1) % 2]);
        transpose_in_lanes<Ops, E>(now);
        std::uint8_t *to = target(q);
        asm("" : "+r"(to));
        for (int j = 0; j < G; ++j) Ops::store(to + j * dst_pitch, now[j]);
    }
}

// The same for 1- and 2-byte elements, a lane's worth of columns at a
// time: G = 16 / E destination rows of 32 bytes from 2G source rows of 16
// bytes (rows r and G + r in one vector's halves). G vectors are live, so
// the block fits AVX2's 16 registers, where a register block of 32 or 16
// rows of 32 bytes did not: transpose_tiles held a whole wide tile's
// blocks (512 vectors for s8) on the stack and stored them from there.
// `store_row(j, v)` takes destination row j.
template <class Ops, int E, class StoreRow>
[[gnu::always_inline]]
inline void transpose_lane_block(const std::uint8_t *src, std::ptrdiff_t pitch, const StoreRow &store_row) {
    static_assert(Ops::lanes == 2 && (E == 1 || E == 2));
    constexpr int G = 16 / E;
    const std::uint8_t *low = src, *high = src + G * pitch;
    asm("" : "+r"(low), "+r"(high)); // see transpose_block_into
    using vec = typename Ops::vec;
    if constexpr (E == 1) {
        // The first round's low and high unpacks make two halves that the
        // later rounds never mix: the low half becomes destination rows
        // 0-7, the high half rows 8-15, each the same perfect shuffle of 8
        // vectors. Finished and stored one half at a time, the 16 vectors
        // and the shuffle's temporaries no longer all compete for AVX2's 16
        // registers (the whole block at once spilled some of them to the
        // stack and read them back).
        vec half[2][G / 2];
        for (int i = 0; i < G / 2; ++i) {
            const vec a = Ops::load_halves(low + i * pitch, high + i * pitch);
            const vec b = Ops::load_halves(low + (i + G / 2) * pitch, high + (i + G / 2) * pitch);
            half[0][i] = Ops::template unpacklo<E>(a, b);
            half[1][i] = Ops::template unpackhi<E>(a, b);
        }
        for (int h = 0; h < 2; ++h) {
            transpose_in_lanes<Ops, 2 * E>(half[h], std::integral_constant<int, E>{});
            for (int j = 0; j < G / 2; ++j) store_row(h * (G / 2) + j, half[h][j]);
        }
        return;
    }
    vec v[G];
    for (int r = 0; r < G; ++r) v[r] = Ops::load_halves(low + r * pitch, high + r * pitch);
    transpose_in_lanes<Ops, E>(v);
    for (int j = 0; j < G; ++j) store_row(j, v[j]);
}

// Two lane blocks that make whole destination lines: source rows 0 .. 2G-1
// the lines' first 32 bytes, rows 2G .. 4G-1 their second. The first
// block waits in a buffer in L1 and each line is then stored whole, its
// halves back to back: stored as made, the G lines' first halves left L1
// before their second halves came where destination rows lie a multiple of
// 4 KiB apart (all G lines in one of L1's 8-way sets).
// With Direct, both blocks are stored as made: where destination rows lie
// less than 2 KiB apart (or off a multiple of it) the G lines spread over
// several sets and stay in L1 between the halves, and the buffer's store
// and reload of every first half is only work.
// (transpose_lane_lines_from: source rows 0 .. 2G-1 from `src`, rows 2G ..
// 4G-1 from `rest`, each `pitch` and `rest_pitch` apart; the partial tiles
// take the second from a buffer.)
// Always inlined, as it was before the partial tiles became its second
// caller (see the top of this file).
template <class Ops, int E, bool Direct = false>
[[gnu::always_inline]]
inline void transpose_lane_lines_from(const std::uint8_t *src, std::ptrdiff_t pitch, const std::uint8_t *rest,
                                      std::ptrdiff_t rest_pitch, std::uint8_t *dst, std::ptrdiff_t dst_pitch) {
    if constexpr (Direct) {
        std::uint8_t *second = dst + Ops::bytes;
        asm("" : "+r"(dst), "+r"(second));
        transpose_lane_block<Ops, E>(src, pitch, [&](int j, typename Ops::vec v) { Ops::store(dst + j * dst_pitch, v); });
        transpose_lane_block<Ops, E>(rest, rest_pitch,
                                     [&](int j, typename Ops::vec v) { Ops::store(second + j * dst_pitch, v); });
        return;
    }
    constexpr int G = 16 / E;
    alignas(32) std::uint8_t first[G * Ops::bytes];
    transpose_lane_block<Ops, E>(src, pitch, [&](int j, typename Ops::vec v) { Ops::store(first + j * Ops::bytes, v); });
    asm("" : "+r"(dst));
    transpose_lane_block<Ops, E>(rest, rest_pitch, [&](int j, typename Ops::vec v) {
        Ops::store(dst + j * dst_pitch, Ops::load(first + j * Ops::bytes));
        Ops::store(dst + j * dst_pitch + Ops::bytes, v);
    });
}
template <class Ops, int E, bool Direct = false>
[[gnu::always_inline]]
inline void transpose_lane_lines_into(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                      std::ptrdiff_t dst_pitch) {
    transpose_lane_lines_from<Ops, E, Direct>(src, pitch, src + 2 * (16 / E) * pitch, pitch, dst, dst_pitch);
}

// K tiles side by side of 1-byte elements where destination rows lie a
// multiple of 4 KiB apart: each tile's G = 16 destination lines of a lane
// column (transpose_lane_lines_into's two lane blocks) are made into an L1
// buffer of rows K lines long, then each destination row's K lines are
// stored back to back, so that consecutive lines go to K different L1
// sets. Stored as made, a tile's 16 lines went to one 8-way set in a row,
// and each evicted lines still waiting for their stores (the store-order
// measurements are in docs/performance.md, incache8 and incache9). The
// buffer costs each line a second store and a load; 1-byte tiles gain
// (their 16 lines a set), 2-byte ones (8 lines a set) measured no faster.
template <class Ops, int E, int K>
inline void transpose_lane_lines_across(const std::uint8_t *src, std::ptrdiff_t pitch, std::uint8_t *dst,
                                        std::ptrdiff_t dst_pitch) {
    constexpr int G = 16 / E, T = 64 / E;
    alignas(64) std::uint8_t rows[G][K][64];
    for (int c = 0; c < 64 / 16; ++c) { // source bytes c * 16 ...: destination rows c * G ...
        for (int k = 0; k < K; ++k)
            transpose_lane_lines_into<Ops, E, true>(src + k * T * pitch + c * 16, pitch, rows[0][k], K * 64);
        std::uint8_t *row = dst + c * G * dst_pitch;
        for (int j = 0; j < G; ++j, row += dst_pitch) {
            std::uint8_t *to = row;
            asm("" : "+r"(to)); // see transpose_block_into
            for (int p = 0; p < K * 64 / Ops::bytes; ++p)
                Ops::store(to + p * Ops::bytes, Ops::load(rows[j][0] + p * Ops::bytes));
        }
    }
}

// Stores B destination rows from out[w][p][c] (row c gets the W * P
// vectors w, p in order, back to back: runs of whole lines when streamed).
template <class Ops, int W, int P, int B>
[[gnu::always_inline]]
inline void store_rows(const typename Ops::vec (&out)[W][P][B], std::uint8_t *dst, std::ptrdiff_t dst_pitch,
                       bool stream) {
    for (int c = 0; c < B; ++c) {
        std::uint8_t *row = dst + c * dst_pitch;
        for (int w = 0; w < W; ++w)
            for (int p = 0; p < P; ++p) {
                std::uint8_t *to = row + w * tile_bytes + p * Ops::bytes;
                if (stream)
                    Ops::stream(to, out[w][p][c]);
                else
                    Ops::store(to, out[w][p][c]);
            }
    }
}

// W whole tiles side by side in the destination: source rows w*T ..
// w*T + T-1 (T = 64 / E, 64 bytes each) make bytes w*64 .. w*64 + 63 of the
// T destination rows. Each tile is built from (64 / Ops::bytes)^2
// register blocks; each destination row's W * 64 bytes are then stored
// back to back, so streaming stores leave as runs of whole lines (see
// tile_walk).
// With Prefetch, `ahead` (when not null) issues its lines a share per
// register block; without, it is ignored and costs nothing (the tiny tiles
// of 16-byte elements measured slower with the check compiled in).
// Locality and ByRow: the prefetches' (tile_walk::prefetch_locality,
// prefetch_by_row; ByRow in the streamed register blocks below).
// Aligned to a line: streamed moves stall on its prefetch loop, whose
// place within the code's lines alone made nChw16c f32 into nchw clearly
// slower or faster between builds of the same code (docs/performance.md).
template <class Ops, int E, int W, bool Prefetch, int Locality = 3, bool ByRow = false, bool LineStores = false>
__attribute__((aligned(64))) void transpose_tiles(const std::uint8_t *src, std::ptrdiff_t src_pitch,
                                                  std::uint8_t *dst, std::ptrdiff_t dst_pitch, bool stream,
                                                  line_prefetch *ahead) {
    using vec = typename Ops::vec;
    constexpr int parts = static_cast<int>(tile_bytes) / Ops::bytes; // blocks per tile side
    constexpr int B = Ops::bytes / E;                               // block side in elements
    constexpr int T = static_cast<int>(tile_bytes) / E;             // tile side in elements
    // 16-byte elements: a tile is 4 source rows, each on its own page when
    // rows are long (c128 NHWC as NCHW: 4 KiB apart), where the hardware
    // prefetchers do not follow; the rows 4 tiles ahead are prefetched
    // (non-temporal: each line is read once). Measured faster on c128 (2
    // to 8 tiles ahead alike); the same for 1- to 8-byte elements
    // measured slower, so only here, and only
    // in walks without the next step's line prefetches, which it slowed
    // (docs/performance.md).
    // (Integer addresses: the rows ahead may lie past the tensor, and a
    // prefetch there is harmless where forming the pointer would not be.)
    if constexpr (E == 16 && !Prefetch)
        for (int r = 0; r < W * T; ++r)
            __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<std::uintptr_t>(src) +
                                                              static_cast<std::uintptr_t>((4 * W * T + r) * src_pitch)),
                               0, 0);
    constexpr int blocks = parts * parts * W;
    const int per_block = Prefetch && ahead ? (ahead->per_call + blocks - 1) / blocks : 0;
    // Two-lane vectors (AVX2) in the caches: a tile's T source rows are
    // read 64 / Ops::bytes times or more (per register block or lane block),
    // so their lines should stay in L1. Rows a multiple of 1-4 KiB apart
    // put all T lines in a few of L1's 8-way sets (NCHW as NHWC at 32 x 32
    // and 64 x 64 planes), and every pass read them from L2 again (perf
    // annotate: the samples on the source loads). There each tile's source
    // is first copied, each line once and in order, into an L1 buffer of
    // back-to-back lines, and transposed from there (docs/performance.md).
    if constexpr (Ops::lanes == 2 && !Prefetch && E <= 8)
        if (!stream && T / l1_sets_of_rows(src_pitch) > staged_source_lines_per_set) {
            alignas(64) std::uint8_t staged[T * tile_bytes];
            for (int w = 0; w < W; ++w) {
                const std::uint8_t *from = src + w * T * src_pitch;
                std::uint8_t *into = staged;
                for (int r = 0; r < T; ++r, from += src_pitch, into += tile_bytes) {
                    asm("" : "+r"(from));
                    for (int p = 0; p < parts; ++p) Ops::store(into + p * Ops::bytes, Ops::load(from + p * Ops::bytes));
                }
                transpose_tiles<Ops, E, 1, false>(staged, tile_bytes, dst + w * tile_bytes, dst_pitch, false, nullptr);
            }
            return;
        }
    // Ordinary stores need no runs of whole lines: each register block of
    // AVX2's 4- and 8-byte elements is stored as soon as it is made
    // (transpose_block_into), in the same order of lines (a destination
    // line's halves one block apart). Holding W * parts blocks for the runs
    // spilled most of them to the stack and read them back at once (perf
    // annotate of the 32 x 32 f32 execute: store-forwarded reloads between
    // the unpacks). Only where a block has at most 8 rows: its B
    // destination lines may share one of L1's 8-way sets (rows a multiple
    // of 4 KiB apart), and with 16 or 32 (2- and 1-byte elements) a line's
    // first half left L1 before its second came (docs/performance.md).
    if constexpr (Ops::lanes == 2 && parts > 1 && B <= 8)
        if (!stream) {
            if (dst_pitch % 4096 == 0) {
                // 4-byte elements in the caches: quads (transpose_tiles_in_quads).
                if constexpr (E == 4 && !Prefetch) {
                    transpose_tiles_in_quads<Ops, E, W>(src, src_pitch, dst, dst_pitch);
                    return;
                }
                for (int b = 0; b < parts; ++b)
                    for (int w = 0; w < W; ++w) {
                        if constexpr (Prefetch)
                            if (ahead) ahead->issue<Locality>(2 * per_block);
                        transpose_block_lines_into<Ops, E>(src + w * T * src_pitch + b * Ops::bytes, src_pitch,
                                                           dst + b * B * dst_pitch + w * tile_bytes, dst_pitch);
                    }
                return;
            }
            // Single tiles (small transposes, edges) pipelined; wide tiles
            // measured slower so (f32 in the caches, 4 tiles side by side).
            if constexpr (W == 1 && !Prefetch) {
                transpose_blocks_into<Ops, E, W>(src, src_pitch, dst, dst_pitch);
                return;
            }
            // In the caches: whole-row loads (transpose_block_permuted_into),
            // and, where destination rows lie no multiple of 2 KiB apart,
            // each B source rows' whole lines (both column halves) one
            // after the other, a tile at a time: the 32 KiB f32 move (a
            // 64 KiB working set, twice L1) measured faster so, while at
            // 2 KiB-multiple rows (16 destination lines waiting on their
            // second halves in 2 of L1's sets) the column halves outermost
            // stayed faster (docs/performance.md).
            if constexpr (!Prefetch) {
                const auto block = [&](int w, int a, int b) {
                    transpose_block_permuted_into<Ops, E>(src + (w * T + a * B) * src_pitch + b * Ops::bytes,
                                                          src_pitch,
                                                          dst + b * B * dst_pitch + w * tile_bytes + a * Ops::bytes,
                                                          dst_pitch);
                };
                if (dst_pitch % 2048 == 0) {
                    for (int b = 0; b < parts; ++b)
                        for (int w = 0; w < W; ++w)
                            for (int a = 0; a < parts; ++a) block(w, a, b);
                } else {
                    for (int w = 0; w < W; ++w)
                        for (int a = 0; a < parts; ++a)
                            for (int b = 0; b < parts; ++b) block(w, a, b);
                }
                return;
            }
            for (int b = 0; b < parts; ++b)
                for (int w = 0; w < W; ++w)
                    for (int a = 0; a < parts; ++a) {
                        if constexpr (Prefetch)
                            if (ahead) ahead->issue<Locality>(per_block);
                        transpose_block_into<Ops, E>(src + (w * T + a * B) * src_pitch + b * Ops::bytes, src_pitch,
                                                     dst + b * B * dst_pitch + w * tile_bytes + a * Ops::bytes,
                                                     dst_pitch);
                    }
            return;
        }
    // 1- and 2-byte elements with ordinary stores: G destination lines at a
    // time (transpose_lane_lines_into), a tile's lines before the next
    // tile's, so that each source tile is read from L1 all 4 times
    // (per 16 bytes of its rows). Where destination rows lie a multiple of
    // 4 KiB apart each tile's 64 lines share one L1 set, and the G lines of
    // every tile of a group side by side before the next G (their lines in
    // several sets) measured faster (docs/performance.md).
    if constexpr (Ops::lanes == 2 && (E == 1 || E == 2))
        if (!stream) {
            constexpr int G = 16 / E;                     // destination rows per lane block
            constexpr int line_groups = W * (64 / 16);    // calls of transpose_lane_lines_into
            const int per_group = Prefetch && ahead ? (ahead->per_call + line_groups - 1) / line_groups : 0;
            const auto lines = [&](auto direct, int w, int c) { // source bytes c * 16 ...: destination rows c * G ...
                if constexpr (Prefetch)
                    if (ahead) ahead->issue<Locality>(per_group);
                transpose_lane_lines_into<Ops, E, decltype(direct)::value>(
                    src + w * T * src_pitch + c * 16, src_pitch, dst + c * G * dst_pitch + w * tile_bytes, dst_pitch);
            };
            if (dst_pitch % 4096 == 0) {
                // 1-byte elements in the caches: K = 4 tiles' lines through
                // an L1 buffer, a row's 4 lines at a time (8 tiles' source
                // and buffer no longer stay in L1: measured slower, as 2).
                if constexpr (E == 1 && !Prefetch && W % 4 == 0) {
                    for (int g = 0; g < W; g += 4)
                        transpose_lane_lines_across<Ops, E, 4>(src + g * T * src_pitch, src_pitch,
                                                               dst + g * tile_bytes, dst_pitch);
                    return;
                }
                // In groups of up to 4 tiles: the G lines of all W tiles
                // before the next G read all W tiles' source (8 x 4 KiB, all
                // of L1) once per G, so from L2 each time; 4 tiles' source
                // stays in L1 beside their lines' 4 sets.
                constexpr int K = W < 4 ? W : 4;
                for (int g = 0; g < W; g += K)
                    for (int c = 0; c < 64 / 16; ++c)
                        for (int w = g; w < g + K && w < W; ++w) lines(std::false_type{}, w, c);
            } else if (dst_pitch % 2048 == 0) {
                for (int w = 0; w < W; ++w)
                    for (int c = 0; c < 64 / 16; ++c) lines(std::false_type{}, w, c);
            } else {
                for (int w = 0; w < W; ++w)
                    for (int c = 0; c < 64 / 16; ++c) lines(std::true_type{}, w, c);
            }
            return;
        }
    // A register that holds a whole tile row (AVX-512's): each tile's
    // destination lines are stored as they are made, whole lines already.
    // Holding W tiles for the rows' runs put them on the stack (W * T
    // vectors: all of L1 for 1-byte elements) and read them back.
    // Where destination rows lie a multiple of 4 KiB apart (each tile's
    // lines in one L1 set) tiles one after the other measured slower than
    // those runs, and groups of 4 tiles a quarter at a time
    // (transpose_tiles_by_quarters) faster than both (docs/performance.md).
    if constexpr (parts == 1 && E <= 8 && W % 4 == 0)
        if (!stream && dst_pitch % 4096 == 0) {
            for (int first = 0; first < W; first += 4) {
                if constexpr (Prefetch)
                    if (ahead) ahead->issue<Locality>(4 * per_block);
                transpose_tiles_by_quarters<Ops, E, 4>(src + first * T * src_pitch, src_pitch,
                                                       dst + first * tile_bytes, dst_pitch);
            }
            return;
        }
    // Destination rows off a line boundary: whole lines joined from tiles
    // side by side (tile_walk::line_stores), where every row's offset
    // within its line is a whole number of dwords (the join's unit).
    if constexpr (parts == 1 && LineStores && E >= 2 && W >= 2)
        if (!stream && dst_pitch % tile_bytes != 0 && dst_pitch % 4 == 0 &&
            reinterpret_cast<std::uintptr_t>(dst) % 4 == 0) {
            const auto in_lines = [&](auto tiles) {
                constexpr int K = decltype(tiles)::value;
                for (int first = 0; first < W; first += K)
                    for (int g = 0; g < 4; ++g) {
                        if constexpr (Prefetch)
                            if (ahead) ahead->issue<Locality>(K * per_block / 4);
                        transpose_quarters_in_lines<Ops, E, K>(src + first * T * src_pitch, src_pitch, g,
                                                               dst + first * tile_bytes, dst_pitch);
                    }
            };
            // 4-byte and wider elements (16 or fewer rows a tile) take 2
            // tiles at once even where their source may leave L1: faster
            // than single tiles at any pitch measured; 2-byte ones not.
            const int K = line_store_tiles(src_pitch, T, W, E >= 4 ? 2 : 1);
            if (K >= W) return in_lines(std::integral_constant<int, W>{});
            if constexpr (W >= 8)
                if (K >= 4) return in_lines(std::integral_constant<int, 4>{});
            if constexpr (W >= 4)
                if (K >= 2) return in_lines(std::integral_constant<int, 2>{});
        }
    if constexpr (parts == 1)
        if (!stream && dst_pitch % 4096 != 0) {
            for (int w = 0; w < W; ++w) {
                if constexpr (Prefetch)
                    if (ahead) ahead->issue<Locality>(per_block);
                std::uint8_t *to = dst + w * tile_bytes;
                asm("" : "+r"(to)); // see transpose_block_into
                if constexpr (E <= 2) {
                    for (int g = 0; g < 4; ++g)
                        transpose_quarter_into<Ops, E>(src + w * T * src_pitch, src_pitch, g, to, dst_pitch);
                } else { // measured no faster by quarters
                    vec out[T];
                    transpose_block<Ops, E>(src + w * T * src_pitch, src_pitch, out);
                    for (int c = 0; c < T; ++c) Ops::store(to + c * dst_pitch, out[c]);
                }
            }
            return;
        }
    for (int b = 0; b < parts; ++b) {       // destination rows b * B ...
        vec out[W][parts][B];
        for (int w = 0; w < W; ++w)
            for (int a = 0; a < parts; ++a) { // destination bytes w * 64 + a * Ops::bytes ...
                const std::uint8_t *from = src + (w * T + a * B) * src_pitch + b * Ops::bytes;
                if constexpr (Prefetch && ByRow) {
                    const int per_row = (per_block + B - 1) / B;
                    transpose_rows<Ops, E>(
                        [&](int r) {
                            if (ahead) ahead->issue<Locality>(per_row);
                            return Ops::load(from + r * src_pitch);
                        },
                        out[w][a]);
                    continue;
                }
                if constexpr (Prefetch)
                    if (ahead) ahead->issue<Locality>(per_block);
                transpose_block<Ops, E>(from, src_pitch, out[w][a]);
            }
        store_rows<Ops>(out, dst + b * B * dst_pitch, dst_pitch, stream);
    }
}

template <class Ops, int E>
void one_tile(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst, std::ptrdiff_t dst_pitch,
              bool stream) {
    transpose_tiles<Ops, E, 1, false>(src, src_pitch, dst, dst_pitch, stream, nullptr);
}

// A tile cut short by the tensor's edge (tile_partial_fn) at a level of
// two-lane vectors (AVX2, no masked loads): the valid part of each source
// row copied into a whole tile in L1, transposed by the whole-tile kernel
// into a second one, and the valid part of each destination row copied
// out, all at this level's width (the portable buffers of partial_tile
// took 16-byte copies through the stack: perf annotate of s8 NHWC as NCHW
// at 7 x 7, whose tiles are all partial).
// Destination rows back to back (the tile's columns are whole rows: NHWC
// as NCHW with fewer than T positions, s8 at 7 x 7) and all T of them:
// rows 0 .. T/2 - 1 read in place where they are all there, and all but
// the last group of lines stored straight into the destination, each row
// whole in row order (transpose_lane_lines_from, transpose_block_lines_from),
// so that each row's tail past its own bytes is overwritten by the rows
// after it; the last group, whose tail would pass the tile's end, through
// the buffer, its rows stored whole while they stay within the tile.
// (The rows of `in` past src_rows are never written: they feed only
// destination bytes that are not stored or are overwritten, which GCC
// cannot see.)
#pragma GCC diagnostic push
#ifndef __clang__ // clang has no such group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <class Ops, int E>
void tile_partial_two_lanes(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                            std::ptrdiff_t dst_pitch, int src_rows, int dst_rows, bool stream) {
    static_assert(Ops::lanes == 2);
    constexpr int T = 64 / E;
    constexpr std::ptrdiff_t line = tile_bytes;
    alignas(64) std::uint8_t in[T * tile_bytes];
    alignas(64) std::uint8_t out[T * tile_bytes];
    const auto load_bytes = static_cast<std::size_t>(dst_rows * E);
    const std::ptrdiff_t store_bytes = src_rows * E;
    // Up to 2 source rows (a move's last columns: NHWC as NCHW at 7 x 7)
    // copied element by element: fewer instructions than a whole tile's
    // shuffles and its buffers, as the AVX-512 level measured; 4 (at 14 x
    // 14) measured slower so for 1- and 2-byte elements (docs/performance.md).
    if (src_rows <= 2) {
        for (int c = 0; c < dst_rows; ++c)
            for (int r = 0; r < src_rows; ++r) copy_fixed<E>(dst + c * dst_pitch + r * E, src + r * src_pitch + c * E);
        return;
    }
    // Destination rows per call of the line kernels; the last call's rows
    // go through `out`.
    constexpr int L = E <= 2 ? 16 / E : 32 / E;
    if (E <= 8 && !stream && dst_rows == T && dst_pitch == store_bytes && (L + 1) * store_bytes >= line) {
        const bool in_place = src_rows >= T / 2;
        for (int r = in_place ? T / 2 : 0; r < src_rows; ++r) copy_fixed<line>(in + r * line, src + r * src_pitch);
        const std::uint8_t *first = in_place ? src : in, *rest = in + T / 2 * line;
        const std::ptrdiff_t first_pitch = in_place ? src_pitch : line;
        for (int g = 0; g < T / L; ++g) {
            const bool last = g == T / L - 1;
            std::uint8_t *to = last ? out : dst + g * L * dst_pitch;
            const std::ptrdiff_t to_pitch = last ? line : dst_pitch;
            if constexpr (E > 8)
                (void)to;
            else if constexpr (E <= 2)
                transpose_lane_lines_from<Ops, E>(first + g * 16, first_pitch, rest + g * 16, line, to, to_pitch);
            else
                transpose_block_lines_from<Ops, E>(first + g * Ops::bytes, first_pitch, rest + g * Ops::bytes, line,
                                                   to, to_pitch);
        }
        for (int c = T - L; c < T; ++c) {
            std::uint8_t *to = dst + c * dst_pitch;
            if (c * store_bytes + line <= T * store_bytes)
                copy_fixed<line>(to, out + (c - (T - L)) * line);
            else
                copy_short(to, out + (c - (T - L)) * line, static_cast<std::size_t>(store_bytes));
        }
        return;
    }
    for (int r = 0; r < src_rows; ++r) copy_short(in + r * line, src + r * src_pitch, load_bytes);
    transpose_tiles<Ops, E, 1, false>(in, line, out, line, false, nullptr);
    for (int c = 0; c < dst_rows; ++c) {
        std::uint8_t *to = dst + c * dst_pitch;
        if (stream && src_rows == T && reinterpret_cast<std::uintptr_t>(to) % tile_bytes == 0)
            for (int p = 0; p < line / Ops::bytes; ++p)
                Ops::stream(to + p * Ops::bytes, Ops::load(out + c * line + p * Ops::bytes));
        else
            copy_short(to, out + c * line, static_cast<std::size_t>(store_bytes));
    }
}
#pragma GCC diagnostic pop

// Only for the element sizes it measured faster on (s8 rows back to back
// at 7 x 7, f32's single last column there); bf16 at 7 x 7 (17 source rows
// through the buffers) measured a tenth slower than partial_tile's
// portable buffers, for a cause not found, and 8- and 16-byte elements
// were not measured: those keep partial_tile (docs/performance.md).
template <class Ops>
constexpr per_size_class<tile_partial_fn> partial_tiles_two_lanes() {
    return {&tile_partial_two_lanes<Ops, 1>, no_kernel, &tile_partial_two_lanes<Ops, 4>, no_kernel, no_kernel};
}

// W half-height tiles side by side, for 32-byte registers: source rows w*T
// .. w*T + T-1, 32 bytes (T/2 elements) each, make bytes w*64 .. w*64 + 63
// of T/2 destination rows: one row of register blocks of each tile, each
// destination row's W * 64 bytes stored back to back.
// `ahead` (when not null) issues its lines a share per register block.
template <class Ops, int E, int W>
void transpose_half_tiles(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                          std::ptrdiff_t dst_pitch, bool stream, line_prefetch *ahead) {
    static_assert(2 * Ops::bytes == static_cast<int>(tile_bytes));
    using vec = typename Ops::vec;
    constexpr int B = Ops::bytes / E; // T / 2
    const int per_block = ahead ? (ahead->per_call + 2 * W - 1) / (2 * W) : 0;
    vec out[W][2][B];
    for (int w = 0; w < W; ++w)
        for (int a = 0; a < 2; ++a) {
            if (ahead) ahead->issue(per_block);
            transpose_block<Ops, E>(src + (w * 2 + a) * B * src_pitch, src_pitch, out[w][a]);
        }
    store_rows<Ops>(out, dst, dst_pitch, stream);
}

// Block rows of V::bytes (see block_rows_fn): each step transposes one
// register block, the C = V::bytes / E source rows' next V::bytes, into C
// destination rows, one vector each, stored back to back. The vector is
// the row, so a step needs no shuffle across rows beyond the block's own.
template <class V, int E>
void block_rows(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst, std::size_t rows,
                bool stream) {
    constexpr int C = V::bytes / E;
    for (std::size_t i = 0; i < rows; i += C, src += V::bytes, dst += C * V::bytes) {
        typename V::vec out[C];
        transpose_block<V, E>(src, src_pitch, out);
        for (int j = 0; j < C; ++j) {
            if (stream)
                V::stream(dst + j * V::bytes, out[j]);
            else
                V::store(dst + j * V::bytes, out[j]);
        }
    }
}

// Block rows of two vectors (64-byte rows at AVX2: nChw16c f32): each step
// transposes the register blocks of the first and of the second
// V::bytes / E source rows, then stores each destination row's two halves
// back to back: faster than the 64-byte tile walked tile by tile, and than
// storing each block's halves as it is transposed (the lines' first
// halves, then their second), on nchw -> nChw16c f32 (docs/performance.md).
template <class V, int E>
void block_rows_2(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst, std::size_t rows,
                  bool stream) {
    constexpr int C = V::bytes / E;
    constexpr int R = 2 * V::bytes;
    for (std::size_t i = 0; i < rows; i += C, src += V::bytes, dst += C * R) {
        typename V::vec out[2][C];
        transpose_block<V, E>(src, src_pitch, out[0]);
        transpose_block<V, E>(src + C * src_pitch, src_pitch, out[1]);
        for (int j = 0; j < C; ++j)
            for (int h = 0; h < 2; ++h) {
                if (stream)
                    V::stream(dst + j * R + h * V::bytes, out[h][j]);
                else
                    V::store(dst + j * R + h * V::bytes, out[h][j]);
            }
    }
}

// memcpy, or with `stream` a copy whose 64-byte-aligned body goes through
// non-temporal stores (head and tail, under a line each, through memcpy,
// so no byte is written twice).
// glibc's memcpy (2.36, rep movsb from 2 KiB up to about the L2's size)
// runs many times slower on the AMD EPYC (Zen 3) when the destination
// lies a few bytes past a multiple of 4 KiB from the source, before or
// after it (8 and 16 bytes past, not 0, 32, 48, 64 ... 4088;
// docs/performance.md). Two equal heap buffers allocated one after the
// other are exactly that (16 bytes of malloc header apart). Distances of
// 1-31 bytes past take a plain vector loop; all others keep memcpy, which
// the loop does not beat.
inline bool memcpy_aliases_badly(const std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes) {
    const auto distance = (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) % 4096;
    return bytes >= 2048 && distance - 1 < 31; // 1 .. 31 (0 wraps around)
}

template <class Ops>
void vector_copy(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes) {
    constexpr std::size_t step = 4 * Ops::bytes;
    std::size_t i = 0;
    for (; i + step <= bytes; i += step) {
        const auto a = Ops::load(src + i), b = Ops::load(src + i + Ops::bytes);
        const auto c = Ops::load(src + i + 2 * Ops::bytes), d = Ops::load(src + i + 3 * Ops::bytes);
        Ops::store(dst + i, a);
        Ops::store(dst + i + Ops::bytes, b);
        Ops::store(dst + i + 2 * Ops::bytes, c);
        Ops::store(dst + i + 3 * Ops::bytes, d);
    }
    std::memcpy(dst + i, src + i, bytes - i);
}

template <class Ops>
void run_copy(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes, bool stream) {
    if (!stream || bytes < static_cast<std::size_t>(tile_bytes)) {
        if (memcpy_aliases_badly(dst, src, bytes))
            vector_copy<Ops>(dst, src, bytes);
        else
            std::memcpy(dst, src, bytes);
        return;
    }
    const auto misalign = reinterpret_cast<std::uintptr_t>(dst) % tile_bytes;
    const std::size_t head = misalign == 0 ? 0 : tile_bytes - misalign;
    std::memcpy(dst, src, head);
    dst += head;
    src += head;
    bytes -= head;
    const std::size_t body = bytes / tile_bytes * tile_bytes;
    constexpr int per_line = static_cast<int>(tile_bytes) / Ops::bytes;
    for (std::size_t i = 0; i < body; i += tile_bytes)
        for (int v = 0; v < per_line; ++v)
            Ops::stream(dst + i + v * Ops::bytes, Ops::load(src + i + v * Ops::bytes));
    std::memcpy(dst + body, src + body, bytes - body);
}

// Runs up to this long, in the caches, are copied inline (copy_runs).
constexpr std::size_t inline_run_bytes = 1024;

template <class Ops>
void copy_runs(std::uint8_t *dst, std::ptrdiff_t dst_step, const std::uint8_t *src,
               std::ptrdiff_t src_step, std::size_t run_bytes, std::size_t count, bool stream) {
    constexpr int per_line = static_cast<int>(tile_bytes) / Ops::bytes;
    // Short runs in the caches (attention heads split or merged: runs of
    // 64-256 bytes) are copied inline, two vectors at a time, the last
    // vector overlapping the one before where a run is no multiple of it:
    // a call to memcpy per run cost more than the run's bytes
    // (docs/performance.md).
    if (!stream && run_bytes % (2 * Ops::bytes) == 0 && run_bytes <= inline_run_bytes) {
        for (std::size_t i = 0; i < count; ++i, dst += dst_step, src += src_step) {
#pragma GCC unroll 1
            for (std::size_t b = 0; b < run_bytes; b += 2 * Ops::bytes) {
                const auto x = Ops::load(src + b), y = Ops::load(src + b + Ops::bytes);
                Ops::store(dst + b, x);
                Ops::store(dst + b + Ops::bytes, y);
            }
        }
        return;
    }
    if (!stream && run_bytes >= static_cast<std::size_t>(Ops::bytes) && run_bytes <= inline_run_bytes) {
        const std::size_t last = run_bytes - Ops::bytes;
        for (std::size_t i = 0; i < count; ++i, dst += dst_step, src += src_step) {
            std::size_t b = 0;
            for (; b + 2 * Ops::bytes <= run_bytes; b += 2 * Ops::bytes) {
                const auto x = Ops::load(src + b), y = Ops::load(src + b + Ops::bytes);
                Ops::store(dst + b, x);
                Ops::store(dst + b + Ops::bytes, y);
            }
            const std::size_t rest = run_bytes - b; // under two vectors
            if (rest > static_cast<std::size_t>(Ops::bytes)) Ops::store(dst + b, Ops::load(src + b));
            if (rest > 0) Ops::store(dst + last, Ops::load(src + last));
        }
        return;
    }
    const bool whole_lines = stream && run_bytes % tile_bytes == 0 && dst_step % tile_bytes == 0 &&
                             reinterpret_cast<std::uintptr_t>(dst) % tile_bytes == 0;
    if (!whole_lines) {
        for (std::size_t i = 0; i < count; ++i, dst += dst_step, src += src_step)
            run_copy<Ops>(dst, src, run_bytes, stream);
        return;
    }
    for (std::size_t i = 0; i < count; ++i, dst += dst_step, src += src_step)
        for (std::size_t b = 0; b < run_bytes; b += tile_bytes)
            for (int v = 0; v < per_line; ++v)
                Ops::stream(dst + b + v * Ops::bytes, Ops::load(src + b + v * Ops::bytes));
}

// Table parts a level builds from its vector ops (Ops::walk sets the
// wide tiles' width and prefetch per reach and size class).
constexpr auto size_classes = std::make_index_sequence<element_size_classes>();

template <class Ops, std::size_t... L>
constexpr per_size_class<tile_transpose_fn> one_tiles(std::index_sequence<L...>) {
    return {&one_tile<Ops, 1 << L>...};
}

// The tiny transpose's tiles at this level, one_tile inlined.
template <class Ops, std::size_t... L>
constexpr per_size_class<tiny_tiles_fn> tiny_tiles_of(std::index_sequence<L...>) {
    return {&tiny_tiles<&one_tile<Ops, 1 << L>, 1 << L>...};
}

template <class Ops, int R, std::size_t... L>
constexpr per_size_class<wide_tile_fn> wide_tiles_at(std::index_sequence<L...>) {
    static_assert(((Ops::walk[R][L].wide <= max_wide_tiles) && ...));
    return {&transpose_tiles<Ops, 1 << L, Ops::walk[R][L].wide, Ops::walk[R][L].prefetch_ahead,
                             Ops::walk[R][L].prefetch_locality, Ops::walk[R][L].prefetch_by_row,
                             Ops::walk[R][L].line_stores>...};
}
template <class Ops>
constexpr per_reach<per_size_class<wide_tile_fn>> wide_tiles() {
    return {wide_tiles_at<Ops, near_rows>(size_classes), wide_tiles_at<Ops, far_rows>(size_classes),
            wide_tiles_at<Ops, in_cache>(size_classes), wide_tiles_at<Ops, in_last_level>(size_classes)};
}

// Half tiles (isa_kernels::half_wide_tile) at reach R: 32-byte rows in
// AVX2's register blocks at every level, as many side by side as Ops::walk
// walks whole tiles there (the planner steps both by the walk's width).
template <class Ops, int R, std::size_t... L>
constexpr per_size_class<wide_tile_fn> half_wide_tiles_at(std::index_sequence<L...>) {
    return {&transpose_half_tiles<avx2_ops, 1 << L, Ops::walk[R][L].wide>...};
}

// Block rows of 16 (SSE) and 32 bytes (AVX2): every level with AVX2 has
// both; 64-byte rows are each level's own.
constexpr per_size_class<block_rows_fn> block_rows_16 = {&block_rows<sse_ops, 1>, &block_rows<sse_ops, 2>,
                                                         &block_rows<sse_ops, 4>, no_kernel, no_kernel};
constexpr per_size_class<block_rows_fn> block_rows_32 = {&block_rows<avx2_ops, 1>, &block_rows<avx2_ops, 2>,
                                                         &block_rows<avx2_ops, 4>, &block_rows<avx2_ops, 8>,
                                                         no_kernel};

} // namespace
} // namespace reshaper::impl
