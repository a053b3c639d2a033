#include "kernels/movement_engine.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "core/data_type.hpp"
#include "kernels/grouped_transpose.hpp"
#include "kernels/isa_kernels.hpp"

namespace reshaper::impl {
namespace {

using byte = std::uint8_t;

int log2_of(std::size_t element_bytes) {
    switch (element_bytes) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    }
    return -1;
}

// Runs body(begin, end) over [0, units) on the calling thread when the
// move is small, else over oneTBB tasks of at least parallel_task_bytes each. A
// task that streamed fences before it ends, so its stores are visible
// once parallel_for returns.
template <typename Body>
void for_units(std::size_t units, std::size_t unit_bytes, bool stream, const Body &body) {
    const std::size_t total = units * unit_bytes;
    auto fenced = [&](std::size_t begin, std::size_t end) {
        body(begin, end);
        if (stream) store_fence();
    };
    if (total < parallel_threshold_bytes || units == 1 ||
        oneapi::tbb::this_task_arena::max_concurrency() == 1) {
        fenced(0, units);
        return;
    }
    const std::size_t grain = std::max<std::size_t>(1, parallel_task_bytes / std::max<std::size_t>(1, unit_bytes));
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, units, grain),
                              [&](const oneapi::tbb::blocked_range<std::size_t> &r) {
                                  fenced(r.begin(), r.end());
                              });
}

// The dims outside the two a fast path loops over, with byte strides, and
// a walk over their positions in row-major order: one division per task to
// start, then an odometer (a division per run would cost more than a short
// run's copy).
struct outer_dims {
    std::vector<dim_t> sizes;
    std::vector<std::ptrdiff_t> src, dst;
    std::size_t volume = 1;

    void add(const copy_dim &d, std::ptrdiff_t e) {
        sizes.push_back(d.size);
        src.push_back(d.src_stride * e);
        dst.push_back(d.dst_stride * e);
        volume *= static_cast<std::size_t>(d.size);
    }
};

class outer_walk {
public:
    outer_walk(const outer_dims &dims, std::size_t position) : dims_(dims), index_(dims.sizes.size()) {
        for (std::size_t k = dims.sizes.size(); k-- > 0;) {
            const auto size = static_cast<std::size_t>(dims.sizes[k]);
            index_[k] = static_cast<dim_t>(position % size);
            position /= size;
            src_ += index_[k] * dims.src[k];
            dst_ += index_[k] * dims.dst[k];
        }
    }
    std::ptrdiff_t src() const { return src_; }
    std::ptrdiff_t dst() const { return dst_; }
    void next() {
        for (std::size_t k = index_.size(); k-- > 0;) {
            src_ += dims_.src[k];
            dst_ += dims_.dst[k];
            if (++index_[k] < dims_.sizes[k]) return;
            src_ -= dims_.sizes[k] * dims_.src[k];
            dst_ -= dims_.sizes[k] * dims_.dst[k];
            index_[k] = 0;
        }
    }

private:
    const outer_dims &dims_;
    std::vector<dim_t> index_;
    std::ptrdiff_t src_ = 0, dst_ = 0;
};

// ---- run copy ------------------------------------------------------------

constexpr std::size_t short_run_bytes = 4096;

void move_runs(const copy_plan &plan, std::ptrdiff_t e, const byte *src, byte *dst,
               const isa_kernels &k) {
    const copy_dim &run = plan.dims.back();
    const std::size_t run_bytes = static_cast<std::size_t>(run.size) * static_cast<std::size_t>(e);
    // Short runs are visited in the source's order: the reads then stream
    // through whole pages while each destination run still gets whole
    // lines (measured on the attention case: 128-byte runs, 0.3x memcpy in
    // the destination's order; see docs/performance.md).
    std::vector<copy_dim> outer_order(plan.dims.begin(), plan.dims.end() - 1);
    if (run_bytes < short_run_bytes)
        std::stable_sort(outer_order.begin(), outer_order.end(),
                         [](const copy_dim &a, const copy_dim &b) { return a.src_stride > b.src_stride; });
    src += plan.src_offset * e;
    dst += plan.dst_offset * e;
    const bool stream = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e) >=
                        streaming_threshold_bytes();
    if (run_bytes < short_run_bytes && !outer_order.empty()) {
        // Units: up to a task's worth of runs along the innermost outer dim,
        // copied by one call.
        const copy_dim along = outer_order.back();
        outer_order.pop_back();
        outer_dims outer;
        for (const copy_dim &d : outer_order) outer.add(d, e);
        const auto count = static_cast<std::size_t>(along.size);
        const std::size_t per_unit = std::min(count, std::max<std::size_t>(1, parallel_task_bytes / run_bytes));
        const std::size_t units_per_row = (count + per_unit - 1) / per_unit;
        for_units(outer.volume * units_per_row, per_unit * run_bytes, stream,
                  [&](std::size_t begin, std::size_t end) {
                      outer_walk walk(outer, begin / units_per_row);
                      for (std::size_t u = begin; u < end; ++u) {
                          const std::size_t first = (u % units_per_row) * per_unit;
                          k.copy_runs(dst + walk.dst() + static_cast<std::ptrdiff_t>(first) * along.dst_stride * e,
                                      along.dst_stride * e,
                                      src + walk.src() + static_cast<std::ptrdiff_t>(first) * along.src_stride * e,
                                      along.src_stride * e, run_bytes, std::min(per_unit, count - first), stream);
                          if (u % units_per_row == units_per_row - 1) walk.next();
                      }
                  });
        return;
    }
    outer_dims outer;
    for (const copy_dim &d : outer_order) outer.add(d, e);
    // Long runs are cut into pieces so that even one run keeps every core busy.
    const std::size_t piece = std::min<std::size_t>(run_bytes, std::size_t{1} << 20);
    const std::size_t pieces = (run_bytes + piece - 1) / piece;
    for_units(outer.volume * pieces, piece, stream, [&](std::size_t begin, std::size_t end) {
        outer_walk walk(outer, begin / pieces);
        for (std::size_t u = begin; u < end; ++u) {
            const std::size_t from = (u % pieces) * piece;
            k.copy(dst + walk.dst() + from, src + walk.src() + from, std::min(piece, run_bytes - from), stream);
            if (u % pieces == pieces - 1) walk.next();
        }
    });
}

// ---- transpose -----------------------------------------------------------

