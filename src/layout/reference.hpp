// The reference reshape: an element-by-element walk of the logical index,
// for every dtype and layout. Deliberately simple and independent of the
// lowering (no view rule, no oneDNN, no coalescing): the tests and
// `reshaper-run --mode=check` compare every lowering against it.
#pragma once

#include "core/logical_tensor.hpp"
#include "layout/chain_view.hpp"

namespace reshaper::impl {

// Copies the elements of `src` (read in row-major order of its logical
// index) into `dst` (written in row-major order of its logical index). Both
// tensors have known shapes of equal volume and layout strided (strides, or
// dense when empty) or opaque (format tag). Buffers as in strided_copy.hpp.
void reference_reshape(const logical_tensor &src_desc, const void *src,
                       const logical_tensor &dst_desc, void *dst);

// The same, with each tensor's elements counted from an element offset into
// its buffer (an offset that is not a multiple of 8 / bits starts a packed
// tensor inside a byte: an odd one a 4-bit tensor at a high nibble).
void reference_reshape(const logical_tensor &src_desc, const void *src, dim_t src_offset,
                       const logical_tensor &dst_desc, void *dst, dim_t dst_offset);

// The reference chain: `input` (the row-major values of a tensor of
// `input_dims`) with each step applied in turn, every permutation
// materialised element by element; returns the row-major values of the
// chain's last output. Reshapes keep the values as they are. Independent of
// compose_chain, which the tests and check mode hold against it.
tensor_values reference_chain(const tensor_values &input, const dims_t &input_dims,
                              const std::vector<chain_step> &steps);

} // namespace reshaper::impl
