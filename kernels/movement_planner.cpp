// plan_movement: every decision of the movement engine, made once from the
// copy plan, the element type and the machine (movement_program.hpp). The
// executors (fast_path_*.cpp, element_walk.cpp) only run what is decided
// here; why each figure is what it is: docs/performance.md, "Why the
// kernels are tuned as they are".
#include "kernels/movement_program.hpp"
#include "core/fail.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include <oneapi/tbb/task_arena.h>

#include "core/status.hpp"
#include "kernels/element_walk.hpp"
#include "kernels/movement_units.hpp"

namespace reshaper::impl {
namespace {

// The window transpose's least move (its span table costs more below).
constexpr std::size_t min_window_bytes = 4096;
// Transposes whose tiles would be mostly empty go element by element,
// except moves of at most small_transpose_bytes: choose_small_transpose
// decides those.
constexpr dim_t min_transpose_side = 4;
constexpr std::size_t small_transpose_bytes = 4096;
// Runs of at least a vector, many to a call, are the run copy's whatever
// the grouped transpose offers (its gathers, through tables, measured
// several times slower there: s8 attention heads of 32 and 49 bytes, and
// channel shuffles of 4 x 6 planes of 49 bytes, whose calls take 4-6 runs).
constexpr std::size_t vector_run_bytes = 32;
constexpr dim_t min_runs_per_call = 4;
// High-rank plans (min_high_rank_dims dims or more) leave runs under a
// line to the run copy only where its calls take this many: c64 rank 12 of
// 4s with the innermost 4 kept (32-byte runs) ran at 0.14-0.26 of a
// streaming copy with 2, 4 and 16 runs a call, at 0.37-0.77 as the grouped
// transpose's 32-byte elements (docs/performance.md, "High rank,
// highrank5").
constexpr dim_t min_high_rank_runs_per_call = 64;
// Split and joined rows pay where each call moves long rows: shorter ones
// (the blocks of ABcd16a16b, 16 columns) keep their tiles.
constexpr dim_t min_split_columns = 64;
// Runs shorter than this are visited in the source's order, a task's worth
// per call (the attention case's 128-byte runs).
constexpr std::size_t short_run_bytes = 4096;
// Fewer runs than this along the source's innermost outer dim make calls
// too short to pay for themselves in the caches (plan_run_copy).
constexpr dim_t few_runs_per_call = 32;
// Short runs in the caches take a grid (run_grid.hpp) from this many bytes
// of a move (measured: docs/performance.md).
constexpr std::size_t grid_min_bytes = 0;
// Long runs are cut into pieces of at most this, so one run keeps every core busy.
constexpr std::size_t long_run_piece_bytes = std::size_t{1} << 20;
// A blocked format's inner block: strips of this much destination amortise
// each strip's set-up.
constexpr dim_t block_strip_bytes = dim_t{64} << 10;
// Streamed joined rows are staged in L1 this much at a time.
constexpr std::ptrdiff_t joined_rows_stage_bytes = std::ptrdiff_t{4} << 10;

// The source's contiguous dim, other than the innermost, or -1.
int source_contiguous_dim(const copy_plan &plan) {
    for (std::size_t d = 0; d + 1 < plan.dims.size(); ++d)
        if (plan.dims[d].src_stride == 1) return static_cast<int>(d);
    return -1;
}

// Whether a run copy's runs (the innermost dim, shared) are at least
// vector_run_bytes and its calls cover at least min_runs_per_call of them
// (min_high_rank_runs_per_call for high-rank plans' runs under a line):
// the source's or the destination's innermost outer dim is that long (the
// dims plan_run_copy walks along and across).
bool vector_runs_in_long_calls(const copy_plan &plan, std::size_t element_bytes) {
    if (plan.dims.size() < 2 ||
        static_cast<std::size_t>(plan.dims.back().size) * element_bytes < vector_run_bytes)
        return false;
    const auto outer_end = plan.dims.end() - 1;
    const auto by_source = std::min_element(plan.dims.begin(), outer_end, [](const copy_dim &a, const copy_dim &b) {
        return a.src_stride < b.src_stride;
    });
    const auto by_destination = std::min_element(
        plan.dims.begin(), outer_end, [](const copy_dim &a, const copy_dim &b) { return a.dst_stride < b.dst_stride; });
    const bool short_high_rank = plan.dims.size() >= min_high_rank_dims &&
                                 static_cast<std::size_t>(plan.dims.back().size) * element_bytes < min_grouped_run_bytes;
    return std::max(by_source->size, by_destination->size) >=
           (short_high_rank ? min_high_rank_runs_per_call : min_runs_per_call);
}

// Units of `unit_bytes` shared between threads when the move is large
// enough and there are threads to share it.
unit_split split_units(std::size_t units, std::size_t unit_bytes, const machine_facts &machine) {
    unit_split s;
    s.units = units;
    s.unit_bytes = unit_bytes;
    s.parallel = units * unit_bytes >= parallel_threshold_bytes && units > 1 && machine.threads > 1;
    s.grain = std::max<std::size_t>(1, parallel_task_bytes / std::max<std::size_t>(1, unit_bytes));
    return s;
}

// The dims of `plan` but the innermost and `skip`, in element strides times `e`.
outer_dims outer_of(const copy_plan &plan, std::size_t skip, std::ptrdiff_t e) {
    outer_dims outer;
    for (std::size_t d = 0; d + 1 < plan.dims.size(); ++d)
        if (d != skip) outer.add(plan.dims[d], e);
    return outer;
}

void plan_run_copy(movement_program &p, const copy_plan &plan, std::ptrdiff_t e, const isa_kernels &k,
                   const machine_facts &machine) {
    run_copy_program r;
    r.copy = k.copy;
    r.copy_runs = k.copy_runs;
    const copy_dim &run = plan.dims.back();
    r.run_bytes = static_cast<std::size_t>(run.size) * static_cast<std::size_t>(e);
    std::vector<copy_dim> outer_order(plan.dims.begin(), plan.dims.end() - 1);
    p.src_offset = plan.src_offset * e;
    p.dst_offset = plan.dst_offset * e;
    p.stream = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e) >= machine.copy_streaming_bytes;
    r.short_runs = r.run_bytes < short_run_bytes && !outer_order.empty();
    if (r.short_runs) {
        // Short runs go in the source's order, unless the move stays in the
        // caches and another order puts more runs in a call: the
        // destination's (the head splits of attention: 4 runs of 128 B a
        // call in the source's order, 49 in the destination's), or else
        // the source's next dim where its innermost outer one is short and
        // the next longer (docs/performance.md).
        const auto innermost_by = [&](auto stride) {
            return std::min_element(outer_order.begin(), outer_order.end(), [&](const copy_dim &a, const copy_dim &b) {
                       return stride(a) < stride(b);
                   })->size;
        };
        const dim_t source_runs = innermost_by([](const copy_dim &d) { return d.src_stride; });
        const dim_t destination_runs = innermost_by([](const copy_dim &d) { return d.dst_stride; });
        // The order of copy_plan's dims is the destination's already.
        if (!p.stream && destination_runs > source_runs) {
            r.order = short_run_order::destination;
        } else {
            std::stable_sort(outer_order.begin(), outer_order.end(),
                             [](const copy_dim &a, const copy_dim &b) { return a.src_stride > b.src_stride; });
            const std::size_t n = outer_order.size();
            if (!p.stream && n >= 2 && outer_order[n - 1].size < few_runs_per_call &&
                outer_order[n - 2].size > outer_order[n - 1].size) {
                std::swap(outer_order[n - 1], outer_order[n - 2]);
                r.order = short_run_order::source_but_longer_along;
            }
        }
        const copy_dim along = outer_order.back();
        outer_order.pop_back();
        // A grid in the caches: at each step along, the runs across the
        // other tensor's innermost outer dim where that is short (the
        // heads), so that tensor is walked in its own order while a call
        // still covers many runs (docs/performance.md).
        const std::size_t total = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e);
        if (!p.stream && r.order != short_run_order::source_but_longer_along && !outer_order.empty() &&
            total >= grid_min_bytes) {
            const bool across_source = r.order == short_run_order::destination;
            const auto across = std::min_element(outer_order.begin(), outer_order.end(),
                                                 [&](const copy_dim &a, const copy_dim &b) {
                                                     return across_source ? a.src_stride < b.src_stride
                                                                          : a.dst_stride < b.dst_stride;
                                                 });
            // Only where that walk is the tensor's own order through whole
            // rows of runs: a split of heads from a q/k/v slice (source
            // rows three times the heads' bytes apart) measured no gain.
            const dim_t run = plan.dims.back().size;
            const dim_t across_step = across_source ? across->src_stride : across->dst_stride;
            const dim_t along_step = across_source ? along.src_stride : along.dst_stride;
            if (across->size > 1 && across->size < few_runs_per_call && across_step == run &&
                along_step == run * across->size) {
                r.grid = run_grid_kernel(machine.isa);
                r.across_src = across->src_stride * e;
                r.across_dst = across->dst_stride * e;
                r.across_count = static_cast<std::size_t>(across->size);
                outer_order.erase(across);
            }
        }
        for (const copy_dim &d : outer_order) r.outer.add(d, e);
        r.along_src = along.src_stride * e;
        r.along_dst = along.dst_stride * e;
        r.along_count = static_cast<std::size_t>(along.size);
        const std::size_t step_bytes = r.run_bytes * r.across_count;
        r.per_unit = std::min(r.along_count, std::max<std::size_t>(1, parallel_task_bytes / step_bytes));
        r.units_per_row = (r.along_count + r.per_unit - 1) / r.per_unit;
        p.split = split_units(r.outer.volume * r.units_per_row, r.per_unit * step_bytes, machine);
    } else {
        for (const copy_dim &d : outer_order) r.outer.add(d, e);
        r.piece = std::min(r.run_bytes, long_run_piece_bytes);
        r.pieces = (r.run_bytes + r.piece - 1) / r.piece;
        p.split = split_units(r.outer.volume * r.pieces, r.piece, machine);
    }
    p.detail = std::move(r);
}

