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
// - prefetch_locality: those prefetches' __builtin_prefetch locality, 3
//   into L1 (prefetcht0), 1 into L2 only (prefetcht2): where the misses
//   one core keeps in flight bound the reads, L1's fill buffers held by
//   prefetches stall the tiles' own loads on some machines.
// - prefetch_by_row: streamed, those prefetches a share per source row
//   loaded (between the tiles' loads), not a register block's share at
//   once before its loads.
// - prefetch_next_group: in the last-level cache (in_last_level), each wide
//   call prefetches the lines of the call after it (the step's next row
//   group, or the next step's first) instead of a share of the next step's:
//   one call ahead the lines are still in L1 when the tiles read and write
//   them, so each takes one of the core's few L1 misses in flight, not two
//   (the next step's lines, prefetched a whole step ahead, had left L1 for
//   L2 by then).
// - line_stores: with ordinary stores, destination rows off a line
//   boundary (a pitch that is no multiple of 64 bytes: NHWC as NCHW at
//   H x W = 1000 or 196) are written in whole aligned lines, each
//   joined in registers from two tiles side by side, and a masked store at
//   either end of the wide tile's run, instead of a store per tile row that
//   straddles two lines; where a level has the kernel for it
//   (transpose_quarters_in_lines), else ignored.
// - far_source_block_kib: streamed, where source rows lie
//   far_source_row_bytes or more apart (NCHW as NHWC), the walk's wide
//   steps read a short run from each of wide * T rows, most in pages of
//   their own: more concurrent sequential streams than the hardware
//   prefetchers track, the tiles then wait on their loads.
//   Non-zero: such moves walk single tiles (T rows at a time, each read in
//   long runs the prefetchers follow), unprefetched, in column blocks of
//   this many KiB; 0: as any other move.
// - far_source_row_bytes: how far apart source rows must lie for that
//   walk (far_source_block_kib): a page by default, where each of the wide
//   step's rows opens a page of its own; nearer where a level measured the
//   wide step's rows, two or more to a page, still too many streams.
// A page: rows this far apart each open one of their own (row_reach,
// tile_walk::far_source_row_bytes).
inline constexpr std::ptrdiff_t far_row_bytes = 4096;
struct tile_walk {
    int wide;
    int strip_tiles;
    int block_kib = 0;
    bool prefetch_ahead = false;
    int prefetch_locality = 3;
    bool prefetch_by_row = false;
    bool prefetch_next_group = false;
    bool line_stores = false;
    int far_source_block_kib = 0;
    std::ptrdiff_t far_source_row_bytes = far_row_bytes;
};
inline constexpr int max_wide_tiles = 8;

// A level may walk differently where destination rows lie a page or more
// apart (each row's run then opens a page of its own), and where the move
// stays in the caches (it is not streamed: memory's pages no longer
// matter, the caches' sets do). Walks are kept per reach: [near_rows]
// below far_row_bytes and [far_rows] from it on, for streamed moves;
// [in_cache] for the others that a core's own caches hold, whatever their
// rows' distance; [in_last_level] for those only the last-level cache
// holds, whose lines come from it (prefetched: line_prefetch::writes).
enum row_reach { near_rows = 0, far_rows = 1, in_cache = 2, in_last_level = 3 };
inline constexpr int row_reaches = 4;
// The reach of a streamed move whose destination rows lie `dst_pitch`
// bytes apart.
constexpr row_reach streamed_row_reach(std::ptrdiff_t dst_pitch) {
    return dst_pitch >= far_row_bytes ? far_rows : near_rows;
}
// Per reach: table[row_reach].
template <typename T>
using per_reach = std::array<T, row_reaches>;
using level_walks = per_reach<per_size_class<tile_walk>>; // [row_reach][size class]
// The same entry (a walk, a kernel table) at every reach.
template <typename T>
constexpr per_reach<T> same_at_every_reach(const T &x) {
    return {x, x, x, x};
}

