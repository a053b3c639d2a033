// The permutation rule, pure: every order of length 0..rank+1 with entries in
// [-rank-1, rank] for ranks 0..4, against an oracle that reads the sheets'
// steps literally, in both readings of negative entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ops/permutation_rule.hpp"

namespace reshaper::impl {
namespace {

struct oracle_result {
    std::string rule; // "" when valid
    std::vector<std::size_t> permutation;
};

oracle_result oracle(std::size_t rank, const std::vector<std::int64_t> &order, negative_axes neg) {
    const auto n = static_cast<std::int64_t>(rank);
    oracle_result r;
    if (order.empty()) {
        for (std::int64_t i = n - 1; i >= 0; --i) r.permutation.push_back(static_cast<std::size_t>(i));
        return r;
    }
    if (order.size() != rank) return {"perm_length", {}};
    const std::int64_t low = neg == negative_axes::count_from_back ? -n : 0;
    for (std::int64_t a : order)
        if (a < low || a > n - 1) return {"axis_range", {}};
    for (std::int64_t a : order) r.permutation.push_back(static_cast<std::size_t>(a < 0 ? a + n : a));
    if (std::set<std::size_t>(r.permutation.begin(), r.permutation.end()).size() != rank)
        return {"axis_duplicate", {}};
    return r;
}

// Calls fn with every vector of `length` entries in [low, high].
template <typename Fn>
void each_vector(std::size_t length, std::int64_t low, std::int64_t high, const Fn &fn) {
    std::vector<std::int64_t> v(length, low);
    while (true) {
        fn(v);
        std::size_t i = 0;
        while (i < length && v[i] == high) v[i++] = low;
        if (i == length) return;
        ++v[i];
    }
}

TEST(PermutationRule, MatchesTheOracleExhaustively) {
    std::size_t valid = 0, invalid = 0;
    for (std::size_t rank = 0; rank <= 4; ++rank) {
        // Distinct dims (one unknown) show where each input axis went.
        dims_t input;
        for (std::size_t i = 0; i < rank; ++i) input.push_back(i == 1 ? unknown_dim : dim_t(10 + i));
        const auto n = static_cast<std::int64_t>(rank);
        for (negative_axes neg : {negative_axes::rejected, negative_axes::count_from_back})
            for (std::size_t length = 0; length <= rank + 1; ++length)
                each_vector(length, -n - 1, n, [&](const std::vector<std::int64_t> &order) {
                    const oracle_result want = oracle(rank, order, neg);
                    const permutation_resolution got = resolve_permutation(input, order, neg, "order");
                    const std::string where = "rank " + std::to_string(rank) + " order " + dims_to_string(order);
                    if (!want.rule.empty()) {
                        ++invalid;
                        ASSERT_FALSE(got.ok()) << where;
                        EXPECT_EQ(to_string(got.diagnostic.rule), want.rule) << where;
                        EXPECT_EQ(got.diagnostic.code(), status::invalid_shape) << where;
                        EXPECT_NE(got.diagnostic.message.find("order " + dims_to_string(order)),
                                  std::string::npos) << got.diagnostic.message;
                        return;
                    }
                    ++valid;
                    ASSERT_TRUE(got.ok()) << where << ": " << got.diagnostic.message;
                    EXPECT_EQ(got.permutation, want.permutation) << where;
                    for (std::size_t i = 0; i < rank; ++i)
                        EXPECT_EQ((*got.dims)[i], input[want.permutation[i]]) << where;
                });
    }
    EXPECT_GT(valid, 100u); // 1+1+2+6+24 permutations, twice, plus negative spellings
    EXPECT_GT(invalid, 10000u);
}

TEST(PermutationRule, ScalarAndIdentity) {
    const permutation_resolution scalar = resolve_permutation({}, {}, negative_axes::rejected);
    ASSERT_TRUE(scalar.ok());
    EXPECT_TRUE(scalar.permutation.empty());
    EXPECT_EQ(*scalar.dims, dims_t{});
    const permutation_resolution identity = resolve_permutation({2, 3}, {0, 1}, negative_axes::rejected);
    ASSERT_TRUE(identity.ok());
    EXPECT_EQ(identity.permutation, (std::vector<std::size_t>{0, 1}));
}

TEST(PermutationRule, MessagesNameTheValues) {
    const auto r = resolve_permutation({2, 4, 1024}, {-2, 2, -4}, negative_axes::count_from_back, "order");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.diagnostic.message,
              "order [-2,2,-4] has -4 at index 2, outside [-3, 2] for input [2,4,1024] of rank 3 "
              "[axis_range]");
    const auto dup = resolve_permutation({2, 4, 1024}, {-1, 2, 0}, negative_axes::count_from_back, "order");
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.diagnostic.message,
              "order [-1,2,0] names axis 2 twice (at indices 0 and 1), so it is not a permutation of "
              "input [2,4,1024] of rank 3 [axis_duplicate]");
    const auto scalar = resolve_permutation({}, {0}, negative_axes::count_from_back, "perm");
    ASSERT_FALSE(scalar.ok());
    EXPECT_EQ(scalar.diagnostic.rule, rule::perm_length);
}

} // namespace
} // namespace reshaper::impl
