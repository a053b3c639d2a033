// The copy plan: walk order, dropped size-1 dims, merged contiguous runs,
// and the monotonicity that makes nibble-safe parallel cuts possible.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <set>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "kernels/copy_plan.hpp"

using namespace reshaper::impl;

namespace {

std::vector<dims_t> as_rows(const copy_plan &plan) {
    std::vector<dims_t> rows;
    for (const auto &d : plan.dims) rows.push_back({d.size, d.src_stride, d.dst_stride});
    return rows;
}

} // namespace

TEST(CopyPlan, DenseCopiesBecomeOneRun) {
    const auto plan = make_copy_plan({2, 3, 4}, {12, 4, 1}, 5, {12, 4, 1}, 0);
    EXPECT_EQ(as_rows(plan), (std::vector<dims_t>{{24, 1, 1}}));
    EXPECT_EQ(plan.volume, 24);
    EXPECT_EQ(plan.src_offset, 5);
    EXPECT_TRUE(plan.dst_increasing);
}

TEST(CopyPlan, SizeOneDimsAreDroppedWhateverTheirStrides) {
    const auto plan = make_copy_plan({1, 6, 1}, {99, 1, 7}, 0, {3, 1, -4}, 0);
    EXPECT_EQ(as_rows(plan), (std::vector<dims_t>{{6, 1, 1}}));
    const auto scalar = make_copy_plan({}, {}, 3, {}, 4);
    EXPECT_EQ(as_rows(scalar), (std::vector<dims_t>{{1, 1, 1}}));
    EXPECT_EQ(scalar.volume, 1);
}

TEST(CopyPlan, MergesOnlyRunsContiguousInBothTensors) {
    // Source rows of 4 in a buffer of rows of 5 (a slice): rows stay apart.
    const auto sliced = make_copy_plan({3, 4}, {5, 1}, 0, {4, 1}, 0);
    EXPECT_EQ(as_rows(sliced), (std::vector<dims_t>{{3, 5, 4}, {4, 1, 1}}));
    // [2,3,4] read through a permutation that keeps the last two dims together.
    const auto partly = make_copy_plan({2, 3, 4}, {4, 8, 1}, 0, {12, 4, 1}, 0);
    EXPECT_EQ(as_rows(partly), (std::vector<dims_t>{{2, 4, 12}, {3, 8, 4}, {4, 1, 1}}));
}

TEST(CopyPlan, WalksInTheDestinationsMemoryOrder) {
    // The destination is the transposed one: its stride-1 dim becomes innermost.
    const auto plan = make_copy_plan({3, 5}, {5, 1}, 0, {1, 3}, 0);
    EXPECT_EQ(as_rows(plan), (std::vector<dims_t>{{5, 1, 3}, {3, 5, 1}}));
    EXPECT_TRUE(plan.dst_increasing);
    EXPECT_EQ(element_at(plan, 0).dst, 0);
    EXPECT_EQ(element_at(plan, 4).dst, 4);
    EXPECT_EQ(element_at(plan, 4).src, 1 * 1 + 1 * 5); // walk (1,1) = logical (1,1)
}

TEST(CopyPlan, InterleavedDestinationsAreNotIncreasing) {
    // Destination rows of 2 with stride 3 interleave with rows 2 apart.
    const auto plan = make_copy_plan({3, 2}, {2, 1}, 0, {2, 3}, 0);
    EXPECT_FALSE(plan.dst_increasing);
    const auto gaps = make_copy_plan({3, 2}, {2, 1}, 0, {4, 1}, 1);
    EXPECT_TRUE(gaps.dst_increasing);
}

TEST(CopyPlan, ZeroVolumeNeedsNoChecksOfReach) {
    const auto plan = make_copy_plan({4, 0}, {-100, 1}, 0, {1, 1}, 0);
    EXPECT_EQ(plan.volume, 0);
}