// A tiny transpose's sides (tiny_transpose_program): rows, the source's
// contiguous dim, then dims continuing its run in the source; columns, the
// destination's innermost, then dims continuing its run in the destination;
// each while it fits a tile's side. The other dims are outer positions.
struct tiny_sides {
    std::vector<std::size_t> row_dims, col_dims; // innermost first
    dim_t row_run = 1, col_run = 1, side_max = 1;
    outer_dims outer;
    std::size_t tiles() const {
        return outer.volume * static_cast<std::size_t>(((row_run + side_max - 1) / side_max) *
                                                       ((col_run + side_max - 1) / side_max));
    }
};

tiny_sides tiny_sides_of(const copy_plan &plan, std::ptrdiff_t e, int k_dim) {
    tiny_sides s;
    s.side_max = tile_bytes / e;
    const std::size_t n = plan.dims.size(), inner = n - 1;
    std::vector<bool> used(n, false);
    s.row_dims = {static_cast<std::size_t>(k_dim)};
    s.col_dims = {inner};
    used[s.row_dims[0]] = used[inner] = true;
    s.row_run = plan.dims[s.row_dims[0]].size;
    s.col_run = plan.dims[inner].size;
    const auto extend = [&](std::vector<std::size_t> &side, dim_t &run, bool source) {
        for (bool grew = true; grew;) {
            grew = false;
            for (std::size_t d = 0; d < n; ++d) {
                const copy_dim &x = plan.dims[d];
                if (used[d] || (source ? x.src_stride : x.dst_stride) != run || run * x.size > s.side_max) continue;
                side.push_back(d);
                used[d] = true;
                run *= x.size;
                grew = true;
            }
        }
    };
    extend(s.row_dims, s.row_run, true);
    extend(s.col_dims, s.col_run, false);
    for (std::size_t d = 0; d < n; ++d)
        if (!used[d]) s.outer.add(plan.dims[d], e);
    return s;
}

// How a transpose that the tiles would take goes when it is small: the one
// decision for moves of at most small_transpose_bytes. The plain tiles take
// a side under min_transpose_side only at AVX-512 for 2-byte and wider
// elements (their partial tiles); where they take the move, the tiny
// transpose replaces them if it needs at most max_tiny_tiles tiles and they
// twice as many, and never for destination rows back to back (a blocked
// format's inner block: their block rows). Either costs a whole tile per
// tile however few elements it moves, the tiny gather a table entry per
// element: the gather takes the move where its elements are fewer than the
// tiles' work counted in gathered elements (tile_work_elements_*), and where
// no tiles take it (the element walk's odometer and oneDNN's reorder cost
// several times more per element). Measured: docs/performance.md.
enum class small_transpose_way { tiles, tiny_tiles, gather, element_walk };
constexpr std::size_t max_tiny_tiles = 4;
// A tile's work as elements of the tiny gather, per element size class: a
// 1-byte tile shuffles 64 rows six times, an 8-byte one 8 rows three times;
// AVX2's vectors, half as wide, take about twice the shuffles. Block rows
// write their tile a register block at a time, for about half the work.
// Partial tiles cost as much as whole ones (more through the buffers).
constexpr per_size_class<std::size_t> tile_work_elements_avx512 = {650, 320, 140, 50, 16};
constexpr per_size_class<std::size_t> tile_work_elements_avx2 = {700, 420, 280, 150, 40};

