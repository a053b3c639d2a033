// Tiled transpose: the destination's contiguous dim is not the source's,
// so 64 x 64-byte tiles of those two dims are transposed in registers,
// every source and destination cache line read and written whole (1- and
// 2-byte elements several tiles side by side, so destination rows are
// written in runs of lines: see tile_walk). Where the destination rows are
// at most a line with nothing between them (a blocked format's inner
// block: nchw into nChw16c), tall strips and a register block as wide as
// the row write the destination in one run (block_rows_fn). What to walk
// how is planned by plan_transpose; only the buffers' alignment, known at
// execute, picks how a strip's stores stream.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <variant>

#include "kernels/movement_units.hpp"
#include "kernels/short_copy.hpp"

namespace reshaper::impl {
namespace {

// A tile cut short by the tensor's edge (cols x rows elements, each at most
// t): through two 64 x 64-byte buffers, so every SIMD level handles it
// with its whole-tile transpose. Only the valid part is read and written.
// `dst_pitch`: bytes between its destination rows.
void partial_tile(const transpose_program &sh, const byte *src, byte *dst, std::ptrdiff_t dst_pitch, dim_t cols,
                  dim_t rows, bool stream) {
    if (sh.partial) return sh.partial(src, sh.src_pitch, dst, dst_pitch, static_cast<int>(cols),
                                      static_cast<int>(rows), stream);
    alignas(64) byte in[tile_bytes * tile_bytes];
    alignas(64) byte out[tile_bytes * tile_bytes];
    const auto row_bytes = static_cast<std::size_t>(rows * sh.e);
    for (dim_t c = 0; c < cols; ++c) copy_short(in + c * tile_bytes, src + c * sh.src_pitch, row_bytes);
    sh.tile(in, tile_bytes, out, tile_bytes, false);
    const auto col_bytes = static_cast<std::size_t>(cols * sh.e);
    for (dim_t r = 0; r < rows; ++r) {
        if (stream)
            sh.copy(dst + r * dst_pitch, out + r * tile_bytes, col_bytes, true);
        else
            copy_short(dst + r * dst_pitch, out + r * tile_bytes, col_bytes);
    }
}

// The most a strip whose rows lie back to back stages whole (line_staging
// otherwise): within a core's L2 beside the source block it reads.
constexpr std::ptrdiff_t dense_staging_bytes = std::ptrdiff_t{256} << 10;

// Destination rows whose starts are not on a line boundary (a row pitch
// that is no multiple of 64 bytes: [N,C,41,100] or [N,C,14,14] f32 as NCHW)
// cannot take the tiles' streaming stores, and ordinary stores read every
// destination line before writing it. So a strip's column steps are
// transposed, a row group (a tile's rows) at a time, into this buffer in
// L1, whose rows lie at their destination rows' offsets within a line (its
// pitch equals the destination's modulo 64), and the group's whole
// destination lines are streamed from it. A row's last, partial line waits
// in a line of its own until the next step completes it; the strip's first
// and last partial line of each row (shared with the neighbouring strip or
// row) take ordinary stores. Strips whose rows lie back to back are staged
// whole instead (strip::stage_whole). Both measured faster than unstaged
// stores (docs/performance.md, "Why the kernels are tuned as they are").
class line_staging {
public:
    // Destination rows `dst_pitch` apart; `rows` rows in groups of at most
    // `group_rows`, steps of at most `step_bytes` per row, a multiple of 64
    // but for the last.
    line_staging(run_copy_fn copy, std::ptrdiff_t dst_pitch, dim_t rows, dim_t group_rows,
                 std::ptrdiff_t step_bytes)
        : copy_(copy), dst_pitch_(dst_pitch) {
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
            if (whole > from) copy_(to - waiting + from, line + from, static_cast<std::size_t>(whole - from), true);
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
    run_copy_fn copy_;
    std::ptrdiff_t dst_pitch_;
    std::ptrdiff_t pitch_ = 0;
    byte *waiting_ = nullptr; // a line per row: its waiting part
    byte *group_ = nullptr;   // a group's staged rows
    byte *last_ = nullptr;    // the last step's row 0 and bytes per row
    std::ptrdiff_t last_bytes_ = 0;
    bool first_ = true;
};

// The lines that `bytes` bytes from `at` touch: the first one's address
// and how many (for line_prefetch).
struct line_span {
    std::uintptr_t first;
    std::ptrdiff_t count;
};
line_span lines_touched(const void *at, std::ptrdiff_t bytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(at) / tile_bytes;
    const auto end = (reinterpret_cast<std::uintptr_t>(at) + static_cast<std::uintptr_t>(bytes) + tile_bytes - 1) / tile_bytes;
    return {begin * tile_bytes, static_cast<std::ptrdiff_t>(end - begin)};
}

// One strip's destination rows [row, row + rows) x columns [col, col_end)
// of one outer position, a column step of tiles at a time: rows may span
// several tiles, so each source row's neighbouring lines are read back to
// back. run() picks how its stores stream from where its rows lie.
class strip {
public:
    strip(const transpose_program &t, const byte *src, byte *dst, dim_t row, dim_t rows, dim_t col, dim_t col_end)
        : t_(t), src_(src + row * t.e + col * t.src_pitch), dst_(dst + row * t.dst_pitch + col * t.e), rows_(rows),
          n_(col_end - col) {}