TEST(CopyPlan, MalformedTensorsAreErrors) {
    auto message = [](auto &&make) {
        try {
            make();
        } catch (const error &e) {
            EXPECT_EQ(e.code(), status::invalid_arguments);
            return std::string(e.what());
        }
        ADD_FAILURE() << "no error";
        return std::string();
    };
    EXPECT_NE(message([] { make_copy_plan({2, 3}, {1}, 0, {3, 1}, 0); }).find("one stride per dim"),
              std::string::npos);
    EXPECT_NE(message([] { make_copy_plan({2, -1}, {1, 1}, 0, {1, 1}, 0); }).find("known"),
              std::string::npos);
    EXPECT_NE(message([] { make_copy_plan({4}, {-1}, 0, {1}, 0); }).find("source reaches before"),
              std::string::npos);
    EXPECT_NE(message([] { make_copy_plan({4}, {1}, 0, {1}, -1); })
                  .find("destination reaches before"),
              std::string::npos);
    const dim_t big = dim_t{1} << 62;
    EXPECT_NE(message([] { make_copy_plan({3}, {big}, 0, {1}, 0); }).find("overflows"),
              std::string::npos);
    EXPECT_NE(message([] { make_copy_plan({big, 4}, {4, 1}, 0, {4, 1}, 0); }).find("overflows"),
              std::string::npos);
}

// Every cut byte_safe_cut proposes, and every cut at a multiple of
// per_byte of a walk whose rows own their bytes, splits the destination
// bytes into two disjoint sets, checked by brute force over random packed
// layouts of 4-bit (two per byte) and 2-bit (four per byte) elements.
TEST(CopyPlan, ByteSafeCutsNeverSplitAByte) {
    std::mt19937_64 rng(11);
    auto pick = [&](dim_t lo, dim_t hi) { return std::uniform_int_distribution<dim_t>(lo, hi)(rng); };
    for (const dim_t per_byte : {2, 4}) {
        int increasing = 0, moved = 0, moved_far = 0, even_rows = 0;
        for (int iter = 0; iter < 3000; ++iter) {
            const std::size_t rank = static_cast<std::size_t>(pick(1, 3));
            dims_t dims(rank), dst(rank), src(rank);
            std::vector<std::size_t> order(rank);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            dim_t running = pick(1, 2);
            for (std::size_t k = rank; k-- > 0;) {
                dims[order[k]] = per_byte == 2 ? pick(1, 5) : pick(1, 9);
                dst[order[k]] = running;
                running = running * dims[order[k]] + pick(0, per_byte);
            }
            dim_t s = 1;
            for (std::size_t k = rank; k-- > 0;) {
                src[k] = s;
                s *= dims[k];
            }
            const auto plan = make_copy_plan(dims, src, 0, dst, pick(0, 2 * per_byte - 1));
            if (rows_own_their_bytes(plan, per_byte)) {
                ++even_rows;
                for (dim_t p = per_byte; p < plan.volume; p += per_byte) {
                    std::set<dim_t> before, after;
                    for (dim_t q = 0; q < plan.volume; ++q)
                        (q < p ? before : after).insert(element_at(plan, q).dst / per_byte);
                    for (dim_t byte : before)
                        ASSERT_EQ(after.count(byte), 0u) << "cut " << p << " of dims " << dims_to_string(dims)
                                                         << " dst strides " << dims_to_string(dst);
                }
            }
            if (!plan.dst_increasing) continue;
            ++increasing;
            for (dim_t p = 1; p < plan.volume; ++p) {
                const dim_t cut = byte_safe_cut(plan, p, per_byte);
                ASSERT_TRUE(cut >= p && cut < p + per_byte && cut <= plan.volume);
                moved += cut != p;
                moved_far += cut > p + 1;
                std::set<dim_t> before, after;
                for (dim_t q = 0; q < plan.volume; ++q)
                    (q < cut ? before : after).insert(element_at(plan, q).dst / per_byte);
                for (dim_t byte : before)
                    ASSERT_EQ(after.count(byte), 0u)
                        << "byte " << byte << " on both sides of cut " << cut << " of dims "
                        << dims_to_string(dims) << " dst strides " << dims_to_string(dst);
                // The first safe cut: one step less would split a byte.
                if (cut > p) {
                    EXPECT_EQ(element_at(plan, cut - 2).dst / per_byte, element_at(plan, cut - 1).dst / per_byte);
                }
            }
        }
        EXPECT_GT(increasing, 1000) << per_byte;
        EXPECT_GT(moved, 100) << per_byte; // the cuts that had to move were exercised
        if (per_byte == 4) {
            EXPECT_GT(moved_far, 50); // ... by more than one element
        }
        EXPECT_GT(even_rows, per_byte == 2 ? 100 : 40) << per_byte; // whole-byte rows are rarer at 4
    }
}