// The tiny gather's table holds 32-bit source offsets: a source reaching
// further (a small view of a huge tensor) takes the element walk.
small_transpose_way gather_or_walk(const copy_plan &plan, std::size_t element_bytes) {
    dim_t reach = 0;
    for (const copy_dim &d : plan.dims) reach += (d.size - 1) * std::abs(d.src_stride);
    return reach <= std::numeric_limits<std::int32_t>::max() / static_cast<dim_t>(element_bytes)
               ? small_transpose_way::gather
               : small_transpose_way::element_walk;
}

small_transpose_way choose_small_transpose(const copy_plan &plan, std::size_t element_bytes,
                                           const machine_facts &machine) {
    const int k = source_contiguous_dim(plan);
    if (k < 0 || static_cast<std::size_t>(plan.volume) * element_bytes > small_transpose_bytes)
        return small_transpose_way::tiles;
    const copy_dim &rows = plan.dims[static_cast<std::size_t>(k)], &cols = plan.dims.back();
    const auto e = static_cast<std::ptrdiff_t>(element_bytes);
    const dim_t side = tile_bytes / e;
    const bool block_rows = rows.dst_stride == cols.size && cols.size <= side;
    const bool narrow = rows.size < min_transpose_side || cols.size < min_transpose_side;
    const bool tiles_take = !narrow || (machine.isa == cpu_isa::avx512 && element_bytes >= 2);
    std::size_t plain_tiles =
        static_cast<std::size_t>(((rows.size + side - 1) / side) * ((cols.size + side - 1) / side));
    for (std::size_t d = 0; d + 1 < plan.dims.size(); ++d)
        if (static_cast<int>(d) != k) plain_tiles *= static_cast<std::size_t>(plan.dims[d].size);
    small_transpose_way way = tiles_take ? small_transpose_way::tiles : small_transpose_way::gather;
    std::size_t tiles = plain_tiles;
    if (!(block_rows && tiles_take)) {
        const std::size_t tiny_tiles = tiny_sides_of(plan, e, k).tiles();
        if (tiny_tiles <= max_tiny_tiles && (!tiles_take || 2 * tiny_tiles <= plain_tiles)) {
            way = small_transpose_way::tiny_tiles;
            tiles = tiny_tiles;
        }
    }
    const std::size_t tile_work =
        tiles * (machine.isa == cpu_isa::avx512 ? tile_work_elements_avx512
                                                : tile_work_elements_avx2)[element_size_class(element_bytes)] /
        (way == small_transpose_way::tiles && block_rows ? 2 : 1);
    // Whole plain tiles move every element they shuffle: they keep the move.
    const bool whole_tiles = rows.size % side == 0 && cols.size % side == 0;
    if (way == small_transpose_way::gather ||
        (static_cast<std::size_t>(plan.volume) < tile_work && !(way == small_transpose_way::tiles && whole_tiles))) {
        const small_transpose_way gather = gather_or_walk(plan, element_bytes);
        if (gather == small_transpose_way::gather || way == small_transpose_way::gather) return gather;
    }
    return way;
}

// Short runs of a small move (contiguous on both sides, shorter than
// vector_run_bytes, at least two) are the tiny gather's entries: a run copy
// costs a call per few runs there, several times a table entry.
bool short_runs_gather(const copy_plan &plan, std::size_t element_bytes) {
    const copy_dim &inner = plan.dims.back();
    return plan.dims.size() > 1 && inner.src_stride == 1 && inner.dst_stride == 1 &&
           static_cast<std::size_t>(inner.size) * element_bytes < vector_run_bytes &&
           static_cast<std::size_t>(plan.volume) * element_bytes <= small_transpose_bytes &&
           gather_or_walk(plan, element_bytes) == small_transpose_way::gather;
}

// The tiny gather (tiny_gather_program): every entry's source offset in the
// plan's walk, the destination cut into runs where its offsets stop
// following one another. Entries are the innermost dim's runs where it is
// contiguous on both sides, else elements.
void plan_tiny_gather(movement_program &p, const copy_plan &plan, std::ptrdiff_t e) {
    tiny_gather_program g;
    const copy_dim &inner = plan.dims.back();
    const bool runs = inner.src_stride == 1 && inner.dst_stride == 1;
    g.entry_bytes = runs ? inner.size * e : e;
    g.gather = tiny_gather_for(static_cast<std::size_t>(g.entry_bytes));
    outer_dims entries;
    for (std::size_t d = 0; d + (runs ? 1 : 0) < plan.dims.size(); ++d) entries.add(plan.dims[d], e);
    g.src_offsets.reserve(entries.volume);
    outer_walk walk(entries, 0);
    for (std::size_t i = 0; i < entries.volume; ++i, walk.next()) {
        g.src_offsets.push_back(static_cast<std::int32_t>(walk.src()));
        if (g.runs.empty() || g.runs.back().dst + g.runs.back().count * g.entry_bytes != walk.dst())
            g.runs.push_back({.dst = walk.dst(), .count = 0});
        ++g.runs.back().count;
    }
    p.src_offset = plan.src_offset * e;
    p.dst_offset = plan.dst_offset * e;
    p.detail = std::move(g);
}

// The byte offsets of a side's indices (its dims innermost first, the
// index i0 + size0 * (i1 + size1 * ...)), along the source or the destination.
std::vector<std::ptrdiff_t> side_offsets(const copy_plan &plan, const std::vector<std::size_t> &side, bool source,
                                         std::ptrdiff_t e) {
    std::vector<std::ptrdiff_t> offsets{0};
    for (const std::size_t d : side) {
        const copy_dim &x = plan.dims[d];
        const std::ptrdiff_t stride = (source ? x.src_stride : x.dst_stride) * e;
        std::vector<std::ptrdiff_t> next;
        next.reserve(offsets.size() * static_cast<std::size_t>(x.size));
        for (dim_t i = 0; i < x.size; ++i)
            for (const std::ptrdiff_t o : offsets) next.push_back(o + i * stride);
        offsets.swap(next);
    }
    return offsets;
}

