// compose_chain against a brute-force index reference: every chain of
// random reshapes and permutations of a tensor with random strides (gaps,
// broadcast dims, any stride in size-1 dims) is applied element by element
// to the addresses of its input, and the composed segments, read as
// strided views, must list exactly the same addresses. Whenever the chain
// is a view step by step (stepwise_view_strides, PyTorch's rule), it is
// one segment whose view gives those addresses; stepwise_view_strides
// itself is held against strides PyTorch 1.13 gave.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "chain_test_support.hpp"
#include "layout/chain_view.hpp"

using namespace reshaper::impl;
using namespace reshaper::impl::testing;

namespace {

// The brute-force reference: the chain applied to the tensor holding the
// addresses of its elements, one materialised step after another.
std::vector<dim_t> reference(const dims_t &input, const dims_t &strides, const std::vector<chain_step> &steps) {
    std::vector<dim_t> data = strided_positions(input, strides);
    dims_t dims = input;
    for (const chain_step &s : steps) {
        if (!s.permutation.empty()) {
            const dims_t dense = dense_strides(dims).value();
            dims_t pd, ps;
            for (std::size_t a : s.permutation) {
                pd.push_back(dims[a]);
                ps.push_back(dense[a]);
            }
            std::vector<dim_t> next;
            for (dim_t p : strided_positions(pd, ps)) next.push_back(data[p]);
            data = std::move(next);
        }
        dims = s.output_dims;
    }
    return data;
}

// The segments applied: the first reads the source buffer's addresses
// through its view, each later one the one before's dense output.
std::vector<dim_t> composed(const std::vector<composed_view> &segments) {
    std::vector<dim_t> data = strided_positions(segments[0].view_dims, segments[0].view_strides);
    for (std::size_t k = 1; k < segments.size(); ++k) {
        std::vector<dim_t> next;
        for (dim_t p : strided_positions(segments[k].view_dims, segments[k].view_strides)) next.push_back(data[p]);
        data = std::move(next);
    }
    return data;
}

} // namespace

TEST(ChainView, RandomChainsMatchTheBruteForceReference) {
    std::mt19937 rng(20261123);
    const dim_t volumes[] = {1, 2, 6, 12, 24, 36, 60, 64, 72, 120};
    int multi_segment = 0, stepwise_views = 0, views_not_stepwise = 0;
    for (int trial = 0; trial < 6000; ++trial) {
        const dim_t volume = volumes[rng() % std::size(volumes)];
        const dims_t input = random_shape(rng, volume);
        const dims_t strides = rng() % 3 == 0 ? dense_strides(input).value() : random_layout_strides(rng, input);
        const auto steps = trial % 2 ? random_chain(rng, input) : random_framework_chain(rng, input);
        SCOPED_TRACE("trial " + std::to_string(trial) + " input " + dims_to_string(input) + " strides " +
                     dims_to_string(strides));
        const auto segments = compose_chain(input, input, strides, steps);
        ASSERT_FALSE(segments.empty());
        EXPECT_EQ(segments.back().output_dims, steps.back().output_dims);
        for (const composed_view &v : segments) {
            EXPECT_EQ(std::count(v.view_dims.begin(), v.view_dims.end(), 1), 0);
            EXPECT_EQ(checked_volume(v.view_dims), volume);
        }
        if (segments.size() > 1) ++multi_segment;
        const std::vector<dim_t> want = reference(input, strides, steps);
        ASSERT_EQ(composed(segments), want);
        // A chain that is a view step by step is one segment, and the
        // strides PyTorch's rule gives it address the same elements.
        if (const auto stepwise = stepwise_view_strides(input, strides, steps)) {
            ++stepwise_views;
            EXPECT_EQ(segments.size(), 1u);
            EXPECT_EQ(strided_positions(steps.back().output_dims, *stepwise), want);
        } else if (segments.size() == 1) {
            ++views_not_stepwise;
        }
    }
    // The random chains reach every case: cut, views step by step, and one
    // segment although a reshape along the way is no view.
    std::printf("%d chains cut, %d views step by step, %d one segment without being so\n", multi_segment,
                stepwise_views, views_not_stepwise);
    EXPECT_GT(multi_segment, 100);
    EXPECT_GT(stepwise_views, 1000);
    EXPECT_GT(views_not_stepwise, 100);
}

TEST(ChainView, ASourceThatRefinesTheInputComposesToo) {
    // A blocked format reads [2,32,3] as [2,2,16,3]: the chain starts there.
    const dims_t input{2, 32, 3};
    const dims_t source{2, 2, 16, 3};
    const std::vector<chain_step> steps{{{2, 3, 32}, {0, 2, 1}}, {{6, 4, 8}, {}}};
    const auto segments = compose_chain(input, source, dense_strides(source).value(), steps);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(composed(segments), reference(input, dense_strides(input).value(), steps));
}

