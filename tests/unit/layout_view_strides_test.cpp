// The view rule against a brute-force oracle: a view of new sizes exists iff
// the input's element addresses, listed in row-major order and cut into the
// new shape, are an affine function of the new index. When the rule returns
// strides, the view must list exactly the input's addresses.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "layout/view_strides.hpp"

using namespace reshaper::impl;

namespace {

// Calls `visit(index)` for every index of `sizes` in row-major order.
void for_each_index(const dims_t &sizes, const std::function<void(const dims_t &)> &visit) {
    for (dim_t s : sizes)
        if (s == 0) return;
    dims_t idx(sizes.size(), 0);
    while (true) {
        visit(idx);
        std::size_t k = sizes.size();
        while (k > 0 && ++idx[k - 1] == sizes[k - 1]) idx[--k] = 0;
        if (k == 0) return;
    }
}

std::vector<dim_t> addresses(const dims_t &sizes, const dims_t &strides, dim_t offset) {
    std::vector<dim_t> out;
    for_each_index(sizes, [&](const dims_t &idx) {
        dim_t a = offset;
        for (std::size_t k = 0; k < idx.size(); ++k) a += idx[k] * strides[k];
        out.push_back(a);
    });
    return out;
}

// The oracle: is `addrs` (row-major over `sizes`) affine in the index? Each
// dim of size > 1 fixes its stride by its first step; size-1 dims are free.
bool is_affine(const dims_t &sizes, const std::vector<dim_t> &addrs) {
    if (addrs.empty()) return true; // zero volume: nothing to preserve
    dims_t strides(sizes.size(), 0);
    dim_t row_major_step = 1;
    for (std::size_t k = sizes.size(); k-- > 0;) {
        if (sizes[k] > 1) strides[k] = addrs[row_major_step] - addrs[0];
        row_major_step *= sizes[k];
    }
    return addresses(sizes, strides, addrs[0]) == addrs;
}

dims_t dense(const dims_t &sizes) { return *dense_strides(sizes); }

// Strides of a tensor laid out densely with dim order[0] outermost.
dims_t permuted(const dims_t &sizes, const std::vector<std::size_t> &order) {
    dims_t strides(sizes.size());
    dim_t running = 1;
    for (std::size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = running;
        running *= std::max<dim_t>(sizes[order[k]], 1);
    }
    return strides;
}

// Strides of the slice [offset : offset + size*step : step] along each dim
// of a dense base tensor whose dims are size*step + pad.
dims_t sliced(const dims_t &sizes, const dims_t &steps, const dims_t &pads) {
    dims_t base(sizes.size());
    for (std::size_t k = 0; k < sizes.size(); ++k) base[k] = sizes[k] * steps[k] + pads[k];
    dims_t strides = dense(base);
    for (std::size_t k = 0; k < sizes.size(); ++k) strides[k] *= steps[k];
    return strides;
}

struct layout_case {
    dims_t strides;
    dim_t offset;
};

// Dense, every permutation, and slices by step and offset (also of a
// permuted layout).
std::vector<layout_case> layouts_of(const dims_t &sizes) {
    const std::size_t rank = sizes.size();
    std::vector<layout_case> out;
    std::vector<std::size_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    do out.push_back({permuted(sizes, order), 0});
    while (std::next_permutation(order.begin(), order.end()));

    const dims_t ones(rank, 1), zeros(rank, 0);
    out.push_back({sliced(sizes, dims_t(rank, 2), zeros), 3});
    out.push_back({sliced(sizes, ones, dims_t(rank, 1)), 5});
    for (std::size_t k = 0; k < rank; ++k) {
        dims_t steps = ones, pads = zeros;
        steps[k] = 3;
        out.push_back({sliced(sizes, steps, zeros), 1});
        steps[k] = 1;
        pads[k] = 2;
        out.push_back({sliced(sizes, steps, pads), 2});
    }
    if (rank >= 2) { // reversed dim order, every dim stepped by 2
        dims_t strides = permuted(sizes, std::vector<std::size_t>(order.rbegin(), order.rend()));
        for (auto &s : strides) s *= 2;
        out.push_back({strides, 7});
    }
    return out;
}

// Every ordered factorisation of `volume` into `rank` factors.
void factorisations(dim_t volume, std::size_t rank, dims_t &prefix, std::vector<dims_t> &out) {
    if (prefix.size() + 1 == rank) {
        prefix.push_back(volume);
        out.push_back(prefix);
        prefix.pop_back();
        return;
    }
    for (dim_t f = 1; f <= volume; ++f) {
        if (volume % f) continue;
        prefix.push_back(f);
        factorisations(volume / f, rank, prefix, out);
        prefix.pop_back();
    }
}

std::vector<dims_t> targets_of_volume(dim_t volume) {
    std::vector<dims_t> out;
    if (volume == 0) return {{0}, {0, 3}, {2, 0}, {1, 0, 1}, {4, 0, 4, 2}, {0, 0}};
    if (volume == 1) out.push_back({});
    for (std::size_t rank = 1; rank <= 4; ++rank) {
        dims_t prefix;
        factorisations(volume, rank, prefix, out);
    }
    return out;
}

// Every shape of rank 0..max_rank with dims 0..max_dim.
std::vector<dims_t> all_shapes(std::size_t max_rank, dim_t max_dim) {
    std::vector<dims_t> out{{}};
    std::vector<dims_t> level{{}};
    for (std::size_t r = 1; r <= max_rank; ++r) {
        std::vector<dims_t> next;
        for (const auto &s : level)
            for (dim_t d = 0; d <= max_dim; ++d) {
                next.push_back(s);
                next.back().push_back(d);
            }
        out.insert(out.end(), next.begin(), next.end());
        level = std::move(next);
    }
    return out;
}

std::string describe_case(const dims_t &sizes, const dims_t &strides, const dims_t &target) {
    return dims_to_string(sizes) + " strides " + dims_to_string(strides) + " -> " +
           dims_to_string(target);
}

// The rule must agree with the oracle; returns false (after reporting) on
// the first disagreement so a broken rule does not flood the log.
bool check_against_oracle(const dims_t &sizes, const dims_t &strides, dim_t offset,
                          const dims_t &target) {
    const auto in = addresses(sizes, strides, offset);
    const auto result = compute_view_strides(sizes, strides, target);
    const std::string what = describe_case(sizes, strides, target);
    if (!is_affine(target, in)) {
        EXPECT_FALSE(result.strides.has_value()) << what << ": no view exists";
        EXPECT_EQ(result.failure, view_failure::spans_non_contiguous) << what;
        return !result.strides.has_value();
    }
    if (!result.strides) {
        ADD_FAILURE() << what << ": a view exists but the rule says "
                      << describe(result.failure);
        return false;
    }
    EXPECT_EQ(result.failure, view_failure::none) << what;
    EXPECT_EQ(result.strides->size(), target.size()) << what;
    if (result.strides->size() != target.size()) return false;
    const bool same = addresses(target, *result.strides, offset) == in;
    EXPECT_TRUE(same) << what << ": view strides " << dims_to_string(*result.strides)
                      << " address other elements";
    return same;
}

} // namespace