void plan_tiny_transpose(movement_program &p, const copy_plan &plan, std::ptrdiff_t e, const isa_kernels &k) {
    tiny_transpose_program t;
    t.tiles_kernel = k.tiny_tiles[element_size_class(static_cast<std::size_t>(e))];
    t.e = e;
    const tiny_sides s = tiny_sides_of(plan, e, source_contiguous_dim(plan));
    t.dst_row_offsets = side_offsets(plan, s.row_dims, false, e);
    t.src_col_offsets = side_offsets(plan, s.col_dims, true, e);
    // Every outer position (an odometer over the other dims), cut into tiles
    // where one dim alone is longer than a tile's side.
    const outer_dims &outer = s.outer;
    outer_walk walk(outer, 0);
    // A whole tile's runs at one pitch: that pitch (the tile reads or writes
    // them in place), else 0.
    const auto pitch_of = [&](const std::vector<std::ptrdiff_t> &offsets, dim_t start, dim_t count) {
        if (count != s.side_max) return std::ptrdiff_t{0};
        const auto at = [&](dim_t i) { return offsets[static_cast<std::size_t>(start + i)]; };
        const std::ptrdiff_t pitch = at(1) - at(0);
        for (dim_t i = 2; i < count; ++i)
            if (at(i) - at(i - 1) != pitch) return std::ptrdiff_t{0};
        return pitch;
    };
    for (std::size_t position = 0; position < outer.volume; ++position, walk.next()) {
        const std::ptrdiff_t src = walk.src(), dst = walk.dst();
        for (dim_t r = 0; r < s.row_run; r += s.side_max)
            for (dim_t c = 0; c < s.col_run; c += s.side_max) {
                const dim_t rows = std::min(s.side_max, s.row_run - r), cols = std::min(s.side_max, s.col_run - c);
                const bool whole = rows == s.side_max && cols == s.side_max;
                t.tiles.push_back({.src = src + r * e,
                                   .dst = dst + c * e,
                                   .row_start = static_cast<int>(r),
                                   .rows = static_cast<int>(rows),
                                   .col_start = static_cast<int>(c),
                                   .cols = static_cast<int>(cols),
                                   .src_pitch = whole ? pitch_of(t.src_col_offsets, c, cols) : 0,
                                   .dst_pitch = whole ? pitch_of(t.dst_row_offsets, r, rows) : 0});
            }
    }
    p.src_offset = plan.src_offset * e;
    p.dst_offset = plan.dst_offset * e;
    p.detail = std::move(t);
}

void plan_transpose(movement_program &p, const copy_plan &plan, std::ptrdiff_t e, const isa_kernels &k,
                    const machine_facts &machine) {
    transpose_program t;
    const auto k_dim = static_cast<std::size_t>(source_contiguous_dim(plan));
    const copy_dim &row_dim = plan.dims[k_dim], &col_dim = plan.dims.back();
    const std::size_t size_class = element_size_class(static_cast<std::size_t>(e));
    const std::size_t total = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e);
    p.stream = total >= machine.transpose_streaming_bytes;
    // Streamed walks keep short runs per destination row; moves the caches
    // hold take longer ones (row_reach).
    if (p.stream) t.reach = streamed_row_reach(row_dim.dst_stride * e);
    else t.reach = total >= machine.last_level_walk_bytes ? in_last_level : in_cache;
    t.walk = k.walk[t.reach][size_class];
    // Sources whose rows lie far apart, where the level walks them
    // differently (tile_walk::far_source_block_kib, far_source_row_bytes),
    // and where there are wide steps to replace: fewer columns than one
    // (NHWC as NCHW at 7 x 7) go tile by tile already, and the far-source
    // walk's taller strips only staged more destination rows at a time.
    const bool wide_steps = col_dim.size >= t.walk.wide * (tile_bytes / e);
    if (p.stream && t.walk.far_source_block_kib > 0 && col_dim.src_stride * e >= t.walk.far_source_row_bytes &&
        wide_steps)
        t.walk = tile_walk{.wide = 1, .strip_tiles = 0, .block_kib = t.walk.far_source_block_kib};
    // Streamed transposes of exactly one tile's rows (ABcd16a16b, nChw16c)
    // walk tile by tile where the level measured that faster.
    if (p.stream && row_dim.size == tile_bytes / e && k.one_tile_rows_tile_by_tile) t.walk = tile_walk{1, 1};
    t.tile = k.tile[size_class];
    if (t.walk.wide > 1) {
        t.wide = k.wide_tile[t.reach][size_class];
        t.half_wide = k.half_wide_tile[t.reach][size_class];
    }
    t.partial = k.tile_partial[size_class];
    t.copy = k.copy;
    t.e = e;
    t.t = tile_bytes / e;
    t.rows = row_dim.size;
    t.cols = col_dim.size;
    t.src_pitch = col_dim.src_stride * e;
    t.dst_pitch = row_dim.dst_stride * e;
    t.outer = outer_of(plan, k_dim, e);
    // Strips as the level walks: a fixed number of tiles, or the rows whose
    // column block fits block_kib (at least a tile, at most every row).
    t.strip_rows = t.walk.strip_tiles * t.t;
    if (t.walk.strip_tiles == 0) {
        const dim_t fit = (dim_t{t.walk.block_kib} << 10) / (t.walk.wide * t.t * e);
        t.strip_rows = std::min(std::max(t.t, fit / t.t * t.t), (t.rows + t.t - 1) / t.t * t.t);
    }
    // A blocked format's inner block (nchw into nChw16c): destination rows
    // of at most a line with nothing between them, one run per outer
    // position, written by tall strips through the level's block-row
    // kernel where it has one for that width.
    const bool block_rows = t.dst_pitch == t.cols * e && t.cols <= t.t;
    if (block_rows) {
        const int kind = block_row_kind(static_cast<std::size_t>(t.dst_pitch));
        if (kind >= 0) t.block_rows = k.block_rows[kind][size_class];
        t.strip_rows = std::max<dim_t>(1, block_strip_bytes / t.dst_pitch / t.t) * t.t;
    }
    t.row_tiles = (t.rows + t.strip_rows - 1) / t.strip_rows;
    const dim_t col_tiles = (t.cols + t.t - 1) / t.t;
    // Strips are cut along the columns only when too few to share.
    const std::size_t strips = t.outer.volume * static_cast<std::size_t>(t.row_tiles);
    const std::size_t wanted = total < parallel_threshold_bytes ? 1 : 8 * static_cast<std::size_t>(machine.threads);
    // A piece keeps at least one wide step: pieces narrower than one lose
    // the walk's wide tiles to single ones (docs/performance.md).
    const dim_t col_steps = std::max<dim_t>(1, col_tiles / t.walk.wide);
    t.pieces = strips >= wanted ? 1
                                : std::min<dim_t>(col_steps, static_cast<dim_t>((wanted + strips - 1) / strips));
    t.piece_cols = (col_tiles + t.pieces - 1) / t.pieces * t.t;
    p.src_offset = plan.src_offset * e;
    p.dst_offset = plan.dst_offset * e;
    p.split = split_units(strips * static_cast<std::size_t>(t.pieces),
                          static_cast<std::size_t>(t.piece_cols * t.strip_rows * e), machine);
    // One strip of whole tiles, in the caches, with no wide step (a 4 KiB
    // [32,32] f32 transpose): the same tile calls in one, where the level
    // has the kernel.
    const bool one_strip = p.split.units == 1 && !p.split.parallel && t.outer.volume == 1 && t.strip_rows >= t.rows &&
                           t.piece_cols >= t.cols;
    const bool tiles_only = t.rows % t.t == 0 && t.cols % t.t == 0 && !t.block_rows &&
                            (!t.wide || t.cols < t.walk.wide * t.t);
    if (!p.stream && one_strip && tiles_only) t.whole = k.whole_tiles[size_class];
    p.detail = std::move(t);
}

