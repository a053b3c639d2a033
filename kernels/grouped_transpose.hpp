// High-rank permutations of small dims (rank 12-24 tensors of 2s, 3s and
// 4s: the tensor networks of quantum-circuit simulators). After coalescing
// such a copy still has many dims of 2-4 elements, so the destination's
// contiguous dim and the source's are each a few elements: the tiled
// transpose's 64 x 64-byte tiles would be nearly empty and the element
// walk moves one element per inner loop (far below a streaming copy:
// docs/performance.md).
//
// The grouped transpose tiles over groups of dims instead (as HPTT and TTC
// group small dims into tile axes): the source block is the source's
// innermost dims that are dense in it, taken until their product fills a
// few cache lines, the destination block likewise for the destination,
// and a tile is every element over the dims of both blocks (they may
// share dims). A tile's source is a set of contiguous source runs (one per
// index over the destination block's other dims) and its destination a
// set of contiguous destination runs. Where the tile's first 8 source
// elements (4 for 8-byte ones) and its first 8 destination elements are
// different dims, the level's micro kernel (AVX2) transposes 8 x 8 blocks
// in registers, loaded straight from the source (micro_* below); where
// they share some dims of 2, blocks of fewer vectors swap the other lane
// dims and permute lanes (micro_swaps; grouped_shared_lanes_avx2.cpp);
// otherwise the executor copies the tile's source runs into a buffer in
// L1 and writes each destination run by gathering its elements from the
// buffer through a table made at plan time (the same for every run,
// shifted by the run's base), with SIMD gathers where the level has them.
// Large moves stage each tile's destination runs in L1 and stream them
// out whole. The dims outside the tile are walked with an odometer in the
// source's order (but for the dim that continues destination runs ending
// inside a line, walked innermost), the next tile's source lines
// prefetched (and its destination lines, where the move is stored
// directly), a range of tiles per oneTBB task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/copy_plan.hpp"
#include "kernels/cpu_isa.hpp"