struct transpose_shape {
    const isa_kernels *k;
    tile_transpose_fn tile;
    wide_tile_fn wide;         // w tiles side by side, or null (single tiles only)
    bool prefetch_ahead;       // each wide step prefetches the next (tile_walk)
    tile_transpose_fn half_wide; // w half tiles side by side, or null
    int w;                     // tiles in a wide tile
    tile_partial_fn partial;   // null: partial tiles go through buffers
    std::ptrdiff_t e;          // element bytes
    dim_t t;                   // tile side in elements
    dim_t rows, cols;          // the destination's contiguous dim ("cols": inner) and the
                               // source's ("rows": destination rows)
    std::ptrdiff_t src_pitch;  // bytes between source rows: one step of the inner dim
    std::ptrdiff_t dst_pitch;  // bytes between destination rows: one step of the row dim
};

// A tile cut short by the tensor's edge (cols x rows elements, each at most
// t): through two 64 x 64-byte buffers, so every SIMD level handles it
// with its whole-tile transpose. Only the valid part is read and written.
// `dst_pitch`: bytes between its destination rows.
void partial_tile(const transpose_shape &sh, const byte *src, byte *dst, std::ptrdiff_t dst_pitch, dim_t cols,
                  dim_t rows, bool stream) {
    if (sh.partial) return sh.partial(src, sh.src_pitch, dst, dst_pitch, static_cast<int>(cols),
                                      static_cast<int>(rows), stream);
    alignas(64) byte in[tile_bytes * tile_bytes];
    alignas(64) byte out[tile_bytes * tile_bytes];
    const auto row_bytes = static_cast<std::size_t>(rows * sh.e);
    for (dim_t c = 0; c < cols; ++c) std::memcpy(in + c * tile_bytes, src + c * sh.src_pitch, row_bytes);
    sh.tile(in, tile_bytes, out, tile_bytes, false);
    const auto col_bytes = static_cast<std::size_t>(cols * sh.e);
    for (dim_t r = 0; r < rows; ++r)
        sh.k->copy(dst + r * dst_pitch, out + r * tile_bytes, col_bytes, stream);
}

// The most a strip whose rows lie back to back stages whole (line_staging
// otherwise): within a core's L2 beside the source block it reads.
constexpr std::ptrdiff_t dense_staging_bytes = std::ptrdiff_t{256} << 10;

// Where `p` lies within its line.
std::ptrdiff_t line_offset(const void *p) {
    return static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(p) % tile_bytes);
}

// The calling thread's buffer for staged rows: at least `bytes`, kept for
// the thread's next strips.
byte *staging_buffer(std::size_t bytes) {
    thread_local std::vector<byte> buffer;
    if (buffer.size() < bytes) buffer.resize(bytes);
    return buffer.data();
}

// Destination rows whose starts are not on a line boundary (a row pitch
// that is no multiple of 64 bytes: [N,C,41,100] or [N,C,14,14] f32 as NCHW)
// cannot take the tiles' streaming stores, and ordinary stores read every
// destination line from memory before writing it: 0.70-0.84x memcpy there,
// against 1.06-1.24x for [N,C,64,64] (reshaper-run --mode=perf, 256 MiB).
// So a strip's column steps are transposed, a row group (a tile's rows) at
// a time, into this buffer in L1, whose rows lie at their destination
// rows' offsets within a line (its pitch equals the destination's modulo
// 64), and the group's whole destination lines are streamed from it. A
// row's last, partial line waits in a line of its own until the next step
// completes it; the strip's first and last partial line of each row
// (shared with the neighbouring strip or row) take ordinary stores. Strips
// whose rows lie back to back are staged whole instead (transpose_strip).
// Measured (reshaper-run --mode=perf, medians of 5 interleaved rounds,
// GB/s), unstaged -> whole steps of all rows staged in L2 first: f32
// [640,256,14,14] (staged whole) 15.1 -> 18.5, bf16 [160,256,28,28] 16.4 ->
// 20.3, f64 14x14 13.8 -> 18.6, s8 14x14 11.4 -> 13.4, f32 [64,256,41,100]
// 17.9 -> 19.3, f32 [1280,512,7,7] (staged whole) 15.3 -> 16.0; then row
// groups in L1 against that: bf16 28x28 19.9 -> 24.0, f64 14x14 21.2 ->
// 24.9, f32 41x100 21.4 -> 22.5.
class line_staging {
public:
    // Destination rows `dst_pitch` apart; `rows` rows in groups of at most
    // `group_rows`, steps of at most `step_bytes` per row, a multiple of 64
    // but for the last.
    line_staging(const isa_kernels &k, std::ptrdiff_t dst_pitch, dim_t rows, dim_t group_rows,
                 std::ptrdiff_t step_bytes)
        : k_(k), dst_pitch_(dst_pitch) {
        // A row's staged bytes span its step plus up to a line in front
        // (the waiting part), so rows a step and two lines apart never
        // meet, whatever their offsets within a line.
        pitch_ = step_bytes + 2 * tile_bytes + dst_pitch % tile_bytes;
        const std::ptrdiff_t group_bytes = group_rows * pitch_ + 2 * tile_bytes;
        byte *buffer = staging_buffer(static_cast<std::size_t>(tile_bytes + rows * tile_bytes + group_bytes));
        waiting_ = buffer + (tile_bytes - line_offset(buffer));
        group_ = waiting_ + rows * tile_bytes;
    }

    std::ptrdiff_t pitch() const { return pitch_; }

    // Where the step's rows [row, row + count) are to be transposed, rows
    // pitch() apart, the step's row 0 belonging at `dst`; each row's
    // waiting part from the previous step is put in front of it.
    byte *group(byte *dst, dim_t row, dim_t count) {
        byte *at = group_ + tile_bytes + line_offset(dst + row * dst_pitch_);
        if (!first_)
            for (dim_t i = 0; i < count; ++i)
                std::memcpy(at + i * pitch_ - line_offset(dst + (row + i) * dst_pitch_),
                            waiting_ + (row + i) * tile_bytes, tile_bytes);
        return at;
    }

    // Streams the whole lines of the group's rows (as group() took them),
    // `bytes` per row this step; each row's part past its last whole line
    // waits for the next step.
    void flush(byte *dst, dim_t row, dim_t count, std::ptrdiff_t bytes) {
        const byte *at = group_ + tile_bytes + line_offset(dst + row * dst_pitch_);
        for (dim_t i = 0; i < count; ++i) {
            byte *to = dst + (row + i) * dst_pitch_;
            const std::ptrdiff_t waiting = line_offset(to);
            const byte *line = at + i * pitch_ - waiting; // the line of the row's first staged byte
            std::ptrdiff_t from = 0;                      // from the line: whole lines to stream
            if (first_ && waiting != 0) {
                std::memcpy(to, line + waiting, static_cast<std::size_t>(tile_bytes - waiting));
                from = tile_bytes;
            }
            const std::ptrdiff_t whole = (waiting + bytes) / tile_bytes * tile_bytes;
            if (whole > from) k_.copy(to - waiting + from, line + from, static_cast<std::size_t>(whole - from), true);
            if ((waiting + bytes) % tile_bytes != 0) std::memcpy(waiting_ + (row + i) * tile_bytes, line + whole, tile_bytes);
        }
    }

