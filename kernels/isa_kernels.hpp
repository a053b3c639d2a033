// The per-SIMD-level building blocks of the data-movement engine: a
// register-tile transpose per element size and a (streaming) run copy.
// One table per level; `transpose_engine` composes them into whole moves.
#pragma once

#include <cstddef>
#include <array>
#include <cstdint>

#include "kernels/cpu_isa.hpp"

namespace reshaper::impl {

// Rows of every tile are one cache line: a tile of elements of E bytes is
// T x T elements with T = tile_bytes / E.
inline constexpr std::ptrdiff_t tile_bytes = 64;

// The whole-byte element sizes the kernels have tables for: 1, 2, 4, 8 and
// 16 bytes, indexed by their log2 (the size class). Adding one: see
// docs/architecture.md, "Adding an ISA level / an element size".
inline constexpr std::size_t element_size_classes = 5;
constexpr bool has_element_size_class(std::size_t element_bytes) {
    for (std::size_t c = 0; c < element_size_classes; ++c)
        if (element_bytes == std::size_t{1} << c) return true;
    return false;
}
// log2 of element_bytes, which has_element_size_class.
constexpr std::size_t element_size_class(std::size_t element_bytes) {
    std::size_t c = 0;
    while ((std::size_t{1} << c) < element_bytes) ++c;
    return c;
}
// Per size class: table[element_size_class(E)].
template <typename T>
using per_size_class = std::array<T, element_size_classes>;

// Transposes one whole tile: source row r (T elements) starts at
// src + r * src_pitch; destination row c receives element c of every
// source row, in order, at dst + c * dst_pitch. With `stream` the rows are
// written with non-temporal stores; the caller then guarantees that every
// destination row is 64-byte aligned and calls store_fence() before the
// data is read by another thread.
using tile_transpose_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch,
                                   std::uint8_t *dst, std::ptrdiff_t dst_pitch, bool stream);

// How a level walks a transpose of elements of one size, chosen by
// measurement on each level's machines.
// - wide: tiles side by side in a wide tile: one wide_tile call does the
//   transposes of `wide` tile calls on source rows T apart and destination
//   bytes 64 apart, writing each destination row wide * 64 bytes at a time
//   (streamed: runs of whole lines).
// - strip_tiles: tiles per strip of destination rows, the unit a thread
//   walks along the columns; 0: as many rows as keep a column block of the
//   source (strip rows x wide * T source rows) within block_kib KiB, so
//   the block is read from memory once and transposed from the cache.
// - prefetch_ahead: each wide step prefetches the next column step's
//   source lines in memory order, a few per register block (line_prefetch).
struct tile_walk {
    int wide;
    int strip_tiles;
    int block_kib = 0;
    bool prefetch_ahead = false;
};
inline constexpr int max_wide_tiles = 8;

// A level may walk differently where destination rows lie a page or more
// apart (each row's run then opens a page of its own), and where the move
// stays in the caches (it is not streamed: memory's pages and prefetches
// no longer matter, the caches' sets do). Walks are kept per reach:
// [near_rows] below far_row_bytes and [far_rows] from it on, for streamed
// moves; [in_cache] for the others, whatever their rows' distance.
enum row_reach { near_rows = 0, far_rows = 1, in_cache = 2 };
inline constexpr int row_reaches = 3;
inline constexpr std::ptrdiff_t far_row_bytes = 4096;
using level_walks = std::array<std::array<tile_walk, 5>, row_reaches>; // [row_reach][log2 of the element size]
// One walk for every reach.
constexpr level_walks same_walk_at_any_reach(const tile_walk (&w)[5]) {
    return {{{w[0], w[1], w[2], w[3], w[4]}, {w[0], w[1], w[2], w[3], w[4]}, {w[0], w[1], w[2], w[3], w[4]}}};
}