// Every SIMD level's walks with the far-source walk for 2- and 4-byte
// elements (tile_walk::far_source_block_kib, in column blocks of 256 KiB):
// streamed, from source rows a page or more apart (NCHW as NHWC), single
// tiles read T rows at a time where a wide step reads wide * T, each in a
// page of its own: fewer concurrent streams on any CPU, where the wide
// steps, prefetched or not, left the tiles waiting on their loads.
constexpr level_walks with_far_sources_in_single_tiles(level_walks w) {
    for (std::size_t size_class : {element_size_class(2), element_size_class(4)})
        w[near_rows][size_class].far_source_block_kib = 256;
    return w;
}

// The source lines of a wide step's successor: `rows` rows `pitch` bytes
// apart, `row_lines` lines from `first` in each, issued in memory order
// as prefetches into L1, `per_call` for each wide tile call, spread over
// the register blocks it transposes: a call's share issued in one burst,
// or the same lines in the order the tiles read them (a line of every row,
// then the next), measured slower (docs/performance.md, "Why the kernels
// are tuned as they are"). Integer addresses: prefetches never fault,
// while forming a pointer past the tensor would be undefined.
struct line_prefetch {
    std::uintptr_t row;          // the current row's first line
    std::ptrdiff_t pitch;
    std::ptrdiff_t row_lines;
    std::ptrdiff_t rows_left;    // rows from the current one on
    std::ptrdiff_t line = 0;     // next line within the current row
    int per_call = 0;
    // Moves the last-level cache holds (in_last_level): the successor's
    // destination lines too, prefetched for writing, as many per issue as
    // source lines (a transpose writes the bytes it reads), so that the
    // ordinary stores find their lines owned instead of each waiting for
    // its read for ownership. Null elsewhere: streamed stores read no
    // lines, and in L2 the lines are there already.
    line_prefetch *writes = nullptr;

    // Locality (of the source lines): tile_walk::prefetch_locality.
    template <int Locality = 3>
    void issue(int lines) {
        issue_lines<false, Locality>(lines);
        if (writes) writes->issue_lines<true, 3>(lines);
    }

private:
    // The walk's position is kept in locals while it issues: the callers
    // hold this struct in memory, and a store and reload of it per line
    // put a dependency through memory between consecutive prefetches.
    template <bool ForWrite, int Locality>
    void issue_lines(int lines) {
        static_assert(Locality >= 0 && Locality <= 3);
        std::uintptr_t at = row + static_cast<std::uintptr_t>(line) * 64;
        std::ptrdiff_t l = line, left = rows_left;
        for (int k = 0; k < lines && left > 0; ++k) {
            __builtin_prefetch(reinterpret_cast<const void *>(at), ForWrite ? 1 : 0, Locality);
            at += 64;
            if (++l == row_lines) {
                l = 0;
                row += static_cast<std::uintptr_t>(pitch);
                at = row;
                --left;
            }
        }
        line = l;
        rows_left = left;
    }
};

// A kernel call with its arguments fixed when planned: entry(call, src,
// dst), src and dst at the move's origins. A compiled partition keeps one
// for its prepared execute, so that the C API's execute of a 4 KiB
// transpose is one indirect call into the kernel, not a chain of loads
// from the handle through partition, program and executor.
struct kernel_call {
    using entry_fn = void (*)(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst);
    entry_fn entry = nullptr;
    const void *context = nullptr; // the entry's own (the backend's: its partition), or null
    std::ptrdiff_t src_pitch = 0, dst_pitch = 0, rows = 0, cols = 0; // whole_tiles_fn's
};

