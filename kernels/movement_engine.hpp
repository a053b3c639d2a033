// The fast paths of the data-movement engine for whole-byte elements
// (1, 2, 4, 8 and 16 bytes), over a coalesced copy plan:
//  - run copy: the innermost dim is contiguous in both tensors, so the
//    move is a sequence of contiguous runs (a dense copy is one run);
//  - transpose: the destination's contiguous dim is not the source's, so
//    64 x 64-byte tiles of those two dims are transposed in registers,
//    every source and destination cache line read and written whole (1-
//    and 2-byte elements several tiles side by side, so destination rows
//    are written in runs of lines: see tile_walk). Where the destination
//    rows are at most a line with nothing between them (a blocked
//    format's inner block: nchw into nChw16c), tall strips and a register
//    block as wide as the row write the destination in one run (see
//    block_rows_fn).
//  - packed transpose: the transpose of packed 4- or 2-bit elements whose
//    rows all start on a byte and hold whole bytes: 64 x 64-byte tiles
//    transposed as bytes, each result row then split into the 2 (4)
//    destination rows of its nibbles (bit pairs).
// Packed elements whose runs are contiguous and whole bytes take the run
// copy as bytes (see whole_byte_plan).
// Large destinations are written with streaming (non-temporal) stores;
// work is split over oneTBB threads in chunks large enough to keep each
// core streaming, and small moves stay on the calling thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "kernels/copy_plan.hpp"
#include "kernels/cpu_isa.hpp"

namespace reshaper::impl {

// grouped_transpose: high-rank permutations of small dims
// (kernels/grouped_transpose.hpp).
enum class fast_path { none, run_copy, transpose, split_rows, join_rows, packed_transpose, grouped_transpose };
std::string_view to_string(fast_path p);

// Which fast path moves `plan` for elements of `element_bytes` (none for a
// plan only the generic element walk can take: no contiguous destination
// dim, or a transpose whose dims are too short to tile).
fast_path choose_fast_path(const copy_plan &plan, std::size_t element_bytes);
// The same for packed elements of `bits` (2 or 4; element indices count
// elements): run_copy, packed_transpose or none.
fast_path choose_packed_fast_path(const copy_plan &plan, std::size_t bits);

// Streaming stores: from streaming_threshold_bytes() for copies and
// transpose_streaming_threshold_bytes() for the rest (kernels/cpu_isa.hpp),
// fractions of the last-level cache read from the machine. (Before, copies
// streamed from 4 MiB and transposes of 2-byte elements or more from 1 MiB,
// measured on the move alone: the next op then read its input from DRAM.)
// Each oneTBB task moves at least this much, so a core streams between forks.
inline constexpr std::size_t parallel_task_bytes = std::size_t{256} << 10;
// Moves of fewer bytes than this stay on the calling thread: two tasks'
// worth, so that a move split for threads (a transpose then cuts its strips
// into narrower pieces) is one that threads do share. At one task's worth,
// f32 [1, 64, 1024] NHWC as NCHW (256 KiB), 2 cores, took 24-30 us cut and
// run as one task against 12-18 us whole on one thread; at 512 KiB, two
// threads took 21 us against 28-32 on one.
inline constexpr std::size_t parallel_threshold_bytes = 2 * parallel_task_bytes;

// Moves `plan` through `path` (not none) at SIMD level `isa` (at most
// detected_cpu_isa()). Returns after every store is globally visible.
void run_fast_path(fast_path path, const copy_plan &plan, std::size_t element_bytes,
                   const void *src, void *dst, cpu_isa isa);
// The same for packed elements of `bits`, `path` as choose_packed_fast_path
// chose it.
void run_packed_fast_path(fast_path path, const copy_plan &plan, std::size_t bits, const void *src,
                          void *dst, cpu_isa isa);

// Copies `bytes` from src to dst (not overlapping), split across threads
// and streaming when large: the dense copy of an alias into a new buffer.
void copy_bytes(void *dst, const void *src, std::size_t bytes);

} // namespace reshaper::impl