    // After every group of a step.
    void end_step(byte *dst, std::ptrdiff_t bytes) {
        first_ = false;
        last_ = dst;
        last_bytes_ = bytes;
    }

    // After the last step: each row's waiting part, with ordinary stores.
    void finish(dim_t rows) {
        if (first_) return;
        for (dim_t r = 0; r < rows; ++r) {
            byte *to = last_ + r * dst_pitch_;
            const std::ptrdiff_t waiting = line_offset(to);
            const std::ptrdiff_t whole = (waiting + last_bytes_) / tile_bytes * tile_bytes;
            if (const std::ptrdiff_t rest = (waiting + last_bytes_) % tile_bytes; rest != 0)
                std::memcpy(to - waiting + whole, waiting_ + r * tile_bytes, static_cast<std::size_t>(rest));
        }
    }

private:
    const isa_kernels &k_;
    std::ptrdiff_t dst_pitch_;
    std::ptrdiff_t pitch_ = 0;
    byte *waiting_ = nullptr; // a line per row: its waiting part
    byte *group_ = nullptr;   // a group's staged rows
    byte *last_ = nullptr;    // the last step's row 0 and bytes per row
    std::ptrdiff_t last_bytes_ = 0;
    bool first_ = true;
};

// Destination rows [row, row + rows) x columns [col, col_end) of one
// outer position, a column step of tiles at a time: rows may span several
// tiles, so each source row's neighbouring lines are read back to back.
// Whole tiles where the tensor allows, streamed when the destination rows
// are line-aligned, else streamed through a line_staging.
void transpose_strip(const transpose_shape &sh, const byte *src, byte *dst, dim_t row, dim_t rows,
                     dim_t col, dim_t col_end, bool stream) {
    src += row * sh.e + col * sh.src_pitch;
    dst += row * sh.dst_pitch + col * sh.e;
    dim_t n = col_end - col;
    auto advance = [&](dim_t cols) {
        src += cols * sh.src_pitch;
        dst += cols * sh.e;
        n -= cols;
    };
    // Rows [r, r + part) (part at most t) of `cols` (at most t) columns
    // from `from` (the first column's row r) into `d`, rows `pitch` apart.
    auto tile_group = [&](const byte *from, dim_t r, dim_t part, dim_t cols, byte *d, std::ptrdiff_t pitch,
                          bool streamed) {
        if (cols == sh.t && part == sh.t)
            sh.tile(from + r * sh.e, sh.src_pitch, d, pitch, streamed);
        else
            partial_tile(sh, from + r * sh.e, d, pitch, cols, part, streamed && cols == sh.t);
    };
    // `cols` columns of every row into `to`, rows `pitch` apart.
    auto tile_step = [&](dim_t cols, byte *to, std::ptrdiff_t pitch, bool streamed) {
        for (dim_t r = 0; r < rows; r += sh.t)
            tile_group(src, r, std::min(sh.t, rows - r), cols, to + r * pitch, pitch, streamed);
    };
    // The next wide step's source lines, for the step's prefetches: w * t
    // rows, each the lines this strip's rows cover; a share per whole wide
    // tile. Null when the walk does not prefetch or no step follows.
    auto next_wide_step = [&](line_prefetch &ahead) -> line_prefetch * {
        if (!sh.prefetch_ahead || n < 2 * sh.w * sh.t) return nullptr;
        const auto first = reinterpret_cast<std::uintptr_t>(src + sh.w * sh.t * sh.src_pitch);
        const std::uintptr_t begin = first / tile_bytes, end = (first + static_cast<std::uintptr_t>(rows * sh.e) + tile_bytes - 1) / tile_bytes;
        const dim_t lines = sh.w * sh.t * static_cast<dim_t>(end - begin), calls = std::max<dim_t>(1, rows / sh.t);
        ahead = line_prefetch{begin * tile_bytes, sh.src_pitch, static_cast<std::ptrdiff_t>(end - begin), sh.w * sh.t, 0,
                              static_cast<int>((lines + calls - 1) / calls)};
        return &ahead;
    };
    // Rows [r, r + part) of w * t columns: whole tiles side by side, so
    // each destination row gets runs of w lines (see tile_walk).
    auto wide_group = [&](dim_t r, dim_t part, byte *d, std::ptrdiff_t pitch, bool streamed, line_prefetch *next) {
        const byte *s = src + r * sh.e;
        if (part == sh.t) return sh.wide(s, sh.src_pitch, d, pitch, streamed, next);
        if (part == sh.t / 2 && sh.half_wide) return sh.half_wide(s, sh.src_pitch, d, pitch, streamed);
        for (int w = 0; w < sh.w; ++w) // the last rows: tile by tile
            partial_tile(sh, s + w * sh.t * sh.src_pitch, d + w * sh.t * sh.e, pitch, sh.t, part, streamed);
    };
    auto wide_step = [&](byte *to, std::ptrdiff_t pitch, bool streamed) {
        line_prefetch ahead{};
        line_prefetch *next = next_wide_step(ahead);
        for (dim_t r = 0; r < rows; r += sh.t)
            wide_group(r, std::min(sh.t, rows - r), to + r * pitch, pitch, streamed, next);
    };
    // Every remaining column into `to` (the current column's row 0), rows
    // `pitch` apart: wide steps, then tiles, then the last columns.
    auto all_steps = [&](byte *to, std::ptrdiff_t pitch, bool streamed) {
        if (sh.wide)
            for (; n >= sh.w * sh.t; to += sh.w * sh.t * sh.e, advance(sh.w * sh.t)) wide_step(to, pitch, streamed);
        for (; n >= sh.t; to += sh.t * sh.e, advance(sh.t)) tile_step(sh.t, to, pitch, streamed);
        if (n > 0) tile_step(n, to, pitch, false);
    };
    // Rows back to back (the strip spans whole destination rows, whose
    // pitch is no multiple of a line): the strip's destination is one run.
    // It is staged whole in the cache, at the destination's offset within
    // a line, and streamed as one run, whose first and last partial line
    // alone take ordinary stores.
    if (stream && n * sh.e == sh.dst_pitch && sh.dst_pitch % tile_bytes != 0 &&
        rows * sh.dst_pitch <= dense_staging_bytes) {
        const std::ptrdiff_t run_bytes = rows * sh.dst_pitch;
        byte *buffer = staging_buffer(static_cast<std::size_t>(run_bytes + 2 * tile_bytes));
        byte *staged = buffer + (tile_bytes - line_offset(buffer)) + line_offset(dst);
        byte *run = dst;
        all_steps(staged, sh.dst_pitch, false);
        sh.k->copy(run, staged, static_cast<std::size_t>(run_bytes), true);
        return;
    }
    const dim_t step_cols = sh.wide ? sh.w * sh.t : sh.t;
    // Streaming needs every row of a tile on a line boundary: rows a line
    // apart, and a head of columns up to the first boundary.
    bool aligned_rows = stream && sh.dst_pitch % tile_bytes == 0;
    if (aligned_rows) {
        const std::ptrdiff_t misalign = line_offset(dst);
        const dim_t head = (tile_bytes - misalign) / sh.e;
        // A head only pays when whole tiles follow it: a strip one tile
        // wide (nChw16c's 16 channels) would otherwise become two partial
        // tiles at every row (0.58x oneDNN's reorder, measured), where one
        // whole tile with ordinary stores costs far less.
        if (misalign % sh.e != 0 || (misalign != 0 && n - head < sh.t))
            aligned_rows = false;
        else if (misalign != 0) {
            tile_step(std::min<dim_t>(n, head), dst, sh.dst_pitch, false);
            advance(std::min<dim_t>(n, head));
        }
    } else if (stream && sh.dst_pitch > 0 && n >= step_cols) {
        // A row group at a time through a line_staging, so the staged
        // rows stay in L1 (staging a whole step of 256 rows first, in L2,
        // measured 10-30% slower).
        const std::ptrdiff_t step_bytes = step_cols * sh.e;
        line_staging staging(*sh.k, sh.dst_pitch, rows, sh.t, step_bytes);
        for (; n >= step_cols; advance(step_cols)) {
            line_prefetch ahead{};
            line_prefetch *next = sh.wide ? next_wide_step(ahead) : nullptr;
            for (dim_t r = 0; r < rows; r += sh.t) {
                const dim_t part = std::min(sh.t, rows - r);
                byte *d = staging.group(dst, r, part);
                if (sh.wide) wide_group(r, part, d, staging.pitch(), false, next);
                else tile_group(src, r, part, sh.t, d, staging.pitch(), false);
                staging.flush(dst, r, part, step_bytes);
            }
            staging.end_step(dst, step_bytes);
        }
        // The last columns: tile by tile into each group's staged rows.
        if (n > 0) {
            const std::ptrdiff_t bytes = n * sh.e;
            for (dim_t r = 0; r < rows; r += sh.t) {
                const dim_t part = std::min(sh.t, rows - r);
                byte *d = staging.group(dst, r, part);
                for (dim_t c = 0; c < n; c += sh.t)
                    tile_group(src + c * sh.src_pitch, r, part, std::min(sh.t, n - c), d + c * sh.e, staging.pitch(), false);
                staging.flush(dst, r, part, bytes);
            }
            staging.end_step(dst, bytes);
        }
        staging.finish(rows);
        return;
    }
    all_steps(dst, sh.dst_pitch, aligned_rows);
}