TEST(ViewRule, AgreesWithBruteForceOnEveryShapeUpToRank4) {
    std::size_t checked = 0;
    for (const auto &sizes : all_shapes(4, 4)) {
        const dim_t volume = *checked_volume(sizes);
        const auto targets = targets_of_volume(volume);
        for (const auto &layout : layouts_of(sizes)) {
            for (const auto &target : targets) {
                ASSERT_TRUE(check_against_oracle(sizes, layout.strides, layout.offset, target));
                ++checked;
            }
            const auto mismatch = compute_view_strides(sizes, layout.strides, {volume + 1});
            EXPECT_EQ(mismatch.failure, view_failure::volume_mismatch);
            EXPECT_FALSE(mismatch.strides.has_value());
        }
    }
    EXPECT_GT(checked, 100000u);
}

TEST(ViewRule, AgreesWithBruteForceOnRandomStrides) {
    std::mt19937_64 rng(20240611);
    auto uniform = [&](dim_t lo, dim_t hi) {
        return std::uniform_int_distribution<dim_t>(lo, hi)(rng);
    };
    std::size_t views = 0, copies = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        const std::size_t rank = static_cast<std::size_t>(uniform(0, 6));
        dims_t sizes(rank);
        for (auto &s : sizes) s = uniform(0, 9) == 0 ? uniform(0, 1) : uniform(1, 5);
        // Mostly a permuted, sliced layout (contiguous runs happen);
        // sometimes arbitrary strides, zero and negative included.
        dims_t strides;
        if (uniform(0, 3) == 0) {
            strides.resize(rank);
            for (auto &s : strides) s = uniform(-3, 40);
        } else {
            std::vector<std::size_t> order(rank);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            dims_t padded = sizes;
            for (auto &p : padded) p += uniform(0, 4) == 0 ? uniform(1, 3) : 0;
            const dims_t base = permuted(padded, order);
            strides.resize(rank);
            for (std::size_t k = 0; k < rank; ++k)
                strides[k] = base[k] * (uniform(0, 5) == 0 ? 2 : 1);
        }
        // A random factorisation of the volume, with size-1 dims inserted.
        const dim_t volume = *checked_volume(sizes);
        dims_t target;
        if (volume == 0) {
            target = {uniform(0, 3), 0, uniform(1, 3)};
            std::shuffle(target.begin(), target.end(), rng);
        } else {
            dim_t rest = volume;
            for (dim_t f = 2; rest > 1;) {
                if (rest % f) { ++f; continue; }
                rest /= f;
                if (target.empty() || uniform(0, 1)) target.push_back(f);
                else target.back() *= f;
            }
            std::shuffle(target.begin(), target.end(), rng);
            for (int ones = static_cast<int>(uniform(0, 2)); ones > 0; --ones)
                target.insert(target.begin() + uniform(0, static_cast<dim_t>(target.size())), 1);
        }
        ASSERT_TRUE(check_against_oracle(sizes, strides, uniform(0, 9), target));
        (compute_view_strides(sizes, strides, target).strides ? views : copies) += 1;
    }
    // Both outcomes must be well represented for the test to mean anything.
    EXPECT_GT(views, 2000u);
    EXPECT_GT(copies, 2000u);
}

