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

// The reference chain as an order of the input's elements: element i of
// the chain's output is element order[i] of its input (reference_chain run
// over the elements' indices). For one chain run over many inputs (check
// mode's partitions of one form): reference_gather takes a few
// instructions an element, where the walk's setup alone was some 4,000 a
// call (a [4, 8] transpose: a tenth of checking 100,000 of them).
std::vector<std::size_t> reference_order(const dims_t &input_dims, const std::vector<chain_step> &steps);
// The row-major values of `input` in `order` (reference_order's):
// reference_chain(input, dims, steps) == reference_gather(input,
// reference_order(dims, steps)).
tensor_values reference_gather(const tensor_values &input, const std::vector<std::size_t> &order);

} // namespace reshaper::impl
