// Run copy: the innermost dim is contiguous in both tensors, so the move is
// a sequence of contiguous runs (a dense copy is one run). Short runs are
// visited in the source's order, a unit of runs per call, so the reads
// stream through whole pages while each destination run still gets whole
// lines; long runs are cut into pieces so that even one run keeps every
// core busy (plan_run_copy decides which).
#include <algorithm>

#include "kernels/movement_units.hpp"

namespace reshaper::impl {

void run_copy_runs(const movement_program &p, const run_copy_program &r, const byte *src, byte *dst) {
    const bool stream = p.stream;
    if (r.short_runs) {
        for_units(p.split, stream, [&](std::size_t begin, std::size_t end) {
            outer_walk walk(r.outer, begin / r.units_per_row);
            for (std::size_t u = begin; u < end; ++u) {
                const auto first = static_cast<std::ptrdiff_t>((u % r.units_per_row) * r.per_unit);
                r.copy_runs(dst + walk.dst() + first * r.along_dst, r.along_dst, src + walk.src() + first * r.along_src,
                            r.along_src, r.run_bytes,
                            std::min(r.per_unit, r.along_count - static_cast<std::size_t>(first)), stream);
                if (u % r.units_per_row == r.units_per_row - 1) walk.next();
            }
        });
        return;
    }
    for_units(p.split, stream, [&](std::size_t begin, std::size_t end) {
        outer_walk walk(r.outer, begin / r.pieces);
        for (std::size_t u = begin; u < end; ++u) {
            const std::size_t from = (u % r.pieces) * r.piece;
            r.copy(dst + walk.dst() + from, src + walk.src() + from, std::min(r.piece, r.run_bytes - from), stream);
            if (u % r.pieces == r.pieces - 1) walk.next();
        }
    });
}

} // namespace reshaper::impl
