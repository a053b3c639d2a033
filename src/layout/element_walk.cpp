#include "layout/element_walk.hpp"
#include "core/fail.hpp"

#include <numeric>
#include <string>

#include "core/checked_math.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

digit_layout::digit_layout(dims_t dims, std::vector<layout_digit> digits)
    : dims_(std::move(dims)), digits_(std::move(digits)), by_dim_(dims_.size()) {
    for (const layout_digit &digit : digits_) by_dim_[digit.dim].push_back(digit);
    for (std::vector<layout_digit> &parts : by_dim_)
        std::stable_sort(parts.begin(), parts.end(),
                         [](const layout_digit &a, const layout_digit &b) { return a.weight > b.weight; });
}

digit_layout digit_layout::strided(const dims_t &dims, const dims_t &strides) {
    if (strides.size() != dims.size())
        fail(rule::buffer_strides, "element walk: " + std::to_string(strides.size()) +
                                                   " strides " + dims_to_string(strides) + " for dims " +
                                                   dims_to_string(dims));
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return strides[a] > strides[b]; });
    std::vector<layout_digit> digits;
    for (std::size_t d : order) digits.push_back({d, 1, dims[d], strides[d]});
    return digit_layout(dims, std::move(digits));
}

digit_layout digit_layout::blocked(const blocked_format &format, const dims_t &dims) {
    const std::size_t rank = dims.size();
    if (format.outer_order.size() != rank)
        fail(rule::format_tag, "element walk: dims " + dims_to_string(dims) +
                                                   " do not fit format tag '" + format.tag + "'");
    const auto overflow = [&] {
        return error(rule::overflow, "the buffer of a tensor of dims " + dims_to_string(dims) +
                                         " in format '" + format.tag + "' overflows int64");
    };
    // Each block's weight: the product of the blocks of its dim listed after it.
    dims_t product(rank, 1);
    std::vector<dim_t> weight(format.inner_blocks.size());
    for (std::size_t b = format.inner_blocks.size(); b-- > 0;) {
        const auto [d, size] = format.inner_blocks[b];
        weight[b] = product[d];
        product[d] *= size; // parsing checked that the blocks of a dim multiply within int64
    }
    // Strides from the innermost digit out: the inner blocks, then the outer dims.
    std::vector<layout_digit> inner(format.inner_blocks.size()), outer(rank);
    dim_t stride = 1;
    const auto step_over = [&](dim_t count) {
        const auto next = checked_mul(stride, count);
        if (!next) throw overflow();
        stride = *next;
    };
    for (std::size_t b = format.inner_blocks.size(); b-- > 0;) {
        const auto [d, size] = format.inner_blocks[b];
        inner[b] = {static_cast<std::size_t>(d), weight[b], size, stride};
        step_over(size);
    }
    for (std::size_t k = rank; k-- > 0;) {
        const auto d = static_cast<std::size_t>(format.outer_order[k]);
        const dim_t blocks = dims[d] / product[d] + (dims[d] % product[d] != 0 ? 1 : 0);
        outer[k] = {d, product[d], blocks, stride};
        step_over(blocks);
    }
    outer.insert(outer.end(), inner.begin(), inner.end());
    return digit_layout(dims, std::move(outer));
}

} // namespace reshaper::impl