// A whole small transpose in the caches (rows x cols whole tiles, ordinary
// stores, no wide steps): the tiles one_tile transposes, column step by
// column step, each step's tiles down the rows (a strip's order), in one
// call with the tile kernel inlined. The call's rows and columns in
// elements, multiples of the tile side (divided by the kernel's constant
// tile side: two 64-bit divisions by a run-time one were a twentieth of a
// 4 KiB execute); pitches as for tile_transpose_fn.
using whole_tiles_fn = kernel_call::entry_fn;

// Whether 8 x 8 register blocks straight from the source take a move whose
// source rows lie src_pitch bytes apart and destination rows dst_pitch:
// not where the source rows fall in under 4 of L1's sets (a multiple of
// 2 KiB apart: the in-cache tiles stage those through an L1 buffer,
// staged_source_lines_per_set in isa_kernels_simd.hpp), nor where the
// destination rows lie a multiple of 4 KiB apart (every store of a block
// in one set).
constexpr bool whole_8x8_blocks_take(std::ptrdiff_t src_pitch, std::ptrdiff_t dst_pitch) {
    return src_pitch % 2048 != 0 && dst_pitch % 4096 != 0;
}

// The tiny transpose (tiny_transpose_program, movement_program.hpp): every
// planned tile of a move of at most 4 KiB through an L1 buffer.
struct tiny_transpose_program;
using tiny_tiles_fn = void (*)(const tiny_transpose_program &program, const std::uint8_t *src, std::uint8_t *dst);

// A wide tile (tile_walk::wide tiles side by side, as tile_transpose_fn
// does one), which also issues `ahead`'s prefetches when it is not null.
using wide_tile_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                              std::ptrdiff_t dst_pitch, bool stream, line_prefetch *ahead);

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
inline constexpr int max_split_rows = 16;
// [R][size class], where has_row_group_kernel(R, size); no_kernel elsewhere.
using row_group_table = std::array<per_size_class<split_rows_fn>, max_split_rows + 1>;
// The row counts R with split_rows and join_rows kernels for elements of
// `element_bytes`: 2 to 7, and 8 and 16 where a group is under half a tile
// row (32 bytes; from there the tiles' half tiles take them). The compiler
// vectorises the loops of groups of 2, 3, 4, 8 and 16 elements (of up to 8
// bytes), not those of 5, 6 or 7, which it leaves an element at a time:
// 6 rows of elements that two make one of at most 16 bytes are composed
// of 3 and 2 (composed_inner_rows), which it vectorises; 12 and 24
// measured far slower and are composed too.
constexpr bool has_row_group_kernel(std::int64_t rows, std::size_t element_bytes) {
    if (rows == 6) return 2 * element_bytes > 16;
    if (rows >= 2 && rows <= 7) return true;
    return (rows == 8 || rows == 16) && static_cast<std::size_t>(rows) * element_bytes < 32;
}
// Row counts without a kernel of their own that two compose (NHWC images of
// 12 or 24 channels): R = R1 x R2, where R2 elements make one element of
// R2 * E bytes (at most 16): a split first splits R1 rows of those, then
// each of them into R2 rows (a join the other way round). Returns R2, the
// largest power of two that divides R and leaves both kernels, or 0 where
// R has a kernel of its own or none compose it. Groups of more than 48
// bytes, joins of more than 16 rows and powers of two stay with the tiles,
// which measured faster there (docs/performance.md, "Why the kernels are
// tuned as they are").
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
// The same with streaming stores, for `count` a multiple of
// split_streamed_pairs and `low`, `high` aligned to as many bytes.
inline constexpr std::size_t split_streamed_pairs = 32;
// A streamed 4-bit step's whole byte tiles (packed_wide side by side)
// transposed and split at once into destination rows aligned to a line
// (rows 2c and 2c + 1 from byte c), `ahead` prefetched as wide tiles do;
// `parts` (1 or 2) 64-byte parts of each source row, part p into rows
// 128p + 2c and 128p + 2c + 1. `scratch`: byte_tiles_split_scratch_bytes,
// 64-byte aligned, which a level may use in between (the caller's buffer,
// so that the call adds no buffer of its own to the caller's stack).
inline constexpr std::size_t byte_tiles_split_scratch_bytes = tile_bytes * tile_bytes * max_wide_tiles;
using byte_tiles_split_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                                     std::ptrdiff_t dst_pitch, int parts, line_prefetch *ahead,
                                     std::uint8_t *scratch);

