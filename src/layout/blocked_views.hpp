// A blocked format read through strided views: without padding the whole
// buffer is one strided view over finer dims (blocked_as_strided); with
// padding it is a few strided boxes (padded_as_boxes). Pure layout algebra:
// the movement plan (backend/movement_plan.hpp) and the kernel mover use it.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "core/logical_tensor.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {

// A blocked format without padding as a strided tensor over finer dims:
// each dim split into its outer part and its inner blocks (outermost
// first), which read in row-major order are the tensor's elements in
// row-major order. Nothing when a dim is padded (not a multiple of its
// blocks) or zero.
std::optional<std::pair<dims_t, dims_t>> blocked_as_strided(const blocked_format &format,
                                                           const dims_t &dims);

// A strided part of a move: `dims` elements at `*_offset` (elements from
// the side's buffer start) with `*_strides`.
struct strided_box {
    dims_t dims;
    dim_t src_offset = 0, dst_offset = 0;
    dims_t src_strides, dst_strides;
};

struct padded_boxes {
    std::vector<strided_box> copies;
    std::vector<strided_box> padding;
};
inline constexpr dim_t padding_zero_run = 64;

enum class blocked_end { source, destination };

// A move of a tensor of `dims` between a padded blocked layout (`format`,
// nChw16c over 13 channels) and a strided one (`plain_strides`), the
// blocked one at `blocked` end, as strided boxes: a padded dim of block B
// splits into its whole blocks and the valid part of its last block, each
// of which is a strided view in the padded buffer, so the move is at most
// 2^k strided copies (k padded dims). `padding`: when the blocked side is
// the destination, the boxes of its padding (dst side only; a padded dim's
// last B - D % B positions by every other dim's padded extent), which the
// copy zeroes as oneDNN's reorder does. A padding box reads a run of
// padding_zero_run zero elements: source stride 1 along the destination's
// contiguous dim when it is no longer than that (a run copy), else 0.
// Nothing for a padded dim with two levels of blocks, a zero dim, or
// strides of another rank.
std::optional<padded_boxes> padded_as_boxes(const dims_t &dims, const blocked_format &format,
                                            const dims_t &plain_strides, blocked_end blocked);

} // namespace reshaper::impl