void move_transposed(const copy_plan &plan, std::size_t k_dim, std::ptrdiff_t e, const byte *src,
                     byte *dst, const isa_kernels &k) {
    const std::size_t inner = plan.dims.size() - 1;
    const copy_dim &row_dim = plan.dims[k_dim], &col_dim = plan.dims[inner];
    const int log2e = log2_of(static_cast<std::size_t>(e));
    const std::size_t total = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e);
    const bool stream = total >= transpose_streaming_threshold_bytes();
    // The walks tuned for memory (streamed) keep short runs per destination
    // row; moves the caches hold take longer ones (row_reach).
    const int reach = !stream ? in_cache : row_dim.dst_stride * e >= far_row_bytes ? far_rows : near_rows;
    tile_walk walk = k.walk[reach][log2e];
    // Streamed transposes of exactly one tile's rows (the 16 x 16 f32
    // blocks of ABcd16a16b and nChw16c) walk tile by tile where the level
    // measured that faster (isa_kernels::one_tile_rows_tile_by_tile).
    if (stream && row_dim.size == tile_bytes / e && k.one_tile_rows_tile_by_tile) walk = tile_walk{1, 1};
    transpose_shape sh{&k, k.tile[log2e], walk.wide > 1 ? k.wide_tile[reach][log2e] : nullptr, walk.prefetch_ahead,
                       walk.wide > 1 ? k.half_wide_tile[reach][log2e] : nullptr, walk.wide, k.tile_partial[log2e], e, tile_bytes / e, row_dim.size, col_dim.size, col_dim.src_stride * e, row_dim.dst_stride * e};
    outer_dims outer;
    for (std::size_t d = 0; d < inner; ++d)
        if (d != k_dim) outer.add(plan.dims[d], e);

    // Strips as the level walks (tile_walk): a fixed number of tiles, or
    // the rows whose column block fits block_kib (at least a tile, at most
    // every row).
    dim_t strip_rows = walk.strip_tiles * sh.t;
    if (walk.strip_tiles == 0) {
        const dim_t fit = (dim_t{walk.block_kib} << 10) / (walk.wide * sh.t * e);
        strip_rows = std::min(std::max(sh.t, fit / sh.t * sh.t), (sh.rows + sh.t - 1) / sh.t * sh.t);
    }
    // A blocked format's inner block (nchw into nChw16c: per image and
    // channel block, 16 source rows of HW elements into HW destination
    // rows of 16 elements, back to back) has destination rows of at most a
    // line with nothing between them: one outer position's destination is
    // a single contiguous run, so a strip as tall as the tensor allows
    // writes it in order. Strips of one tile spent a fifth of the time
    // (perf, nchw -> nChw16c f32, 64 MiB) on the per-strip set-up around
    // 1 KiB tiles; strips of 64 KiB of destination amortise it.
    const bool block_rows = sh.dst_pitch == sh.cols * e && sh.cols <= sh.t;
    constexpr dim_t block_strip_bytes = dim_t{64} << 10;
    // Rows of 16 or 32 bytes (nChw8c f32, nChw16c bf16) would be partial
    // tiles, each a quarter or half full (through buffers where the level
    // has no masked loads: 0.33x memcpy, 0.47x oneDNN's reorder for
    // nChw8c f32), stored row by row; a register block of the rows' width
    // instead writes the run back to back (block_rows_fn). Rows of a whole
    // line take the level's block-row kernel too where it has one (AVX2,
    // f32: two register blocks per step, 1.17 -> 1.52x memcpy against
    // tile calls); elsewhere whole tiles.
    const int block_kind = block_rows ? block_row_kind(static_cast<std::size_t>(sh.dst_pitch)) : -1;
    const block_rows_fn block_kernel = block_kind >= 0 ? k.block_rows[block_kind][log2e] : nullptr;
    if (block_rows) strip_rows = std::max<dim_t>(1, block_strip_bytes / sh.dst_pitch / sh.t) * sh.t;
    const dim_t row_tiles = (sh.rows + strip_rows - 1) / strip_rows;
    const dim_t col_tiles = (sh.cols + sh.t - 1) / sh.t;
    // Units: a strip of t destination rows, cut along the columns only when
    // there are too few strips to share between the threads, and only when
    // threads will share them (for_units): cut on one thread, a strip lost
    // its wide steps to pieces narrower than one (64 KiB f32, [1,16,1024]:
    // 8.6-8.9 -> 3.9-4.4 us).
    const std::size_t strips = outer.volume * static_cast<std::size_t>(row_tiles);
    const std::size_t wanted = total < parallel_threshold_bytes
                                   ? 1
                                   : 8 * static_cast<std::size_t>(oneapi::tbb::this_task_arena::max_concurrency());
    const dim_t pieces = strips >= wanted ? 1 : std::min<dim_t>(col_tiles, static_cast<dim_t>((wanted + strips - 1) / strips));
    const dim_t piece_cols = (col_tiles + pieces - 1) / pieces * sh.t;
    const std::size_t piece_bytes = static_cast<std::size_t>(piece_cols * strip_rows * e);
    // Moves the caches can hold are read from them: prefetching only costs
    // instructions there (f32 and bf16 at 256 KiB and 2 MiB measured 10%
    // slower with it).
    sh.prefetch_ahead = sh.prefetch_ahead && total >= transpose_streaming_threshold_bytes();
    src += plan.src_offset * e;
    dst += plan.dst_offset * e;
    for_units(strips * static_cast<std::size_t>(pieces), piece_bytes, stream,
              [&](std::size_t begin, std::size_t end) {
                  for (std::size_t u = begin; u < end; ++u) {
                      const auto piece = static_cast<dim_t>(u % static_cast<std::size_t>(pieces));
                      const std::size_t strip = u / static_cast<std::size_t>(pieces);
                      const auto row = static_cast<dim_t>(strip % static_cast<std::size_t>(row_tiles)) * strip_rows;
                      const outer_walk at(outer, strip / static_cast<std::size_t>(row_tiles));
                      const dim_t col = piece * piece_cols;
                      if (col >= sh.cols) continue;
                      if (block_kernel) {
                          // Whole groups of cols rows through the block
                          // kernel (strip_rows is a multiple of cols), the
                          // last few through a partial tile.
                          const dim_t n = std::min(strip_rows, sh.rows - row), whole = n / sh.cols * sh.cols;
                          byte *to = dst + at.dst() + row * sh.dst_pitch;
                          const bool aligned =
                              reinterpret_cast<std::uintptr_t>(to) % static_cast<std::uintptr_t>(sh.dst_pitch) == 0;
                          block_kernel(src + at.src() + row * e, sh.src_pitch, to, static_cast<std::size_t>(whole),
                                       stream && aligned);
                          if (whole < n)
                              transpose_strip(sh, src + at.src(), dst + at.dst(), row + whole, n - whole, 0, sh.cols,
                                              false);
                          continue;
                      }
                      transpose_strip(sh, src + at.src(), dst + at.dst(), row, std::min(strip_rows, sh.rows - row), col,
                                      std::min(sh.cols, col + piece_cols), stream);
                  }
              });
}