TEST(ChainView, TransformerChainsAreOneSegment) {
    // Split heads: [B*S, H*D] -> [B,S,H,D] -> [B,H,S,D] -> [B*H,S,D].
    const dims_t input{2 * 5, 3 * 4};
    const std::vector<chain_step> split{
        {{2, 5, 3, 4}, {}}, {{2, 3, 5, 4}, {0, 2, 1, 3}}, {{6, 5, 4}, {}}};
    auto segments = compose_chain(input, input, {12, 1}, split);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].view_dims, (dims_t{2, 3, 5, 4}));
    EXPECT_EQ(segments[0].view_strides, (dims_t{60, 4, 12, 1}));
    EXPECT_EQ(composed(segments), reference(input, {12, 1}, split));
    // Merge heads: [B,H,S,D] -> [B,S,H,D] -> [B*S, H*D].
    const std::vector<chain_step> merge{{{2, 5, 3, 4}, {0, 2, 1, 3}}, {{10, 12}, {}}};
    segments = compose_chain({2, 3, 5, 4}, {2, 3, 5, 4}, {60, 20, 4, 1}, merge);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].view_dims, (dims_t{2, 5, 3, 4}));
    EXPECT_EQ(segments[0].view_strides, (dims_t{60, 4, 20, 1}));
}

TEST(ChainView, ATransposeBackIsTheIdentity) {
    const std::vector<chain_step> steps{{{4, 3, 2}, {2, 1, 0}}, {{2, 3, 4}, {2, 1, 0}}};
    const auto segments = compose_chain({2, 3, 4}, {2, 3, 4}, {12, 4, 1}, steps);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].view_dims, (dims_t{24}));
    EXPECT_EQ(segments[0].view_strides, (dims_t{1}));
}

TEST(ChainView, DimsThatDoNotNestCutTheChain) {
    // [2,3] transposed is [3,2] strides [1,3]; read as [2,3] its rows cut
    // across the permuted dims, so the second transpose needs the first's
    // output dense.
    const std::vector<chain_step> steps{{{3, 2}, {1, 0}}, {{2, 3}, {}}, {{3, 2}, {1, 0}}};
    const auto segments = compose_chain({2, 3}, {2, 3}, {3, 1}, steps);
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_EQ(segments[0].output_dims, (dims_t{2, 3}));
    EXPECT_EQ(segments[1].input_dims, (dims_t{2, 3}));
    EXPECT_EQ(composed(segments), reference({2, 3}, {3, 1}, steps));
}

// Issue 25: [5,4] strides [2,10] transposed is [4,5] strides [10,2], whose
// strides nest (10 = 5 * 2): one dim of 20 at stride 2, which [10,2] and
// the transpose back view. With the same dims laid out densely the dims do
// not nest in memory and the chain is cut, as numpy and PyTorch copy there.
TEST(ChainView, DimsWhoseStridesNestMergeWhateverPermutationBroughtThemTogether) {
    const std::vector<chain_step> steps{{{4, 5}, {1, 0}}, {{10, 2}, {}}, {{2, 10}, {1, 0}}};
    auto segments = compose_chain({5, 4}, {5, 4}, {2, 10}, steps);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].view_dims, (dims_t{2, 10}));
    EXPECT_EQ(segments[0].view_strides, (dims_t{2, 4}));
    EXPECT_EQ(stepwise_view_strides({5, 4}, {2, 10}, steps), (dims_t{2, 4}));
    EXPECT_EQ(composed(segments), reference({5, 4}, {2, 10}, steps));
    segments = compose_chain({5, 4}, {5, 4}, {4, 1}, steps);
    EXPECT_EQ(segments.size(), 2u);
    EXPECT_EQ(stepwise_view_strides({5, 4}, {4, 1}, steps), std::nullopt);
    EXPECT_EQ(composed(segments), reference({5, 4}, {4, 1}, steps));
}