    void run(bool stream) {
        // Rows back to back (the strip spans whole destination rows, whose
        // pitch is no multiple of a line): one destination run.
        if (stream && n_ * t_.e == t_.dst_pitch && t_.dst_pitch % tile_bytes != 0 &&
            rows_ * t_.dst_pitch <= dense_staging_bytes)
            return stage_whole();
        // Streaming needs every row of a tile on a line boundary: rows a
        // line apart, and a head of columns up to the first boundary.
        if (stream && t_.dst_pitch % tile_bytes == 0) return all_steps_aligned();
        if (stream && t_.dst_pitch > 0 && n_ >= step_cols()) return line_staged();
        all_steps(dst_, t_.dst_pitch, false);
    }

private:
    dim_t step_cols() const { return t_.wide ? t_.walk.wide * t_.t : t_.t; }

    void advance(dim_t cols) {
        src_ += cols * t_.src_pitch;
        dst_ += cols * t_.e;
        n_ -= cols;
    }

    // Rows [r, r + part) (part at most t) of `cols` (at most t) columns
    // from `from` (the first column's row r) into `d`, rows `pitch` apart.
    void tile_group(const byte *from, dim_t r, dim_t part, dim_t cols, byte *d, std::ptrdiff_t pitch,
                    bool streamed) const {
        if (cols == t_.t && part == t_.t)
            t_.tile(from + r * t_.e, t_.src_pitch, d, pitch, streamed);
        else
            partial_tile(t_, from + r * t_.e, d, pitch, cols, part, streamed && cols == t_.t);
    }

    // `cols` columns of every row into `to`, rows `pitch` apart.
    void tile_step(dim_t cols, byte *to, std::ptrdiff_t pitch, bool streamed) const {
        for (dim_t r = 0; r < rows_; r += t_.t)
            tile_group(src_, r, std::min(t_.t, rows_ - r), cols, to + r * pitch, pitch, streamed);
    }

    // The next wide step's source lines, for the step's prefetches: w * t
    // rows, each the lines this strip's rows cover; a share per whole wide
    // tile. Null when the walk does not prefetch or no step follows.
    // In the last-level cache (in_last_level), also the next step's
    // destination lines into `writes`: this strip's rows, `pitch` apart
    // from `to` (the current step's row 0), each the lines a step covers.
    line_prefetch *next_wide_step(line_prefetch &ahead, line_prefetch &writes, byte *to, std::ptrdiff_t pitch) const {
        const dim_t w = t_.walk.wide;
        if (!t_.walk.prefetch_ahead || n_ < 2 * w * t_.t) return nullptr;
        const line_span source = lines_touched(src_ + w * t_.t * t_.src_pitch, rows_ * t_.e);
        const dim_t lines = w * t_.t * source.count, calls = std::max<dim_t>(1, rows_ / t_.t);
        ahead = line_prefetch{source.first, t_.src_pitch, source.count, w * t_.t, 0,
                              static_cast<int>((lines + calls - 1) / calls)};
        if (t_.reach == in_last_level) {
            const line_span destination = lines_touched(to + w * t_.t * t_.e, w * t_.t * t_.e);
            writes = line_prefetch{destination.first, pitch, destination.count, rows_};
            ahead.writes = &writes;
        }
        return &ahead;
    }