// The source's contiguous dim, other than the innermost, or -1.
int source_contiguous_dim(const copy_plan &plan) {
    for (std::size_t d = 0; d + 1 < plan.dims.size(); ++d)
        if (plan.dims[d].src_stride == 1) return static_cast<int>(d);
    return -1;
}

// ---- split and joined rows -------------------------------------------------

// Transposes with R rows on one side (has_row_group_kernel) and groups of
// R elements back to back on the other:
// NHWC images of 3 or 4 channels seen as NCHW (split rows), NCHW ones seen
// as NHWC (join rows). Tiles of T rows would be mostly empty there (f32
// [48,4,224,224] NHWC as NCHW: 0.39x memcpy through partial tiles; 3
// channels had no fast path and went to oneDNN's reorder, 0.58-0.71x), so
// each level moves the groups in one compiled loop (split_rows_fn), over
// pieces of columns of a task's worth.
// split_rows_fn (or join_rows) for R rows: the level's kernel, or two
// composed (composed_inner_rows) through a buffer in L1 that holds the R1
// intermediate rows of a few columns at a time.
class row_groups_mover {
public:
    row_groups_mover(const isa_kernels &k, bool split, dim_t rows, std::ptrdiff_t e)
        : e_(e), inner_rows_(composed_inner_rows(rows, static_cast<std::size_t>(e), !split)) {
        const auto &table = split ? k.split_rows : k.join_rows;
        const int log2e = log2_of(static_cast<std::size_t>(e));
        split_ = split;
        if (inner_rows_ == 0) { // one kernel moves them all
            outer_ = table[rows][log2e];
            return;
        }
        outer_rows_ = rows / inner_rows_;
        outer_ = table[outer_rows_][log2_of(static_cast<std::size_t>(inner_rows_ * e))];
        inner_ = table[inner_rows_][log2e];
    }

    // As split_rows_fn: `cols` groups of R elements, R rows `pitch` apart.
    void operator()(const byte *src, byte *dst, std::ptrdiff_t pitch, dim_t cols) const {
        if (!inner_) return outer_(src, dst, pitch, cols);
        // The intermediate rows: R1 rows of elements of R2 * e bytes, a
        // chunk of columns at a time, `chunk_bytes` in all.
        constexpr std::ptrdiff_t chunk_bytes = std::ptrdiff_t{16} << 10;
        alignas(64) byte middle[chunk_bytes];
        const std::ptrdiff_t group = inner_rows_ * e_; // an intermediate element
        const dim_t chunk = std::max<dim_t>(1, chunk_bytes / (outer_rows_ * group));
        const std::ptrdiff_t middle_pitch = chunk * group;
        for (dim_t c = 0; c < cols; c += chunk) {
            const dim_t m = std::min(chunk, cols - c);
            if (split_) {
                outer_(src + c * outer_rows_ * group, middle, middle_pitch, m);
                for (dim_t r = 0; r < outer_rows_; ++r)
                    inner_(middle + r * middle_pitch, dst + r * inner_rows_ * pitch + c * e_, pitch, m);
            } else {
                for (dim_t r = 0; r < outer_rows_; ++r)
                    inner_(src + r * inner_rows_ * pitch + c * e_, middle + r * middle_pitch, pitch, m);
                outer_(middle, dst + c * outer_rows_ * group, middle_pitch, m);
            }
        }
    }

private:
    std::ptrdiff_t e_;
    dim_t inner_rows_, outer_rows_ = 0;
    bool split_ = true;
    // outer_ alone where one kernel has R rows; else the two composed.
    split_rows_fn outer_ = nullptr, inner_ = nullptr;
};

