// The element walk between blocked and strided layouts: its digits address
// every element where blocked_offset says it lives, and the walk visits
// every element once, in the destination's memory order, with both offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "layout/element_walk.hpp"
#include "layout/memory_layout.hpp"
#include "random_formats.hpp"

using namespace reshaper::impl;
using namespace reshaper::impl::testing;

namespace {

// The element offset of `idx` through the digits.
dim_t offset_of(const digit_layout &layout, const dims_t &idx) {
    dim_t offset = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) offset += layout.dim_offset(d, idx[d]);
    return offset;
}

bool next_index(dims_t &idx, const dims_t &dims) {
    for (std::size_t d = idx.size(); d-- > 0;) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

} // namespace

TEST(layout_element_walk, digits_agree_with_blocked_offset) {
    std::mt19937 rng(7);
    for (int c = 0; c < 300; ++c) {
        const std::size_t rank = 1 + rng() % 4;
        const dims_t dims = random_dims(rng, rank);
        const std::string tag = random_format_tag(rng, rank);
        SCOPED_TRACE(tag + " " + dims_to_string(dims));
        const blocked_format format = parse_format_tag(tag, rank);
        const digit_layout layout = digit_layout::blocked(format, dims);
        // The digits span the padded buffer exactly.
        dim_t positions = 1;
        for (const layout_digit &digit : layout.digits()) positions *= digit.count;
        EXPECT_EQ(positions, blocked_size(format, dims));
        dims_t idx(rank, 0);
        do {
            ASSERT_EQ(offset_of(layout, idx), blocked_offset(format, dims, idx)) << dims_to_string(idx);
        } while (next_index(idx, dims));
    }
}

TEST(layout_element_walk, visits_every_element_once_in_destination_order) {
    std::mt19937 rng(11);
    for (int c = 0; c < 300; ++c) {
        const std::size_t rank = 1 + rng() % 4;
        const dims_t dims = random_dims(rng, rank);
        const std::string src_tag = random_format_tag(rng, rank);
        const bool dst_blocked = c % 2 == 0;
        const std::string dst_tag = dst_blocked ? random_format_tag(rng, rank) : "";
        const dims_t dst_strides = random_dense_strides(rng, dims);
        SCOPED_TRACE(src_tag + " -> " + (dst_blocked ? dst_tag : dims_to_string(dst_strides)) + " " +
                     dims_to_string(dims));
        const blocked_format src_format = parse_format_tag(src_tag, rank);
        const digit_layout src = digit_layout::blocked(src_format, dims);
        const digit_layout dst = dst_blocked ? digit_layout::blocked(parse_format_tag(dst_tag, rank), dims)
                                             : digit_layout::strided(dims, dst_strides);
        // Where each element goes and comes from, by the definitions.
        std::vector<std::pair<dim_t, dim_t>> expected;
        dims_t idx(rank, 0);
        do {
            dim_t to = 0;
            if (dst_blocked) {
                to = blocked_offset(parse_format_tag(dst_tag, rank), dims, idx);
            } else {
                for (std::size_t d = 0; d < rank; ++d) to += idx[d] * dst_strides[d];
            }
            expected.emplace_back(to, blocked_offset(src_format, dims, idx));
        } while (next_index(idx, dims));
        std::sort(expected.begin(), expected.end());
        std::vector<std::pair<dim_t, dim_t>> walked;
        walk_elements(dst, src, [&](dim_t to, dim_t from) { walked.emplace_back(to, from); });
        // In memory order: the destination offsets only go up.
        EXPECT_TRUE(std::is_sorted(walked.begin(), walked.end()));
        EXPECT_EQ(walked, expected);
    }
}

TEST(layout_element_walk, strided_to_strided_and_rank_zero) {
    // [2,3] column-major into [2,3] row-major.
    const digit_layout src = digit_layout::strided({2, 3}, {1, 2});
    const digit_layout dst = digit_layout::strided({2, 3}, {3, 1});
    std::vector<std::pair<dim_t, dim_t>> walked;
    walk_elements(dst, src, [&](dim_t to, dim_t from) { walked.emplace_back(to, from); });
    EXPECT_EQ(walked, (std::vector<std::pair<dim_t, dim_t>>{{0, 0}, {1, 2}, {2, 4}, {3, 1}, {4, 3}, {5, 5}}));
    walked.clear();
    walk_elements(digit_layout::strided({}, {}), digit_layout::strided({}, {}),
                  [&](dim_t to, dim_t from) { walked.emplace_back(to, from); });
    EXPECT_EQ(walked, (std::vector<std::pair<dim_t, dim_t>>{{0, 0}}));
    walked.clear();
    walk_elements(digit_layout::strided({2, 0}, {0, 1}), digit_layout::strided({2, 0}, {0, 1}),
                  [&](dim_t to, dim_t from) { walked.emplace_back(to, from); });
    EXPECT_TRUE(walked.empty());
}