    // Rows [r, r + part) of w * t columns: whole tiles side by side, so
    // each destination row gets runs of w lines (see tile_walk).
    void wide_group(dim_t r, dim_t part, byte *d, std::ptrdiff_t pitch, bool streamed, line_prefetch *next) const {
        const byte *s = src_ + r * t_.e;
        if (part == t_.t) return t_.wide(s, t_.src_pitch, d, pitch, streamed, next);
        if (part == t_.t / 2 && t_.half_wide) {
            // The next step's source lines, a share per register block, as
            // whole tiles do (all at once before the call measured slower:
            // docs/performance.md, "Half tiles' prefetch"). Positions back
            // to back share lines: each line once.
            line_prefetch dense{};
            if (next && t_.src_pitch == tile_bytes / 2) {
                const std::ptrdiff_t lines = t_.walk.wide * t_.t / 2;
                dense = line_prefetch{next->row, 0, lines, 1, 0, static_cast<int>(lines)};
                next = &dense;
            }
            return t_.half_wide(s, t_.src_pitch, d, pitch, streamed, next);
        }
        for (int w = 0; w < t_.walk.wide; ++w) // the last rows: tile by tile
            partial_tile(t_, s + w * t_.t * t_.src_pitch, d + w * t_.t * t_.e, pitch, t_.t, part, streamed);
    }

    // The lines of the wide call after the one of rows [r, r + t) (the
    // step's next row group, else the next step's first), for
    // tile_walk::prefetch_next_group: w * t source rows, each the lines of
    // the group's rows, and the group's destination rows, each the lines
    // a step covers. Null where no call follows in this strip.
    line_prefetch *next_wide_group(dim_t r, line_prefetch &ahead, line_prefetch &writes, byte *to,
                                   std::ptrdiff_t pitch) const {
        const dim_t w = t_.walk.wide, step_cols = w * t_.t;
        dim_t row = r + t_.t, cols = 0;
        if (row >= rows_) {
            if (n_ < 2 * step_cols) return nullptr;
            row = 0;
            cols = step_cols;
        }
        const dim_t part = std::min(t_.t, rows_ - row);
        const line_span source = lines_touched(src_ + cols * t_.src_pitch + row * t_.e, part * t_.e);
        const line_span destination = lines_touched(to + cols * t_.e + row * pitch, step_cols * t_.e);
        ahead = line_prefetch{source.first, t_.src_pitch, source.count, step_cols, 0,
                              static_cast<int>(step_cols * source.count)};
        writes = line_prefetch{destination.first, pitch, destination.count, part};
        ahead.writes = &writes;
        return &ahead;
    }

    void wide_step(byte *to, std::ptrdiff_t pitch, bool streamed) const {
        line_prefetch ahead{}, writes{};
        if (t_.walk.prefetch_next_group) {
            for (dim_t r = 0; r < rows_; r += t_.t)
                wide_group(r, std::min(t_.t, rows_ - r), to + r * pitch, pitch, streamed,
                           next_wide_group(r, ahead, writes, to, pitch));
            return;
        }
        line_prefetch *next = next_wide_step(ahead, writes, to, pitch);
        for (dim_t r = 0; r < rows_; r += t_.t)
            wide_group(r, std::min(t_.t, rows_ - r), to + r * pitch, pitch, streamed, next);
    }