// whole_byte_plan: the same walk in bytes exactly when every run of both
// tensors is contiguous, starts on a byte and holds whole bytes.
TEST(CopyPlan, WholeBytePlansCountBytes) {
    // [3, 8] 2-bit elements, rows 12 apart in the source, 8 in the destination.
    const auto plan = make_copy_plan({3, 8}, {12, 1}, 4, {8, 1}, 0);
    const auto bytes = whole_byte_plan(plan, 4);
    ASSERT_TRUE(bytes.has_value());
    ASSERT_EQ(bytes->dims.size(), 2u);
    EXPECT_EQ(bytes->dims[0].size, 3);
    EXPECT_EQ(bytes->dims[0].src_stride, 3);
    EXPECT_EQ(bytes->dims[0].dst_stride, 2);
    EXPECT_EQ(bytes->dims[1].size, 2);
    EXPECT_EQ(bytes->volume, 6);
    EXPECT_EQ(bytes->src_offset, 1);
    EXPECT_EQ(bytes->dst_offset, 0);
    EXPECT_TRUE(bytes->dst_increasing);
    // Whole bytes for 4-bit elements, not for 2-bit ones: rows of 6.
    EXPECT_TRUE(whole_byte_plan(make_copy_plan({3, 6}, {10, 1}, 0, {6, 1}, 0), 2).has_value());
    EXPECT_FALSE(whole_byte_plan(make_copy_plan({3, 6}, {10, 1}, 0, {6, 1}, 0), 4).has_value());
    EXPECT_FALSE(whole_byte_plan(make_copy_plan({3, 8}, {12, 1}, 2, {8, 1}, 0), 4).has_value()); // mid-byte start
    EXPECT_FALSE(whole_byte_plan(make_copy_plan({3, 8}, {10, 1}, 0, {8, 1}, 0), 4).has_value()); // mid-byte rows
    EXPECT_FALSE(whole_byte_plan(make_copy_plan({8, 8}, {1, 8}, 0, {8, 1}, 0), 4).has_value());  // a transpose
}

namespace {

// Every (source, destination) element pair a set of plans visits.
std::multiset<std::pair<dim_t, dim_t>> visits(const std::vector<copy_plan> &plans) {
    std::multiset<std::pair<dim_t, dim_t>> out;
    for (const auto &plan : plans)
        for (dim_t q = 0; q < plan.volume; ++q) {
            const auto e = element_at(plan, q);
            out.insert({e.src, e.dst});
        }
    return out;
}

} // namespace

TEST(CopyPlan, TiledPartsVisitExactlyTheElementsOfTheWalk) {
    struct tiling_case {
        dims_t dims, src, dst;
        std::size_t parts;
    };
    const std::vector<tiling_case> cases{
        {{37, 45}, {1, 37}, {45, 1}, 3},          // both edges
        {{32, 44}, {1, 32}, {44, 1}, 2},          // rows are whole tiles, columns not
        {{3, 16, 24}, {384, 1, 16}, {384, 24, 1}, 1}, // whole tiles, an outer dim
        {{3, 20, 9, 17}, {3060, 1, 20, 180}, {3060, 153, 17, 1}, 3}, // inner dims stay apart
    };
    for (const auto &c : cases) {
        const auto plan = make_copy_plan(c.dims, c.src, 3, c.dst, 5);
        const auto parts = tiled_parts(plan, 8);
        ASSERT_EQ(parts.size(), c.parts) << dims_to_string(c.dims) << " walked as " << plan.dims.size() << " dims";
        dim_t volume = 0;
        for (const auto &p : parts) volume += p.volume;
        EXPECT_EQ(volume, plan.volume);
        EXPECT_EQ(visits(parts), visits({plan})) << dims_to_string(c.dims);
        // The whole-tile part ends with two tile-sized dims.
        EXPECT_EQ(parts[0].dims.back().size, 8);
        EXPECT_EQ(parts[0].dims[parts[0].dims.size() - 2].size, 8);
    }
}

TEST(CopyPlan, OnlyTransposeLikeWalksOfAtLeastATileAreTiled) {
    EXPECT_FALSE(tiled_parts(make_copy_plan({64, 64}, {64, 1}, 0, {1, 64}, 0), 8).empty())
        << "a transposed destination is walked in its order: the source gathers";
    EXPECT_TRUE(tiled_parts(make_copy_plan({64, 64}, {128, 1}, 0, {64, 1}, 0), 8).empty())
        << "the source is contiguous along the walk already";
    EXPECT_TRUE(tiled_parts(make_copy_plan({64, 5}, {1, 64}, 0, {5, 1}, 0), 8).empty())
        << "inner runs shorter than a tile";
    EXPECT_TRUE(tiled_parts(make_copy_plan({64, 64}, {2, 128}, 0, {64, 1}, 0), 8).empty())
        << "no dim is contiguous in the source";
}
