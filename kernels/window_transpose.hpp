// Window transpose: a tiled transpose whose short side spans several dims.
// Window partitions ([N,C,H,W] -> [N,windows,wh*ww,C], maxvit_t's and
// swin_t's) make the source's contiguous dim a window's width, 7 elements:
// the tiled transpose then reads 28-byte runs per source row and fills a
// tenth of each register tile. But the window's width, the windows across
// and the image rows are contiguous together in the source (the whole
// image of a channel is), so a tile row can span them: a source run of
// `span` elements, whose destination rows follow no single pitch (w_inner
// * C, w_outer * wh*ww*C, ...): a table made at plan time gives each one's
// offset. Tiles are transposed into a staging buffer in L1 (the span's
// rows of a block of channels), whose rows are then copied to their
// destination rows.
// Window merges (the inverse) mirror it: the destination's contiguous run
// is a window's width, and the dims that continue it in the destination
// span a destination run; each of its elements is a source row of
// channels found through the table. A block of channels of every source
// row is gathered into the staging buffer, and transposed from there
// into the destination's rows (one per channel), span elements long.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "kernels/copy_plan.hpp"
#include "kernels/isa_kernels.hpp"

namespace reshaper::impl {

struct window_transpose_program {
    bool merge = false;        // the span is a destination run (window merge), not a source run
    tile_transpose_fn tile = nullptr;
    run_copy_fn copy = nullptr;
    std::ptrdiff_t e = 0;      // element bytes
    dim_t t = 0;               // tile side in elements
    dim_t span = 0;            // elements of the contiguous run the span dims make
    dim_t span_dims = 0;       // dims it spans
    dim_t short_run = 0;       // the innermost of them alone (the tiled transpose's run), elements
    dim_t across = 0;          // the other side: the destination's contiguous dim (partition) or the source's (merge)
    dim_t block = 0;           // of `across`, staged at a time (a multiple of t, or all)
    dim_t blocks = 0;
    std::ptrdiff_t across_pitch = 0; // bytes between source columns (partition) or destination rows (merge)
    std::vector<std::ptrdiff_t> span_offsets; // each span element's destination (partition) or source (merge) bytes
    outer_dims outer;
};

// The span of `plan`, whose source-contiguous dim (other than the
// innermost) is `k`: for a partition (k's run under a line), k and the
// dims contiguous in the source after it; for a merge (the innermost dim's
// run under a line, k's at least as long), the innermost and the dims
// contiguous in the destination after it. Taken while a tile-wide column
// of staging fits in L1. Nothing when no second dim joins.
struct window_span {
    bool merge = false;
    std::vector<std::size_t> dims; // indices into plan.dims, innermost first
    dim_t span = 0;
};
std::optional<window_span> choose_window_span(const copy_plan &plan, std::size_t element_bytes, int k);

// Planned by plan_movement's branch (movement_planner.cpp).
window_transpose_program plan_window_transpose(const copy_plan &plan, std::size_t element_bytes, int k,
                                               const window_span &w, const isa_kernels &kernels);

} // namespace reshaper::impl