void move_row_groups(const copy_plan &plan, fast_path path, std::ptrdiff_t e, const byte *src, byte *dst,
                     const isa_kernels &k) {
    const std::size_t inner = plan.dims.size() - 1, k_dim = static_cast<std::size_t>(source_contiguous_dim(plan));
    const bool split = path == fast_path::split_rows;
    // The R rows' dim, and the dim along them (the columns).
    const copy_dim &rows = plan.dims[split ? k_dim : inner], &cols = plan.dims[split ? inner : k_dim];
    const row_groups_mover move_groups(k, split, rows.size, e);
    outer_dims outer;
    for (std::size_t d = 0; d < inner; ++d)
        if (d != k_dim) outer.add(plan.dims[d], e);
    // Between the R rows: the destination's (split) or the source's (join).
    const std::ptrdiff_t pitch = (split ? rows.dst_stride : rows.src_stride) * e;
    const std::ptrdiff_t src_step = cols.src_stride * e, dst_step = cols.dst_stride * e;
    const std::ptrdiff_t group_bytes = rows.size * e;
    const dim_t piece_cols = std::max<dim_t>(1, static_cast<dim_t>(parallel_task_bytes) / group_bytes);
    const dim_t pieces = (cols.size + piece_cols - 1) / piece_cols;
    // A piece of joined rows is one destination run: where the move is
    // large it is streamed, 4 KiB at a time staged in L1 (f32
    // [64,224,224,3] from NCHW: 26.4 -> 31.4 GB/s; 6 channels 24.0 ->
    // 27.6). Split rows write R runs, which lost 10-20% that way.
    const std::size_t total = static_cast<std::size_t>(plan.volume) * static_cast<std::size_t>(e);
    const bool stream = !split && total >= transpose_streaming_threshold_bytes();
    const dim_t stream_cols = std::max<dim_t>(1, (std::ptrdiff_t{4} << 10) / group_bytes);
    src += plan.src_offset * e;
    dst += plan.dst_offset * e;
    for_units(outer.volume * static_cast<std::size_t>(pieces), static_cast<std::size_t>(piece_cols * group_bytes), stream,
              [&](std::size_t begin, std::size_t end) {
                  for (std::size_t u = begin; u < end; ++u) {
                      const dim_t col = static_cast<dim_t>(u % static_cast<std::size_t>(pieces)) * piece_cols;
                      const outer_walk at(outer, u / static_cast<std::size_t>(pieces));
                      const dim_t n = std::min(piece_cols, cols.size - col);
                      if (stream) {
                          byte *staged = staging_buffer(static_cast<std::size_t>(stream_cols * group_bytes));
                          for (dim_t c = 0; c < n; c += stream_cols) {
                              const dim_t m = std::min(stream_cols, n - c);
                              move_groups(src + at.src() + (col + c) * src_step, staged, pitch, m);
                              k.copy(dst + at.dst() + (col + c) * dst_step, staged, static_cast<std::size_t>(m * group_bytes), true);
                          }
                          continue;
                      }
                      move_groups(src + at.src() + col * src_step, dst + at.dst() + col * dst_step, pitch, n);
                  }
              });
}

// ---- packed transpose ----------------------------------------------------

// Packed elements, P = 8 / Bits to a byte: destination row P*b+q, byte j,
// packs element q of byte b of source rows P*j .. P*j+P-1. Both ways below
// cut the whole tensor into 64 x 64-byte tiles for the SIMD byte transpose
// and differ in where the elements are regrouped (measured on NHWC as
// NCHW, 64 MiB, one core: each is 20-50% slower at the other width).
//
// Destination rows [row, row + rows) (multiples of P: whole source bytes)
// of one outer position, all `cols` columns (a multiple of P): source rows
// are byte rows at src_pitch, destination rows byte rows at dst_pitch.
// With `stream` (4-bit) each pair of destination row parts is split into
// an L1 buffer and written by the streaming run copy: s4 NHWC as NCHW,
// [64,256,64,64] (32 MiB), on an AMD EPYC with AVX-512, took 30 -> 34 GB/s
// read+written (AVX2 level: 25 -> 32-34); once, with a scalar split, it
// had measured 35% slower.
template <std::size_t Bits>
void packed_strip(const isa_kernels &k, const byte *src, std::ptrdiff_t src_pitch, byte *dst,
                  std::ptrdiff_t dst_pitch, dim_t row, dim_t rows, dim_t cols, bool stream);

// 4-bit: byte-transpose first. Byte j of a transposed byte row x holds the
// nibble pairs of source rows 2j and 2j+1; destination row 2c takes their
// low nibbles, row 2c+1 their high ones (isa_kernels::split_nibbles).
template <>
void packed_strip<4>(const isa_kernels &k, const byte *src, std::ptrdiff_t src_pitch, byte *dst,
                     std::ptrdiff_t dst_pitch, dim_t row, dim_t rows, dim_t cols, bool stream) {
    // A step is w byte tiles side by side (the level's 1-byte wide tile,
    // at most max_wide_tiles): 64 * w source rows,
    // so each destination row gets 32 * w bytes at once (w = 4: two whole
    // lines). With one tile a step wrote half lines, 128 rows apart in
    // time (perf: half the time on those stores; with 4 tiles, s4 64 MiB
    // NHWC as NCHW went from 9-10 to 10-17 GB/s in alternating benchmark
    // runs, and measured even, 7.2 vs 7.4 GB/s, in one process under load).
    const dim_t w = k.packed_wide, step_rows = tile_bytes * w;
    alignas(64) byte in[tile_bytes * max_wide_tiles * tile_bytes];
    alignas(64) byte out[tile_bytes * tile_bytes * max_wide_tiles];
    alignas(64) byte pair[2][tile_bytes * max_wide_tiles / 2];
    const dim_t strip_bytes = rows / 2; // source bytes per source row in this strip
    src += row / 2;
    dst += row * dst_pitch;
    for (dim_t c = 0; c < cols; c += step_rows) {
        const dim_t n = std::min<dim_t>(step_rows, cols - c); // source rows in the step
        // The strip's rows a tile (64 source bytes) at a time.
        for (dim_t part = 0; part < strip_bytes; part += tile_bytes) {
            const dim_t row_bytes = std::min<dim_t>(tile_bytes, strip_bytes - part);
            const byte *from = src + part;
            byte *to = dst + 2 * part * dst_pitch;
            if (n == step_rows && row_bytes == tile_bytes) {
                k.packed_tile(from, src_pitch, out, step_rows, false, nullptr);
            } else {
                for (dim_t r = 0; r < n; ++r)
                    std::memcpy(in + r * tile_bytes, from + r * src_pitch, static_cast<std::size_t>(row_bytes));
                k.packed_tile(in, tile_bytes, out, step_rows, false, nullptr);
            }
            const auto half = static_cast<std::size_t>(n / 2);
            for (dim_t b = 0; b < row_bytes; ++b) {
                byte *low = to + 2 * b * dst_pitch;
                if (!stream) {
                    k.split_nibbles(out + b * step_rows, half, low, low + dst_pitch);
                    continue;
                }
                k.split_nibbles(out + b * step_rows, half, pair[0], pair[1]);
                k.copy_runs(low, dst_pitch, pair[0], sizeof pair[0], half, 2, true);
            }
        }
        src += step_rows * src_pitch;
        dst += step_rows / 2;
    }
}

