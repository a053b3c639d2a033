// The element walk between any two layouts of one tensor's dims (strided,
// or blocked with or without padding, one or more levels of blocks): what
// moves a step no strided view or box describes (both sides blocked, two
// levels of blocks on a padded dim). Each layout is written as digits: a
// logical index of dim d splits into digits (index / weight % count), and
// each digit times its stride is its part of the element offset. The walk
// runs through the destination's digits in its memory order, so it writes
// the destination front to back, and keeps both offsets as it goes (the
// destination's by stride steps, the source's per dim whose index moved).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/logical_tensor.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {

struct layout_digit {
    std::size_t dim = 0; // the logical dim whose index the digit is part of
    dim_t weight = 1;    // index units one step of the digit stands for
    dim_t count = 1;     // values the digit takes (a blocked dim's outer digit: whole blocks, padding included)
    dim_t stride = 0;    // elements one step moves in memory
};

class digit_layout {
public:
    // One digit per dim, outermost (largest stride) first.
    static digit_layout strided(const dims_t &dims, const dims_t &strides);
    // The outer dims in the format's order (each counting whole blocks),
    // then the inner blocks as listed. Throws error(invalid_shape) when the
    // padded buffer overflows int64, error(invalid_arguments) when the
    // format's rank is not the dims'.
    static digit_layout blocked(const blocked_format &format, const dims_t &dims);

    const dims_t &dims() const { return dims_; }
    // Memory order, outermost first; together they address the whole
    // buffer (padding included) exactly once.
    const std::vector<layout_digit> &digits() const { return digits_; }

    // Dim d's part of the element offset of an index whose dim d is `index`
    // (< dims()[d]).
    dim_t dim_offset(std::size_t d, dim_t index) const {
        const std::vector<layout_digit> &parts = by_dim_[d];
        dim_t offset = index / parts[0].weight * parts[0].stride; // outermost: no wrap
        for (std::size_t k = 1; k < parts.size(); ++k)
            offset += index / parts[k].weight % parts[k].count * parts[k].stride;
        return offset;
    }
    // Whether dim d's offset is index * stride (one digit of weight 1).
    bool linear(std::size_t d) const { return by_dim_[d].size() == 1 && by_dim_[d][0].weight == 1; }

private:
    digit_layout(dims_t dims, std::vector<layout_digit> digits);
    dims_t dims_;
    std::vector<layout_digit> digits_;
    std::vector<std::vector<layout_digit>> by_dim_; // per dim, outermost first
};

// Calls move(dst_offset, src_offset) once for every element of the tensor
// (offsets in elements from each buffer's start), in the destination's
// memory order; the destination's padding positions are passed over. Both
// layouts have the same dims.
template <typename Move>
void walk_elements(const digit_layout &dst, const digit_layout &src, Move &&move) {
    const dims_t &dims = dst.dims();
    for (dim_t d : dims)
        if (d == 0) return;
    const std::vector<layout_digit> &digits = dst.digits();
    if (digits.empty()) { // rank 0: one element
        move(dim_t{0}, dim_t{0});
        return;
    }
    const std::size_t rank = dims.size(), inner = digits.size() - 1;
    std::vector<dim_t> value(digits.size(), 0); // each digit's value
    dims_t index(rank, 0);                      // the logical index
    dims_t src_part(rank, 0);                   // src.dim_offset(d, index[d]) of dims inside
    std::size_t outside = 0;                    // dims whose index is in the padding
    dim_t dst_offset = 0, src_offset = 0;       // src_offset: the sum of src_part
    const layout_digit run = digits[inner];
    const bool run_linear = src.linear(run.dim);
    for (;;) {
        // The innermost digit: a run of positions along one dim.
        const std::size_t d = run.dim;
        const bool d_outside = index[d] >= dims[d];
        if (outside == static_cast<std::size_t>(d_outside)) { // every other dim inside
            const dim_t others = src_offset - src_part[d];
            const dim_t end = std::min(run.count, (dims[d] - index[d] + run.weight - 1) / run.weight);
            if (run_linear) {
                const dim_t src_step = run.weight * src.dim_offset(d, 1);
                dim_t s = others + src.dim_offset(d, index[d]);
                for (dim_t v = 0; v < end; ++v, s += src_step) move(dst_offset + v * run.stride, s);
            } else {
                for (dim_t v = 0; v < end; ++v)
                    move(dst_offset + v * run.stride, others + src.dim_offset(d, index[d] + v * run.weight));
            }
        }
        // The next value of the outer digits, as an odometer.
        std::size_t k = inner;
        for (;;) {
            if (k == 0) return;
            --k;
            const layout_digit &digit = digits[k];
            const std::size_t e = digit.dim;
            const bool was_outside = index[e] >= dims[e];
            const bool carry = ++value[k] == digit.count;
            if (carry) {
                value[k] = 0;
                index[e] -= (digit.count - 1) * digit.weight;
                dst_offset -= (digit.count - 1) * digit.stride;
            } else {
                index[e] += digit.weight;
                dst_offset += digit.stride;
            }
            const bool now_outside = index[e] >= dims[e];
            outside += static_cast<std::size_t>(now_outside) - static_cast<std::size_t>(was_outside);
            src_offset -= src_part[e];
            src_part[e] = now_outside ? 0 : src.dim_offset(e, index[e]);
            src_offset += src_part[e];
            if (!carry) break;
        }
    }
}

} // namespace reshaper::impl