// The source lines of a wide step's successor: `rows` rows `pitch` bytes
// apart, `row_lines` lines from `first` in each, issued in memory order
// as prefetches into L1, `per_call` for each wide tile call, spread over
// the register blocks it transposes (bursts of a call's share at once
// measured 20-25% slower). Memory order matters: the same lines prefetched in the
// order the tiles read them (a line of every row, then the next) measured
// 5-15% slower (NHWC as NCHW, 2-threads). Integer addresses: prefetches
// never fault, while forming a pointer past the tensor would be undefined.
struct line_prefetch {
    std::uintptr_t row;          // the current row's first line
    std::ptrdiff_t pitch;
    std::ptrdiff_t row_lines;
    std::ptrdiff_t rows_left;    // rows from the current one on
    std::ptrdiff_t line = 0;     // next line within the current row
    int per_call = 0;

    void issue(int lines) {
        for (int k = 0; k < lines && rows_left > 0; ++k) {
            __builtin_prefetch(reinterpret_cast<const void *>(row + static_cast<std::uintptr_t>(line) * 64), 0, 3);
            if (++line == row_lines) {
                line = 0;
                row += static_cast<std::uintptr_t>(pitch);
                --rows_left;
            }
        }
    }
};

// A wide tile (tile_walk::wide tiles side by side, as tile_transpose_fn
// does one), which also issues `ahead`'s prefetches when it is not null.
using wide_tile_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                              std::ptrdiff_t dst_pitch, bool stream, line_prefetch *ahead);

// Strips along all columns, no column blocks and no prefetch: the scalar
// level's walk. It was the AVX-512 level's until that level was measured
// on an AMD EPYC with AVX-512 (see avx512_ops::walk); on the Intel AVX-512
// machine it was tuned on (NHWC as NCHW, 64 MiB, paired runs in one
// process on a shared machine): runs of 4 lines lift
// 1-byte elements by 15-60% (their tiles write 64 rows a line each, 4 KiB
// apart); 2-byte elements gained 10-15% with runs of 2 lines and nothing
// with 4; 4-byte elements lose 25-30% with runs of 2 lines and 8- and
// 16-byte ones gain nothing, so they keep single tiles. Strips one tile
// high for 2- and 4-byte elements (2, 4 and 8 tiles measured 5-40% slower);
// 4 tiles for 8- and 16-byte elements, whose tiles have only 8 and 4 rows
// (c128 rows a page apart: 10-13 -> 18-37 GB/s), and for 1-byte wide
// tiles (3-10% faster). Column blocks with prefetch were not measured there.
inline constexpr tile_walk strip_walk[5] = {{4, 4}, {2, 1}, {1, 1}, {1, 4}, {1, 4}};


// Copies `bytes` from src to dst (not overlapping); with `stream`, the
// 64-byte-aligned body of the destination is written with non-temporal
// stores (any alignment is accepted).
using run_copy_fn = void (*)(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes,
                             bool stream);

// Copies `count` runs of `run_bytes`: run i from src + i * src_step to
// dst + i * dst_step (as run_copy_fn each, in one call: short runs cost
// more in calls than in bytes).
using runs_copy_fn = void (*)(std::uint8_t *dst, std::ptrdiff_t dst_step, const std::uint8_t *src,
                              std::ptrdiff_t src_step, std::size_t run_bytes, std::size_t count,
                              bool stream);

// A tile cut short by the tensor's edge: `src_rows` source rows of
// `dst_rows` elements each (both at most T) become `dst_rows` destination
// rows of `src_rows` elements. Reads and writes exactly those elements.
// `stream` as for tile_transpose_fn, used only for whole destination rows.
using tile_partial_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                                 std::ptrdiff_t dst_pitch, int src_rows, int dst_rows, bool stream);

// A blocked format's inner block whose rows are at most a line, 16, 32 or
// 64 bytes (nchw into nChw8c f32 or nChw16c bf16: 32; nChw16c f32: 64):
// `cols` source rows
// (cols * E = those bytes; row r at src + r * src_pitch, read from its
// start) become `rows` destination rows of cols elements back to back, so
// the destination is one contiguous run of rows * cols elements. `rows` is
// a multiple of cols. With `stream` the run is written with non-temporal
// stores; dst is then aligned to the row bytes and the caller fences as
// for tile_transpose_fn.
using block_rows_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                               std::size_t rows, bool stream);
// Row bytes of block_rows[i]: 16 << i.
inline constexpr int block_row_kinds = 3;
// The i with 16 << i == row_bytes, or -1 where no block_rows kind has rows
// of that width.
constexpr int block_row_kind(std::size_t row_bytes) {
    for (int i = 0; i < block_row_kinds; ++i)
        if (row_bytes == (std::size_t{16} << i)) return i;
    return -1;
}

