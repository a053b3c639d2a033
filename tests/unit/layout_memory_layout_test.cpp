// Blocked format tags: each offset is checked against the layout's
// definition written out by hand per tag, and every layout must place the
// elements of a tensor at distinct offsets inside its (padded) buffer.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <set>

#include "core/status.hpp"
#include "layout/memory_layout.hpp"

using namespace reshaper::impl;

namespace {

void for_each_index(const dims_t &dims, const std::function<void(const dims_t &)> &visit) {
    for (dim_t d : dims)
        if (d == 0) return;
    dims_t idx(dims.size(), 0);
    while (true) {
        visit(idx);
        std::size_t k = dims.size();
        while (k > 0 && ++idx[k - 1] == dims[k - 1]) idx[--k] = 0;
        if (k == 0) return;
    }
}

dim_t ceil_div(dim_t a, dim_t b) { return (a + b - 1) / b; }

using formula = std::function<dim_t(const dims_t &dims, const dims_t &idx)>;

struct tag_case {
    std::string tag;
    std::vector<dims_t> shapes;
    formula expected;
    std::function<dim_t(const dims_t &)> expected_size;
};

dim_t plain_size(const dims_t &d) {
    dim_t s = 1;
    for (dim_t x : d) s *= x;
    return s;
}

std::vector<tag_case> tag_cases() {
    const std::vector<dims_t> shapes4{{2, 3, 4, 5}, {1, 17, 3, 2}, {3, 33, 1, 2}, {2, 16, 2, 3}};
    const std::vector<dims_t> weights4{{17, 18, 2, 3}, {16, 16, 1, 1}, {5, 33, 2, 1}};
    auto blocked_c = [](dim_t b) {
        return [b](const dims_t &d, const dims_t &i) {
            const dim_t cb = ceil_div(d[1], b), hw = d[2] * d[3];
            return ((i[0] * cb + i[1] / b) * hw + i[2] * d[3] + i[3]) * b + i[1] % b;
        };
    };
    auto blocked_c_size = [](dim_t b) {
        return [b](const dims_t &d) { return d[0] * ceil_div(d[1], b) * b * d[2] * d[3]; };
    };
    auto two_dims_blocked = [](const dims_t &d) {
        return ceil_div(d[0], 16) * 16 * ceil_div(d[1], 16) * 16 * d[2] * d[3];
    };
    return {
        {"nchw", shapes4,
         [](const dims_t &d, const dims_t &i) {
             return ((i[0] * d[1] + i[1]) * d[2] + i[2]) * d[3] + i[3];
         },
         plain_size},
        {"abcd", shapes4,
         [](const dims_t &d, const dims_t &i) {
             return ((i[0] * d[1] + i[1]) * d[2] + i[2]) * d[3] + i[3];
         },
         plain_size},
        {"nhwc", shapes4,
         [](const dims_t &d, const dims_t &i) {
             return ((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[1] + i[1];
         },
         plain_size},
        {"acdb", shapes4,
         [](const dims_t &d, const dims_t &i) {
             return ((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[1] + i[1];
         },
         plain_size},
        {"nChw16c", shapes4, blocked_c(16), blocked_c_size(16)},
        {"aBcd16b", shapes4, blocked_c(16), blocked_c_size(16)},
        {"nChw8c", shapes4, blocked_c(8), blocked_c_size(8)},
        {"nChw4c", shapes4, blocked_c(4), blocked_c_size(4)},
        {"ABcd16a16b", weights4,
         [](const dims_t &d, const dims_t &i) {
             const dim_t cb = ceil_div(d[1], 16);
             return (((i[0] / 16 * cb + i[1] / 16) * d[2] + i[2]) * d[3] + i[3]) * 256 +
                    i[0] % 16 * 16 + i[1] % 16;
         },
         two_dims_blocked},
        {"OIhw16i16o", weights4, // o = a outer, i = b inner-outer
         [](const dims_t &d, const dims_t &i) {
             const dim_t ib = ceil_div(d[1], 16);
             return (((i[0] / 16 * ib + i[1] / 16) * d[2] + i[2]) * d[3] + i[3]) * 256 +
                    i[1] % 16 * 16 + i[0] % 16;
         },
         two_dims_blocked},
        {"ABcd8b8a", weights4,
         [](const dims_t &d, const dims_t &i) {
             const dim_t bb = ceil_div(d[1], 8);
             return (((i[0] / 8 * bb + i[1] / 8) * d[2] + i[2]) * d[3] + i[3]) * 64 +
                    i[1] % 8 * 8 + i[0] % 8;
         },
         [](const dims_t &d) {
             return ceil_div(d[0], 8) * 8 * ceil_div(d[1], 8) * 8 * d[2] * d[3];
         }},
        {"OIhw4i16o4i", weights4, // ABcd4b16a4b: b split twice around a
         [](const dims_t &d, const dims_t &i) {
             const dim_t bb = ceil_div(d[1], 16);
             const dim_t outer = ((i[0] / 16 * bb + i[1] / 16) * d[2] + i[2]) * d[3] + i[3];
             return outer * 256 + (i[1] % 16 / 4) * 64 + (i[0] % 16) * 4 + i[1] % 4;
         },
         two_dims_blocked},
        {"Ohwi16o", weights4, // Acdb16a
         [](const dims_t &d, const dims_t &i) {
             return (((i[0] / 16 * d[2] + i[2]) * d[3] + i[3]) * d[1] + i[1]) * 16 + i[0] % 16;
         },
         [](const dims_t &d) { return ceil_div(d[0], 16) * 16 * d[1] * d[2] * d[3]; }},
        {"aBcde8b", {{2, 9, 2, 3, 2}, {1, 8, 1, 1, 3}},
         [](const dims_t &d, const dims_t &i) {
             const dim_t cb = ceil_div(d[1], 8), dhw = d[2] * d[3] * d[4];
             const dim_t spatial = (i[2] * d[3] + i[3]) * d[4] + i[4];
             return ((i[0] * cb + i[1] / 8) * dhw + spatial) * 8 + i[1] % 8;
         },
         [](const dims_t &d) { return d[0] * ceil_div(d[1], 8) * 8 * d[2] * d[3] * d[4]; }},
        {"ndhwc", {{2, 3, 2, 3, 2}},
         [](const dims_t &d, const dims_t &i) {
             return (((i[0] * d[2] + i[2]) * d[3] + i[3]) * d[4] + i[4]) * d[1] + i[1];
         },
         plain_size},
        {"nCw16c", {{2, 20, 3}},
         [](const dims_t &d, const dims_t &i) {
             return ((i[0] * ceil_div(d[1], 16) + i[1] / 16) * d[2] + i[2]) * 16 + i[1] % 16;
         },
         [](const dims_t &d) { return d[0] * ceil_div(d[1], 16) * 16 * d[2]; }},
        {"gOIhw16i16o", {{2, 17, 3, 2, 1}}, // aBCde16c16b
         [](const dims_t &d, const dims_t &i) {
             const dim_t ob = ceil_div(d[1], 16), ib = ceil_div(d[2], 16);
             const dim_t outer = (((i[0] * ob + i[1] / 16) * ib + i[2] / 16) * d[3] + i[3]) * d[4] + i[4];
             return outer * 256 + i[2] % 16 * 16 + i[1] % 16;
         },
         [](const dims_t &d) {
             return d[0] * ceil_div(d[1], 16) * 16 * ceil_div(d[2], 16) * 16 * d[3] * d[4];
         }},
        {"nc", {{3, 5}}, [](const dims_t &d, const dims_t &i) { return i[0] * d[1] + i[1]; },
         plain_size},
        {"cn", {{3, 5}}, [](const dims_t &d, const dims_t &i) { return i[1] * d[0] + i[0]; },
         plain_size},
        {"x", {{7}}, [](const dims_t &, const dims_t &i) { return i[0]; }, plain_size},
    };
}

std::string expect_error(const std::string &tag, std::size_t rank) {
    try {
        parse_format_tag(tag, rank);
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_graph) << tag;
        const std::string what = e.what();
        EXPECT_NE(what.find("'" + tag + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("rank " + std::to_string(rank)), std::string::npos) << what;
        return what;
    }
    ADD_FAILURE() << "tag '" << tag << "' of rank " << rank << " was accepted";
    return "";
}

} // namespace

TEST(MemoryLayout, OffsetsFollowTheDefinitionOfEachTag) {
    for (const auto &c : tag_cases()) {
        for (const auto &dims : c.shapes) {
            const auto format = parse_format_tag(c.tag, dims.size());
            const dim_t size = blocked_size(format, dims);
            EXPECT_EQ(size, c.expected_size(dims)) << c.tag << " " << dims_to_string(dims);
            std::set<dim_t> seen;
            for_each_index(dims, [&](const dims_t &idx) {
                const dim_t off = blocked_offset(format, dims, idx);
                ASSERT_EQ(off, c.expected(dims, idx))
                    << c.tag << " " << dims_to_string(dims) << " at " << dims_to_string(idx);
                EXPECT_TRUE(seen.insert(off).second) << "two elements at offset " << off;
                EXPECT_LT(off, size);
            });
        }
    }
}

TEST(MemoryLayout, ParsesOuterOrderAndInnerBlocks) {
    const auto f = parse_format_tag("ABcd4b16a4b", 4);
    EXPECT_EQ(f.outer_order, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(f.inner_blocks, (std::vector<std::pair<int, dim_t>>{{1, 4}, {0, 16}, {1, 4}}));
    const auto alias = parse_format_tag("nhwc", 4);
    EXPECT_EQ(alias.tag, "nhwc");
    EXPECT_EQ(alias.outer_order, (std::vector<int>{0, 2, 3, 1}));
    EXPECT_TRUE(alias.inner_blocks.empty());
    const auto ldgoi = parse_format_tag("ldgoi", 5);
    EXPECT_EQ(ldgoi.outer_order, (std::vector<int>{0, 1, 3, 4, 2}));
}

TEST(MemoryLayout, ZeroSizeDimsGiveAnEmptyBuffer) {
    const auto f = parse_format_tag("nChw16c", 4);
    EXPECT_EQ(blocked_size(f, {2, 0, 3, 3}), 0);
    EXPECT_EQ(blocked_size(f, {0, 5, 3, 3}), 0);
    EXPECT_EQ(blocked_size(parse_format_tag("", 0), {}), 1);
}

TEST(MemoryLayout, RejectsUnknownAndMisfittingTags) {
    EXPECT_NE(expect_error("nchw", 3).find("beyond the rank"), std::string::npos);
    // An opaque tensor without "format": say so rather than "describes 0 dims".
    EXPECT_NE(expect_error("", 4).find("opaque layout needs a \"format\""), std::string::npos);
    EXPECT_NE(expect_error("nchw", 5).find("describes 4 dims"), std::string::npos);
    EXPECT_NE(expect_error("nChw16c", 5).find("describes 4 dims"), std::string::npos);
    EXPECT_NE(expect_error("abca", 4).find("twice"), std::string::npos);
    EXPECT_NE(expect_error("Abcd", 4).find("no block"), std::string::npos);
    EXPECT_NE(expect_error("abcd16b", 4).find("does not mark as blocked"), std::string::npos);
    EXPECT_NE(expect_error("aBcd0b", 4).find("at least 1"), std::string::npos);
    EXPECT_NE(expect_error("aBcd16", 4).find("<block size><dim letter>"), std::string::npos);
    EXPECT_NE(expect_error("aBcd16B", 4).find("<block size><dim letter>"), std::string::npos);
    EXPECT_NE(expect_error("aBcd99999999999999999999b", 4).find("overflows"), std::string::npos);
    EXPECT_NE(expect_error("aBcd4294967296b4294967296b", 4).find("beyond int64"),
              std::string::npos);
    expect_error("any", 4);
    expect_error("nchw_x", 4);
}

TEST(MemoryLayout, HugeBuffersReportOverflow) {
    const auto f = parse_format_tag("aBcd16b", 4);
    const dim_t big = dim_t{1} << 31;
    try {
        blocked_size(f, {big, 17, big, 4});
        FAIL() << "expected an overflow error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_shape);
        EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos);
    }
    EXPECT_THROW(blocked_offset(f, {big, 17, big, 4}, {0, 0, 0, 0}), error);
    EXPECT_THROW(blocked_size(f, {1, 2, 3}), error); // rank mismatch
}

// Distinct elements at distinct addresses, by the stride-order rule.
TEST(MemoryLayout, ClassifiesTheAddressesOfStridedElements) {
    EXPECT_EQ(classify_addresses({2, 3}, {3, 1}), element_addresses::distinct);
    EXPECT_EQ(classify_addresses({2, 3}, {1, 2}), element_addresses::distinct); // column-major
    EXPECT_EQ(classify_addresses({2, 3}, {4, 1}), element_addresses::distinct); // gaps
    EXPECT_EQ(classify_addresses({2, 3}, {0, 1}), element_addresses::shared);   // a broadcast
    EXPECT_EQ(classify_addresses({2, 3}, {2, 1}), element_addresses::shared);   // rows overlap
    EXPECT_EQ(classify_addresses({1, 3}, {0, 1}), element_addresses::distinct); // a size-1 dim's stride
    EXPECT_EQ(classify_addresses({0, 3}, {0, 0}), element_addresses::distinct); // no element
    const dim_t big = std::numeric_limits<dim_t>::max() / 2;
    EXPECT_EQ(classify_addresses({3, 2}, {big, 1}), element_addresses::overflow);
}