    // Every remaining column into `to` (the current column's row 0), rows
    // `pitch` apart: wide steps, then tiles, then the last columns.
    // In the caches, columns narrower than a wide step but more than a tile
    // (NHWC as NCHW at 7 x 7 or 14 x 14), and all columns of a walk without
    // wide steps (16-byte elements), go row tile by row tile, across all
    // the columns before the next rows: column tile by column tile, each
    // destination line (a tile row's 64 bytes straddle two) was written
    // again a whole strip of rows later, by then out of L1
    // (docs/performance.md).
    void all_steps(byte *to, std::ptrdiff_t pitch, bool streamed) {
        const dim_t wide_cols = t_.walk.wide * t_.t;
        if (!streamed && t_.reach == in_cache && (!t_.wide || n_ < wide_cols) && n_ > t_.t) {
            for (dim_t r = 0; r < rows_; r += t_.t)
                for (dim_t c = 0; c < n_; c += t_.t)
                    tile_group(src_ + c * t_.src_pitch, r, std::min(t_.t, rows_ - r), std::min(t_.t, n_ - c),
                               to + r * pitch + c * t_.e, pitch, false);
            return advance(n_);
        }
        if (t_.wide)
            for (; n_ >= wide_cols; to += wide_cols * t_.e, advance(wide_cols)) wide_step(to, pitch, streamed);
        for (; n_ >= t_.t; to += t_.t * t_.e, advance(t_.t)) tile_step(t_.t, to, pitch, streamed);
        if (n_ > 0) tile_step(n_, to, pitch, false);
    }

    // The strip's destination is one run: staged whole in the cache, at the
    // destination's offset within a line, and streamed as one run, whose
    // first and last partial line alone take ordinary stores.
    void stage_whole() {
        const std::ptrdiff_t run_bytes = rows_ * t_.dst_pitch;
        byte *buffer = staging_buffer(static_cast<std::size_t>(run_bytes + 2 * tile_bytes));
        byte *staged = buffer + (tile_bytes - line_offset(buffer)) + line_offset(dst_);
        byte *run = dst_;
        all_steps(staged, t_.dst_pitch, false);
        t_.copy(run, staged, static_cast<std::size_t>(run_bytes), true);
    }

    // Rows on line boundaries: a head of ordinary stores up to the first
    // boundary, then streamed tiles. A head only pays when whole tiles
    // follow it: a strip one tile wide (nChw16c's 16 channels) would
    // otherwise become two partial tiles at every row, where one whole tile
    // with ordinary stores costs far less.
    void all_steps_aligned() {
        const std::ptrdiff_t misalign = line_offset(dst_);
        const dim_t head = (tile_bytes - misalign) / t_.e;
        if (misalign % t_.e != 0 || (misalign != 0 && n_ - head < t_.t)) return all_steps(dst_, t_.dst_pitch, false);
        if (misalign != 0) {
            tile_step(std::min<dim_t>(n_, head), dst_, t_.dst_pitch, false);
            advance(std::min<dim_t>(n_, head));
        }
        all_steps(dst_, t_.dst_pitch, true);
    }

    // Rows off line boundaries: a row group at a time through a
    // line_staging, so the staged rows stay in L1.
    void line_staged() {
        const dim_t cols = step_cols();
        const std::ptrdiff_t step_bytes = cols * t_.e;
        line_staging staging(t_.copy, t_.dst_pitch, rows_, t_.t, step_bytes);
        for (; n_ >= cols; advance(cols)) {
            line_prefetch ahead{}, writes{};
            line_prefetch *next = t_.wide ? next_wide_step(ahead, writes, dst_, t_.dst_pitch) : nullptr;
            for (dim_t r = 0; r < rows_; r += t_.t) {
                const dim_t part = std::min(t_.t, rows_ - r);
                byte *d = staging.group(dst_, r, part);
                if (t_.wide) wide_group(r, part, d, staging.pitch(), false, next);
                else tile_group(src_, r, part, t_.t, d, staging.pitch(), false);
                staging.flush(dst_, r, part, step_bytes);
            }
            staging.end_step(dst_, step_bytes);
        }
        // The last columns: tile by tile into each group's staged rows.
        if (n_ > 0) {
            const std::ptrdiff_t bytes = n_ * t_.e;
            for (dim_t r = 0; r < rows_; r += t_.t) {
                const dim_t part = std::min(t_.t, rows_ - r);
                byte *d = staging.group(dst_, r, part);
                for (dim_t c = 0; c < n_; c += t_.t)
                    tile_group(src_ + c * t_.src_pitch, r, part, std::min(t_.t, n_ - c), d + c * t_.e, staging.pitch(),
                               false);
                staging.flush(dst_, r, part, bytes);
            }
            staging.end_step(dst_, bytes);
        }
        staging.finish(rows_);
    }

