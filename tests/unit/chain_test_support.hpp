// Random chains of reshapes and permutations for the tests of their
// composition (layout) and lowering (backend).
#pragma once

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "core/checked_math.hpp"
#include "layout/chain_view.hpp"

namespace reshaper::impl::testing {

// Row-major positions of the tensor `dims` read through `strides`.
inline std::vector<dim_t> strided_positions(const dims_t &dims, const dims_t &strides) {
    std::vector<dim_t> out;
    const dim_t n = checked_volume(dims).value();
    dims_t idx(dims.size(), 0);
    for (dim_t i = 0; i < n; ++i) {
        dim_t a = 0;
        for (std::size_t k = 0; k < dims.size(); ++k) a += idx[k] * strides[k];
        out.push_back(a);
        for (std::size_t k = dims.size(); k-- > 0;) {
            if (++idx[k] < dims[k]) break;
            idx[k] = 0;
        }
    }
    return out;
}

inline dims_t random_shape(std::mt19937 &rng, dim_t volume) {
    // Random factors of `volume`, with size-1 dims sprinkled in.
    dims_t dims;
    dim_t left = volume;
    while (left > 1) {
        std::vector<dim_t> divisors;
        for (dim_t d = 2; d <= left; ++d)
            if (left % d == 0) divisors.push_back(d);
        const dim_t d = divisors[rng() % divisors.size()];
        dims.push_back(d);
        left /= d;
        if (rng() % 5 == 0) dims.push_back(1);
    }
    if (dims.empty() || rng() % 4 == 0) dims.insert(dims.begin() + rng() % (dims.size() + 1), 1);
    return dims;
}

inline std::vector<chain_step> random_chain(std::mt19937 &rng, const dims_t &input) {
    std::vector<chain_step> steps;
    dims_t dims = input;
    const dim_t volume = checked_volume(input).value();
    const int length = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < length; ++i) {
        if (rng() % 2 == 0) {
            dims = random_shape(rng, volume);
            steps.push_back({dims, {}});
        } else {
            std::vector<std::size_t> p(dims.size());
            std::iota(p.begin(), p.end(), std::size_t{0});
            std::shuffle(p.begin(), p.end(), rng);
            dims_t out;
            for (std::size_t a : p) out.push_back(dims[a]);
            dims = out;
            steps.push_back({dims, p});
        }
    }
    return steps;
}

// Strides of `dims` as real layouts have them: the dims laid out in a random
// order with random gaps, sometimes a broadcast dim (stride 0), and a random
// stride for each size-1 dim (it addresses nothing).
inline dims_t random_layout_strides(std::mt19937 &rng, const dims_t &dims) {
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    dims_t strides(dims.size());
    dim_t next = 1 + static_cast<dim_t>(rng() % 2);
    for (std::size_t k = order.size(); k-- > 0;) {
        const std::size_t d = order[k];
        if (dims[d] == 1) {
            strides[d] = static_cast<dim_t>(rng() % 50);
        } else if (rng() % 6 == 0) {
            strides[d] = 0;
        } else {
            strides[d] = next;
            next *= dims[d] + static_cast<dim_t>(rng() % 2);
        }
    }
    return strides;
}

// The chain made of the ops a framework would record: reshapes, squeezes
// and unsqueezes (size-1 dims dropped or added: reshapes too), and
// transposes of two axes or any permutation.
inline std::vector<chain_step> random_framework_chain(std::mt19937 &rng, const dims_t &input) {
    std::vector<chain_step> steps;
    dims_t dims = input;
    const dim_t volume = checked_volume(input).value();
    const int length = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < length; ++i) {
        switch (rng() % 4) {
        case 0: dims = random_shape(rng, volume); break; // reshape
        case 1: { // squeeze (every size-1 dim) or, without one, unsqueeze
            dims_t squeezed;
            for (dim_t d : dims)
                if (d != 1) squeezed.push_back(d);
            if (squeezed.size() != dims.size()) {
                dims = squeezed;
                break;
            }
            [[fallthrough]];
        }
        case 2: // unsqueeze
            dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(rng() % (dims.size() + 1)), 1);
            break;
        default: { // transpose
            std::vector<std::size_t> p(dims.size());
            std::iota(p.begin(), p.end(), std::size_t{0});
            if (dims.size() >= 2 && rng() % 2 == 0)
                std::swap(p[rng() % p.size()], p[rng() % p.size()]);
            else
                std::shuffle(p.begin(), p.end(), rng);
            dims_t out;
            for (std::size_t a : p) out.push_back(dims[a]);
            dims = out;
            steps.push_back({dims, p});
            continue;
        }
        }
        steps.push_back({dims, {}});
    }
    return steps;
}

} // namespace reshaper::impl::testing