// A one-unit transpose of at most small_transpose_bytes of 4-byte elements
// whose sides are multiples of 8 (rows and columns only), where the level
// has whole_blocks_4: the transpose's program with that kernel as its whole
// call where plan_transpose takes no whole tiles, whatever way
// choose_small_transpose would take (the tiny gather for [128,8], wide
// tiles for [64,16]; docs/performance.md). False, p untouched, where it
// does not apply.
bool plan_whole_blocks(movement_program &p, const copy_plan &plan, std::ptrdiff_t e, const isa_kernels &k,
                       const machine_facts &machine) {
    if (e != 4 || !k.whole_blocks_4 || plan.dims.size() != 2 || source_contiguous_dim(plan) != 0 ||
        static_cast<std::size_t>(plan.volume) * 4 > small_transpose_bytes)
        return false;
    const copy_dim &rows = plan.dims[0], &cols = plan.dims[1];
    if (rows.size % 8 != 0 || cols.size % 8 != 0 || rows.dst_stride <= 0 || cols.src_stride <= 0 ||
        !whole_8x8_blocks_take(cols.src_stride * e, rows.dst_stride * e))
        return false;
    movement_program q = p;
    plan_transpose(q, plan, e, k, machine);
    if (q.stream || q.split.units != 1 || q.split.parallel) return false;
    // Whole tiles where plan_transpose took them ([32,32]: as fast, and
    // fewer instructions, its 4 blocks a tile unrolled).
    transpose_program &t = std::get<transpose_program>(q.detail);
    if (!t.whole) t.whole = k.whole_blocks_4;
    p = std::move(q);
    return true;
}

void plan_row_groups(movement_program &p, const copy_plan &plan, std::ptrdiff_t e, const isa_kernels &k,
                     const machine_facts &machine) {
    row_groups_program g;
    const std::size_t inner = plan.dims.size() - 1, k_dim = static_cast<std::size_t>(source_contiguous_dim(plan));
    g.split = p.path == fast_path::split_rows;
    // The R rows' dim, and the dim along them (the columns).
    const copy_dim &rows = plan.dims[g.split ? k_dim : inner], &cols = plan.dims[g.split ? inner : k_dim];
    const auto &table = g.split ? k.split_rows : k.join_rows;
    const auto size_class = element_size_class(static_cast<std::size_t>(e));
    g.inner_rows = composed_inner_rows(rows.size, static_cast<std::size_t>(e), !g.split);
    if (g.inner_rows == 0) {
        g.outer_kernel = table[rows.size][size_class];
    } else {
        g.outer_rows = rows.size / g.inner_rows;
        g.outer_kernel = table[g.outer_rows][element_size_class(static_cast<std::size_t>(g.inner_rows * e))];
        g.inner_kernel = table[g.inner_rows][size_class];
    }
    g.copy = k.copy;
    g.e = e;
    g.outer = outer_of(plan, k_dim, e);
    g.pitch = (g.split ? rows.dst_stride : rows.src_stride) * e;
    g.src_step = cols.src_stride * e;
    g.dst_step = cols.dst_stride * e;
    g.group_bytes = rows.size * e;
    g.cols = cols.size;
    g.piece_cols = std::max<dim_t>(1, static_cast<dim_t>(parallel_task_bytes) / g.group_bytes);
    g.pieces = (g.cols + g.piece_cols - 1) / g.piece_cols;
    // Joined rows write one run per piece: streamed through L1 when large.
    // Split rows write R runs, which lost that way.
    const std::size_t total = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e);
    p.stream = !g.split && total >= machine.transpose_streaming_bytes;
    g.stream_cols = std::max<dim_t>(1, joined_rows_stage_bytes / g.group_bytes);
    p.src_offset = plan.src_offset * e;
    p.dst_offset = plan.dst_offset * e;
    p.split = split_units(g.outer.volume * static_cast<std::size_t>(g.pieces),
                          static_cast<std::size_t>(g.piece_cols * g.group_bytes), machine);
    p.detail = std::move(g);
}