// Strides of size-1 dims are free as far as addresses go; these pin down
// PyTorch's choice: the stride the next-inner dim of its chunk would give.
TEST(ViewRule, SizeOneDimsTakeTheStrideOfTheirChunkPosition) {
    EXPECT_EQ(compute_view_strides({2, 3}, {3, 1}, {2, 1, 3}).strides, dims_t({3, 3, 1}));
    EXPECT_EQ(compute_view_strides({2, 3}, {3, 1}, {1, 6}).strides, dims_t({6, 1}));
    EXPECT_EQ(compute_view_strides({2, 3}, {3, 1}, {6, 1}).strides, dims_t({1, 1}));
    // Transposed [3,2] buffer: each dim is its own chunk, and a size-1 dim
    // between two chunks joins the inner one, past its last element.
    EXPECT_EQ(compute_view_strides({2, 3}, {1, 2}, {2, 1, 3, 1}).strides,
              dims_t({1, 6, 2, 2}));
    EXPECT_EQ(compute_view_strides({}, {}, {1, 1}).strides, dims_t({1, 1}));
}

TEST(ViewRule, SizeOneInputDimsNeverBreakARun) {
    // The stride 100 of the size-1 dim is ignored: [2,1,3] is contiguous.
    EXPECT_EQ(compute_view_strides({2, 1, 3}, {3, 100, 1}, {6}).strides, dims_t({1}));
    EXPECT_EQ(compute_view_strides({4, 1}, {1, 7}, {2, 2}).strides, dims_t({2, 1}));
}

TEST(ViewRule, SlicedAndPermutedInputs) {
    // Every other row of a [4,6] buffer: rows stay separate chunks.
    EXPECT_EQ(compute_view_strides({2, 6}, {12, 1}, {2, 2, 3}).strides, dims_t({12, 3, 1}));
    const auto merged = compute_view_strides({2, 6}, {12, 1}, {12});
    EXPECT_FALSE(merged.strides.has_value());
    EXPECT_EQ(merged.failure, view_failure::spans_non_contiguous);
    // A transposed matrix can split each dim but never flatten.
    EXPECT_EQ(compute_view_strides({4, 6}, {1, 4}, {2, 2, 6}).strides, dims_t({2, 1, 4}));
    EXPECT_EQ(compute_view_strides({4, 6}, {1, 4}, {24}).failure,
              view_failure::spans_non_contiguous);
}

TEST(ViewRule, ZeroVolumeTargetsAreAlwaysViews) {
    // Strides that could never flatten still give a view when empty.
    EXPECT_EQ(compute_view_strides({0, 6}, {1, 4}, {3, 0, 2}).strides, dims_t({2, 2, 1}));
    // Unchanged shape: the input's strides stay, as PyTorch keeps them.
    EXPECT_EQ(compute_view_strides({0, 6}, {1, 4}, {0, 6}).strides, dims_t({1, 4}));
    EXPECT_EQ(compute_view_strides({2, 0}, {1, 2}, {5}).failure, view_failure::volume_mismatch);
}

