// compose_chain against a brute-force index reference: every chain of
// random reshapes and permutations is applied element by element to the
// positions 0..n-1 of its input, and the composed segments, read as strided
// views (permuted_strides), must list exactly the same positions.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "chain_test_support.hpp"
#include "layout/chain_view.hpp"

using namespace reshaper::impl;
using namespace reshaper::impl::testing;

namespace {

// The brute-force reference: the chain applied to the tensor holding its
// own positions, one materialised step after another.
std::vector<dim_t> reference(const dims_t &input, const std::vector<chain_step> &steps) {
    std::vector<dim_t> data(static_cast<std::size_t>(checked_volume(input).value()));
    std::iota(data.begin(), data.end(), dim_t{0});
    dims_t dims = input;
    for (const chain_step &s : steps) {
        if (!s.permutation.empty()) {
            const dims_t strides = dense_strides(dims).value();
            dims_t pd, ps;
            for (std::size_t a : s.permutation) {
                pd.push_back(dims[a]);
                ps.push_back(strides[a]);
            }
            std::vector<dim_t> next;
            for (dim_t p : strided_positions(pd, ps)) next.push_back(data[p]);
            data = std::move(next);
        }
        dims = s.output_dims;
    }
    return data;
}

// The segments applied: each reads the one before's dense output.
std::vector<dim_t> composed(const dims_t &input, const dims_t &source,
                            const std::vector<composed_view> &segments) {
    std::vector<dim_t> data(static_cast<std::size_t>(checked_volume(input).value()));
    std::iota(data.begin(), data.end(), dim_t{0});
    for (std::size_t k = 0; k < segments.size(); ++k) {
        const composed_view &v = segments[k];
        const dims_t &src_dims = k == 0 ? source : v.input_dims;
        const dims_t strides = permuted_strides(v, src_dims, dense_strides(src_dims).value());
        std::vector<dim_t> next;
        for (dim_t p : strided_positions(v.permuted_dims(), strides)) next.push_back(data[p]);
        data = std::move(next);
    }
    return data;
}

} // namespace

TEST(ChainView, RandomChainsMatchTheBruteForceReference) {
    std::mt19937 rng(20261123);
    const dim_t volumes[] = {1, 2, 6, 12, 24, 36, 60, 64, 72, 120};
    int multi_segment = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const dim_t volume = volumes[rng() % std::size(volumes)];
        const dims_t input = random_shape(rng, volume);
        const auto steps = random_chain(rng, input);
        const auto segments = compose_chain(input, input, steps);
        ASSERT_FALSE(segments.empty());
        EXPECT_EQ(segments.back().output_dims, steps.back().output_dims);
        if (segments.size() > 1) ++multi_segment;
        ASSERT_EQ(composed(input, input, segments), reference(input, steps))
            << "trial " << trial << " input " << dims_to_string(input);
    }
    // The random chains reach the case where the dims do not nest.
    EXPECT_GT(multi_segment, 10);
}

TEST(ChainView, ASourceThatRefinesTheInputComposesToo) {
    // A blocked format reads [2,32,3] as [2,2,16,3]: the chain starts there.
    const dims_t input{2, 32, 3};
    const dims_t source{2, 2, 16, 3};
    const std::vector<chain_step> steps{{{2, 3, 32}, {0, 2, 1}}, {{6, 4, 8}, {}}};
    const auto segments = compose_chain(input, source, steps);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(composed(input, source, segments), reference(input, steps));
}

TEST(ChainView, TransformerChainsAreOneSegment) {
    // Split heads: [B*S, H*D] -> [B,S,H,D] -> [B,H,S,D] -> [B*H,S,D].
    const dims_t input{2 * 5, 3 * 4};
    const std::vector<chain_step> split{
        {{2, 5, 3, 4}, {}}, {{2, 3, 5, 4}, {0, 2, 1, 3}}, {{6, 5, 4}, {}}};
    auto segments = compose_chain(input, input, split);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].fine_dims, (dims_t{2, 5, 3, 4}));
    EXPECT_EQ(segments[0].order, (std::vector<std::size_t>{0, 2, 1, 3}));
    EXPECT_FALSE(segments[0].keeps_order());
    EXPECT_EQ(composed(input, input, segments), reference(input, split));
    // Merge heads: [B,H,S,D] -> [B,S,H,D] -> [B*S, H*D].
    const std::vector<chain_step> merge{{{2, 5, 3, 4}, {0, 2, 1, 3}}, {{10, 12}, {}}};
    segments = compose_chain({2, 3, 5, 4}, {2, 3, 5, 4}, merge);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].permuted_dims(), (dims_t{2, 5, 3, 4}));
}

TEST(ChainView, ATransposeBackIsTheIdentity) {
    const std::vector<chain_step> steps{{{4, 3, 2}, {2, 1, 0}}, {{2, 3, 4}, {2, 1, 0}}};
    const auto segments = compose_chain({2, 3, 4}, {2, 3, 4}, steps);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_TRUE(segments[0].keeps_order());
}

TEST(ChainView, DimsThatDoNotNestCutTheChain) {
    // [2,3] transposed is [3,2]; read as [2,3] its rows cut across the
    // permuted dims, so the second transpose needs the first's output dense.
    const std::vector<chain_step> steps{{{3, 2}, {1, 0}}, {{2, 3}, {}}, {{3, 2}, {1, 0}}};
    const auto segments = compose_chain({2, 3}, {2, 3}, steps);
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_EQ(segments[0].output_dims, (dims_t{2, 3}));
    EXPECT_EQ(segments[1].input_dims, (dims_t{2, 3}));
    EXPECT_EQ(composed({2, 3}, {2, 3}, segments), reference({2, 3}, steps));
}

TEST(ChainView, StepsThatDisagreeAreTheCallersMistake) {
    EXPECT_THROW(compose_chain({2, 3}, {2, 3}, {{{3, 2}, {0, 0}}}), error);
    EXPECT_THROW(compose_chain({2, 3}, {2, 3}, {{{7}, {}}}), error);
    EXPECT_THROW(compose_chain({2, 3}, {2, 3}, {{{2, 3}, {1, 0}}}), error);
    EXPECT_THROW(compose_chain({0, 3}, {0, 3}, {}), error);
    EXPECT_THROW(compose_chain({6}, {4}, {}), error);
}
