// A chain of reshapes and axis permutations composed into strided views.
//
// A reshape keeps the row-major order of the elements and a permutation
// only reorders axes, so a chain of them (reshape, transpose, squeeze,
// unsqueeze, flatten) maps its output to its input as
//
//     output = reshape(permute(reshape(input, fine_dims), order), output_dims)
//
// whenever the chain's dims nest: fine_dims refine the input's dims, and
// every dim a permutation moves is a run of whole fine dims. Over
// fine_dims the input's own strides always exist (splitting a dim is always
// a view), so the composed chain is one strided tensor over the input's
// buffer: free when the view rule lets the output view it, else one pass
// of a transpose. When a chain's dims do not nest (a permutation moves a
// dim that an earlier reshape cut across permuted fine dims), the chain is
// cut there into segments, each of which one dense temporary hands to the
// next. One small pure function; every chain lowering asks it.
#pragma once

#include <cstddef>
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

// One segment: the input (of input_dims) read as fine_dims, permuted by
// order, read in row-major order as output_dims.
struct composed_view {
    dims_t input_dims;
    dims_t fine_dims;               // refines input_dims; no size-1 dims
    std::vector<std::size_t> order; // a permutation of fine_dims' indices
    dims_t output_dims;

    // fine_dims[order[0]], fine_dims[order[1]], ...: the input's elements
    // in output order, before the final reshape.
    dims_t permuted_dims() const;
    // Whether order is the identity (the segment is a plain reshape).
    bool keeps_order() const;
};

// The chain's segments, in order: the first reads `input_dims` as the finer
// `source_dims` (input_dims itself, or a refinement such as a blocked
// format's dims), each later one reads the dense output of the one before.
// One segment whenever the chain's dims nest. Every dim must be known and
// the volume positive (a zero-volume chain moves nothing: the caller skips
// it); consecutive steps must agree on dims and volume (the ops' rules made
// sure), else error(invalid_arguments).
std::vector<composed_view> compose_chain(const dims_t &input_dims, const dims_t &source_dims,
                                         const std::vector<chain_step> &steps);

// The strides of the segment's permuted dims over a buffer that holds its
// input as `source_dims` with `source_strides` (source_dims as given to
// compose_chain, or input_dims for a later segment). Always exists.
dims_t permuted_strides(const composed_view &view, const dims_t &source_dims,
                        const dims_t &source_strides);

} // namespace reshaper::impl