// The blocked transpose's column tiles a unit, by the side that is one
// tile: the source's rows (out of a blocked format: ABcd16a16b -> abcd)
// or the columns, which an outer dim continues (into one).
struct blocked_column_tiles {
    int out_of_blocks;
    int into_blocks;
};
// Two both ways: on the Zen 3 EPYC each destination row's 128 bytes at once
// measured faster than 64, 256 or 512 (docs/performance.md, "The blocked
// transpose").
inline constexpr blocked_column_tiles two_column_tiles = {2, 2};

// A kernel a level does not have; the engine then takes the way each entry
// below names. Tables write it out, so every absence is a decision.
inline constexpr std::nullptr_t no_kernel = nullptr;
template <typename Fn>
inline constexpr per_size_class<Fn> no_kernel_at_any_size = {};

// A level's table, written with designated initializers in its
// isa_kernels_<level>.cpp, every entry given (complete_table checks).
struct isa_kernels {
    cpu_isa isa;
    per_size_class<tile_transpose_fn> tile;
    level_walks walk; // [row_reach][size class]
    // walk[.][.].wide tiles at once (the tile itself where that is 1).
    per_reach<per_size_class<wide_tile_fn>> wide_tile;
    // Half tiles, walk[.].wide side by side: T/2 destination rows, 32 bytes
    // read per source row (nChw8c's 8 f32 channels, nChw16c's 16 bf16
    // ones), where 32-byte registers make them whole blocks (AVX2; the
    // AVX-512 level's streamed walks too, for their prefetches); no_kernel
    // elsewhere: partial tiles.
    // They issue `ahead` as wide tiles do.
    per_reach<per_size_class<wide_tile_fn>> half_wide_tile;
    run_copy_fn copy;
    runs_copy_fn copy_runs;
    // Masked loads and stores where the level has them (AVX-512); at AVX2
    // a whole tile in L1 buffers at the level's width, for the element
    // sizes that measured faster so; no_kernel elsewhere: partial_tile's
    // portable buffers.
    per_size_class<tile_partial_fn> tile_partial;
    // [i][size class]: rows of 16 << i bytes, at least 4 elements each
    // (16-byte rows: 1-, 2- and 4-byte elements; 32-byte rows: also 8-byte
    // ones; 64-byte rows: where a level has a kernel for them); no_kernel
    // elsewhere: whole tiles.
    std::array<per_size_class<block_rows_fn>, block_row_kinds> block_rows;
    // 4-bit transposes (packed_strip): packed_wide byte tiles side by side
    // (packed_tile), apart from walk: they split nibbles out of a buffer,
    // where longer runs per destination row pay.
    int packed_wide;
    wide_tile_fn packed_tile;
    split_nibbles_fn split_nibbles;
    // Streamed 4-bit transposes split straight into the destination rows
    // with it; no_kernel: into an L1 pair buffer, then the streaming run
    // copy.
    split_nibbles_fn split_nibbles_streamed;
    // A whole streamed step at once (split in registers, or nibbles
    // regrouped before the byte transpose), where a level has it;
    // no_kernel: packed_tile, then the split.
    byte_tiles_split_fn byte_tiles_split_streamed;
    // The bytes its streaming stores need destination rows and their pitch
    // aligned to (32 at AVX2, a line at AVX-512); 0 without it.
    std::ptrdiff_t byte_tiles_split_alignment;
    row_group_table split_rows;
    row_group_table join_rows;
    // Streamed transposes of exactly one tile's rows (the 16 x 16 f32
    // blocks of ABcd16a16b and nChw16c) walk tile by tile, without wide
    // steps and their prefetches, where this is true: measured faster on
    // the AMD EPYC with AVX-512, slower on the AVX2 one and on the Intel
    // Xeon with AVX-512.
    bool one_tile_rows_tile_by_tile;
    // The blocked transpose's column tiles a unit (blocked_transpose.hpp):
    // each inner position's destination rows get that many lines at once.
    blocked_column_tiles blocked_columns;
    // A one-unit transpose of whole tiles in the caches (a 4 KiB [32,32]
    // f32 one) in one call, where a level has it; no_kernel: strip by
    // strip, a tile call per tile.
    per_size_class<whole_tiles_fn> whole_tiles;
    // A one-unit transpose of at most 4 KiB of 4-byte elements whose sides
    // are multiples of 8 (whole_8x8_blocks_take), as 8 x 8 register blocks
    // in one call, where a level has it (AVX2); null: the planner's small
    // transpose ways (tiles, tiny tiles, the gather).
    whole_tiles_fn whole_blocks_4 = nullptr;
    // The tiny transpose's tiles, the tile kernel inlined (isa_tiny_tiles.hpp).
    per_size_class<tiny_tiles_fn> tiny_tiles;
};

