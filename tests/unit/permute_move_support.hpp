// A dense tensor read in another order of its dims into the dense layout of
// that order (what scripts/bench_report.py's permute_graph moves): the one
// description the kernels' and the padded-edge tests build their moves from.
#pragma once

#include <cstddef>
#include <vector>

#include "core/dims.hpp"

namespace reshaper::impl::testing {

// Row-major strides of `dims`, in elements.
inline dims_t row_major_strides(const dims_t &dims) {
    dims_t strides(dims.size());
    dim_t stride = 1;
    for (std::size_t k = dims.size(); k-- > 0;) {
        strides[k] = stride;
        stride *= dims[k];
    }
    return strides;
}

struct permute_move {
    dims_t dims, src_strides, dst_strides;
    dim_t volume = 1; // elements
    dim_t offset = 0; // of the source in its buffer, in elements
};

// A dense source of `src_dims`, `offset` elements into its buffer, read in
// the order `perm` into the dense layout of the dims in that order.
inline permute_move permute(const dims_t &src_dims, const std::vector<int> &perm, dim_t offset = 0) {
    const dims_t src_dense = row_major_strides(src_dims);
    permute_move m;
    for (int p : perm) {
        m.dims.push_back(src_dims[static_cast<std::size_t>(p)]);
        m.src_strides.push_back(src_dense[static_cast<std::size_t>(p)]);
        m.volume *= src_dims[static_cast<std::size_t>(p)];
    }
    m.dst_strides = row_major_strides(m.dims);
    m.offset = offset;
    return m;
}

} // namespace reshaper::impl::testing