// stepwise_view_strides against the strides PyTorch 1.13 gave the same
// chains (Debian's /usr/bin/python3: torch.arange(n).as_strided(shape,
// strides), then .permute(...) for each permutation and .view(...) for
// each reshape, then .stride(); "none" where .view raised), size-1 dims
// and broadcast dims included.
TEST(ChainView, StepwiseViewStridesAreTheOnesPyTorchGives) {
    struct torch_case {
        dims_t shape, strides;
        std::vector<chain_step> steps;
        std::optional<dims_t> torch_strides;
    };
    const torch_case cases[] = {
        {{5, 4}, {2, 10}, {{{4, 5}, {1, 0}}, {{10, 2}, {}}, {{2, 10}, {1, 0}}}, dims_t{2, 4}},
        {{8, 96}, {0, 1}, {{{8, 1, 96}, {}}}, dims_t{0, 96, 1}},
        {{3, 4}, {0, 1}, {{{3, 2, 2}, {}}}, dims_t{0, 2, 1}},
        {{3, 4}, {0, 1}, {{{12}, {}}}, std::nullopt},
        {{2, 3, 1}, {3, 1, 7}, {{{1, 2, 3}, {2, 0, 1}}, {{1, 6}, {}}, {{6, 1}, {1, 0}}}, dims_t{1, 6}},
        {{1, 16, 32, 32}, {1024, 1024, 32, 1}, {{{1, 32, 16, 32}, {0, 2, 1, 3}}, {{1, 32, 512}, {}}}, std::nullopt},
        {{1, 16, 32, 32}, {1024, 1024, 32, 1}, {{{16, 32, 32}, {}}, {{32, 16, 32}, {1, 0, 2}}}, dims_t{32, 1024, 1}},
        {{4, 1, 6}, {6, 100, 1}, {{{2, 2, 1, 3, 2}, {}}, {{2, 3, 1, 2, 2}, {4, 3, 2, 1, 0}}}, dims_t{1, 2, 6, 6, 12}},
        {{2, 3}, {0, 0}, {{{6}, {}}, {{3, 1, 2}, {}}, {{2, 1, 3}, {2, 1, 0}}}, dims_t{0, 0, 0}},
        {{2, 3}, {1, 2}, {{{6}, {}}}, std::nullopt},
        {{2, 3}, {1, 2}, {{{3, 2}, {1, 0}}, {{6, 1}, {}}}, dims_t{1, 1}},
        {{6, 1}, {1, 1}, {{{1, 6, 1}, {}}, {{2, 1, 3}, {}}}, dims_t{3, 3, 1}},
        {{2, 1, 3}, {3, 5, 1}, {{{2, 3, 1}, {}}}, dims_t{3, 1, 1}},
    };
    for (const torch_case &c : cases) {
        SCOPED_TRACE(dims_to_string(c.shape) + " strides " + dims_to_string(c.strides));
        EXPECT_EQ(stepwise_view_strides(c.shape, c.strides, c.steps), c.torch_strides);
        // Every one of them composes to the addresses of the reference.
        const auto segments = compose_chain(c.shape, c.shape, c.strides, c.steps);
        EXPECT_EQ(composed(segments), reference(c.shape, c.strides, c.steps));
        if (c.torch_strides) {
            EXPECT_EQ(segments.size(), 1u);
        }
    }
}

TEST(ChainView, StepsThatDisagreeAreTheCallersMistake) {
    EXPECT_THROW(compose_chain({2, 3}, {2, 3}, {3, 1}, {{{3, 2}, {0, 0}}}), error);
    EXPECT_THROW(compose_chain({2, 3}, {2, 3}, {3, 1}, {{{7}, {}}}), error);
    EXPECT_THROW(compose_chain({2, 3}, {2, 3}, {3, 1}, {{{2, 3}, {1, 0}}}), error);
    EXPECT_THROW(compose_chain({0, 3}, {0, 3}, {3, 1}, {}), error);
    EXPECT_THROW(compose_chain({6}, {4}, {1}, {}), error);
    EXPECT_THROW(compose_chain({6}, {6}, {1, 1}, {}), error);
    EXPECT_THROW(stepwise_view_strides({2, 3}, {3, 1}, {{{3, 2}, {0, 0}}}), error);
}

TEST(ChainView, CommonRefinementOfTwoShapes) {
    EXPECT_EQ(common_refinement({4, 6}, {2, 12}), (dims_t{2, 2, 6}));
    EXPECT_EQ(common_refinement({6, 4}, {4, 6}), std::nullopt);
    EXPECT_EQ(common_refinement({1, 6, 1}, {2, 1, 3}), (dims_t{2, 3}));
    EXPECT_EQ(common_refinement({6}, {4}), std::nullopt);
    EXPECT_EQ(common_refinement({2, 3, 4}, {6, 4}), (dims_t{2, 3, 4}));
    EXPECT_EQ(common_refinement({1, 6, 1}, {6}), (dims_t{6}));
    EXPECT_EQ(common_refinement({}, {1, 1}), (dims_t{}));
}

TEST(ChainView, StridesWhoseSplitOverflowsAreAnErrorNamingTheRule) {
    // [4,3] strides [2^62,1] transposed after [2,2,3]: splitting the dim of
    // 4 at stride 2^62 needs stride 2^63.
    const dim_t huge = dim_t{1} << 62;
    const std::vector<chain_step> steps{{{2, 2, 3}, {}}, {{2, 2, 3}, {1, 0, 2}}};
    try {
        compose_chain({4, 3}, {4, 3}, {huge, 1}, steps);
        ADD_FAILURE() << "no error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_shape);
        EXPECT_NE(std::string(e.what()).find("[overflow]"), std::string::npos) << e.what();
    }
    EXPECT_EQ(stepwise_view_strides({4, 3}, {huge, 1}, steps), std::nullopt);
}