// Whether a table has every entry no level may lack (and no in_cache walk
// that prefetches, no next-group prefetch outside the last-level walk): the
// tile, a wide tile and a walk of at least one tile for every reach and
// size, the blocked transpose's column tiles, the copies, the packed tiles,
// the nibble split and the whole-step split's alignment where it has that
// split. Each level's file static_asserts it.
constexpr bool complete_table(const isa_kernels &k) {
    if (!k.copy || !k.copy_runs || !k.packed_tile || !k.split_nibbles || k.packed_wide < 1 ||
        k.packed_wide > max_wide_tiles || k.blocked_columns.out_of_blocks < 1 || k.blocked_columns.into_blocks < 1 ||
        (k.byte_tiles_split_streamed && k.byte_tiles_split_alignment <= 0))
        return false;
    for (std::size_t c = 0; c < element_size_classes; ++c) {
        if (!k.tile[c] || !k.tiny_tiles[c]) return false;
        for (std::size_t r = 0; r < row_reaches; ++r) {
            const tile_walk &w = k.walk[r][c];
            if (!k.wide_tile[r][c] || w.wide < 1 || w.wide > max_wide_tiles || (w.strip_tiles == 0 && w.block_kib <= 0))
                return false;
            // A core's own caches hold in_cache moves: prefetching only costs.
            if (r == in_cache && w.prefetch_ahead) return false;
            // Only the last-level walk prefetches destination lines, which
            // a call ahead are the next group's.
            if (w.prefetch_next_group && (r != in_last_level || !w.prefetch_ahead)) return false;
        }
    }
    return true;
}

// Each level's file checks its table at compile time, except in GCC's
// sanitizer builds (-fsanitize=address or thread with undefined), which do
// not fold a function template's address into a constant expression; there
// kernels_tests checks every table at run time (isa_kernels.every_level_s_table_is_complete).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RESHAPER_ASSERT_COMPLETE_TABLE(table)
#else
#define RESHAPER_ASSERT_COMPLETE_TABLE(table) static_assert(complete_table(table))
#endif

// The table of a level; the level must not exceed detected_cpu_isa().
const isa_kernels &kernels_for(cpu_isa isa);

// Orders this thread's streaming stores before its later stores (sfence).
void store_fence();

// Per level; defined in isa_kernels_<level>.cpp, each compiled for its ISA.
const isa_kernels &scalar_kernels();
const isa_kernels &avx2_kernels();
// The AVX-512 level's table for the active kernel_tuning, and for each.
const isa_kernels &avx512_kernels();
const isa_kernels &avx512_kernels(kernel_tuning tuning);

} // namespace reshaper::impl