namespace reshaper::impl {

// One destination run's worth of work for a level: for each run r of
// `runs`, dst + run_offset[r] receives `run` elements, element j from
// buffer element run_base[r] + gather[j] of `buffer`. With `stream` the
// runs' whole 64-byte-aligned lines may be written with streaming stores.
// The buffer is readable 64 bytes past its last element (room for kernels
// that load past an element; those of today do not).
using gather_runs_fn = void (*)(const std::uint8_t *buffer, const std::int32_t *gather, dim_t run,
                                const std::int32_t *run_base, const std::ptrdiff_t *run_offset, dim_t runs,
                                std::uint8_t *dst, bool stream);

// The micro kernel of a level: `blocks` blocks of L x L elements, block i
// at src + block_source[i] (vector b: L elements from there plus
// load[b] bytes) written at dst + block_offset[i] (vector a, lanes from
// every loaded vector's element a, stored there plus store[a] bytes);
// each block once per across step s of `across` (elements): its vectors
// then load from s elements further and vector a is stored at
// store[s + a].
// With `stream`, vector-aligned stores may be streamed. `pre` and `post`
// (null: none) are the lane permutations of the shared-lanes kernels
// (grouped_shared_lanes_avx2.cpp), which take R = 2^K vectors per block
// instead of L; the transposes ignore them.
using micro_transpose_fn = void (*)(const std::uint8_t *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                                    const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset,
                                    dim_t blocks, const dim_t *across, dim_t across_steps, std::uint8_t *dst,
                                    bool stream, const std::uint8_t *pre, const std::uint8_t *post);
// Staged destination runs (`runs` of `run_bytes`, back to back in
// `buffer`) written to dst + offset[r], whole lines streamed. Partial
// first and last lines take ordinary stores, but for joined tiles (the
// plan's joined_tiles): with `tail_joined` run r's partial last line goes
// to carry + 64 r (from its start) instead, and with `head_joined` run r's
// partial first line is completed there (the previous tile's run r ended
// where this one starts) and streamed whole. The buffer is readable 64
// bytes before its start.
using write_staged_fn = void (*)(const std::uint8_t *buffer, std::size_t run_bytes, const std::ptrdiff_t *offset,
                                 std::size_t runs, std::uint8_t *dst, std::uint8_t *carry, bool head_joined,
                                 bool tail_joined);
// How the executor works through a tile (made with the plan: it depends on
// nothing else). Its units (micro blocks at each along step, else
// destination runs) go in slices, then its staged destination runs (tiles
// of at least min_sliced_staged_runs runs; else in one call), and after
// each slice the next tile's source runs are prefetched, a share each, so
// that its reads overlap this tile's loads and streamed writes
// (docs/performance.md, "The grouped transpose's prefetch beside its
// writes"): half of them among the unit slices and half among the staged
// ones where both are sliced, all among the unit slices otherwise.
struct grouped_tile_schedule {
    std::size_t prefetch_lines_per_run = 0; // a run may start inside a line: one more than its bytes' lines
    std::size_t slices = 0;                  // wanted per stage: min_grouped_tile_slices or more (below)
    dim_t units = 0, units_per_slice = 1;
    std::size_t runs_ahead_per_slice = 0;    // source runs prefetched after each unit slice
    bool staged_writer = false;              // staged runs written by the level's writer
    std::size_t staged_per_slice = 1, runs_ahead_per_staged_slice = 0;
};
// Staged tiles of at least this many destination runs are written in
// slices, the next tile's prefetches among them (fewer: one call, a slice
// per run measured slower).
inline constexpr std::size_t min_sliced_staged_runs = 8;

// Made once per copy (pure: a function of the copy plan, the element size,
// the SIMD level and the streaming threshold), run as often as wanted.
struct grouped_transpose_plan {
    std::size_t element_bytes = 0;
    // Dims of the copy plan (indices into copy_plan::dims) in each block,
    // innermost first: the source block (dense in the source) and the
    // destination block (dense in the destination).
    std::vector<std::size_t> source_block, destination_block;
    dim_t source_run = 1;      // elements per contiguous source run: the source block's volume
    dim_t destination_run = 1; // likewise for the destination block
    dim_t tile = 1;            // elements per tile: the volume of both blocks' dims together
    // Per source run of a tile: its start, in bytes from the tile's source
    // start; the buffer holds run i at element i * source_run.
    std::vector<std::ptrdiff_t> source_run_offset;
    // Per destination run of a tile: its start, in bytes from the tile's
    // destination start, and the buffer element of its element 0.
    std::vector<std::ptrdiff_t> destination_run_offset;
    std::vector<std::int32_t> destination_run_base;
    // Per element of a destination run: its buffer element, relative to
    // the run's base.
    std::vector<std::int32_t> gather;
    // The dims outside the tile, outermost first, with byte strides; its
    // volume is the number of tiles.
    outer_dims outer;
    std::ptrdiff_t src_offset = 0;      // bytes
    std::ptrdiff_t dst_offset = 0;
    bool stream = false;                // streaming stores for the destination runs
    // Large moves stored directly (not streamed): the next tile's
    // destination lines are prefetched beside its source lines (in the
    // caches those prefetches only cost). From 1 MiB, where the tiled
    // transposes' (line_prefetch::writes) start at 8x the core's cache:
    // these short runs a tile apart lost without them at 2-8 MiB
    // (docs/performance.md, "Two destination prefetchers").
    bool prefetch_destination = false;
    // Micro blocks, where the source block's innermost dims make exactly
    // micro_lanes elements and the destination block's innermost dims
    // (other ones) too: the tile is then L x L blocks, each transposed in
    // registers (L vectors of L elements, contiguous in the source, loaded
    // from it; L stored), which levels with a micro kernel take instead of
    // the buffer and its gathers. Where no dims make exactly L elements
    // (dims of 3), longer axes may (micro_along_steps below). micro_lanes
    // is 0 where neither applies (the two blocks' innermost dims shared).
    // Offsets in bytes from the tile's source and destination starts.
    dim_t micro_lanes = 0;
    std::vector<std::ptrdiff_t> micro_load;  // per vector loaded (destination-inner index): source
    std::vector<std::ptrdiff_t> micro_store; // per vector stored (source-inner index): destination
    std::vector<std::ptrdiff_t> micro_block_source, micro_block_offset; // per block: its (0, 0)
    // Axes longer than L (dims of 3, where no dims make exactly L
    // elements: one block whole makes its axis, the source's across or
    // the destination's along, and the other block's inner dims up to
    // the first the first axis holds make the other, each at least L
    // elements, 9 to 81 for dims of 3): micro_load then has an entry per along index and
    // micro_store per across index, and every block is moved at each
    // along step (elements: the run's 0, L, 2L, ..., the last one L
    // before its end, overlapping the one before it, so that no element
    // is left to a remainder loop: elements written twice get the same
    // value) and each across step likewise. Dims of 2 and 4: {0} each.
    std::vector<dim_t> micro_along_steps{0}, micro_across_steps{0};
    // Elements each along step moves: micro_lanes (0 says the same), or
    // 2L for 2-byte elements on along axes of 16 or more (longer axes), or
    // where the destination's first 2L elements share no dim with the
    // source's first L (dims of 2 and 4: micro_load then holds 2L entries),
    // where the level has the kernel (two blocks of L along in the halves
    // of 256-bit vectors, each across element stored as one vector: half
    // the stores of the 128-bit blocks); micro_along_steps are then 2L
    // apart, the last one overlapping likewise.
    dim_t micro_along_lanes = 0;
    // The same destination offsets in the tile staged in L1 (its runs
    // back to back), whence streamed moves write whole runs: micro blocks
    // write 8 rows of 32 bytes each, which streamed straight to memory
    // (partial lines in the write-combining buffers) measured slower
    // than ordinary stores.
    std::vector<std::ptrdiff_t> micro_store_staged, micro_block_staged;
    // Shared lanes (dims of 2 and 4 only, where the first L elements of
    // the source and of the destination share some dims; the widest
    // lanes): micro_swaps = K, the source's lane dims outside the
    // destination's lanes (1 to log2(L) - 1; 0 for the transposes above).
    // micro_load then holds 2^K entries (per index over the destination's
    // other lane dims: source bytes), micro_store 2^K (per index over the
    // source's other lane dims: destination bytes), and the lanes are
    // permuted before and after the swaps by micro_pre and micro_post
    // (index vectors as the level's kernel reads them: 32-bit units for
    // 256-bit vectors, bytes for 128-bit ones; empty where the order
    // already fits).
    int micro_swaps = 0;
    std::vector<std::uint8_t> micro_pre, micro_post;
    // The level the plan was made for and its kernels: the gather kernel
    // always, the micro kernel where micro_lanes > 0 and the level has one
    // (else the buffer and its gathers).
    cpu_isa isa = cpu_isa::scalar;
    gather_runs_fn gather_kernel = nullptr;
    micro_transpose_fn micro_kernel = nullptr;
    // The level's writer of staged runs (streamed moves with micro
    // blocks), or null for the engine's run copy.
    write_staged_fn write_staged = nullptr;
    // Destination runs that end inside a line (dims of 3) and an outer
    // walk whose innermost dim continues them (its destination stride is
    // the run's bytes): that dim's size, else 0. Consecutive tiles along it
    // join each run's partial last line with the next tile's partial first
    // line and stream it whole: written in parts with ordinary stores, each
    // such line was read from memory first and the stores stalled on it.
    // The runs' partial last lines wait for the next tile in the carry, a
    // line per staged run in the task's buffer from carry_offset (past the
    // staged tile); tiles join only where it fits there.
    std::size_t joined_tiles = 0;
    std::size_t carry_offset = 0;
    grouped_tile_schedule schedule;
};

// The blocks alone (what the planner chooses first, without the tables):
// dims of the copy plan in each block, innermost first, and whether each
// dim is in the source block and in the destination block.
struct grouped_blocks {
    std::vector<std::size_t> source_block, destination_block;
    std::vector<bool> in_source, in_destination;
    dim_t source_run = 1, destination_run = 1, tile = 1;
};
// `streamed`: whether the move streams its stores (runs grow further).
// Source runs grow up to max_source_run_bytes (256), or up to
// `max_source_run` bytes where given (plan_grouped_transpose's balanced
// blocks).
std::optional<grouped_blocks> choose_grouped_blocks(const copy_plan &plan, std::size_t element_bytes, bool streamed,
                                                    std::size_t max_source_run = 0);

// The copy with its dim of unit stride on both sides (the source's and
// the destination's innermost, shared) folded into the element: elements
// `element_bytes` times that dim's size (2, 4, 8, 16 or 32 bytes: 32-byte
// ones, c64 and f64 with a shared 4, take the gathers alone), the other
// dims' strides divided by it. Nothing where there is no such dim, the
// wider element is no size class, or a stride or offset does not divide.
struct widened_copy {
    copy_plan plan;
    std::size_t element_bytes = 0;
};
std::optional<widened_copy> widen_shared_inner_dim(const copy_plan &plan, std::size_t element_bytes);

// The copy with each dim's small prime factors (up to 16) peeled off its
// inside into dims of their own (as far as a tile's buffer could hold: the
// rest stays one dim), the same elements in the same order. Coalescing merges the dims
// a permutation keeps in order on both sides into one long dim (the middle
// of a permutation swapping the first and last dims: [2, 2^20, 2]), too
// long for either block, so the blocks stop short of a line; split, the
// blocks take part of it. The planner splits only where the blocks cannot
// be made otherwise, so that plans it made before keep their dims.
copy_plan split_long_dims(const copy_plan &plan, std::size_t element_bytes);
// choose_grouped_blocks on `plan`, else on split_long_dims(plan): the plan
// chosen and its blocks (none where neither has them; the plan is then the
// split one).
struct grouped_blocks_choice {
    copy_plan plan;
    std::optional<grouped_blocks> blocks;
};
grouped_blocks_choice choose_grouped_blocks_or_split(const copy_plan &plan, std::size_t element_bytes, bool streamed,
                                                     std::size_t max_source_run = 0);

// Whether the fast-path choice takes the grouped transpose for a plan the
// tiled transpose would move with tiles short on both sides (its rows and
// columns each under a line, or a few lines for high-rank plans: below) or
// could not move at all: blocks exist and the move is at least
// min_grouped_bytes.
bool grouped_transpose_pays(const copy_plan &plan, std::size_t element_bytes, dim_t transpose_rows,
                            dim_t transpose_columns);

// The grouped transpose of `plan` for elements of `element_bytes` (1, 2,
// 4, 8 or 16; the plan moves wider ones, up to 32, where widen_shared_inner_dim
// applies and its blocks exist: its element_bytes and tables are then the
// wider element's) at SIMD level `isa` (at most detected_cpu_isa()), streaming
// its stores where the move is at least `streaming_bytes` (the machine's
// transpose_streaming_threshold_bytes()), or nothing where it does not apply: no unit-stride
// destination dim, no unit-stride source dim, a negative or zero
// destination stride, or blocks too short to pay (each must reach at least
// min_grouped_run_bytes, or hold the whole tensor).
std::optional<grouped_transpose_plan> plan_grouped_transpose(const copy_plan &plan, std::size_t element_bytes, cpu_isa isa,
                                                             std::size_t streaming_bytes);

// Plans of at least min_high_rank_dims dims (after coalescing) take the
// grouped transpose while both transposed sides stay under
// max_high_rank_side_lines lines (others: under one line).
inline constexpr std::size_t min_high_rank_dims = 8;
inline constexpr dim_t max_high_rank_side_lines = 4;
// The fast-path choice leaves moves smaller than this to the element walk.
inline constexpr std::size_t min_grouped_bytes = 4096;
// Bytes each block's runs reach at least (or the whole dim set).
inline constexpr std::size_t min_grouped_run_bytes = 64;
// The most bytes a tile's buffer holds: within L1 beside the lines being read.
inline constexpr std::size_t max_grouped_tile_bytes = std::size_t{16} << 10;
// A tile may exceed that only while its blocks grow to min_grouped_run_bytes
// (both blocks of a line of 1-byte elements share no dim: 64 x 64 bytes
// is 4 KiB; dims of 4 may overshoot a line fourfold on each side).
inline constexpr std::size_t max_grouped_buffer_bytes = std::size_t{64} << 10;
// A task's buffer: the tile, then 64 bytes of the gathers' overreach or
// the joined tiles' carry (grouped_transpose_plan::carry_offset).
inline constexpr std::size_t grouped_task_buffer_bytes = max_grouped_buffer_bytes + 64;

// Moves the copy as `g` planned it. Returns after every store is globally
// visible.
void run_grouped_transpose(const grouped_transpose_plan &g, const void *src, void *dst);

// The executor works through a tile in slices (of its micro units, then of
// its staged destination runs, each as far as there are units and runs),
// the next tile's source lines prefetched a share after each slice:
// min_grouped_tile_slices, or as many as keep each burst of prefetches
// within max_prefetch_burst_lines, about the misses an L1 keeps in flight
// (more at once only queue behind them; tiles of many short source runs,
// dims of 3, would otherwise prefetch in long bursts). The figures are in
// docs/performance.md, "The grouped transpose's prefetch bursts".
inline constexpr std::size_t min_grouped_tile_slices = 8;
inline constexpr std::size_t max_prefetch_burst_lines = 24;
// The schedule of `g`'s tiles (plan_grouped_transpose sets it; its kernels
// and tables must be set first).
grouped_tile_schedule schedule_grouped_tiles(const grouped_transpose_plan &g);

// Lanes of the widest micro blocks for elements of `element_bytes` (the
// planner tries them, then half as many for 4- and 8-byte elements, and
// for 1-byte ones over axes too short for 16; 16 x 16 for 1-byte ones,
// 2 x 2 for 16-byte ones), 0 for none.
constexpr dim_t micro_lanes_for(std::size_t element_bytes) {
    return element_bytes == 1 ? 16 : element_bytes == 2 || element_bytes == 4 ? 8 : element_bytes == 8 ? 4 : element_bytes == 16 ? 2 : 0;
}
// The level's micro kernel for blocks of `lanes` elements of 1 << log2e
// bytes, `along_lanes` along (0: `lanes`), or null.
micro_transpose_fn grouped_micro_kernel(cpu_isa isa, int log2e, dim_t lanes, dim_t along_lanes = 0);
micro_transpose_fn avx2_grouped_micro_kernel(int log2e, dim_t lanes, dim_t along_lanes);
// The level's shared-lanes kernel for elements of 1 << log2e bytes in the
// widest lanes with `swaps` lane dims swapped, or null.
micro_transpose_fn grouped_shared_lanes_kernel(cpu_isa isa, int log2e, int swaps);
micro_transpose_fn avx2_grouped_shared_lanes_kernel(int log2e, int swaps);
write_staged_fn avx2_grouped_write_staged();

// The level's kernel for elements of 1 << log2e bytes (defined per level:
// fast_path_grouped_transpose.cpp for the portable one, grouped_transpose_avx2.cpp).
gather_runs_fn grouped_gather_kernel(cpu_isa isa, int log2e);
gather_runs_fn avx2_grouped_gather_kernel(int log2e);

} // namespace reshaper::impl
