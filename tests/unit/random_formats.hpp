// Random oneDNN-style blocked format tags and dims, for the tests that hold
// the blocked layouts' movers against their definitions (blocked_offset,
// the reference).
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/logical_tensor.hpp"

namespace reshaper::impl::testing {

// A tag of `rank` dims: the outer dims in a random order, up to two of them
// blocked (upper case) with one or, when `levels` is 2, sometimes two levels
// of blocks, the inner blocks in a random order ("AcBd3a4b2a"): a dim's
// blocks multiply to at most 32.
inline std::string random_format_tag(std::mt19937 &rng, std::size_t rank, int levels = 2) {
    std::vector<int> order(rank);
    for (std::size_t d = 0; d < rank; ++d) order[d] = static_cast<int>(d);
    std::shuffle(order.begin(), order.end(), rng);
    static const dim_t sizes[] = {2, 3, 4, 8};
    std::vector<std::pair<int, dim_t>> blocks;
    std::vector<bool> blocked(rank, false);
    const std::size_t blocked_dims = std::min<std::size_t>(rank, rng() % 3);
    for (std::size_t k = 0; k < blocked_dims; ++k) {
        const int d = order[rng() % rank];
        if (blocked[d]) continue;
        blocked[d] = true;
        const int count = levels == 2 && rng() % 2 == 0 ? 2 : 1;
        for (int l = 0; l < count; ++l) blocks.emplace_back(d, sizes[rng() % 4]);
    }
    std::shuffle(blocks.begin(), blocks.end(), rng);
    std::string tag;
    for (int d : order) tag += static_cast<char>((blocked[d] ? 'A' : 'a') + d);
    for (const auto &[d, size] : blocks) tag += std::to_string(size) + static_cast<char>('a' + d);
    return tag;
}

// Dims of `rank` (1 to 4) small enough that every padded buffer stays a few
// ten thousand elements, often not multiples of the blocks.
inline dims_t random_dims(std::mt19937 &rng, std::size_t rank) {
    const dim_t most = rank <= 2 ? 19 : rank == 3 ? 9 : 5;
    dims_t dims(rank);
    for (dim_t &d : dims) d = 1 + static_cast<dim_t>(rng() % static_cast<unsigned>(most));
    return dims;
}

// Dense strides of `dims` with the dims laid out in a random order.
inline dims_t random_dense_strides(std::mt19937 &rng, const dims_t &dims) {
    std::vector<std::size_t> order(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) order[d] = d;
    std::shuffle(order.begin(), order.end(), rng);
    dims_t strides(dims.size());
    dim_t stride = 1;
    for (std::size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = stride;
        stride *= dims[order[k]];
    }
    return strides;
}

} // namespace reshaper::impl::testing
