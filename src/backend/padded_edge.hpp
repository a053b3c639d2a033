// The last, partly valid block of a padded blocked destination (nchw into
// nChw16c over 250 channels: 10 valid channels and 6 zeros per line),
// written once. As boxes, its valid channels went through partial tiles
// (streamed into each line), then its padding zeros went into the same
// lines in a second pass with ordinary stores, which read every such line
// back from memory. Here the valid source rows of a chunk of positions are
// copied into an L1 buffer whose remaining rows are zeros, and the whole
// block is transposed from there into the destination, every line written
// once, streamed like the whole blocks (docs/performance.md, "Why the
// kernels are tuned as they are").
//
// The mirror, out of a padded blocked source (nChw16c over 250 channels
// into nchw): as boxes, its last block's 10 valid channels went through
// partial tiles (through buffers and `memcpy`), at half the whole blocks'
// speed. Here a chunk of positions
// is transposed whole (its padding lanes too: they lie in the padded
// buffer) into an L1 buffer, from which the valid rows are streamed out.
#pragma once

#include <cstddef>
#include <optional>

#include "core/data_type.hpp"
#include "kernels/movement_program.hpp"
#include "layout/blocked_views.hpp"

namespace reshaper::impl {

struct padded_edge_plan {
    std::size_t element_bytes = 0;
    dim_t valid = 0, block = 0;        // valid rows of the block's `block`
    dim_t positions = 0, chunk = 0;    // positions along the block rows' dim, staged `chunk` at a time
    dim_t outer = 1;                   // positions of the dim outside (batch)
    std::ptrdiff_t src_outer = 0, dst_outer = 0; // bytes per outer position
    std::ptrdiff_t src_row = 0;        // bytes between the source's valid rows (channels)
    std::ptrdiff_t src_offset = 0, dst_offset = 0; // the edge's first element, bytes
    movement_program whole, rest;      // a chunk's block transpose, and the last (shorter) chunk's
    bool has_rest = false;
    // Out of a padded blocked source: `whole` and `rest` transpose a chunk
    // into the buffer, `out_whole` and `out_rest` stream its valid rows to
    // the destination's rows, `dst_row` bytes apart.
    bool blocked_source = false;
    std::ptrdiff_t dst_row = 0;
    movement_program out_whole, out_rest;
};

// The fused edge of `boxes` (one padded dim): with the blocked destination
// (`blocked` is blocked_end::destination) its valid copy is
// `boxes.copies.back()`, its padding `boxes.padding[0]`, which follows it
// within each destination block; with the blocked source, its valid copy
// `boxes.copies.back()`, whose block's other lanes the padded buffer
// holds. Nothing where the boxes have another form (then they run as
// boxes). Planned for steps that stream (kernel_movement), so its chunks
// stream.
std::optional<padded_edge_plan> plan_padded_edge(data_type type, const padded_boxes &boxes, blocked_end blocked,
                                                 const machine_facts &machine);

// Runs it: src and dst are the step's buffers.
void run_padded_edge(const padded_edge_plan &plan, const void *src, void *dst);

} // namespace reshaper::impl