void plan_packed_transpose(movement_program &p, const copy_plan &plan, int bits, const isa_kernels &k,
                           const machine_facts &machine) {
    packed_transpose_program t;
    const auto per_byte = static_cast<dim_t>(elements_per_byte(static_cast<std::size_t>(bits)));
    const std::size_t inner = plan.dims.size() - 1, k_dim = static_cast<std::size_t>(source_contiguous_dim(plan));
    const copy_dim &row_dim = plan.dims[k_dim], &col_dim = plan.dims[inner];
    t.bits = bits;
    t.kernels = &k;
    // Byte strides: every stride but the two unit ones is a multiple of
    // per_byte (checked by choose_packed_fast_path), so dividing is exact.
    for (std::size_t d = 0; d < inner; ++d)
        if (d != k_dim)
            t.outer.add(copy_dim{plan.dims[d].size, plan.dims[d].src_stride / per_byte,
                                 plan.dims[d].dst_stride / per_byte},
                        1);
    t.src_pitch = col_dim.src_stride / per_byte;
    t.dst_pitch = row_dim.dst_stride / per_byte;
    t.rows = row_dim.size;
    t.cols = col_dim.size;
    // A strip: the elements of 64 source bytes per source row, 128 for
    // 4-bit (two byte tiles high).
    t.strip_rows = per_byte * tile_bytes * (bits == 4 ? 2 : 1);
    t.row_tiles = (t.rows + t.strip_rows - 1) / t.strip_rows;
    const std::size_t strips = t.outer.volume * static_cast<std::size_t>(t.row_tiles);
    const auto strip_bytes = static_cast<std::size_t>(t.strip_rows * t.cols / per_byte);
    p.src_offset = plan.src_offset / per_byte;
    p.dst_offset = plan.dst_offset / per_byte;
    // 2-bit tiles keep ordinary stores (streamed they ran slower).
    p.stream = bits == 4 && strips * strip_bytes >= machine.transpose_streaming_bytes;
    p.split = split_units(strips, strip_bytes, machine);
    p.detail = std::move(t);
}

void plan_element_walk(movement_program &p, const copy_plan &plan, std::size_t bits, bool strings) {
    const element_walk_kind kind = element_walk_kind_of(bits, strings);
    element_walk_program w;
    w.walk = kind.walk;
    w.per_byte = kind.per_byte;
    const bool packed = kind.per_byte > 1;
    // Transpose-like walks go tile by tile. For packed types only when the
    // tiles' rows own their bytes: a tiled walk does not increase along the
    // destination, so it could not be cut into tasks otherwise.
    std::vector<copy_plan> parts;
    if (plan.volume > kind.grain) {
        parts = tiled_parts(plan, kind.tile);
        if (!parts.empty() && packed && !rows_own_their_bytes(parts.front(), kind.per_byte)) parts.clear();
    }
    if (parts.empty()) parts.push_back(plan);
    for (copy_plan &part : parts) {
        element_walk_part piece;
        // Packed destinations: tasks must not share a byte. Whole-byte rows
        // allow a cut at any multiple of per_byte; an increasing walk
        // allows byte-safe cuts; any other walk stays on one task.
        const bool even_cuts = packed && rows_own_their_bytes(part, kind.per_byte);
        piece.byte_safe_cuts = packed && !even_cuts && part.dst_increasing;
        const bool one_task = part.volume <= kind.grain || (packed && !even_cuts && !piece.byte_safe_cuts);
        if (!one_task) {
            // Tasks of whole rows when rows are short; multiples of per_byte
            // for packed types, as grain and (with even cuts) rows are.
            const dim_t row = part.dims.back().size;
            piece.chunk = row < kind.grain ? kind.grain / row * row : kind.grain;
        }
        piece.plan = std::move(part);
        w.parts.push_back(std::move(piece));
    }
    p.detail = std::move(w);
}

std::string bytes_text(std::size_t bytes) {
    if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (std::size_t{1} << 10) && bytes % (std::size_t{1} << 10) == 0)
        return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}

std::string threads_text(const movement_program &p) {
    if (!p.split.parallel) return "one thread";
    return std::to_string(p.split.units) + " units of " + bytes_text(p.split.unit_bytes) + " over threads, " +
           std::to_string(p.split.grain) + " a task";
}

} // namespace

void outer_dims::add(const copy_dim &d, std::ptrdiff_t element_bytes) {
    sizes.push_back(d.size);
    src.push_back(d.src_stride * element_bytes);
    dst.push_back(d.dst_stride * element_bytes);
    volume *= static_cast<std::size_t>(d.size);
}

std::string_view to_string(fast_path p) {
    switch (p) {
    case fast_path::none: return "element walk";
    case fast_path::run_copy: return "run copy";
    case fast_path::transpose: return "tiled transpose";
    case fast_path::split_rows: return "split rows";
    case fast_path::join_rows: return "joined rows";
    case fast_path::packed_transpose: return "tiled packed transpose";
    case fast_path::grouped_transpose: return "grouped transpose";
    case fast_path::window_transpose: return "window transpose";
    case fast_path::blocked_transpose: return "blocked transpose";
    }
    return "element walk";
}

machine_facts current_machine() {
    machine_facts m;
    m.isa = active_cpu_isa();
    m.threads = oneapi::tbb::this_task_arena::max_concurrency();
    m.copy_streaming_bytes = streaming_threshold_bytes();
    m.transpose_streaming_bytes = transpose_streaming_threshold_bytes();
    m.last_level_walk_bytes = last_level_walk_threshold_bytes();
    return m;
}

fast_path choose_fast_path(const copy_plan &plan, std::size_t element_bytes) {
    if (!has_element_size_class(element_bytes) || plan.volume == 0) return fast_path::none;
    const copy_dim &inner = plan.dims.back();
    if (inner.dst_stride != 1) return fast_path::none;
    if (inner.src_stride == 1)
        return !vector_runs_in_long_calls(plan, element_bytes) &&
                       grouped_transpose_pays(plan, element_bytes, inner.size, inner.size)
                   ? fast_path::grouped_transpose
                   : fast_path::run_copy;
    const int k = source_contiguous_dim(plan);
    if (k < 0) return fast_path::none;
    const copy_dim &rows = plan.dims[static_cast<std::size_t>(k)];
    if (has_row_groups(rows.size, element_bytes) && inner.src_stride == rows.size &&
        inner.size >= min_split_columns)
        return fast_path::split_rows;
    // Groups of 16, 32 or 64 bytes that the transpose takes keep it: its
    // block rows write them a register block at a time.
    const std::size_t group_bytes = static_cast<std::size_t>(inner.size) * element_bytes;
    const bool block_rows = inner.size >= min_transpose_side && block_row_kind(group_bytes) >= 0;
    if (has_row_groups(inner.size, element_bytes, true) && rows.dst_stride == inner.size &&
        rows.size >= min_split_columns && !block_rows)
        return fast_path::join_rows;
    if (grouped_transpose_pays(plan, element_bytes, rows.size, inner.size)) return fast_path::grouped_transpose;
    // Runs under a line that continue into further dims (window partitions
    // and merges): tiles whose short side spans those dims.
    // Not below a page (its tables cost more there), and not a blocked
    // format's inner block (destination rows back to back: the tiled
    // transpose's block rows write those).
    const bool tiny = static_cast<std::size_t>(plan.volume) * element_bytes < min_window_bytes;
    const bool block_rows_kind = rows.dst_stride == inner.size && group_bytes <= tile_bytes;
    if (!tiny && !block_rows_kind &&
        std::min(rows.size, inner.size) >= 2 && choose_window_span(plan, element_bytes, k))
        return fast_path::window_transpose;
    // Small ones take the tiles whatever their sides (choose_small_transpose).
    if ((rows.size < min_transpose_side || inner.size < min_transpose_side) &&
        static_cast<std::size_t>(plan.volume) * element_bytes > small_transpose_bytes)
        return fast_path::none;
    return fast_path::transpose;
}