// 2-bit: regroup first. The bytes at position b of source rows 4j .. 4j+3
// form a 4 x 4 matrix of elements (row i: source row 4j+i; column q:
// destination row 4b+q), and destination row 4b+q, byte j, is column q.
// Transposing each such matrix in place turns source row 4j+q, byte b,
// into that destination byte; four plain byte transposes (of the rows q,
// q+4, q+8, ...: the tile kernel at four times the pitch) then write whole
// destination rows. The 4 x 4 transpose is two rounds of delta swaps: the
// high nibbles of rows 0-1 with the low nibbles of rows 2-3, then the odd
// bit pairs of rows 0 and 2 with the even ones of rows 1 and 3; in 64-bit
// lanes, which every SIMD level shifts (bytes it does not), the masks
// keeping each byte's bits to that byte.
void transpose_bit_pairs(const byte *const *from, byte *to) {
    constexpr std::size_t lanes = tile_bytes / 8;
    std::uint64_t v[4][lanes];
    for (std::size_t i = 0; i < 4; ++i) std::memcpy(v[i], from[i], tile_bytes);
    auto swap = [&](std::size_t i, std::size_t j, unsigned shift, std::uint64_t mask) {
        for (std::size_t n = 0; n < lanes; ++n) {
            const std::uint64_t t = ((v[i][n] >> shift) ^ v[j][n]) & mask;
            v[j][n] ^= t;
            v[i][n] ^= t << shift;
        }
    };
    swap(0, 2, 4, 0x0F0F0F0F0F0F0F0Full);
    swap(1, 3, 4, 0x0F0F0F0F0F0F0F0Full);
    swap(0, 1, 2, 0x3333333333333333ull);
    swap(2, 3, 2, 0x3333333333333333ull);
    std::memcpy(to, v, sizeof v); // may overwrite `from`: all read above
}

template <>
void packed_strip<2>(const isa_kernels &k, const byte *src, std::ptrdiff_t src_pitch, byte *dst,
                     std::ptrdiff_t dst_pitch, dim_t row, dim_t rows, dim_t cols, bool /*stream*/) {
    constexpr dim_t tile_rows = 4 * tile_bytes; // source rows of a tile
    // Zeroed: an edge tile leaves part of it unread from the source.
    alignas(64) byte in[tile_rows * tile_bytes] = {};
    alignas(64) byte out[tile_bytes * tile_bytes];
    const dim_t row_bytes = rows / 4; // source bytes per source row in this strip
    src += row / 4;
    dst += row * dst_pitch;
    for (dim_t c = 0; c < cols; c += tile_rows) {
        const dim_t n = std::min(tile_rows, cols - c); // source rows in the tile
        // Whole source rows are read in place, parts of rows through `in`.
        const bool whole_rows = row_bytes == tile_bytes;
        if (!whole_rows)
            for (dim_t r = 0; r < n; ++r)
                std::memcpy(in + r * tile_bytes, src + r * src_pitch, static_cast<std::size_t>(row_bytes));
        for (dim_t g = 0; g < n; g += 4) {
            const byte *from[4];
            for (dim_t i = 0; i < 4; ++i) from[i] = whole_rows ? src + (g + i) * src_pitch : in + (g + i) * tile_bytes;
            transpose_bit_pairs(from, in + g * tile_bytes);
        }
        for (dim_t q = 0; q < 4; ++q) {
            const byte *part = in + q * tile_bytes;
            byte *to = dst + q * dst_pitch;
            if (n == tile_rows && whole_rows) {
                k.tile[0](part, 4 * tile_bytes, to, 4 * dst_pitch, false);
                continue;
            }
            // Edge tile: the valid part only.
            k.tile[0](part, 4 * tile_bytes, out, tile_bytes, false);
            for (dim_t b = 0; b < row_bytes; ++b)
                std::memcpy(to + b * 4 * dst_pitch, out + b * tile_bytes, static_cast<std::size_t>(n / 4));
        }
        src += tile_rows * src_pitch;
        dst += tile_bytes;
    }
}

template <std::size_t Bits>
void move_packed_transposed(const copy_plan &plan, std::size_t k_dim, const byte *src, byte *dst,
                            const isa_kernels &k) {
    constexpr auto per_byte = static_cast<dim_t>(elements_per_byte(Bits));
    const std::size_t inner = plan.dims.size() - 1;
    const copy_dim &row_dim = plan.dims[k_dim], &col_dim = plan.dims[inner];
    // Byte strides: every stride but the two unit ones is a multiple of
    // per_byte (checked by choose_packed_fast_path), so dividing is exact.
    outer_dims outer;
    for (std::size_t d = 0; d < inner; ++d)
        if (d != k_dim)
            outer.add(copy_dim{plan.dims[d].size, plan.dims[d].src_stride / per_byte,
                               plan.dims[d].dst_stride / per_byte},
                      1);
    const std::ptrdiff_t src_pitch = col_dim.src_stride / per_byte, dst_pitch = row_dim.dst_stride / per_byte;
    // A strip: the elements of 64 source bytes per source row, 128 for
    // 4-bit (two byte tiles high, as the 1-byte transposes' strips of 4
    // tiles: NHWC's 256 channels read at once; 3-5% faster in one process).
    constexpr dim_t strip_rows = per_byte * tile_bytes * (Bits == 4 ? 2 : 1);
    const dim_t row_tiles = (row_dim.size + strip_rows - 1) / strip_rows;
    const std::size_t strips = outer.volume * static_cast<std::size_t>(row_tiles);
    const std::size_t strip_bytes = static_cast<std::size_t>(strip_rows * col_dim.size / per_byte);
    src += plan.src_offset / per_byte;
    dst += plan.dst_offset / per_byte;
    // 2-bit tiles keep ordinary stores: each writes one line to each of 64
    // destination rows, and streamed so (s2 [64,256,64,64] NHWC as NCHW,
    // 16 MiB, AVX2 on a Zen 3 EPYC, 3 rounds) they ran 10-20% slower.
    const bool stream = Bits == 4 && strips * strip_bytes >= transpose_streaming_threshold_bytes();
    for_units(strips, strip_bytes, stream, [&](std::size_t begin, std::size_t end) {
        for (std::size_t u = begin; u < end; ++u) {
            const outer_walk at(outer, u / static_cast<std::size_t>(row_tiles));
            const dim_t row = static_cast<dim_t>(u % static_cast<std::size_t>(row_tiles)) * strip_rows;
            packed_strip<Bits>(k, src + at.src(), src_pitch, dst + at.dst(), dst_pitch, row,
                               std::min(strip_rows, row_dim.size - row), col_dim.size, stream);
        }
    });
}

