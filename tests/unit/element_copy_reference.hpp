// The kernels tests' reference for a strided copy of any element width:
// element (i0, i1, ...) of `dims` goes from byte (src_offset + sum(i_k *
// src_strides[k])) * e to the same place under the destination's strides,
// one index at a time. (The layout reference, used up to rank 12,
// re-derives each element's position from its flat index: minutes at rank
// 24, which the grouped transpose's tests reach.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>

#include "core/checked_math.hpp" // dims_t

namespace reshaper::impl::testing {

inline void element_copy_reference(const dims_t &dims, std::size_t e, const std::uint8_t *src,
                                   const dims_t &src_strides, dim_t src_offset, std::uint8_t *dst,
                                   const dims_t &dst_strides, dim_t dst_offset) {
    const dim_t volume = std::accumulate(dims.begin(), dims.end(), dim_t{1}, std::multiplies<>());
    const auto width = static_cast<dim_t>(e);
    dims_t index(dims.size(), 0);
    for (dim_t n = 0; n < volume; ++n) {
        dim_t s = src_offset, d = dst_offset;
        for (std::size_t k = 0; k < dims.size(); ++k) {
            s += index[k] * src_strides[k];
            d += index[k] * dst_strides[k];
        }
        std::memcpy(dst + d * width, src + s * width, e);
        for (std::size_t k = dims.size(); k-- > 0;) {
            if (++index[k] < dims[k]) break;
            index[k] = 0;
        }
    }
}

} // namespace reshaper::impl::testing