fast_path choose_packed_fast_path(const copy_plan &plan, std::size_t bits) {
    if ((bits != 2 && bits != 4) || plan.volume == 0) return fast_path::none;
    const auto per_byte = static_cast<dim_t>(elements_per_byte(bits));
    if (whole_byte_plan(plan, per_byte)) return fast_path::run_copy;
    const copy_dim &inner = plan.dims.back();
    const int k = source_contiguous_dim(plan);
    if (inner.dst_stride != 1 || k < 0 || plan.dims[static_cast<std::size_t>(k)].size < min_transpose_side ||
        inner.size < min_transpose_side)
        return fast_path::none;
    // Every row of both tensors starts on a byte and holds whole bytes.
    if (plan.src_offset % per_byte != 0 || plan.dst_offset % per_byte != 0 ||
        plan.dims[static_cast<std::size_t>(k)].size % per_byte != 0 || inner.size % per_byte != 0)
        return fast_path::none;
    for (std::size_t d = 0; d < plan.dims.size(); ++d) {
        if (static_cast<int>(d) != k && plan.dims[d].src_stride % per_byte != 0) return fast_path::none;
        if (d + 1 != plan.dims.size() && plan.dims[d].dst_stride % per_byte != 0) return fast_path::none;
    }
    return fast_path::packed_transpose;
}

namespace {

movement_program plan_elements(const copy_plan &plan, std::size_t bits, bool strings, const machine_facts &machine) {
    movement_program p;
    p.element_bits = strings ? 0 : bits;
    p.isa = machine.isa;
    const isa_kernels &k = kernels_for(machine.isa);
    if (!strings && bits < 8) {
        p.path = choose_packed_fast_path(plan, bits);
        if (p.path == fast_path::run_copy)
            plan_run_copy(p, *whole_byte_plan(plan, static_cast<dim_t>(elements_per_byte(bits))), 1, k, machine);
        else if (p.path == fast_path::packed_transpose)
            plan_packed_transpose(p, plan, static_cast<int>(bits), k, machine);
    } else if (!strings && bits % 8 == 0) {
        p.path = choose_fast_path(plan, bits / 8);
        const small_transpose_way small =
            p.path == fast_path::transpose ? choose_small_transpose(plan, bits / 8, machine) : small_transpose_way::tiles;
        const auto e = static_cast<std::ptrdiff_t>(bits / 8);
        switch (p.path) {
        case fast_path::run_copy:
            if (short_runs_gather(plan, bits / 8))
                plan_tiny_gather(p, plan, e);
            else
                plan_run_copy(p, plan, e, k, machine);
            break;
        case fast_path::transpose: {
            if (plan_whole_blocks(p, plan, e, k, machine)) break;
            if (small == small_transpose_way::element_walk) {
                p.path = fast_path::none;
                break;
            }
            if (small == small_transpose_way::tiny_tiles) {
                plan_tiny_transpose(p, plan, e, k);
                break;
            }
            if (small == small_transpose_way::gather) {
                plan_tiny_gather(p, plan, e);
                break;
            }
            // Streamed blocked inner blocks whose tiled walk jumps through
            // the source walk in its order instead (blocked_transpose.hpp).
            const std::size_t total = static_cast<std::size_t>(plan.volume) * (bits / 8);
            if (total >= machine.transpose_streaming_bytes)
                if (auto b = plan_blocked_transpose(plan, bits / 8, k)) {
                    p.path = fast_path::blocked_transpose;
                    p.stream = true;
                    p.src_offset = plan.src_offset * e;
                    p.dst_offset = plan.dst_offset * e;
                    const auto steps = static_cast<std::size_t>((b->col_tiles + b->step_tiles - 1) / b->step_tiles);
                    p.split = split_units(b->outer.volume * steps,
                                          static_cast<std::size_t>(b->step_tiles * b->t * b->row_tiles * b->t) *
                                              b->inner.volume * (bits / 8),
                                          machine);
                    p.detail = std::move(*b);
                    break;
                }
            plan_transpose(p, plan, e, k, machine);
            break;
        }
        case fast_path::split_rows:
        case fast_path::join_rows: plan_row_groups(p, plan, e, k, machine); break;
        case fast_path::grouped_transpose: {
            // The grouped transpose's own plan, made here once; its streaming
            // follows the machine's transpose threshold like the tiles'.
            grouped_transpose_plan g =
                *plan_grouped_transpose(plan, bits / 8, machine.isa, machine.transpose_streaming_bytes);
            p.stream = g.stream;
            p.detail = std::move(g);
            break;
        }
        case fast_path::window_transpose: {
            const int rows = source_contiguous_dim(plan);
            window_transpose_program w =
                plan_window_transpose(plan, bits / 8, rows, *choose_window_span(plan, bits / 8, rows), k);
            const std::size_t total = static_cast<std::size_t>(plan.volume) * (bits / 8);
            p.stream = total >= machine.transpose_streaming_bytes;
            p.src_offset = plan.src_offset * e;
            p.dst_offset = plan.dst_offset * e;
            p.split = split_units(w.outer.volume * static_cast<std::size_t>(w.blocks),
                                  static_cast<std::size_t>(w.span * w.block * e), machine);
            p.detail = std::move(w);
            break;
        }
        case fast_path::packed_transpose:
        case fast_path::blocked_transpose: // chosen within the transpose's branch
        case fast_path::none: break;
        }
    }
    if (p.path == fast_path::none) plan_element_walk(p, plan, bits, strings);
    return p;
}

} // namespace

movement_program plan_movement(const copy_plan &plan, std::size_t element_bits, const machine_facts &machine) {
    return plan_elements(plan, element_bits, false, machine);
}

