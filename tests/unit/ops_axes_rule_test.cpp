// The axes rule, pure: for ranks 0..4, every subset of axes (in each order
// given positive and negative, and with repeats) removed and inserted, against
// the set the sheets describe; inserting then removing the same axes gives
// the input back.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ops/axes_rule.hpp"

namespace reshaper::impl {
namespace {

// Each subset of [0, n) as a sorted list.
std::vector<std::vector<std::int64_t>> subsets(std::int64_t n) {
    std::vector<std::vector<std::int64_t>> all;
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
        std::vector<std::int64_t> s;
        for (std::int64_t i = 0; i < n; ++i)
            if (mask & (1u << i)) s.push_back(i);
        all.push_back(s);
    }
    return all;
}

// Every spelling of `axes` counted in `rank`: each order, and each entry
// positive or negative.
std::vector<std::vector<std::int64_t>> spellings(std::vector<std::int64_t> axes, std::int64_t rank) {
    std::vector<std::vector<std::int64_t>> out;
    std::sort(axes.begin(), axes.end());
    do {
        for (std::uint32_t neg = 0; neg < (1u << axes.size()); ++neg) {
            std::vector<std::int64_t> s = axes;
            for (std::size_t i = 0; i < s.size(); ++i)
                if (neg & (1u << i)) s[i] -= rank;
            out.push_back(s);
        }
    } while (std::next_permutation(axes.begin(), axes.end()));
    return out;
}

bool has_negative(const std::vector<std::int64_t> &v) {
    return std::any_of(v.begin(), v.end(), [](std::int64_t a) { return a < 0; });
}

TEST(AxesRule, RemoveEverySubsetInEverySpelling) {
    // Size-1 dims, others, an unknown, and a 0: which ones may go differs.
    const std::vector<dims_t> inputs{{}, {1}, {4}, {1, -1}, {1, 3, 1, 0}, {2, 1, 1, 1}};
    std::size_t checked = 0;
    for (const dims_t &input : inputs) {
        const auto r = static_cast<std::int64_t>(input.size());
        for (const auto &set : subsets(r))
            for (const auto &axes : spellings(set, r))
                for (negative_axes neg : {negative_axes::rejected, negative_axes::count_from_back}) {
                    ++checked;
                    const std::string where = dims_to_string(input) + " axes " + dims_to_string(axes);
                    const axes_resolution got = remove_axes(input, axes, neg);
                    if (neg == negative_axes::rejected && has_negative(axes)) {
                        ASSERT_FALSE(got.ok()) << where;
                        EXPECT_EQ(got.failure->rule, rule::axis_range) << where;
                        continue;
                    }
                    dims_t kept;
                    bool not_one = false;
                    for (std::int64_t i = 0; i < r; ++i) {
                        const bool listed = std::find(set.begin(), set.end(), i) != set.end();
                        if (!listed) kept.push_back(input[i]);
                        else if (input[i] >= 0 && input[i] != 1) not_one = true;
                    }
                    if (not_one) {
                        ASSERT_FALSE(got.ok()) << where;
                        EXPECT_EQ(got.failure->rule, rule::squeeze_not_one) << where;
                        continue;
                    }
                    ASSERT_TRUE(got.ok()) << where << ": " << got.failure->message;
                    EXPECT_EQ(*got.dims, kept) << where;
                }
    }
    EXPECT_GT(checked, 500u);
}

TEST(AxesRule, RemoveRejectsRepeatsAndOutOfRange) {
    EXPECT_EQ(remove_axes({1, 1}, std::vector<std::int64_t>{1, -1}, negative_axes::count_from_back).failure->rule,
              rule::axis_duplicate);
    EXPECT_EQ(remove_axes({1, 1}, std::vector<std::int64_t>{0, 0}, negative_axes::rejected).failure->rule,
              rule::axis_duplicate);
    EXPECT_EQ(remove_axes({1, 1}, std::vector<std::int64_t>{2}, negative_axes::count_from_back).failure->rule,
              rule::axis_range);
    EXPECT_EQ(remove_axes({1, 1}, std::vector<std::int64_t>{-3}, negative_axes::count_from_back).failure->rule,
              rule::axis_range);
    EXPECT_EQ(remove_axes({}, std::vector<std::int64_t>{0}, negative_axes::count_from_back).failure->message,
              "axes [0] has 0 at index 0, outside empty (no axis to name) for input [] of rank 0 [axis_range]");
    // A value out of range is reported before a repeat.
    EXPECT_EQ(remove_axes({1, 1}, std::vector<std::int64_t>{0, 0, 5}, negative_axes::rejected).failure->rule,
              rule::axis_range);
}

TEST(AxesRule, RemoveWithoutAxes) {
    EXPECT_EQ(*remove_axes({1, 3, 1, 0}, std::nullopt, negative_axes::rejected).dims, (dims_t{3, 0}));
    EXPECT_EQ(*remove_axes({}, std::nullopt, negative_axes::rejected).dims, dims_t{});
    const axes_resolution open = remove_axes({1, -1}, std::nullopt, negative_axes::rejected);
    EXPECT_TRUE(open.ok());
    EXPECT_FALSE(open.dims.has_value()); // the rank depends on the unknown dim
}

TEST(AxesRule, InsertEverySubsetInEverySpellingAndRemoveItAgain) {
    const std::vector<dims_t> inputs{{}, {5}, {2, -1}, {0, 3, 1}};
    std::size_t checked = 0;
    for (const dims_t &input : inputs)
        for (std::int64_t added = 0; added <= 3; ++added) {
            const auto out_rank = static_cast<std::int64_t>(input.size()) + added;
            for (const auto &set : subsets(out_rank)) {
                if (static_cast<std::int64_t>(set.size()) != added) continue;
                dims_t want;
                std::size_t next = 0;
                for (std::int64_t p = 0; p < out_rank; ++p)
                    want.push_back(std::find(set.begin(), set.end(), p) != set.end() ? 1 : input[next++]);
                for (const auto &axes : spellings(set, out_rank))
                    for (negative_axes neg : {negative_axes::rejected, negative_axes::count_from_back}) {
                        ++checked;
                        const std::string where = dims_to_string(input) + " axes " + dims_to_string(axes);
                        const axes_resolution got = insert_axes(input, axes, neg);
                        if (neg == negative_axes::rejected && has_negative(axes)) {
                            ASSERT_FALSE(got.ok()) << where;
                            EXPECT_EQ(got.failure->rule, rule::axis_range) << where;
                            continue;
                        }
                        ASSERT_TRUE(got.ok()) << where << ": " << got.failure->message;
                        EXPECT_EQ(*got.dims, want) << where;
                        const axes_resolution back = remove_axes(*got.dims, axes, neg);
                        ASSERT_TRUE(back.ok()) << where;
                        EXPECT_EQ(*back.dims, input) << where;
                    }
            }
        }
    EXPECT_GT(checked, 500u);
}

TEST(AxesRule, InsertCountsInTheOutputRank) {
    // R = 5: -1 and 4 are one position.
    const axes_resolution dup = insert_axes({3, 4, 5}, {-1, 4}, negative_axes::count_from_back);
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.failure->message,
              "axes [-1,4] names axis 4 twice (at indices 0 and 1) for an output of rank 5 "
              "(input [3,4,5] and 2 new axes) [axis_duplicate]");
    EXPECT_EQ(insert_axes({2, 3}, {-4}, negative_axes::count_from_back).failure->rule, rule::axis_range);
    EXPECT_EQ(insert_axes({2, 3}, {3}, negative_axes::count_from_back).failure->rule, rule::axis_range);
    EXPECT_EQ(*insert_axes({2, 3}, {}, negative_axes::rejected).dims, (dims_t{2, 3}));
}

} // namespace
} // namespace reshaper::impl
