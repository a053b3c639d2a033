// The plan of one strided move, decided once: which fast path takes it and
// everything that path would otherwise decide while moving (tiles, walk,
// strips, thread pieces, streaming stores, the SIMD level's kernels). A
// pure function of the copy plan, the element type and the machine
// (plan_movement) makes it; the executors (run_movement, one file per fast
// path) only run it. The kernel lowering makes one per step at compile
// time, so an execute neither chooses nor allocates a plan.
//
// Adding a fast path: a value of fast_path, its branch in choose_fast_path
// (or choose_packed_fast_path), a program struct in movement_program's
// variant with its planner in movement_planner.cpp, and its executor in a
// file of its own (kernels/fast_path_*.cpp), dispatched by run_movement.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/data_type.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/blocked_transpose.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/grouped_transpose.hpp"
#include "kernels/isa_kernels.hpp"
#include "kernels/run_grid.hpp"
#include "kernels/window_transpose.hpp"

namespace reshaper::impl {

// none: the generic element walk (strings, gathers with no contiguous
// destination dim, transposes too short to tile, packed rows that do not
// start on bytes).
// grouped_transpose: high-rank permutations of small dims
// (kernels/grouped_transpose.hpp).
// window_transpose: tiles whose rows span several source dims (window
// partitions: kernels/window_transpose.hpp).
// blocked_transpose: streamed tiled transposes of a blocked format's inner
// block walked in the source's order (kernels/blocked_transpose.hpp).
enum class fast_path {
    none,
    run_copy,
    transpose,
    split_rows,
    join_rows,
    packed_transpose,
    grouped_transpose,
    window_transpose,
    blocked_transpose
};
std::string_view to_string(fast_path p);

// What a plan depends on besides the move itself; current_machine() reads
// it where the move will run (tests make their own).
struct machine_facts {
    cpu_isa isa = cpu_isa::scalar;
    int threads = 1; // oneTBB's concurrency: more than 1 lets a move share its units
    std::size_t copy_streaming_bytes = 0;      // streaming_threshold_bytes()
    std::size_t transpose_streaming_bytes = 0; // transpose_streaming_threshold_bytes()
    // Transposes not streamed walk as in_last_level from this many bytes
    // (last_level_walk_threshold_bytes()); below, as in_cache.
    std::size_t last_level_walk_bytes = ~std::size_t{0};
};
machine_facts current_machine();

// Each oneTBB task moves at least this much, so a core streams between forks.
inline constexpr std::size_t parallel_task_bytes = std::size_t{256} << 10;
// Moves of fewer bytes stay on the calling thread: two tasks' worth, so a
// move split for threads is one that threads do share (docs/performance.md,
// "Why the kernels are tuned as they are").
inline constexpr std::size_t parallel_threshold_bytes = 2 * parallel_task_bytes;

// How a move's units (strips, pieces, runs: each fast path's own) are
// shared: all on the calling thread, or oneTBB tasks of `grain` units.
struct unit_split {
    std::size_t units = 0;
    std::size_t unit_bytes = 0;
    std::size_t grain = 1;
    bool parallel = false;
};

// The order the calls of a short-run copy take. In the caches the reads need
// no page order, so each call goes where it copies the most runs.
enum class short_run_order {
    source,                 // the source's order (streamed moves always)
    destination,            // the destination's: its innermost outer dim holds more runs
    source_but_longer_along // the source's, but along its next dim, which is longer
};

// Run copy: contiguous runs of run_bytes. Short runs go a task's worth at
// a time along the innermost outer dim (`along`), in the source's order
// or, where plan_run_copy found it better, the destination's; long ones
// in pieces of at most a MiB.
struct run_copy_program {
    run_copy_fn copy = nullptr;
    runs_copy_fn copy_runs = nullptr;
    std::size_t run_bytes = 0;
    outer_dims outer;
    bool short_runs = false;
    short_run_order order = short_run_order::source;
    std::ptrdiff_t along_src = 0, along_dst = 0; // byte steps between a unit's runs
    std::size_t along_count = 0, per_unit = 0, units_per_row = 0;
    // A grid (`grid` set): at each step along, the runs across a short dim
    // too, one call per unit (kernels/run_grid.hpp); per_unit counts steps.
    run_grid_fn grid = nullptr;
    std::ptrdiff_t across_src = 0, across_dst = 0;
    std::size_t across_count = 1;
    std::size_t piece = 0, pieces = 0; // long runs
};

// Tiled transpose: destination rows of `cols` elements (the destination's
// contiguous dim) gathered from the source's contiguous dim (`rows`),
// strips of strip_rows rows cut into `pieces` column pieces.
struct transpose_program {
    tile_transpose_fn tile = nullptr;
    wide_tile_fn wide = nullptr;           // walk.wide tiles side by side, or null
    wide_tile_fn half_wide = nullptr;      // half tiles side by side, or null
    tile_partial_fn partial = nullptr;     // null: partial tiles through buffers
    run_copy_fn copy = nullptr;
    block_rows_fn block_rows = nullptr; // a blocked format's inner block, or null
    whole_tiles_fn whole = nullptr;     // the whole move in one call (plan_transpose), or null
    row_reach reach = near_rows;
    tile_walk walk{1, 1};
    std::ptrdiff_t e = 0;               // element bytes
    dim_t t = 0;                        // tile side in elements
    dim_t rows = 0, cols = 0;
    std::ptrdiff_t src_pitch = 0;       // bytes between source rows (one step of cols)
    std::ptrdiff_t dst_pitch = 0;       // bytes between destination rows
    outer_dims outer;
    dim_t strip_rows = 0, row_tiles = 0;
    dim_t pieces = 1, piece_cols = 0;
};

// A transpose of at most small_transpose_bytes (tiny_transpose_takes), in
// tiles whose sides span several dims: each tile's columns (source runs
// along the rows) are gathered into a 64 x 64-byte buffer in L1, the level
// transposes it whole, and its rows are scattered to destination runs
// along the columns. Dims whose source rows continue the row side's run
// (or destination rows the column side's) join that side while it fits a
// tile, so a move with a side of 2 or 3 or many small outer dims takes a
// few full tiles instead of a partial tile per outer position. Everything
// but the buffers is computed at plan time.
struct tiny_tile {
    std::ptrdiff_t src = 0, dst = 0; // bytes: the tile's first row and column
    int row_start = 0, rows = 0;     // into dst_row_offsets
    int col_start = 0, cols = 0;     // into src_col_offsets
    // A whole tile whose source runs (destination runs) lie this many bytes
    // apart is read (written) in place, without the buffer; 0: through it.
    std::ptrdiff_t src_pitch = 0, dst_pitch = 0;
};
struct tiny_transpose_program {
    tiny_tiles_fn tiles_kernel = nullptr; // the level's, for the element size
    std::ptrdiff_t e = 0;
    std::vector<std::ptrdiff_t> src_col_offsets; // bytes, per column index
    std::vector<std::ptrdiff_t> dst_row_offsets; // bytes, per row index
    std::vector<tiny_tile> tiles;
};

// A move of at most small_transpose_bytes whose tiles would mostly stand
// empty or whose runs are short (choose_small_transpose,
// short_runs_gather): each entry (an element, or a run contiguous on both
// sides) read through a table of source offsets made at plan time, the
// destination written run by run. A tile costs its whole 64 x 64 bytes
// however few it moves, a run copy a call per few runs; the table costs
// what the move holds.
struct tiny_gather_run {
    std::ptrdiff_t dst = 0; // bytes
    std::int32_t count = 0; // entries, back to back in the destination
};
struct tiny_gather_program;
using tiny_gather_fn = void (*)(const tiny_gather_program &program, const std::uint8_t *src, std::uint8_t *dst);
struct tiny_gather_program {
    tiny_gather_fn gather = nullptr; // for entry_bytes
    std::ptrdiff_t entry_bytes = 0;  // 1 to 63
    std::vector<std::int32_t> src_offsets; // bytes, per entry in the destination's order
    std::vector<tiny_gather_run> runs;
};
// The gather for entries of 1 to 63 bytes (tiny_gather.cpp).
tiny_gather_fn tiny_gather_for(std::size_t entry_bytes);

// Split rows (R destination rows from groups of R) or joined rows (the
// inverse), by one kernel or two composed through an L1 buffer.
struct row_groups_program {
    bool split = true;
    split_rows_fn outer_kernel = nullptr; // alone where one kernel has R rows
    split_rows_fn inner_kernel = nullptr; // else the inner_rows part
    dim_t inner_rows = 0, outer_rows = 0;
    run_copy_fn copy = nullptr;
    std::ptrdiff_t e = 0;
    outer_dims outer;
    std::ptrdiff_t pitch = 0;            // between the R rows
    std::ptrdiff_t src_step = 0, dst_step = 0; // one column
    std::ptrdiff_t group_bytes = 0;
    dim_t cols = 0, piece_cols = 0, pieces = 0;
    dim_t stream_cols = 0; // streamed joins: columns staged in L1 at a time
};

// Packed transpose of 4- or 2-bit elements, in byte strides.
struct packed_transpose_program {
    int bits = 4;
    const isa_kernels *kernels = nullptr;
    outer_dims outer;
    std::ptrdiff_t src_pitch = 0, dst_pitch = 0;
    dim_t rows = 0, cols = 0; // elements
    dim_t strip_rows = 0, row_tiles = 0;
};

// The element walk: parts of the walk (the tiles of a transpose-like one,
// or the whole), each copied in chunks of `chunk` elements across oneTBB
// tasks (0: on the calling thread), packed destinations' cuts moved to byte
// boundaries where `byte_safe_cuts`.
struct element_walk_part {
    copy_plan plan;
    dim_t chunk = 0;
    bool byte_safe_cuts = false;
};
using element_walk_fn = void (*)(const element_walk_part &part, const void *src, void *dst);
struct element_walk_program {
    element_walk_fn walk = nullptr; // the element kind's walk
    dim_t per_byte = 1;             // packed elements per byte
    std::vector<element_walk_part> parts;
};

struct movement_program {
    fast_path path = fast_path::none;
    std::size_t element_bits = 0; // of the element type; string: its slot, 0
    cpu_isa isa = cpu_isa::scalar;
    bool stream = false;          // streaming stores
    unit_split split;             // the fast paths'; the element walk's parts split themselves
    std::ptrdiff_t src_offset = 0, dst_offset = 0; // bytes, fast paths only
    std::variant<element_walk_program, run_copy_program, transpose_program, row_groups_program,
                 packed_transpose_program, grouped_transpose_plan, window_transpose_program,
                 blocked_transpose_program, tiny_transpose_program, tiny_gather_program>
        detail;
};

// Which fast path moves `plan` for elements of `element_bytes` (none for a
// plan only the element walk can take).
fast_path choose_fast_path(const copy_plan &plan, std::size_t element_bytes);
// The same for packed elements of `bits` (2 or 4; element indices count
// elements): run_copy, packed_transpose or none.
fast_path choose_packed_fast_path(const copy_plan &plan, std::size_t bits);

// element_bits(type); throws error(invalid_data_type) for undef.
std::size_t movable_element_bits(data_type type);

// The program of `plan` (make_copy_plan's, volume > 0) for elements of
// `type` on `machine`. Throws error(invalid_data_type) for undef.
movement_program plan_movement(const copy_plan &plan, data_type type, const machine_facts &machine);
// The same for elements of `element_bits` (2, 4, 8, 16, 32, 64 or 128)
// that are not strings. Throws error(invalid_data_type) for other sizes.
movement_program plan_movement(const copy_plan &plan, std::size_t element_bits, const machine_facts &machine);

// Runs `program` (from plan_movement, at most detected_cpu_isa()) from src
// to dst, buffers laid out as its copy plan said. Returns after every store
// is globally visible.
void run_movement(const movement_program &program, const void *src, void *dst);
// The program's whole run as one kernel call, where it was planned so (a
// one-unit transpose of whole tiles in the caches: plan_transpose), its
// src and dst at the program's offsets (src_offset, dst_offset); else a
// call whose entry is null. run_movement makes the same call.
kernel_call whole_kernel_call(const movement_program &program);

// "tiled transpose, 16x16 tiles, 4 wide, strips of 64 rows, 2 pieces,
// streamed, 8 tasks of 512 KiB": the program in words, for the plan text.
std::string describe(const movement_program &program);

// The program of a dense copy of `bytes` (> 0): the run copy, split across
// threads and streaming when large (an alias executed into a new buffer).
movement_program plan_byte_copy(std::size_t bytes, const machine_facts &machine);
// plan_byte_copy on the current machine, run: src to dst, not overlapping.
void copy_bytes(void *dst, const void *src, std::size_t bytes);

} // namespace reshaper::impl