std::size_t movable_element_bits(data_type type) {
    const std::size_t bits = element_bits(type);
    if (bits == 0)
        fail(rule::input_dtype_known,
                    "strided copy needs a defined dtype, got " + std::string(to_string(type)));
    return bits;
}

movement_program plan_movement(const copy_plan &plan, data_type type, const machine_facts &machine) {
    return plan_elements(plan, movable_element_bits(type), type == data_type::string, machine);
}

std::string describe(const movement_program &p) {
    std::string text(to_string(p.path));
    const std::string stores = p.stream ? "streaming stores" : "ordinary stores";
    if (const auto *r = std::get_if<run_copy_program>(&p.detail)) {
        text += ": runs of " + bytes_text(r->run_bytes);
        if (r->grid)
            text += ", " + std::to_string(r->per_unit) + " x " + std::to_string(r->across_count) + " a call " +
                    (r->order == short_run_order::destination ? "in the destination's order, across the source's"
                                                              : "in the source's order, across the destination's") +
                    " (a grid, in cache)";
        else if (r->short_runs)
            text += ", " + std::to_string(r->per_unit) + " a call " +
                    (r->order == short_run_order::destination ? "in the destination's order (more runs a call, in cache)"
                     : r->order == short_run_order::source_but_longer_along ? "along a longer dim than the source's"
                                                                           : "in the source's order");
        else if (r->pieces > 1) text += " in " + std::to_string(r->pieces) + " pieces";
    } else if (const auto *t = std::get_if<transpose_program>(&p.detail);
               t && t->whole && t->whole == kernels_for(p.isa).whole_blocks_4) {
        text += ": 8x8 register blocks of 4-byte elements, one call";
    } else if (const auto *t = std::get_if<transpose_program>(&p.detail)) {
        text += ": " + std::to_string(t->t) + "x" + std::to_string(t->t) + " tiles of " + std::to_string(t->e) + "-byte elements";
        if (t->block_rows) text += ", block rows of " + bytes_text(static_cast<std::size_t>(t->dst_pitch));
        else if (t->walk.wide > 1 && t->wide) text += ", " + std::to_string(t->walk.wide) + " side by side";
        if (t->walk.strip_tiles == 0 && !t->block_rows) text += " in " + std::to_string(t->walk.block_kib) + " KiB column blocks";
        if (t->walk.prefetch_ahead) text += " with prefetch";
        text += ", strips of " + std::to_string(t->strip_rows) + " rows";
        if (t->pieces > 1) text += " in " + std::to_string(t->pieces) + " pieces";
    } else if (const auto *g = std::get_if<row_groups_program>(&p.detail)) {
        text += ": groups of " + bytes_text(static_cast<std::size_t>(g->group_bytes));
        if (g->inner_kernel) text += " (" + std::to_string(g->outer_rows) + " x " + std::to_string(g->inner_rows) + " rows composed)";
    } else if (const auto *q = std::get_if<packed_transpose_program>(&p.detail)) {
        text += ": " + std::to_string(q->bits) + "-bit elements, 64x64-byte tiles, strips of " +
                std::to_string(q->strip_rows) + " rows";
    } else if (const auto *g = std::get_if<grouped_transpose_plan>(&p.detail)) {
        // Its tiles share threads by themselves (run_grouped_transpose).
        text += ": tiles of " + std::to_string(g->tile) + " elements, runs of " + std::to_string(g->source_run) +
                " from the source and " + std::to_string(g->destination_run) + " to the destination" +
                (g->micro_lanes > 0 ? ", " + std::to_string(g->micro_lanes) + "x" + std::to_string(g->micro_lanes) +
                                          " register blocks"
                                    : std::string(", table gathers"));
        return text + ", " + std::string(to_string(p.isa)) + ", " + std::to_string(g->outer.volume) + " tiles, " + stores;
    } else if (const auto *w = std::get_if<window_transpose_program>(&p.detail)) {
        const std::string side = w->merge ? "destination" : "source";
        text += std::string(w->merge ? " (merge)" : " (partition)") + ": " + std::to_string(w->t) + "x" +
                std::to_string(w->t) + " tiles of " + std::to_string(w->e) + "-byte elements whose " + side +
                " runs span " + std::to_string(w->span_dims) + " dims, " + std::to_string(w->span) +
                " elements (" + std::to_string(w->short_run) + " in the innermost alone), " +
                std::to_string(w->block) + " " + (w->merge ? "channels" : "columns") + " staged at a time";
    } else if (const auto *b = std::get_if<blocked_transpose_program>(&p.detail)) {
        text += ": " + std::to_string(b->t) + "x" + std::to_string(b->t) + " tiles of " + std::to_string(b->e) +
                "-byte elements in the source's order, " + std::to_string(b->inner.volume) +
                " inner positions a column, " + std::to_string(b->step_tiles) + " of " +
                std::to_string(b->col_tiles) + " column tiles a unit" +
                (b->tile_src_bytes > 0 ? ", next unit prefetched" : "");
    } else if (const auto *y = std::get_if<tiny_transpose_program>(&p.detail)) {
        return text + ": " + std::to_string(y->tiles.size()) + (y->tiles.size() == 1 ? " tile of " : " tiles of ") +
               std::to_string(y->e) +
               "-byte elements through L1 (a tiny move: sides of " + std::to_string(y->dst_row_offsets.size()) +
               " rows and " + std::to_string(y->src_col_offsets.size()) + " columns), " + std::string(to_string(p.isa)) +
               ", one thread";
    } else if (const auto *g = std::get_if<tiny_gather_program>(&p.detail)) {
        // Not under the path's name: whichever path the move was, a gather
        // moves it, with no tiles.
        return "a tiny gather of " + std::to_string(g->src_offsets.size()) + " entries of " +
               bytes_text(static_cast<std::size_t>(g->entry_bytes)) + " through a table of source offsets (" +
               std::to_string(g->runs.size()) +
               (g->runs.size() == 1 ? " destination run), one thread" : " destination runs), one thread");
    } else if (const auto *w = std::get_if<element_walk_program>(&p.detail)) {
        const std::size_t parts = w->parts.size();
        const bool parallel = std::any_of(w->parts.begin(), w->parts.end(),
                                          [](const element_walk_part &x) { return x.chunk > 0; });
        text += parts > 1 ? ": " + std::to_string(parts) + " tiled parts" : std::string();
        return text + (parallel ? ", chunks over threads" : ", one thread");
    }
    return text + ", " + std::string(to_string(p.isa)) + ", " + threads_text(p) + ", " + stores;
}

} // namespace reshaper::impl