    const transpose_program &t_;
    const byte *src_;
    byte *dst_;
    dim_t rows_, n_; // n_: columns left
};

// A blocked format's inner block: whole groups of cols rows through the
// block kernel (strip_rows is a multiple of cols), the last few through a
// partial tile strip. Streamed where the run starts on a row boundary.
void block_strip(const transpose_program &t, const byte *src, byte *dst, dim_t row, dim_t rows, bool stream) {
    const dim_t whole = rows / t.cols * t.cols;
    byte *to = dst + row * t.dst_pitch;
    const bool aligned = reinterpret_cast<std::uintptr_t>(to) % static_cast<std::uintptr_t>(t.dst_pitch) == 0;
    t.block_rows(src + row * t.e, t.src_pitch, to, static_cast<std::size_t>(whole), stream && aligned);
    if (whole < rows) strip(t, src, dst, row + whole, rows - whole, 0, t.cols).run(false);
}

} // namespace

namespace {

kernel_call whole_call(const transpose_program &t) {
    return {.entry = t.whole, .src_pitch = t.src_pitch, .dst_pitch = t.dst_pitch, .rows = t.rows, .cols = t.cols};
}

} // namespace

kernel_call whole_kernel_call(const movement_program &p) {
    const auto *t = std::get_if<transpose_program>(&p.detail);
    return t && t->whole ? whole_call(*t) : kernel_call{};
}

void run_transpose(const movement_program &p, const transpose_program &t, const byte *src, byte *dst) {
    // One unit on the calling thread (a 4 KiB transpose), without the unit
    // walk below: one call of whole tiles where planned so (plan_transpose),
    // else its strip at the origin.
    if (p.split.units == 1 && !p.split.parallel) {
        if (t.whole) return t.whole(whole_call(t), src, dst);
        const dim_t rows = std::min(t.strip_rows, t.rows);
        if (t.block_rows)
            block_strip(t, src, dst, 0, rows, p.stream);
        else
            strip(t, src, dst, 0, rows, 0, std::min(t.cols, t.piece_cols)).run(p.stream);
        if (p.stream) store_fence();
        return;
    }
    const auto pieces = static_cast<std::size_t>(t.pieces), row_tiles = static_cast<std::size_t>(t.row_tiles);
    for_units(p.split, p.stream, [&](std::size_t begin, std::size_t end) {
        // Unit u: piece u % pieces of strip u / pieces, whose row tile and
        // outer position advance as an odometer: the three 64-bit divisions
        // per unit (and an outer walk's set-up) had cost a tenth of a 4 KiB
        // execute (perf annotate of run_transpose).
        const std::size_t first_strip = begin == 0 ? 0 : begin / pieces;
        std::size_t piece = begin - first_strip * pieces;
        std::size_t row_tile = first_strip == 0 ? 0 : first_strip % row_tiles;
        outer_walk at(t.outer, first_strip == 0 ? 0 : first_strip / row_tiles);
        for (std::size_t u = begin; u < end; ++u) {
            const auto row = static_cast<dim_t>(row_tile) * t.strip_rows;
            const dim_t col = static_cast<dim_t>(piece) * t.piece_cols;
            if (col < t.cols) {
                const dim_t rows = std::min(t.strip_rows, t.rows - row);
                if (t.block_rows)
                    block_strip(t, src + at.src(), dst + at.dst(), row, rows, p.stream);
                else
                    strip(t, src + at.src(), dst + at.dst(), row, rows, col, std::min(t.cols, col + t.piece_cols))
                        .run(p.stream);
            }
            if (++piece == pieces) {
                piece = 0;
                if (++row_tile == row_tiles) {
                    row_tile = 0;
                    if (u + 1 < end) at.next();
                }
            }
        }
    });
}

} // namespace reshaper::impl
