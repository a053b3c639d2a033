// Run copy: the innermost dim is contiguous in both tensors, so the move is
// a sequence of contiguous runs (a dense copy is one run). Short runs are
// visited in the source's order, a unit of runs per call, so the reads
// stream through whole pages while each destination run still gets whole
// lines; long runs are cut into pieces so that even one run keeps every
// core busy (plan_run_copy decides which).
#include <algorithm>

#include "kernels/movement_units.hpp"

namespace reshaper::impl {
namespace {

// Calls body(src_offset, dst_offset, first, last) for each outer position
// whose units [first, last) of units_per_row lie in [begin, end), in order:
// one division to start, none per unit (at 32 KiB a division and a walk
// step per unit of runs cost a tenth of the copy, docs/performance.md).
// One outer dim (attention heads, channel shuffle's pair) is walked by its
// stride alone; more by outer_walk.
template <typename Body>
void for_rows(const outer_dims &outer, std::size_t units_per_row, std::size_t begin, std::size_t end,
              const Body &body) {
    std::size_t row = begin / units_per_row, first = begin % units_per_row;
    if (outer.sizes.size() <= 1) {
        const std::ptrdiff_t src_step = outer.sizes.empty() ? 0 : outer.src[0];
        const std::ptrdiff_t dst_step = outer.sizes.empty() ? 0 : outer.dst[0];
        for (std::size_t u = begin; u < end; ++row, first = 0) {
            const std::size_t last = std::min(units_per_row, first + (end - u));
            body(static_cast<std::ptrdiff_t>(row) * src_step, static_cast<std::ptrdiff_t>(row) * dst_step, first,
                 last);
            u += last - first;
        }
        return;
    }
    outer_walk walk(outer, row);
    for (std::size_t u = begin; u < end; first = 0) {
        const std::size_t last = std::min(units_per_row, first + (end - u));
        body(walk.src(), walk.dst(), first, last);
        u += last - first;
        walk.next();
    }
}

// Calls copy(src, dst, count) for each task's runs of one outer row, src and
// dst at the first of `count` runs along: a task's units of one row go in
// one call, units only share the runs between threads.
template <typename Copy>
void for_row_runs(const movement_program &p, const run_copy_program &r, const byte *src, byte *dst,
                  const Copy &copy) {
    for_units(p.split, p.stream, [&](std::size_t begin, std::size_t end) {
        for_rows(r.outer, r.units_per_row, begin, end,
                 [&](std::ptrdiff_t s, std::ptrdiff_t d, std::size_t first, std::size_t last) {
                     const std::size_t from = first * r.per_unit;
                     const std::size_t count = std::min(last * r.per_unit, r.along_count) - from;
                     const auto at = static_cast<std::ptrdiff_t>(from);
                     copy(src + s + at * r.along_src, dst + d + at * r.along_dst, count);
                 });
    });
}

} // namespace

void run_copy_runs(const movement_program &p, const run_copy_program &r, const byte *src, byte *dst) {
    const bool stream = p.stream;
    if (r.grid) {
        for_row_runs(p, r, src, dst, [&](const byte *from, byte *to, std::size_t count) {
            r.grid(to, r.along_dst, r.across_dst, from, r.along_src, r.across_src, r.run_bytes, count,
                   r.across_count);
        });
        return;
    }
    if (r.short_runs) {
        for_row_runs(p, r, src, dst, [&](const byte *from, byte *to, std::size_t count) {
            r.copy_runs(to, r.along_dst, from, r.along_src, r.run_bytes, count, stream);
        });
        return;
    }
    for_units(p.split, stream, [&](std::size_t begin, std::size_t end) {
        for_rows(r.outer, r.pieces, begin, end,
                 [&](std::ptrdiff_t s, std::ptrdiff_t d, std::size_t first, std::size_t last) {
                     for (std::size_t piece = first; piece < last; ++piece) {
                         const std::size_t from = piece * r.piece;
                         r.copy(dst + d + from, src + s + from, std::min(r.piece, r.run_bytes - from), stream);
                     }
                 });
    });
}

} // namespace reshaper::impl
