// A blocked format read through strided views: blocked_as_strided (no
// padding) and padded_as_boxes (padding), checked against blocked_offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "layout/blocked_views.hpp"
#include "layout/memory_layout.hpp"

using namespace reshaper::impl;

namespace {

// The strided form of a blocked format addresses every element where
// blocked_offset says it lives.
TEST(layout_blocked_as_strided, agrees_with_blocked_offset) {
    for (const auto &[tag, dims] : std::vector<std::pair<std::string, dims_t>>{
             {"nChw16c", {2, 32, 3, 3}},
             {"nChw8c", {2, 24, 3, 3}},
             {"ABcd16a16b", {32, 32, 2, 2}},
             {"ABcd4b16a4b", {32, 32, 1, 2}},
             {"nhwc", {2, 3, 4, 5}}}) {
        SCOPED_TRACE(tag);
        const blocked_format f = parse_format_tag(tag, dims.size());
        const auto strided = blocked_as_strided(f, dims);
        ASSERT_TRUE(strided.has_value());
        const auto &[fine_dims, strides] = *strided;
        ASSERT_EQ(checked_volume(fine_dims), checked_volume(dims));
        // Walk both in row-major order: element k of each is the same.
        dims_t idx(dims.size(), 0), fine(fine_dims.size(), 0);
        const dim_t n = *checked_volume(dims);
        for (dim_t k = 0; k < n; ++k) {
            dim_t offset = 0;
            for (std::size_t d = 0; d < fine.size(); ++d) offset += fine[d] * strides[d];
            ASSERT_EQ(offset, blocked_offset(f, dims, idx)) << "element " << k;
            for (std::size_t d = idx.size(); d-- > 0;)
                if (++idx[d] < dims[d]) break; else idx[d] = 0;
            for (std::size_t d = fine.size(); d-- > 0;)
                if (++fine[d] < fine_dims[d]) break; else fine[d] = 0;
        }
    }
    EXPECT_FALSE(blocked_as_strided(parse_format_tag("nChw16c", 4), {2, 20, 3, 3}).has_value())
        << "20 channels pad to 32";
}

// Every address a box holds, in row-major order of its dims.
std::vector<std::pair<dim_t, dim_t>> box_addresses(const strided_box &b) {
    std::vector<std::pair<dim_t, dim_t>> out;
    const dim_t n = *checked_volume(b.dims);
    dims_t idx(b.dims.size(), 0);
    for (dim_t k = 0; k < n; ++k) {
        dim_t s = b.src_offset, d = b.dst_offset;
        for (std::size_t i = 0; i < idx.size(); ++i) {
            s += idx[i] * b.src_strides[i];
            d += idx[i] * b.dst_strides[i];
        }
        out.emplace_back(s, d);
        for (std::size_t i = idx.size(); i-- > 0;)
            if (++idx[i] < b.dims[i]) break; else idx[i] = 0;
    }
    return out;
}

// A padded blocked step as strided boxes: the boxes move every element
// from where blocked_offset says it lives to its plain place exactly once,
// and (blocked destination) the padding boxes cover the rest of the
// buffer and nothing else.
TEST(layout_padded_boxes, move_every_element_once_and_cover_the_padding) {
    for (const auto &[tag, dims] : std::vector<std::pair<std::string, dims_t>>{
             {"nChw16c", {2, 20, 3, 3}},  // a whole block and a tail
             {"nChw16c", {1, 13, 2, 5}},  // only a tail
             {"nChw8c", {3, 8, 1, 2}},    // no padding
             {"ABcd16a16b", {20, 40, 2, 1}}, // two padded dims: four boxes
             {"Ab8a", {20, 5}},
             {"aBcd4b", {2, 7, 3, 1}}}) {
        const blocked_format f = parse_format_tag(tag, dims.size());
        const dim_t n = *checked_volume(dims), size = blocked_size(f, dims);
        // Plain side: dense, or with the two outer dims swapped in memory.
        for (bool swapped : {false, true}) {
            dims_t plain = *dense_strides(dims);
            if (swapped) {
                const dim_t rest = plain[1];
                plain[0] = rest;
                plain[1] = dims[0] * rest;
            }
            for (bool blocked_src : {true, false}) {
                SCOPED_TRACE(tag + " " + dims_to_string(dims) + (blocked_src ? " from" : " to") +
                             " plain " + dims_to_string(plain));
                const auto boxes = padded_as_boxes(dims, f, plain,
                                                   blocked_src ? blocked_end::source : blocked_end::destination);
                ASSERT_TRUE(boxes.has_value());
                std::vector<std::pair<dim_t, dim_t>> moved;
                for (const auto &b : boxes->copies) {
                    const auto a = box_addresses(b);
                    moved.insert(moved.end(), a.begin(), a.end());
                }
                std::vector<std::pair<dim_t, dim_t>> expected;
                dims_t idx(dims.size(), 0);
                for (dim_t k = 0; k < n; ++k) {
                    dim_t p = 0;
                    for (std::size_t i = 0; i < idx.size(); ++i) p += idx[i] * plain[i];
                    const dim_t b = blocked_offset(f, dims, idx);
                    expected.emplace_back(blocked_src ? b : p, blocked_src ? p : b);
                    for (std::size_t i = idx.size(); i-- > 0;)
                        if (++idx[i] < dims[i]) break; else idx[i] = 0;
                }
                std::sort(moved.begin(), moved.end());
                std::sort(expected.begin(), expected.end());
                EXPECT_EQ(moved, expected);
                if (blocked_src) {
                    EXPECT_TRUE(boxes->padding.empty());
                    continue;
                }
                std::vector<int> written(static_cast<std::size_t>(size), 0);
                for (const auto &[s, d] : moved) written[static_cast<std::size_t>(d)] |= 1;
                for (const auto &b : boxes->padding) {
                    // The padding reads a run of at most padding_zero_run zeroes.
                    for (const auto &[s, d] : box_addresses(b)) {
                        EXPECT_GE(s, 0);
                        EXPECT_LT(s, padding_zero_run);
                    }
                    for (const auto &[s, d] : box_addresses(b)) {
                        ASSERT_GE(d, 0);
                        ASSERT_LT(d, size);
                        written[static_cast<std::size_t>(d)] |= 2;
                    }
                }
                for (dim_t a = 0; a < size; ++a)
                    EXPECT_TRUE(written[a] == 1 || written[a] == 2) << "address " << a << ": " << written[a];
            }
        }
    }
    // Two levels of blocks on a padded dim: not boxes.
    EXPECT_FALSE(padded_as_boxes({20, 20, 1, 2}, parse_format_tag("ABcd4b16a4b", 4), *dense_strides({20, 20, 1, 2}),
                                 blocked_end::source)
                     .has_value());
}

} // namespace