// A transpose into few destination rows (NHWC images of 3 or 4 channels
// seen as NCHW), where tiles would be mostly empty: `cols` groups of R
// elements back to back from src become R destination rows of `cols`
// elements each, `pitch` bytes apart, written with ordinary stores.
// join_rows, the inverse, has the same signature: R source rows `pitch`
// bytes apart become `cols` groups of R elements back to back at dst.
using split_rows_fn = void (*)(const std::uint8_t *src, std::uint8_t *dst, std::ptrdiff_t pitch,
                               std::ptrdiff_t cols);
inline constexpr std::size_t split_row_sizes = 5; // elements of 1, 2, 4, 8 and 16 bytes
inline constexpr int max_split_rows = 16;
// The row counts R with split_rows and join_rows kernels for elements of
// `element_bytes`: 2 to 7, and 8 and 16 where a group is under half a tile
// row (32 bytes; from there the tiles' half tiles take them). The compiled
// loops vectorise groups of 2-8 and 16 (1-byte elements, one thread: 16-17
// GB/s at 8 and 16; 3.9 at 12 and 4.8 at 24, which stay with the tiles).
constexpr bool has_row_group_kernel(std::int64_t rows, std::size_t element_bytes) {
    if (rows >= 2 && rows <= 7) return true;
    return (rows == 8 || rows == 16) && static_cast<std::size_t>(rows) * element_bytes < 32;
}
// Row counts without a kernel of their own that two compose (NHWC images of
// 12 or 24 channels): R = R1 x R2, where R2 elements make one element of
// R2 * E bytes (at most 16): a split first splits R1 rows of those, then
// each of them into R2 rows (a join the other way round). Returns R2, the
// largest power of two that divides R and leaves both kernels, or 0 where
// R has a kernel of its own or none compose it. Measured against the tiles
// (reshaper-run --mode=perf, 64 MiB of [N,C,224,224], AVX-512, GB/s):
// splits of 12 channels s8 15 -> 35, bf16 17 -> 35, f32 20 -> 34; of 24
// s8 19 -> 34, bf16 22 -> 32; joins of 12 s8 19 -> 32, bf16 35 -> 36, f32
// 29 -> 35. Groups of more than 48 bytes stay with the tiles (f32 24
// channels: 57 -> 31 split, 38 -> 31 joined), and so do joins of more than
// 16 rows (s8 24 channels: 26 -> 21), and so do powers of two, whose
// groups are whole fractions of a tile row (f32 8 channels: half tiles).
constexpr std::int64_t composed_inner_rows(std::int64_t rows, std::size_t element_bytes, bool join = false) {
    if (rows < 2 || (rows & (rows - 1)) == 0 || static_cast<std::size_t>(rows) * element_bytes > 48 ||
        (join && rows > 16) || has_row_group_kernel(rows, element_bytes))
        return 0;
    for (std::int64_t inner = 16; inner >= 2; inner /= 2) {
        const std::size_t outer_element = static_cast<std::size_t>(inner) * element_bytes;
        if (rows % inner == 0 && outer_element <= 16 && has_row_group_kernel(rows / inner, outer_element) &&
            has_row_group_kernel(inner, element_bytes))
            return inner;
    }
    return 0;
}
// Whether R rows of elements of E bytes split (or join), by one kernel or two.
constexpr bool has_row_groups(std::int64_t rows, std::size_t element_bytes, bool join = false) {
    return has_row_group_kernel(rows, element_bytes) || composed_inner_rows(rows, element_bytes, join) > 0;
}

