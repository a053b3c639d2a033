// A chain of reshapes and axis permutations composed into strided views of
// the memory its input's strides address.
//
// A reshape keeps the row-major order of the elements and a permutation
// only reorders axes, so a chain of them (reshape, transpose, squeeze,
// unsqueeze, flatten) is, as long as it can be, one strided view of its
// input's buffer: dims and element strides which, read in row-major order,
// are the chain's output. A reshape applies the view rule (PyTorch's
// view, layout/view_strides) to the strided view reached so far; a
// permutation permutes its sizes and strides. Where a step is not a view
// of the memory (a permutation moves a dim whose elements the view cannot
// address with one stride), the chain is cut there into segments, each of
// which one dense temporary hands to the next. The decision is made on the
// memory the strides address, not on the logical order of the dims: dims
// whose strides nest merge, whatever permutation brought them together, as
// in numpy and PyTorch. Small pure functions; every chain lowering asks
// them.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/checked_math.hpp"

namespace reshaper::impl {

// One op of a chain, as its rule resolved it.
struct chain_step {
    dims_t output_dims;
    // Empty: a reshape to output_dims. Otherwise output axis i is input
    // axis permutation[i].
    std::vector<std::size_t> permutation;
};

// The output of `steps` (applied to a tensor of `dims` with element
// `strides`) as a view made step by step, as PyTorch makes one: each
// reshape takes the view rule's strides of the view reached so far, each
// permutation permutes sizes and strides. Its strides, or nothing when a
// step is not a view. The strides PyTorch gives such a chain's result,
// size-1 dims included; consecutive steps must agree on dims (else
// error(invalid_arguments)).
std::optional<dims_t> stepwise_view_strides(const dims_t &dims, const dims_t &strides,
                                            const std::vector<chain_step> &steps);

// One segment: its source buffer read as the strided view (view_dims,
// view_strides) whose elements, in row-major order, are the segment's
// output (of output_dims). The view is as coarse as the memory allows:
// no size-1 dims, and no two neighbours whose strides nest.
struct composed_view {
    dims_t input_dims;
    dims_t view_dims;
    dims_t view_strides;
    dims_t output_dims;
};

// The chain's segments, in order: the first reads `input_dims` from a
// buffer that holds it as `source_dims` (input_dims itself, or a
// refinement such as a blocked format's dims, read in row-major order) with
// element strides `source_strides`; each later one reads the dense output
// of the one before. One segment whenever every permutation moves dims the
// view can address (always when every step is a view, see
// stepwise_view_strides; also when a reshape that is no view is undone
// before the next permutation). Every dim must be known and the volume
// positive (a zero-volume chain moves nothing: the caller skips it);
// consecutive steps must agree on dims and volume (the ops' rules made
// sure), else error(invalid_arguments); strides that overflow int64:
// error(invalid_shape).
std::vector<composed_view> compose_chain(const dims_t &input_dims, const dims_t &source_dims,
                                         const dims_t &source_strides,
                                         const std::vector<chain_step> &steps);

// The coarsest dims that refine both `a` and `b` (of the same volume; size-1
// dims are ignored), or nothing when their boundaries do not nest (or a
// dim is zero or negative, or the volumes differ).
std::optional<dims_t> common_refinement(const dims_t &a, const dims_t &b);

} // namespace reshaper::impl