// Transposes whose tiles would be mostly empty go element by element.
constexpr dim_t min_transpose_side = 4;
// Split and joined rows pay where each call moves long rows: shorter ones
// (the blocks of ABcd16a16b, 16 columns) keep their tiles.
constexpr dim_t min_split_columns = 64;

} // namespace

std::string_view to_string(fast_path p) {
    switch (p) {
    case fast_path::none: return "element walk";
    case fast_path::run_copy: return "run copy";
    case fast_path::transpose: return "tiled transpose";
    case fast_path::split_rows: return "split rows";
    case fast_path::join_rows: return "joined rows";
    case fast_path::packed_transpose: return "tiled packed transpose";
    case fast_path::grouped_transpose: return "grouped transpose";
    }
    return "element walk";
}

fast_path choose_fast_path(const copy_plan &plan, std::size_t element_bytes) {
    if (log2_of(element_bytes) < 0 || plan.volume == 0) return fast_path::none;
    const copy_dim &inner = plan.dims.back();
    if (inner.dst_stride != 1) return fast_path::none;
    if (inner.src_stride == 1)
        return grouped_transpose_pays(plan, element_bytes, inner.size, inner.size) ? fast_path::grouped_transpose
                                                                                   : fast_path::run_copy;
    const int k = source_contiguous_dim(plan);
    if (k < 0) return fast_path::none;
    const copy_dim &rows = plan.dims[static_cast<std::size_t>(k)];
    if (has_row_groups(rows.size, element_bytes) && inner.src_stride == rows.size &&
        inner.size >= min_split_columns)
        return fast_path::split_rows;
    // Groups of 16, 32 or 64 bytes that the transpose takes keep it: its
    // block rows write them a register block at a time (f32
    // [48,224,224,4] from NCHW: 2.1x memcpy, joined rows 1.7x).
    const std::size_t group_bytes = static_cast<std::size_t>(inner.size) * element_bytes;
    const bool block_rows = inner.size >= min_transpose_side && block_row_kind(group_bytes) >= 0;
    if (has_row_groups(inner.size, element_bytes, true) && rows.dst_stride == inner.size &&
        rows.size >= min_split_columns && !block_rows)
        return fast_path::join_rows;
    if (grouped_transpose_pays(plan, element_bytes, rows.size, inner.size)) return fast_path::grouped_transpose;
    if (rows.size < min_transpose_side || inner.size < min_transpose_side) return fast_path::none;
    return fast_path::transpose;
}

fast_path choose_packed_fast_path(const copy_plan &plan, std::size_t bits) {
    if ((bits != 2 && bits != 4) || plan.volume == 0) return fast_path::none;
    const auto per_byte = static_cast<dim_t>(elements_per_byte(bits));
    if (whole_byte_plan(plan, per_byte)) return fast_path::run_copy;
    const copy_dim &inner = plan.dims.back();
    const int k = source_contiguous_dim(plan);
    if (inner.dst_stride != 1 || k < 0 || plan.dims[k].size < min_transpose_side ||
        inner.size < min_transpose_side)
        return fast_path::none;
    // Every row of both tensors starts on a byte and holds whole bytes.
    if (plan.src_offset % per_byte != 0 || plan.dst_offset % per_byte != 0 ||
        plan.dims[k].size % per_byte != 0 || inner.size % per_byte != 0)
        return fast_path::none;
    for (std::size_t d = 0; d < plan.dims.size(); ++d) {
        if (static_cast<int>(d) != k && plan.dims[d].src_stride % per_byte != 0) return fast_path::none;
        if (d + 1 != plan.dims.size() && plan.dims[d].dst_stride % per_byte != 0) return fast_path::none;
    }
    return fast_path::packed_transpose;
}

void run_fast_path(fast_path path, const copy_plan &plan, std::size_t element_bytes,
                   const void *src, void *dst, cpu_isa isa) {
    const isa_kernels &k = kernels_for(isa);
    const auto e = static_cast<std::ptrdiff_t>(element_bytes);
    const auto *from = static_cast<const byte *>(src);
    auto *to = static_cast<byte *>(dst);
    if (path == fast_path::run_copy) return move_runs(plan, e, from, to, k);
    if (path == fast_path::transpose)
        return move_transposed(plan, static_cast<std::size_t>(source_contiguous_dim(plan)), e, from, to, k);
    if (path == fast_path::split_rows || path == fast_path::join_rows) return move_row_groups(plan, path, e, from, to, k);
    if (path == fast_path::grouped_transpose) return run_grouped_transpose(*plan_grouped_transpose(plan, element_bytes), src, dst, isa);
}

void run_packed_fast_path(fast_path path, const copy_plan &plan, std::size_t bits, const void *src,
                          void *dst, cpu_isa isa) {
    const isa_kernels &k = kernels_for(isa);
    const auto *from = static_cast<const byte *>(src);
    auto *to = static_cast<byte *>(dst);
    const auto per_byte = static_cast<dim_t>(elements_per_byte(bits));
    if (path == fast_path::run_copy) return move_runs(*whole_byte_plan(plan, per_byte), 1, from, to, k);
    if (path != fast_path::packed_transpose) return;
    const auto k_dim = static_cast<std::size_t>(source_contiguous_dim(plan));
    if (bits == 4) return move_packed_transposed<4>(plan, k_dim, from, to, k);
    if (bits == 2) return move_packed_transposed<2>(plan, k_dim, from, to, k);
}

void copy_bytes(void *dst, const void *src, std::size_t bytes) {
    if (bytes == 0) return;
    copy_plan plan;
    plan.dims = {{static_cast<dim_t>(bytes), 1, 1}};
    plan.volume = static_cast<dim_t>(bytes);
    plan.dst_increasing = true;
    move_runs(plan, 1, static_cast<const byte *>(src), static_cast<byte *>(dst),
              kernels_for(active_cpu_isa()));
}

} // namespace reshaper::impl