TEST(ViewRule, OverflowIsItsOwnFailure) {
    const dim_t big = dim_t{1} << 32;
    auto volume = compute_view_strides({big, big}, {big, 1}, {big, big});
    EXPECT_EQ(volume.failure, view_failure::overflow);
    auto target = compute_view_strides({4}, {1}, {big, big});
    EXPECT_EQ(target.failure, view_failure::overflow);
    // A 0 makes the volume 0 however large the other dims are.
    EXPECT_EQ(compute_view_strides({4}, {1}, {big, big, 0}).failure,
              view_failure::volume_mismatch);
    // The leading size-1 dim would need stride 2^32 * 2^31.
    auto stride = compute_view_strides({big}, {dim_t{1} << 31}, {1, big});
    EXPECT_EQ(stride.failure, view_failure::overflow);
    EXPECT_FALSE(stride.strides.has_value());
    // A run product that overflows merely ends the run: no stride can equal it.
    auto run = compute_view_strides({4, big}, {5, dim_t{1} << 40}, {4 * big});
    EXPECT_EQ(run.failure, view_failure::spans_non_contiguous);
    EXPECT_EQ(compute_view_strides({4, big}, {5, dim_t{1} << 40}, {2, 2, big}).strides,
              dims_t({10, 5, dim_t{1} << 40}));
}

TEST(ViewRule, EveryFailureHasItsOwnText) {
    const std::vector<view_failure> all{view_failure::none, view_failure::volume_mismatch,
                                        view_failure::spans_non_contiguous,
                                        view_failure::overflow};
    for (std::size_t i = 0; i < all.size(); ++i)
        for (std::size_t j = i + 1; j < all.size(); ++j)
            EXPECT_NE(describe(all[i]), describe(all[j]));
    EXPECT_NE(describe(view_failure::spans_non_contiguous).find("contiguous"),
              std::string_view::npos);
    EXPECT_NE(describe(view_failure::overflow).find("overflow"), std::string_view::npos);
}

TEST(ViewRule, MalformedArgumentsAreAnErrorNotACrash) {
    try {
        compute_view_strides({2, 3}, {1}, {6});
        FAIL() << "expected an error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_arguments);
        EXPECT_NE(std::string(e.what()).find("[2,3]"), std::string::npos);
    }
    EXPECT_THROW(compute_view_strides({2, -1}, {1, 1}, {6}), error);
}

// The reason names the output dim and the input dims that break the view,
// for every non-view over the same shapes as the oracle test.
TEST(ViewRule, ExplainsEveryNonContiguousFailureByItsDims) {
    std::size_t explained = 0;
    for (const auto &sizes : all_shapes(4, 4)) {
        const auto targets = targets_of_volume(*checked_volume(sizes));
        for (const auto &layout : layouts_of(sizes))
            for (const auto &target : targets) {
                const auto result = compute_view_strides(sizes, layout.strides, target);
                const std::string why = explain_view_failure(sizes, layout.strides, target);
                if (result.strides) {
                    EXPECT_EQ(why, "");
                    continue;
                }
                ASSERT_EQ(result.failure, view_failure::spans_non_contiguous);
                ASSERT_EQ(why.rfind("output dim ", 0), 0u)
                    << dims_to_string(sizes) << " strides " << dims_to_string(layout.strides)
                    << " -> " << dims_to_string(target) << ": " << why;
                ++explained;
            }
    }
    EXPECT_GT(explained, 1000u);
}

TEST(ViewRule, ExplanationNamesTheBreakingStride) {
    // [3,5] with strides [1,3] (a transposed [5,3]) flattened: dim 0 would
    // need stride 15 to continue dim 1.
    EXPECT_EQ(explain_view_failure({3, 5}, {1, 3}, {15}),
              "output dim 0 (size 15) spans input dims 0 and 1, which are not contiguous: input "
              "dim 0 has stride 1, a view needs 15");
    // Rows 8 apart: splitting a row is a view, merging rows is not.
    EXPECT_EQ(explain_view_failure({2, 4}, {8, 1}, {2, 2, 2}), "");
    EXPECT_EQ(explain_view_failure({2, 4}, {8, 1}, {8}),
              "output dim 0 (size 8) spans input dims 0 and 1, which are not contiguous: input "
              "dim 0 has stride 8, a view needs 4");
    EXPECT_EQ(explain_view_failure({2, 3}, {3, 1}, {7}), std::string(describe(view_failure::volume_mismatch)));
}
