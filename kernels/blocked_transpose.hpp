// Blocked transpose: a streamed tiled transpose walked in the source's
// memory order. The tiled transpose walks its outer dims in the
// destination's order, columns innermost; where a blocked format's inner
// block (one tile of rows or of columns: the 16 x 16 f32 blocks of
// ABcd16a16b) makes that order jump through the source, its reads stall
// (ABcd16a16b -> abcd read 64 bytes of every KiB; abcd -> ABcd16a16b read
// 16 KiB runs 256 KiB apart). Here the units are the outer dims and the
// column steps in the source's order, the outer dims that lie inside one
// source column (ABcd16a16b's `a`, inside each c,d position) walked within
// a unit, so the source is read in runs of whole column tiles; a column of
// one tile that an outer dim continues in the destination (abcd ->
// ABcd16a16b's `a` after `b`) takes that dim as its column tiles; each tile writes
// whole destination lines with streaming stores, which measured as fast
// scattered as in order. The next unit's source lines are prefetched a
// share per tile, into the cache the level's streamed walks prefetch into
// (tile_walk::prefetch_locality); the column tiles a unit are the level's
// (isa_kernels::blocked_columns) (docs/performance.md, "Why the kernels
// are tuned as they are").
#pragma once

#include <cstddef>
#include <optional>

#include "kernels/copy_plan.hpp"
#include "kernels/isa_kernels.hpp"

namespace reshaper::impl {

struct blocked_transpose_program {
    tile_transpose_fn tile = nullptr;
    std::ptrdiff_t e = 0;   // element bytes
    dim_t t = 0;            // tile side in elements
    dim_t row_tiles = 0;    // tiles along the source's contiguous dim (rows)
    dim_t col_tiles = 0;    // tiles along the destination's contiguous dim (columns)
    std::ptrdiff_t tile_src_col = 0;  // bytes between column tiles in the source
    std::ptrdiff_t src_pitch = 0;     // bytes between source rows (one step of columns)
    std::ptrdiff_t dst_pitch = 0;     // bytes between destination rows (one step of rows)
    outer_dims outer;                 // outside a column, the source's order
    outer_dims inner;                 // inside a column (source stride under src_pitch), the source's order
    dim_t step_tiles = 1;             // column tiles per unit
    std::size_t tile_src_bytes = 0;   // a column tile's source in a unit, dense (0: not dense, no prefetch)
    bool aligned_lines = false;       // every tile row starts on a line when the buffer does
    int prefetch_locality = 3;        // the next unit's prefetches' (the level's streamed walk's)
};

// Whether a streamed transpose of elements of `element_bytes` (whose fast
// path is the tiled transpose) reads its source in order only when walked
// as a blocked transpose: whole tiles both ways, one side exactly one
// tile (a blocked format's inner block), and the tiled transpose's walk
// out of the source's order. Null where the tiled transpose keeps it.
std::optional<blocked_transpose_program> plan_blocked_transpose(const copy_plan &plan, std::size_t element_bytes,
                                                                const isa_kernels &kernels);

} // namespace reshaper::impl
