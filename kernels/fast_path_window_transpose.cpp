// Window transpose (window_transpose.hpp): its planner and executor.
#include <algorithm>
#include <cstring>

#include "kernels/movement_units.hpp"
#include "kernels/window_transpose.hpp"

namespace reshaper::impl {
namespace {

// A tile-wide column of staging for the whole span stays in L1 beside the
// lines the tiles read: at most this many bytes...
constexpr std::size_t max_staged_bytes = std::size_t{24} << 10;
// ...and a block of columns grows to this many, so each staged row is
// copied in runs of a few lines.
constexpr std::size_t staging_block_bytes = std::size_t{24} << 10;
// Runs shorter than this (a window's width) are what the span lengthens:
// from a line on, the tiled transpose reads and writes whole lines.
constexpr dim_t short_run_bytes = 64;

// The dims continuing `first`'s run (stride 1 in the tensor `stride`
// reads: source or destination), other than `skip` and the innermost when
// `skip_inner`, while the span fits.
window_span continue_run(const copy_plan &plan, std::size_t first, std::size_t skip, dim_t e,
                         dim_t (*stride)(const copy_dim &)) {
    const dim_t t = static_cast<dim_t>(tile_bytes) / e;
    window_span w;
    w.dims.push_back(first);
    w.span = plan.dims[first].size;
    for (;;) {
        std::size_t next = plan.dims.size();
        for (std::size_t d = 0; d < plan.dims.size(); ++d)
            if (d != skip && std::find(w.dims.begin(), w.dims.end(), d) == w.dims.end() &&
                stride(plan.dims[d]) == w.span)
                next = d;
        if (next == plan.dims.size()) break;
        const dim_t span = w.span * plan.dims[next].size;
        const dim_t padded = (span + t - 1) / t * t;
        if (static_cast<std::size_t>(padded * t * e) > max_staged_bytes) break;
        w.dims.push_back(next);
        w.span = span;
    }
    return w;
}

} // namespace

std::optional<window_span> choose_window_span(const copy_plan &plan, std::size_t element_bytes, int k) {
    if (k < 0) return std::nullopt;
    const auto e = static_cast<dim_t>(element_bytes);
    const std::size_t inner = plan.dims.size() - 1, rows = static_cast<std::size_t>(k);
    window_span w;
    if (plan.dims[rows].size * e < short_run_bytes) {
        w = continue_run(plan, rows, inner, e, [](const copy_dim &d) { return d.src_stride; });
    } else if (plan.dims[inner].size * e < short_run_bytes) {
        w = continue_run(plan, inner, rows, e, [](const copy_dim &d) { return d.dst_stride; });
        w.merge = true;
    }
    if (w.dims.size() < 2) return std::nullopt;
    return w;
}

window_transpose_program plan_window_transpose(const copy_plan &plan, std::size_t element_bytes, int k,
                                               const window_span &w, const isa_kernels &kernels) {
    window_transpose_program p;
    const auto e = static_cast<std::ptrdiff_t>(element_bytes);
    p.merge = w.merge;
    p.tile = kernels.tile[element_size_class(element_bytes)];
    p.copy = kernels.copy;
    p.e = e;
    p.t = tile_bytes / e;
    p.span = w.span;
    p.span_dims = static_cast<dim_t>(w.dims.size());
    p.short_run = plan.dims[w.dims.front()].size;
    // The other side: the destination's contiguous dim (the innermost) for
    // a partition, the source's (k) for a merge.
    const copy_dim &other = plan.dims[w.merge ? static_cast<std::size_t>(k) : plan.dims.size() - 1];
    p.across = other.size;
    p.across_pitch = (w.merge ? other.dst_stride : other.src_stride) * e;
    // Each span element's place in the other tensor: the row-major
    // odometer over the span's dims (innermost first).
    p.span_offsets.assign(static_cast<std::size_t>(p.span), 0);
    for (dim_t v = 0; v < p.span; ++v) {
        dim_t rest = v, offset = 0;
        for (std::size_t d : w.dims) {
            const copy_dim &dim = plan.dims[d];
            offset += rest % dim.size * (w.merge ? dim.src_stride : dim.dst_stride);
            rest /= dim.size;
        }
        p.span_offsets[static_cast<std::size_t>(v)] = offset * e;
    }
    const dim_t padded = (p.span + p.t - 1) / p.t * p.t;
    const dim_t tiles_wide = std::max<dim_t>(1, static_cast<dim_t>(staging_block_bytes) / (padded * p.t * e));
    p.block = std::min(p.across, tiles_wide * p.t);
    p.blocks = (p.across + p.block - 1) / p.block;
    const std::size_t other_index = w.merge ? static_cast<std::size_t>(k) : plan.dims.size() - 1;
    for (std::size_t d = 0; d < plan.dims.size(); ++d)
        if (d != other_index && std::find(w.dims.begin(), w.dims.end(), d) == w.dims.end())
            p.outer.add(plan.dims[d], e);
    return p;
}

namespace {

// `rows` source rows of `cols` elements (each count at most t; row c at
// from + c * from_pitch) into `cols` destination rows of `rows` elements
// at `to`, `to_pitch` apart. Whole tiles in registers; edges through a
// tile buffer, reading and writing only the valid elements.
void tile_or_edge(const window_transpose_program &w, const byte *from, std::ptrdiff_t from_pitch, byte *to,
                  std::ptrdiff_t to_pitch, dim_t rows, dim_t cols) {
    if (rows == w.t && cols == w.t) return w.tile(from, from_pitch, to, to_pitch, false);
    alignas(64) byte in[tile_bytes * tile_bytes];
    alignas(64) byte out[tile_bytes * tile_bytes];
    const auto row_bytes = static_cast<std::size_t>(cols * w.e);
    for (dim_t r = 0; r < rows; ++r) std::memcpy(in + r * tile_bytes, from + r * from_pitch, row_bytes);
    w.tile(in, tile_bytes, out, tile_bytes, false);
    const auto col_bytes = static_cast<std::size_t>(rows * w.e);
    for (dim_t c = 0; c < cols; ++c) std::memcpy(to + c * to_pitch, out + c * tile_bytes, col_bytes);
}

// Every tile of `rows` x `cols` (row r at from + r * from_pitch, element c
// at + c * e) transposed to `to` (row c at to + c * to_pitch). Edges past a
// whole tile take the last whole tile instead, overlapping the one before
// (it moves the same elements again): whole tiles in registers, reading
// nothing outside the rows.
void transpose_all(const window_transpose_program &w, const byte *from, std::ptrdiff_t from_pitch, byte *to,
                   std::ptrdiff_t to_pitch, dim_t rows, dim_t cols) {
    for (dim_t r0 = 0; r0 < rows; r0 += w.t) {
        const dim_t r = rows - r0 < w.t && rows >= w.t ? rows - w.t : r0;
        for (dim_t c0 = 0; c0 < cols; c0 += w.t) {
            const dim_t c = cols - c0 < w.t && cols >= w.t ? cols - w.t : c0;
            tile_or_edge(w, from + r * from_pitch + c * w.e, from_pitch, to + c * to_pitch + r * w.e, to_pitch,
                         std::min(w.t, rows - r), std::min(w.t, cols - c));
        }
    }
}

// A run between the staging buffer and a row of the tensor: inline line
// copies (a call to memcpy per 64-256-byte run costs as much as the
// transpose), or the level's copy when streaming.
inline void copy_run(const window_transpose_program &w, byte *to, const byte *from, std::size_t bytes, bool stream) {
    if (stream) return w.copy(to, from, bytes, true);
    std::size_t i = 0;
    for (; i + tile_bytes <= bytes; i += tile_bytes) std::memcpy(to + i, from + i, tile_bytes);
    if (i < bytes) std::memcpy(to + i, from + i, bytes - i);
}

} // namespace

void run_window_transpose(const movement_program &p, const window_transpose_program &w, const byte *src,
                          byte *dst) {
    const auto blocks = static_cast<std::size_t>(w.blocks);
    for_units(p.split, p.stream, [&](std::size_t begin, std::size_t end) {
        const std::ptrdiff_t pitch = w.block * w.e; // staging: a row per span element, a block of `across` each
        byte *staged = staging_buffer(static_cast<std::size_t>(w.span * pitch));
        outer_walk at(w.outer, begin / blocks);
        for (std::size_t u = begin; u < end; ++u) {
            const auto block = static_cast<dim_t>(u % blocks);
            const dim_t first = block * w.block, count = std::min(w.block, w.across - first);
            const auto run_bytes = static_cast<std::size_t>(count * w.e);
            if (!w.merge) {
                // Source columns first..first+count, each a span-long run,
                // into staged rows; then each staged row to its row.
                transpose_all(w, src + at.src() + first * w.across_pitch, w.across_pitch, staged, pitch, count,
                              w.span);
                byte *to = dst + at.dst() + first * w.e;
                for (dim_t v = 0; v < w.span; ++v)
                    copy_run(w, to + w.span_offsets[static_cast<std::size_t>(v)], staged + v * pitch, run_bytes,
                             p.stream);
            } else {
                // Each span element's source row (channels first..) into
                // a staged row; then transposed into the destination's
                // rows, one per channel, span elements long.
                const byte *from = src + at.src() + first * w.e;
                for (dim_t v = 0; v < w.span; ++v)
                    copy_run(w, staged + v * pitch, from + w.span_offsets[static_cast<std::size_t>(v)], run_bytes,
                             false);
                transpose_all(w, staged, pitch, dst + at.dst() + first * w.across_pitch, w.across_pitch, w.span,
                              count);
            }
            if (block + 1 == w.blocks) at.next();
        }
    });
}

} // namespace reshaper::impl