// 4-bit transposes' second half: `count` byte pairs (a, b) at `pairs`,
// which hold the nibbles of two source rows side by side, become
// low[j] = (a & 0x0F) | (b << 4) and high[j] = (a >> 4) | (b & 0xF0): two
// destination rows. Ordinary stores.
using split_nibbles_fn = void (*)(const std::uint8_t *pairs, std::size_t count, std::uint8_t *low,
                                  std::uint8_t *high);

struct isa_kernels {
    cpu_isa isa;
    tile_transpose_fn tile[5]; // by log2 of the element size: 1, 2, 4, 8, 16 bytes
    level_walks walk;               // [row_reach][log2 of the element size]
    wide_tile_fn wide_tile[row_reaches][5];   // walk[.][.].wide tiles at once (the tile itself where that is 1)
    // Half tiles, walk[.].wide side by side: T/2 destination rows, 32 bytes
    // read per source row (nChw8c's 8 f32 channels, nChw16c's 16 bf16
    // ones); where a level's registers make them whole blocks (AVX2), null
    // elsewhere (the engine then takes partial tiles).
    tile_transpose_fn half_wide_tile[row_reaches][5];
    run_copy_fn copy;
    runs_copy_fn copy_runs;
    // Where the level has masked loads and stores; null elsewhere (the
    // engine then goes through a whole tile in a buffer).
    tile_partial_fn tile_partial[5];
    // [i][log2 of the element size]: rows of 16 << i bytes, at least 4
    // elements each (16-byte rows: 1-, 2- and 4-byte elements; 32-byte
    // rows: also 8-byte ones; 64-byte rows: where a level has a kernel for
    // them, else null and the engine walks whole tiles); null for the others.
    block_rows_fn block_rows[block_row_kinds][5];
    // 4-bit transposes (packed_strip): packed_wide byte tiles side by side,
    // apart from walk[0]: they split nibbles out of a buffer, where longer
    // runs per destination row pay (AVX2: s4 NHWC as NCHW, 64 MiB, 8.6-9.0
    // GB/s with the 2 tiles of walk[0] against 10.1-11.4 with 8).
    int packed_wide;
    wide_tile_fn packed_tile;
    split_nibbles_fn split_nibbles = nullptr;
    // [R][log2 of the element size], where has_row_group_kernel(R, size)
    split_rows_fn split_rows[max_split_rows + 1][split_row_sizes] = {};
    split_rows_fn join_rows[max_split_rows + 1][split_row_sizes] = {};
    // Streamed transposes of exactly one tile's rows (the 16 x 16 f32
    // blocks of ABcd16a16b and nChw16c: a strip is one tile high whatever
    // the walk) walk tile by tile, without wide steps and their prefetches,
    // where this is true. Measured with reshaper-run --mode=perf, 64 MiB,
    // 4-5 interleaved rounds, GB/s read+written: on an AMD EPYC with
    // AVX-512, ABcd16a16b -> abcd 35 -> 43 at AVX-512 (35 -> 37 with the
    // AVX2 level forced), nChw16c -> nchw 55 -> 58 (52 -> 56); on an AMD
    // EPYC without AVX-512 (Zen 3), the AVX2 level's own machines, the
    // opposite (movement_bench, 2 rounds of 3 interleaved repeats):
    // nChw16c -> nchw 37 / 30 with the far-rows walk against 20 / 20 tile
    // by tile (oneDNN's reorder 20-23), ABcd16a16b -> abcd 24 / 17 against
    // 13 / 13 (oneDNN 12-14). So the AVX2 level keeps its walk.
    bool one_tile_rows_tile_by_tile = true;
};

// The table of a level; the level must not exceed detected_cpu_isa().
const isa_kernels &kernels_for(cpu_isa isa);

// Orders this thread's streaming stores before its later stores (sfence).
void store_fence();

// Per level; defined in isa_kernels_<level>.cpp, each compiled for its ISA.
const isa_kernels &scalar_kernels();
const isa_kernels &avx2_kernels();
const isa_kernels &avx512_kernels();

} // namespace reshaper::impl
