// The grouped transpose (kernels/grouped_transpose.hpp): which blocks the
// planner takes for which copies, and its moves against the reference
// (layout/reference.hpp, as the strided-copy tests) bit for bit: random
// permutations of rank 12-24 tensors of 2s, 3s and 4s, every element size
// (1, 2, 4, 8, 16 bytes), every SIMD level this CPU has, streamed and
// not, split across threads and not, with offsets and padded dims.
// Bytes the destination does not cover must come out untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "core/logical_tensor.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/grouped_transpose.hpp"
#include "kernels/movement_program.hpp"
#include "layout/reference.hpp"
#include "element_copy_reference.hpp"
#include "isa_levels_support.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::levels_here;
using reshaper::impl::testing::element_copy_reference;

namespace {

// The grouped transpose's plan at `isa` (the detected level unless given),
// streaming as the machine's threshold says (the suites lower it).
std::optional<grouped_transpose_plan> grouped_plan(const copy_plan &plan, std::size_t e,
                                                   cpu_isa isa = detected_cpu_isa()) {
    return plan_grouped_transpose(plan, e, isa, transpose_streaming_threshold_bytes());
}

data_type type_of(std::size_t bytes) {
    switch (bytes) {
    case 1: return data_type::u8;
    case 2: return data_type::bf16;
    case 4: return data_type::f32;
    case 8: return data_type::c64;
    default: return data_type::c128;
    }
}

// Strides of `dims` laid out in `order` (outermost first), dim k padded by
// pad[k] elements; `extent` receives the elements the layout spans.
dims_t strides_in_order(const dims_t &dims, const std::vector<std::size_t> &order, const dims_t &pad,
                        dim_t &extent) {
    dims_t strides(dims.size());
    dim_t stride = 1;
    for (std::size_t i = order.size(); i-- > 0;) {
        strides[order[i]] = stride;
        stride *= dims[order[i]] + pad[order[i]];
    }
    extent = stride;
    return strides;
}

// numpy's ascontiguousarray(a.transpose(perm)) of a dense `dims`: the
// output's dims, the source's strides over them and dense destination ones.
struct permutation {
    dims_t dims, src_strides, dst_strides;
};
permutation numpy_permutation(const dims_t &dims, const std::vector<std::size_t> &perm) {
    dim_t unused = 0;
    std::vector<std::size_t> identity(dims.size());
    std::iota(identity.begin(), identity.end(), 0);
    const dims_t dense = strides_in_order(dims, identity, dims_t(dims.size(), 0), unused);
    permutation p;
    for (std::size_t k : perm) {
        p.dims.push_back(dims[k]);
        p.src_strides.push_back(dense[k]);
    }
    std::vector<std::size_t> out_identity(p.dims.size());
    std::iota(out_identity.begin(), out_identity.end(), 0);
    p.dst_strides = strides_in_order(p.dims, out_identity, dims_t(p.dims.size(), 0), unused);
    return p;
}

// A random order of `rank` axes.
std::vector<std::size_t> random_axis_order(std::size_t rank, std::mt19937 &rng) {
    std::vector<std::size_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    return order;
}

logical_tensor descriptor(data_type t, const dims_t &dims, const dims_t &strides) {
    logical_tensor lt;
    lt.dtype = t;
    lt.shape = dims;
    lt.strides = strides;
    return lt;
}

// Moves dims from src_strides (+src_offset) to dst_strides (+dst_offset)
// through the grouped transpose at `isa`, and through the reference into
// an equal buffer; every byte of both destination buffers must agree.
void expect_grouped_matches_reference(std::size_t e, const dims_t &dims, const dims_t &src_strides, dim_t src_offset,
                                      dim_t src_elements, const dims_t &dst_strides, dim_t dst_offset,
                                      dim_t dst_elements, cpu_isa isa, std::mt19937 &rng, const std::string &what) {
    const data_type t = type_of(e);
    std::vector<std::uint8_t> src(static_cast<std::size_t>(src_elements) * e);
    std::vector<std::uint8_t> dst(static_cast<std::size_t>(dst_elements) * e);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (auto &b : dst) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> expected = dst;
    if (dims.size() <= 12) {
        reference_reshape(descriptor(t, dims, src_strides), src.data(), src_offset, descriptor(t, dims, dst_strides),
                          expected.data(), dst_offset);
    } else {
        element_copy_reference(dims, e, src.data(), src_strides, src_offset, expected.data(), dst_strides, dst_offset);
    }
    const copy_plan plan = make_copy_plan(dims, src_strides, src_offset, dst_strides, dst_offset);
    const std::optional<grouped_transpose_plan> g = grouped_plan(plan, e, isa);
    ASSERT_TRUE(g.has_value()) << what;
    run_grouped_transpose(*g, src.data(), dst.data());
    const auto wrong = std::mismatch(dst.begin(), dst.end(), expected.begin());
    EXPECT_TRUE(wrong.first == dst.end()) << what << ", " << e << "-byte elements, " << to_string(isa)
                                          << ": first wrong byte at " << (wrong.first - dst.begin()) << " of "
                                          << dst.size();
}

// A random rank-`rank` shape of dims in [lo, hi] whose volume stays at or
// under `max_volume`: dims from the front become 1 until it does (a rank-24
// tensor of 2s is 16M elements; the plan drops dims of 1, so the copies
// keep 13-15 dims of 2-4 for the kernel, their rank for the callers).
dims_t random_dims(std::size_t rank, dim_t lo, dim_t hi, dim_t max_volume, std::mt19937 &rng) {
    dims_t dims(rank);
    for (auto &d : dims) d = lo + static_cast<dim_t>(rng() % static_cast<unsigned>(hi - lo + 1));
    for (std::size_t k = 0; k < rank && std::accumulate(dims.begin(), dims.end(), dim_t{1}, std::multiplies<>()) > max_volume; ++k)
        dims[k] = 1;
    return dims;
}

std::string text(const dims_t &dims, const std::vector<std::size_t> &perm) {
    std::string s = "dims " + dims_to_string(dims) + " perm [";
    for (std::size_t k = 0; k < perm.size(); ++k) {
        if (k > 0) s += ',';
        s += std::to_string(perm[k]);
    }
    return s + "]";
}

// Draws up to `draws` random axis orders of a rank-12 tensor of 3s until
// one's grouped plan (e-byte elements) is `wanted`, and moves that one at
// every level here as the reference does. Whether one was drawn.
template <class Wanted>
bool some_rank_12_of_3s_matches_reference(std::size_t e, int draws, std::mt19937 &rng, Wanted wanted) {
    for (int draw = 0; draw < draws; ++draw) {
        const std::vector<std::size_t> perm = random_axis_order(12, rng);
        const permutation q = numpy_permutation(dims_t(12, 3), perm);
        const copy_plan big = make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0);
        const auto g = grouped_plan(big, e);
        if (!g || !wanted(*g)) continue;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, q.dims, q.src_strides, 0, big.volume, q.dst_strides, 0, big.volume, isa,
                                             rng, text(dims_t(12, 3), perm));
        return true;
    }
    return false;
}

// Draws up to 400 random axis orders of a rank-10 tensor of 4s until
// `wanted` moves (an order and an element size of `sizes`) satisfy
// `takes(move, e)`, and moves each at every level here as the reference
// does. How many were found.
template <class Takes>
int rank_10_of_4s_matching_reference(std::initializer_list<std::size_t> sizes, int wanted, std::mt19937 &rng,
                                     Takes takes) {
    int found = 0;
    for (int draw = 0; draw < 400 && found < wanted; ++draw) {
        const std::vector<std::size_t> perm = random_axis_order(10, rng);
        const permutation q = numpy_permutation(dims_t(10, 4), perm);
        const copy_plan move = make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0);
        for (std::size_t e : sizes) {
            if (!takes(move, e)) continue;
            ++found;
            for (cpu_isa isa : levels_here())
                expect_grouped_matches_reference(e, q.dims, q.src_strides, 0, move.volume, q.dst_strides, 0,
                                                 move.volume, isa, rng, text(dims_t(10, 4), perm));
        }
    }
    return found;
}

} // namespace

// Streams from 256 KiB here (transposes from half of it), so that test-
// sized moves take both the streamed and the cached stores.
class grouped_transpose : public ::testing::Test {
protected:
    void SetUp() override { override_streaming_threshold_for_testing(std::size_t{256} << 10); }
    void TearDown() override { override_streaming_threshold_for_testing(std::nullopt); }
};

// The level's kernels are chosen with the plan, not at each run (the
// hand-made copy below): the portable gather at the scalar level, which
// has no micro kernel; at AVX2 its own gather and, for micro blocks, its
// micro kernel.
TEST_F(grouped_transpose, planner_chooses_the_levels_kernels) {
    const dims_t dims{4, 4, 4, 4};
    const copy_plan plan = make_copy_plan(dims, {16, 1, 64, 4}, 0, {64, 16, 4, 1}, 0);
    const auto scalar = grouped_plan(plan, 4, cpu_isa::scalar);
    ASSERT_TRUE(scalar.has_value());
    EXPECT_EQ(scalar->isa, cpu_isa::scalar);
    EXPECT_EQ(scalar->gather_kernel, grouped_gather_kernel(cpu_isa::scalar, 2));
    EXPECT_NE(scalar->gather_kernel, nullptr);
    EXPECT_EQ(scalar->micro_kernel, nullptr);
    if (detected_cpu_isa() < cpu_isa::avx2) GTEST_SKIP() << "no AVX2 here";
    const auto avx2 = grouped_plan(plan, 4, cpu_isa::avx2);
    ASSERT_TRUE(avx2.has_value());
    ASSERT_GT(avx2->micro_lanes, 0);
    EXPECT_EQ(avx2->gather_kernel, grouped_gather_kernel(cpu_isa::avx2, 2));
    EXPECT_NE(avx2->gather_kernel, scalar->gather_kernel);
    EXPECT_EQ(avx2->micro_kernel, grouped_micro_kernel(cpu_isa::avx2, 2, avx2->micro_lanes));
    EXPECT_NE(avx2->micro_kernel, nullptr);
}

// A hand-made copy whose blocks are plain to see: four dims of 4, the
// source dense in the order (1, 3, 0, 2) from the inside out, the
// destination in the order (3, 2, 1, 0); no two neighbours coalesce. For
// f32 the blocks grow to a line (16 elements) each: the destination's
// dims 3 and 2, the source's 1 and 3 (dim 3 in both); then the
// destination's run to 256 bytes by dim 1 (in the source block: the tile
// stays 64 elements) and the source's by dim 0 (the tile: 256), and no
// further (1 KiB runs exceed the 512- and 256-byte caps).
TEST_F(grouped_transpose, planner_groups_small_dims_into_line_sized_blocks) {
    const dims_t dims{4, 4, 4, 4};
    const dims_t src{16, 1, 64, 4}, dst{64, 16, 4, 1};
    const copy_plan plan = make_copy_plan(dims, src, 0, dst, 0);
    ASSERT_EQ(plan.dims.size(), 4u); // nothing coalesces: plan dim k is dim k (destination order)
    const auto g = grouped_plan(plan, 4);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->destination_block, (std::vector<std::size_t>{3, 2, 1}));
    EXPECT_EQ(g->source_block, (std::vector<std::size_t>{1, 3, 0}));
    EXPECT_EQ(g->destination_run, 64);
    EXPECT_EQ(g->source_run, 64);
    EXPECT_EQ(g->tile, 256);
    EXPECT_EQ(g->outer.volume, 1u);
    // Four source runs (dim 2's values, source stride 64 elements) and
    // four destination runs (dim 0's values, destination stride 64).
    EXPECT_EQ(g->source_run_offset, (std::vector<std::ptrdiff_t>{0, 256, 512, 768}));
    EXPECT_EQ(g->destination_run_offset, (std::vector<std::ptrdiff_t>{0, 256, 512, 768}));
    // Destination element j = (i1, i2, i3) over dims 1, 2, 3 (destination
    // strides 16, 4, 1) comes from buffer element (source-run offset i1 +
    // 4 * i3) + 64 * i2 (its row: dim 2 is outside the source block).
    ASSERT_EQ(g->gather.size(), 64u);
    for (int j = 0; j < 64; ++j) {
        const int i1 = j / 16, i2 = j / 4 % 4, i3 = j % 4;
        EXPECT_EQ(g->gather[static_cast<std::size_t>(j)], i1 + 4 * i3 + 64 * i2) << j;
    }
    // Run i0 (dim 0, outside the destination block) starts at buffer
    // element i0 * 16, its source stride.
    EXPECT_EQ(g->destination_run_base, (std::vector<std::int32_t>{0, 16, 32, 48}));
    // Micro blocks of 4 x 4, not 8 x 8: the first 8 source elements (dim
    // 1, half of dim 3) and the first 8 destination ones (dim 3, half of
    // dim 2) share dim 3; the first 4 (dim 1; dim 3) do not.
    EXPECT_EQ(g->micro_lanes, 4);
    EXPECT_EQ(g->micro_load, (std::vector<std::ptrdiff_t>{0, 4 * 4, 8 * 4, 12 * 4})); // dim 3's source stride 4
    EXPECT_EQ(g->micro_store, (std::vector<std::ptrdiff_t>{0, 16 * 4, 32 * 4, 48 * 4})); // dim 1's destination stride 16

    // 1-byte elements need 64 of them per block: dims 3, 2, 1 and 1, 3,
    // 0, then the last dim on each side (runs of 256 bytes; the tile is
    // every element already).
    const auto bytes = grouped_plan(plan, 1);
    ASSERT_TRUE(bytes.has_value());
    EXPECT_EQ(bytes->destination_block, (std::vector<std::size_t>{3, 2, 1, 0}));
    EXPECT_EQ(bytes->source_block, (std::vector<std::size_t>{1, 3, 0, 2}));
    EXPECT_EQ(bytes->tile, 256);
    // 16-byte elements: a line is 4 of them, so one dim each, then runs to
    // 256 bytes (16 elements) on both sides: dims 3, 2 and 1, 3.
    const auto wide = grouped_plan(plan, 16);
    ASSERT_TRUE(wide.has_value());
    EXPECT_EQ(wide->destination_block, (std::vector<std::size_t>{3, 2}));
    EXPECT_EQ(wide->source_block, (std::vector<std::size_t>{1, 3}));
    EXPECT_EQ(wide->tile, 64);
    EXPECT_EQ(wide->outer.volume, 4u);
    EXPECT_EQ(wide->outer.sizes, (dims_t{4}));
}

// Dims outside both blocks are walked outside the tile, the smallest
// source stride innermost; a padded dim ends a block.
TEST_F(grouped_transpose, planner_walks_the_other_dims_in_source_order) {
    // Seven dims of 4; the source dense (dim 6 innermost), the destination
    // in the reverse order (dim 0 innermost) with dim 1 padded by one.
    const dims_t dims(7, 4);
    dim_t src_extent = 0, dst_extent = 0;
    const dims_t src = strides_in_order(dims, {0, 1, 2, 3, 4, 5, 6}, dims_t(7, 0), src_extent);
    const dims_t dst = strides_in_order(dims, {6, 5, 4, 3, 2, 1, 0}, {0, 1, 0, 0, 0, 0, 0}, dst_extent);
    const copy_plan plan = make_copy_plan(dims, src, 0, dst, 0);
    const auto g = grouped_plan(plan, 4);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->destination_run, 16); // dims 0 and 1: dim 2's stride is 20, not 16
    EXPECT_EQ(g->source_run, 64);      // dims 6, 5, 4: 256 bytes
    EXPECT_EQ(g->tile, 1024);
    // Dims 2 and 3 outside, dim 3 (source stride 64 elements) innermost.
    EXPECT_EQ(g->outer.sizes, (dims_t{4, 4}));
    EXPECT_EQ(g->outer.src, (std::vector<std::ptrdiff_t>{256 * 4, 64 * 4})); // bytes
    EXPECT_EQ(g->outer.volume, 16u);
    // Micro blocks of 8 x 8: the first 8 source elements are dim 6 and
    // half of dim 5, the first 8 destination ones dim 0 and half of dim 1.
    EXPECT_EQ(g->micro_lanes, 8);
    EXPECT_EQ(g->micro_load, (std::vector<std::ptrdiff_t>{0, 4096 * 4, 8192 * 4, 12288 * 4, 1024 * 4, 5120 * 4,
                                                          9216 * 4, 13312 * 4}));
    EXPECT_EQ(g->micro_block_source.size(), 1024u / 64);
    std::mt19937 rng(3);
    for (cpu_isa isa : levels_here())
        expect_grouped_matches_reference(4, dims, src, 0, src_extent, dst, 0, dst_extent, isa, rng, "padded dim 1");
}

// Which fast path takes which copy: high-rank permutations of small dims
// go grouped; wide transposes keep their tiles, small moves the walk.
TEST_F(grouped_transpose, fast_path_choice_takes_it_for_small_dims_only) {
    auto path = [](const dims_t &dims, const std::vector<std::size_t> &perm, std::size_t e) {
        const permutation p = numpy_permutation(dims, perm);
        return choose_fast_path(make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0), e);
    };
    const std::vector<std::size_t> rank12{7, 11, 0, 8, 5, 6, 3, 10, 4, 1, 9, 2};
    EXPECT_EQ(path(dims_t(12, 4), rank12, 4), fast_path::grouped_transpose);
    EXPECT_EQ(path(dims_t(12, 2), rank12, 2), fast_path::grouped_transpose);
    EXPECT_EQ(path(dims_t(12, 3), rank12, 8), fast_path::grouped_transpose);
    EXPECT_EQ(path({256, 256}, {1, 0}, 4), fast_path::transpose);
    EXPECT_EQ(path({8, 64, 64}, {0, 2, 1}, 4), fast_path::transpose);
    EXPECT_EQ(path({2, 2, 2, 2}, {3, 2, 1, 0}, 4), fast_path::transpose); // 64 bytes: partial tiles
    EXPECT_EQ(path(dims_t(12, 4), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 4), fast_path::run_copy);
    // The innermost dim kept in place: contiguous runs on both sides, but
    // of 4 elements (bf16: 8 bytes; the run copy moved them at 0.05x a
    // streaming copy). Runs of a line or more stay with the run copy.
    EXPECT_EQ(path(dims_t(12, 4), {7, 10, 0, 8, 5, 6, 3, 9, 4, 1, 2, 11}, 2), fast_path::grouped_transpose);
    EXPECT_EQ(path({64, 64, 32}, {1, 0, 2}, 2), fast_path::run_copy);
}

// Random permutations of rank 12-24 tensors of dims 2-4 (numpy's
// transpose of a dense tensor), every element size, every level.
TEST_F(grouped_transpose, random_high_rank_permutations_match_the_reference) {
    std::mt19937 rng(27);
    int grouped = 0, micro = 0;
    for (int trial = 0; trial < 48; ++trial) {
        const std::size_t rank = 12 + rng() % 13;
        const std::size_t e = std::size_t{1} << (trial % 5);
        const dim_t lo = trial % 3 == 0 ? 3 : 2, hi = trial % 4 == 0 ? 2 : 4;
        const dims_t dims = random_dims(rank, std::min(lo, hi), hi, dim_t{1} << 15, rng);
        const std::vector<std::size_t> perm = random_axis_order(rank, rng);
        const permutation p = numpy_permutation(dims, perm);
        const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
        const auto g = grouped_plan(plan, e);
        if (!g) continue;
        ++grouped;
        micro += g->micro_lanes > 0 ? 1 : 0;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, p.dims, p.src_strides, 0, plan.volume, p.dst_strides, 0, plan.volume,
                                             isa, rng, text(dims, perm));
    }
    EXPECT_GE(grouped, 40); // the planner takes nearly all of them
    EXPECT_GE(micro, 4);    // some take micro blocks (2-, 4- and 8-byte elements, no dims of 3 inside)
}

// Dims of 2 and 4 only, every element size: the micro blocks (16 x 16
// for 1 byte, 8 x 8, 4 x 4 for 8 bytes, 2 x 2 for 16), staged and
// streamed or stored directly.
TEST_F(grouped_transpose, micro_blocks_match_the_reference) {
    std::mt19937 rng(30);
    int micro = 0;
    for (int trial = 0; trial < 30; ++trial) {
        const std::size_t rank = 12 + rng() % 13;
        const std::size_t e = std::size_t{1} << (trial % 5);
        dims_t dims = random_dims(rank, 2, 4, dim_t{1} << 16, rng);
        for (auto &d : dims) d = d == 3 ? 2 : d;
        const std::vector<std::size_t> perm = random_axis_order(rank, rng);
        const permutation p = numpy_permutation(dims, perm);
        const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
        const auto g = grouped_plan(plan, e);
        if (!g || g->micro_lanes == 0) continue;
        ++micro;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, p.dims, p.src_strides, 0, plan.volume, p.dst_strides, 0, plan.volume,
                                             isa, rng, text(dims, perm));
    }
    EXPECT_GE(micro, 15);
}

// Dims of 3, alone and mixed with 2s and 4s, every element size: micro
// blocks over axes longer than L (9, 27, 81 elements; 6 or 12 mixed), the
// last step of each axis overlapping the one before, staged and streamed
// (runs that start and end inside lines) or stored directly.
TEST_F(grouped_transpose, micro_blocks_over_longer_axes_match_the_reference) {
    std::mt19937 rng(31);
    int longer = 0, overlapping = 0;
    for (int trial = 0; trial < 30; ++trial) {
        const std::size_t rank = 12 + rng() % 7;
        const std::size_t e = std::size_t{1} << (trial % 5);
        dims_t dims = random_dims(rank, 2, 4, dim_t{1} << 16, rng);
        if (trial % 2 == 0)
            for (auto &d : dims) d = d > 1 ? 3 : d;
        const std::vector<std::size_t> perm = random_axis_order(rank, rng);
        const permutation p = numpy_permutation(dims, perm);
        const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
        const auto g = grouped_plan(plan, e);
        if (!g || g->micro_lanes == 0 || g->micro_swaps > 0) continue; // shared lanes: their own test
        const auto length = [&](const std::vector<dim_t> &steps, dim_t width) { return steps.back() + width; };
        const dim_t along_lanes = g->micro_along_lanes > 0 ? g->micro_along_lanes : g->micro_lanes;
        const dim_t along = length(g->micro_along_steps, along_lanes), across = length(g->micro_across_steps, g->micro_lanes);
        ASSERT_EQ(g->micro_load.size(), static_cast<std::size_t>(along));
        ASSERT_EQ(g->micro_store.size(), static_cast<std::size_t>(across));
        if (along == g->micro_lanes && across == g->micro_lanes) continue;
        ++longer;
        overlapping += along % g->micro_lanes != 0 || across % g->micro_lanes != 0 ? 1 : 0;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, p.dims, p.src_strides, 0, plan.volume, p.dst_strides, 0, plan.volume,
                                             isa, rng, text(dims, perm));
    }
    EXPECT_GE(longer, 8);
    EXPECT_GE(overlapping, 6);
}

// Shared lanes: dims of 2 and 4 where the source's first L elements and
// the destination's share some dims (the L x L transposes do not apply):
// every element size with such kernels (1, 2, 4, 8 bytes), 1 to log2(L) - 1
// lane dims swapped, lanes permuted before and after or not, staged and
// streamed or stored directly, and odd dims (3, 5) outside the lanes.
TEST_F(grouped_transpose, shared_lanes_match_the_reference) {
    std::mt19937 rng(32);
    int shared = 0;
    std::vector<int> swaps_seen(4, 0);
    int permuted = 0;
    for (int trial = 0; trial < 120 && shared < 40; ++trial) {
        const std::size_t rank = 12 + rng() % 13;
        const std::size_t e = std::size_t{1} << (trial % 4);
        dims_t dims = random_dims(rank, 2, 4, dim_t{1} << 16, rng);
        for (auto &d : dims) d = d == 3 ? 2 : d;
        if (trial % 3 == 0) dims[rank - 1 - rng() % 3] = trial % 2 == 0 ? 3 : 5; // an odd dim somewhere
        std::vector<std::size_t> perm = random_axis_order(rank, rng);
        if (trial % 2 == 1) { // the source's two innermost axes innermost in the output too, swapped: more shared lanes
            std::erase_if(perm, [&](std::size_t a) { return a + 2 >= rank; });
            perm.push_back(rank - 1);
            perm.push_back(rank - 2);
        }
        const permutation p = numpy_permutation(dims, perm);
        const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
        const auto g = grouped_plan(plan, e);
        if (!g || g->micro_swaps == 0) continue;
        ++shared;
        ASSERT_LT(static_cast<std::size_t>(g->micro_swaps), swaps_seen.size());
        ++swaps_seen[static_cast<std::size_t>(g->micro_swaps)];
        permuted += !g->micro_pre.empty() || !g->micro_post.empty() ? 1 : 0;
        EXPECT_EQ(g->micro_load.size(), std::size_t{1} << g->micro_swaps);
        EXPECT_EQ(g->micro_store.size(), std::size_t{1} << g->micro_swaps);
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, p.dims, p.src_strides, 0, plan.volume, p.dst_strides, 0, plan.volume,
                                             isa, rng, text(dims, perm));
    }
    EXPECT_GE(shared, 20) << swaps_seen[1] << " " << swaps_seen[2] << " " << swaps_seen[3];
    EXPECT_GE(swaps_seen[1], 3);
    EXPECT_GE(swaps_seen[2], 3);
    EXPECT_GE(permuted, 10);
}

// f32 rank 22 of 2s (high_rank_bench's permutation): the source's first 8
// elements (plan dims 7, 21, 12) and the destination's (21, 20, 19) share
// dim 21, so 8 x 8 blocks do not apply, nor 4 x 4 (7, 21 against 21, 20):
// blocks of 4 vectors of 8, dims 7 and 12 swapped with 20 and 19.
TEST_F(grouped_transpose, shared_lanes_take_the_dims_both_first_lanes_hold) {
    const permutation p =
        numpy_permutation(dims_t(22, 2), {18, 10, 7, 0, 3, 12, 1, 21, 17, 11, 14, 5, 19, 13, 4, 16, 2, 6, 9, 8, 15, 20});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    ASSERT_EQ(plan.dims.size(), 22u);
    const auto g = grouped_plan(plan, 4, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->micro_lanes, 8);
    EXPECT_EQ(g->micro_swaps, 2);
    // Loads: dims 20 and 19 (source strides 64 and 8192 elements).
    EXPECT_EQ(g->micro_load, (std::vector<std::ptrdiff_t>{0, 64 * 4, 8192 * 4, 8256 * 4}));
    // Stores: dims 7 and 12 (destination strides 16384 and 512 elements).
    EXPECT_EQ(g->micro_store, (std::vector<std::ptrdiff_t>{0, 16384 * 4, 512 * 4, 16896 * 4}));
    EXPECT_EQ(g->micro_kernel, grouped_shared_lanes_kernel(cpu_isa::avx2, 2, 2));
    // The shared dim is the source's lane bit 1: moved to bit 0 first.
    EXPECT_FALSE(g->micro_pre.empty());
    const auto scalar = grouped_plan(plan, 4, cpu_isa::scalar);
    ASSERT_TRUE(scalar.has_value());
    EXPECT_EQ(scalar->micro_kernel, nullptr); // the portable level gathers
}

// f32 rank 12 of 4s (high_rank_bench's permutation, 64 MiB): the blocks
// stop at 64-element runs on both sides, a tile of 1 KiB; a move that
// large grows the destination's runs past their 512-byte cap until the
// tile reaches 8 KiB (dims 8 and 7: runs of 4 KiB, tiles of 16 KiB),
// while the same permutation of a rank-8 tensor (256 KiB) keeps them.
TEST_F(grouped_transpose, large_moves_grow_small_tiles) {
    const permutation big = numpy_permutation(dims_t(12, 4), {4, 1, 5, 11, 3, 8, 2, 7, 0, 10, 6, 9});
    const copy_plan plan = make_copy_plan(big.dims, big.src_strides, 0, big.dst_strides, 0);
    const auto g = choose_grouped_blocks(plan, 4, true);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->source_run, 64);
    EXPECT_EQ(g->destination_run, 1024);
    EXPECT_EQ(g->tile, 4096);
    const permutation small = numpy_permutation(dims_t(8, 4), {4, 1, 5, 3, 2, 7, 0, 6});
    const copy_plan small_plan = make_copy_plan(small.dims, small.src_strides, 0, small.dst_strides, 0);
    const auto h = grouped_plan(small_plan, 4);
    ASSERT_TRUE(h.has_value());
    EXPECT_LE(h->destination_run * 4, 512);
    EXPECT_LT(h->tile * 4, 8192);
}

// Large streamed moves whose tiles grew through 4 KiB destination runs
// alone are planned again with source runs up to 1 KiB where that reads
// fewer source runs per tile (plan_grouped_transpose): high_rank_bench's f32
// rank 12 of 4s from 64 runs of 64 elements into 4 of 1024 to 16 of 256
// into 16 of 256, its 4096-element tiles and 8 x 8 blocks kept. Random
// permutations of rank-10 tensors of 4s (1 MiB of u8, bf16 or f32) whose
// plans are balanced so move as the reference does at every level.
TEST_F(grouped_transpose, tiles_of_long_destination_runs_balance_their_source_runs) {
    const permutation big = numpy_permutation(dims_t(12, 4), {4, 1, 5, 11, 3, 8, 2, 7, 0, 10, 6, 9});
    const copy_plan plan = make_copy_plan(big.dims, big.src_strides, 0, big.dst_strides, 0);
    const auto g = grouped_plan(plan, 4);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->element_bytes, 4u);
    EXPECT_EQ(g->source_run, 256);
    EXPECT_EQ(g->destination_run, 256);
    EXPECT_EQ(g->tile, 4096);
    EXPECT_EQ(g->micro_lanes, detected_cpu_isa() >= cpu_isa::avx2 ? 8 : 0);
    // Moves stored directly keep their blocks.
    const auto direct = plan_grouped_transpose(plan, 4, detected_cpu_isa(), std::size_t{1} << 40);
    ASSERT_TRUE(direct.has_value());
    EXPECT_LE(direct->source_run * 4, 256);
    std::mt19937 rng(61);
    const int found = rank_10_of_4s_matching_reference({1, 2, 4}, 4, rng, [](const copy_plan &move, std::size_t e) {
        const auto h = grouped_plan(move, e);
        return h && h->source_run * static_cast<dim_t>(h->element_bytes) > 256;
    });
    EXPECT_GT(found, 0);
}

// Dims of 3 in a large move: destination runs that end inside a line grow
// by their neighbours up to a 64 KiB tile: bf16 rank 15 of 3s
// (high_rank_bench's permutation) from 81 elements to 2187 (dims 8 and 7,
// 9 and 3), a tile of 19683. A rank-12 tensor of 3s (1 MiB of bf16)
// whose runs grow likewise moves as the reference does at every level.
TEST_F(grouped_transpose, large_moves_grow_runs_that_end_inside_lines) {
    const permutation p = numpy_permutation(dims_t(15, 3), {6, 5, 8, 11, 14, 9, 10, 7, 13, 3, 4, 12, 1, 2, 0});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto g = grouped_plan(plan, 2, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_TRUE(g->stream);
    EXPECT_FALSE(g->prefetch_destination); // streamed stores need no line read first
    EXPECT_EQ(g->destination_run, 2187);
    EXPECT_EQ(g->tile, 19683);
    std::mt19937 rng(33);
    EXPECT_TRUE(some_rank_12_of_3s_matches_reference(
        2, 6, rng, [](const grouped_transpose_plan &h) { return h.destination_run * 2 > 512; }));
}

// Destination runs that end inside a line: the dim that continues them
// is walked innermost, so that the next tile completes their partial
// lines. f32 rank 14 of 3s (high_rank_bench's permutation): runs of 81
// elements (324 bytes), continued by plan dim 8 (9 elements, destination
// stride 81), which the source's order would walk outermost but one.
// A rank-12 tensor of 3s (2 MiB of f32, streamed) whose runs end inside
// lines moves as the reference does at every level.
TEST_F(grouped_transpose, runs_that_end_inside_lines_walk_their_next_dim_innermost) {
    const permutation p = numpy_permutation(dims_t(14, 3), {5, 12, 11, 4, 0, 13, 7, 6, 1, 2, 8, 3, 10, 9});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto g = grouped_plan(plan, 4, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->destination_run, 81);
    ASSERT_FALSE(g->outer.sizes.empty());
    EXPECT_EQ(g->outer.sizes.back(), 9);
    EXPECT_EQ(g->outer.dst.back(), 81 * 4);      // bytes
    EXPECT_EQ(g->outer.src.back(), 177147 * 4);
    // Runs of whole lines keep the source's order (the smallest source
    // stride innermost).
    const permutation q = numpy_permutation(dims_t(12, 4), {4, 1, 5, 11, 3, 8, 2, 7, 0, 10, 6, 9});
    const auto h = grouped_plan(make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0), 4, cpu_isa::avx2);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->destination_run * 4 % 64, 0);
    EXPECT_TRUE(std::is_sorted(h->outer.src.rbegin(), h->outer.src.rend()));
    std::mt19937 rng(37);
    EXPECT_TRUE(some_rank_12_of_3s_matches_reference(4, 8, rng, [](const grouped_transpose_plan &k) {
        return k.destination_run * 4 % 64 != 0 && !k.outer.dst.empty() && k.outer.dst.back() == k.destination_run * 4 &&
               !std::is_sorted(k.outer.src.rbegin(), k.outer.src.rend());
    }));
}

// Tiles along the walk's innermost dim, which continues destination runs
// ending inside lines, join those partial lines (the plan's joined_tiles):
// f32 rank 14 of 3s joins 9 tiles, runs of whole lines (f32 rank 12 of
// 4s) none. Streamed rank-12 moves of 3s that join tiles match the
// reference bit for bit at every level, on this machine's threads (tasks
// of a few tiles: joins cut at their ends) and on one (the whole walk).
TEST_F(grouped_transpose, joined_tiles_stream_partial_lines_whole) {
    const permutation p = numpy_permutation(dims_t(14, 3), {5, 12, 11, 4, 0, 13, 7, 6, 1, 2, 8, 3, 10, 9});
    const auto g = grouped_plan(make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0), 4, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->joined_tiles, 9u);
    // The carry (a line per staged run) lies in the task's buffer, past
    // the staged tile.
    EXPECT_GE(g->carry_offset, static_cast<std::size_t>(g->tile) * 4);
    EXPECT_LE(g->carry_offset + g->destination_run_offset.size() * 64, grouped_task_buffer_bytes);
    const permutation q = numpy_permutation(dims_t(12, 4), {4, 1, 5, 11, 3, 8, 2, 7, 0, 10, 6, 9});
    const auto h = grouped_plan(make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0), 4, cpu_isa::avx2);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->joined_tiles, 0u);
    std::mt19937 rng(43);
    const auto joins = [](const grouped_transpose_plan &k) { return k.stream && k.joined_tiles > 1; };
    for (std::size_t e : {4, 2}) {
        EXPECT_TRUE(some_rank_12_of_3s_matches_reference(e, 8, rng, joins)) << e;
        oneapi::tbb::task_arena one(1);
        one.execute([&] { EXPECT_TRUE(some_rank_12_of_3s_matches_reference(e, 8, rng, joins)) << e; });
    }
}

// A dim both blocks hold goes to the longer axis: bf16 rank 15 of 3s
// (high_rank_bench's permutation), whose source block is its last four
// dims (81 elements) and destination block four dims with source dim 12
// last: the whole source block across (81) and the destination's three
// dims before dim 12 along (27) take 11 x 4 blocks for the whole tile's
// 2187 elements, where the destination block whole (81) against the
// source's two dims before dim 12 (9) would take 11 x 2 for 729 (dim 11
// then outside the axes).
TEST_F(grouped_transpose, longer_axes_keep_a_shared_dim_in_the_longer_one) {
    const permutation p = numpy_permutation(dims_t(15, 3), {6, 5, 8, 11, 14, 9, 10, 7, 13, 3, 4, 12, 1, 2, 0});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto g = grouped_plan(plan, 2, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->source_run, 81);
    // 81 from the blocks, then grown by dims 8 and 7 (runs that end inside
    // a line, in a move this large: large_moves_grow_runs_that_end_inside_lines).
    EXPECT_EQ(g->destination_run, 2187);
    EXPECT_EQ(g->micro_lanes, 8);
    EXPECT_EQ(g->micro_store.size(), 81u);
    EXPECT_EQ(g->micro_load.size(), 27u);
    // 2-byte elements along 27: steps of 16 (micro_along_lanes), the last
    // overlapping; the scalar level has no micro kernel and keeps steps of 8.
    EXPECT_EQ(g->micro_along_lanes, 16);
    EXPECT_EQ(g->micro_along_steps, (std::vector<dim_t>{0, 11}));
    EXPECT_EQ(grouped_plan(plan, 2, cpu_isa::scalar)->micro_along_steps, (std::vector<dim_t>{0, 8, 16, 19}));
    EXPECT_EQ(g->micro_across_steps.size(), 11u);
    EXPECT_EQ(g->micro_across_steps.back(), 73);
    // Every dim of the blocks' tile in an axis; the grown dims' 9 values
    // outside them.
    EXPECT_EQ(g->micro_block_source.size(), 9u);
}

// 2-byte elements on along axes of 16 or more take blocks of 8 across x
// 16 along (micro_along_lanes): rank-9 tensors of 3s (stored directly)
// and rank-12 ones (staged and streamed, on this machine's threads and on
// one) match the reference bit for bit at every level.
TEST_F(grouped_transpose, wide_along_blocks_match_the_reference) {
    if (detected_cpu_isa() < cpu_isa::avx2) GTEST_SKIP() << "no AVX2 here";
    std::mt19937 rng(47);
    const auto wide = [](const grouped_transpose_plan &k) { return k.micro_along_lanes == 16; };
    int direct = 0;
    for (int draw = 0; draw < 12 && direct < 2; ++draw) {
        const std::vector<std::size_t> perm = random_axis_order(9, rng);
        const permutation q = numpy_permutation(dims_t(9, 3), perm);
        const copy_plan plan = make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0);
        const auto g = grouped_plan(plan, 2);
        if (!g || !wide(*g) || g->stream) continue;
        ++direct;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(2, q.dims, q.src_strides, 0, plan.volume, q.dst_strides, 0, plan.volume,
                                             isa, rng, text(dims_t(9, 3), perm));
    }
    EXPECT_GE(direct, 1);
    EXPECT_TRUE(some_rank_12_of_3s_matches_reference(2, 8, rng, wide));
    oneapi::tbb::task_arena one(1);
    one.execute([&] { EXPECT_TRUE(some_rank_12_of_3s_matches_reference(2, 8, rng, wide)); });
}

// 1-byte elements whose axes stop short of 16 (dims of 3: the other
// block's inner dims before the first the whole block holds make 9 or 12
// elements) take 8 x 8 blocks at the levels with them, where they were
// gathered byte by byte: the u8 rank-16 permutation of 3s below (source
// runs of 81, its destination block's first two dims then one of the
// source block's) at AVX2, not at the scalar level (no such kernel).
// Random rank-10 (stored directly) and rank-12 (staged and streamed, on
// this machine's threads and on one) moves of 3s taking them match the
// reference bit for bit at every level.
TEST_F(grouped_transpose, one_byte_axes_short_of_16_take_8x8_blocks) {
    if (detected_cpu_isa() < cpu_isa::avx2) GTEST_SKIP() << "no AVX2 here";
    const permutation p = numpy_permutation(dims_t(16, 3), {8, 6, 13, 12, 4, 11, 1, 15, 10, 7, 9, 5, 0, 14, 3, 2});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto g = grouped_plan(plan, 1, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->source_run, 81);
    EXPECT_EQ(g->micro_lanes, 8);
    EXPECT_EQ(g->micro_kernel, grouped_micro_kernel(cpu_isa::avx2, 0, 8));
    EXPECT_EQ(g->micro_store.size(), 81u); // the source block whole, across
    EXPECT_EQ(g->micro_load.size(), 9u);   // the destination's two dims before it, along
    EXPECT_EQ(g->micro_along_steps, (std::vector<dim_t>{0, 1}));
    EXPECT_EQ(grouped_plan(plan, 1, cpu_isa::scalar)->micro_lanes, 0);
    std::mt19937 rng(61);
    const auto eight = [](const grouped_transpose_plan &k) { return k.micro_lanes == 8; };
    int direct = 0;
    for (int draw = 0; draw < 40 && direct < 2; ++draw) {
        const std::vector<std::size_t> perm = random_axis_order(10, rng);
        const permutation q = numpy_permutation(dims_t(10, 3), perm);
        const copy_plan qp = make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0);
        const auto k = grouped_plan(qp, 1);
        if (!k || !eight(*k) || k->stream) continue;
        ++direct;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(1, q.dims, q.src_strides, 0, qp.volume, q.dst_strides, 0, qp.volume, isa,
                                             rng, text(dims_t(10, 3), perm));
    }
    EXPECT_GE(direct, 1);
    EXPECT_TRUE(some_rank_12_of_3s_matches_reference(1, 40, rng, eight));
    oneapi::tbb::task_arena one(1);
    one.execute([&] { EXPECT_TRUE(some_rank_12_of_3s_matches_reference(1, 40, rng, eight)); });
}

// Dims of 2: 2-byte elements take 8 across x 16 along blocks too where
// the destination's first 16 elements are other dims than the source's
// first 8: bf16 rank 23 of 2s (high_rank_bench's permutation) loads 16
// vectors and stores 8 at AVX2 (8 and 8 at the scalar level, which has no
// such kernel). Random permutations of rank-14 to rank-18 tensors of 2s
// that take them, streamed and stored directly, match the reference bit
// for bit at every level.
TEST_F(grouped_transpose, wide_along_blocks_over_dims_of_2) {
    if (detected_cpu_isa() < cpu_isa::avx2) GTEST_SKIP() << "no AVX2 here";
    const permutation p = numpy_permutation(
        dims_t(23, 2), {2, 10, 11, 8, 7, 14, 13, 21, 16, 20, 22, 4, 18, 12, 5, 1, 0, 3, 19, 17, 15, 6, 9});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto g = grouped_plan(plan, 2, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->micro_lanes, 8);
    EXPECT_EQ(g->micro_along_lanes, 16);
    EXPECT_EQ(g->micro_load.size(), 16u);
    EXPECT_EQ(g->micro_store.size(), 8u);
    const auto h = grouped_plan(plan, 2, cpu_isa::scalar);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->micro_load.size(), 8u);
    std::mt19937 rng(53);
    int streamed = 0, direct = 0;
    for (int draw = 0; draw < 40 && (streamed < 2 || direct < 2); ++draw) {
        const std::size_t rank = 14 + rng() % 5;
        const std::vector<std::size_t> perm = random_axis_order(rank, rng);
        const permutation q = numpy_permutation(dims_t(rank, 2), perm);
        const copy_plan qp = make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0);
        const auto k = grouped_plan(qp, 2);
        if (!k || k->micro_along_lanes != 16 || k->micro_along_steps.size() != 1) continue;
        ++(k->stream ? streamed : direct);
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(2, q.dims, q.src_strides, 0, qp.volume, q.dst_strides, 0, qp.volume, isa,
                                             rng, text(dims_t(rank, 2), perm));
    }
    EXPECT_GE(streamed, 1);
    EXPECT_GE(direct, 1);
}

// Moves stored directly (below the streaming threshold) keep destination
// runs that end inside a line short: bf16 rank 15 of 3s then has runs of
// 81 elements and tiles of 2187 (streamed: 2187 and 19683,
// large_moves_grow_runs_that_end_inside_lines), and its next tile's
// destination lines are prefetched (in moves of 1 MiB or more). Rank-12 moves of 3s (1 MiB of bf16,
// 2 MiB of f32) stored directly match the reference bit for bit at every
// level.
TEST_F(grouped_transpose, moves_stored_directly_keep_runs_that_end_inside_lines) {
    override_streaming_threshold_for_testing(std::size_t{1} << 40);
    const permutation p = numpy_permutation(dims_t(15, 3), {6, 5, 8, 11, 14, 9, 10, 7, 13, 3, 4, 12, 1, 2, 0});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto g = grouped_plan(plan, 2, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_FALSE(g->stream);
    EXPECT_TRUE(g->prefetch_destination);
    EXPECT_EQ(g->destination_run, 81);
    EXPECT_EQ(g->tile, 2187);
    // Moves of under 1 MiB (in the caches) prefetch their sources only.
    const permutation small = numpy_permutation(dims_t(9, 3), {6, 5, 8, 1, 3, 0, 2, 7, 4});
    const auto h = grouped_plan(make_copy_plan(small.dims, small.src_strides, 0, small.dst_strides, 0), 2);
    ASSERT_TRUE(h.has_value());
    EXPECT_FALSE(h->prefetch_destination);
    std::mt19937 rng(59);
    for (std::size_t e : {2, 4})
        EXPECT_TRUE(some_rank_12_of_3s_matches_reference(
            e, 8, rng, [](const grouped_transpose_plan &k) { return !k.stream && k.destination_run * k.element_bytes % 64 != 0; }))
            << e;
}

// Offsets, padded dims (gaps the move must leave alone) and guards around
// the destination, on both sides, for every element size.
TEST_F(grouped_transpose, offsets_and_padded_layouts_leave_other_bytes_alone) {
    std::mt19937 rng(28);
    for (int trial = 0; trial < 20; ++trial) {
        const std::size_t rank = 12 + rng() % 5;
        const std::size_t e = std::size_t{1} << (trial % 5);
        const dims_t dims = random_dims(rank, 2, 3, dim_t{1} << 13, rng);
        std::vector<std::size_t> src_order(rank), dst_order(rank);
        std::iota(src_order.begin(), src_order.end(), 0);
        std::iota(dst_order.begin(), dst_order.end(), 0);
        std::shuffle(src_order.begin(), src_order.end(), rng);
        std::shuffle(dst_order.begin(), dst_order.end(), rng);
        dims_t src_pad(rank, 0), dst_pad(rank, 0);
        src_pad[rng() % rank] = 1;
        dst_pad[rng() % rank] = 1;
        dim_t src_extent = 0, dst_extent = 0;
        const dims_t ss = strides_in_order(dims, src_order, src_pad, src_extent);
        const dims_t ds = strides_in_order(dims, dst_order, dst_pad, dst_extent);
        const dim_t so = static_cast<dim_t>(rng() % 7), dof = static_cast<dim_t>(rng() % 7);
        const copy_plan plan = make_copy_plan(dims, ss, so, ds, dof);
        if (!grouped_plan(plan, e)) continue;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, dims, ss, so, src_extent + so + 3, ds, dof, dst_extent + dof + 5, isa,
                                             rng, "padded trial " + std::to_string(trial));
    }
}

// Large enough to split across threads (tasks of whole tiles) and to
// stream: 2^19 elements of f32 and bf16 (2 and 1 MiB), every level.
TEST_F(grouped_transpose, large_moves_split_across_threads_and_stream) {
    std::mt19937 rng(29);
    const dims_t dims(19, 2);
    const std::vector<std::size_t> perm = random_axis_order(dims.size(), rng);
    const permutation p = numpy_permutation(dims, perm);
    const dim_t volume = dim_t{1} << 19;
    for (std::size_t e : {2, 4}) {
        const auto g = grouped_plan(make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0), e);
        ASSERT_TRUE(g.has_value());
        EXPECT_TRUE(g->stream);
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, p.dims, p.src_strides, 0, volume, p.dst_strides, 0, volume, isa, rng,
                                             text(dims, perm));
    }
}

// A dim innermost in both tensors moves inside a wider element: bf16
// with a shared dim of 4 as 8-byte elements (micro blocks of 4 x 4), f32
// with one of 4 as 16-byte ones (2 x 2), u8 with one of 2 as 2-byte ones
// (8 x 8); a shared dim of 3 (6 bytes) or an offset the dim does not
// divide keeps the element. Every case bit for bit against the reference.
TEST_F(grouped_transpose, planner_folds_a_shared_inner_dim_into_wider_elements) {
    std::mt19937 rng(31);
    struct shape {
        std::size_t e;
        dim_t shared;        // the innermost dim's size, on both sides
        dim_t offset;        // elements, both sides
        std::size_t wide_e;  // the element the plan moves
        dim_t lanes;
    };
    const std::vector<std::size_t> perm{3, 0, 6, 1, 5, 2, 4, 7}; // dim 7 stays innermost
    for (const shape s : {shape{2, 4, 0, 8, 4}, shape{4, 4, 0, 16, 2}, shape{1, 2, 0, 2, 8}, shape{2, 3, 0, 2, 0},
                          shape{2, 4, 4, 8, 4}, shape{2, 4, 1, 2, 0}}) {
        dims_t dims(8, 4);
        dims[7] = s.shared;
        const permutation p = numpy_permutation(dims, perm);
        const copy_plan plan = make_copy_plan(p.dims, p.src_strides, s.offset, p.dst_strides, s.offset);
        const std::string what = "e " + std::to_string(s.e) + " shared " + std::to_string(s.shared) + " offset " +
                                 std::to_string(s.offset);
        const auto widened = widen_shared_inner_dim(plan, s.e);
        EXPECT_EQ(widened.has_value(), s.wide_e != s.e) << what;
        if (widened) {
            EXPECT_EQ(widened->element_bytes, s.wide_e) << what;
            EXPECT_EQ(widened->plan.dims.size(), plan.dims.size() - 1) << what;
            EXPECT_EQ(widened->plan.volume * s.shared, plan.volume) << what;
            EXPECT_EQ(widened->plan.src_offset * s.shared, s.offset) << what;
        }
        const auto g = grouped_plan(plan, s.e);
        ASSERT_TRUE(g.has_value()) << what;
        EXPECT_EQ(g->element_bytes, s.wide_e) << what;
        if (s.lanes > 0) {
            EXPECT_EQ(g->micro_lanes, s.lanes) << what;
        }
        const dim_t extent = plan.volume + s.offset;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(s.e, p.dims, p.src_strides, s.offset, extent, p.dst_strides, s.offset,
                                             extent + 3, isa, rng, what);
    }
}

// The next tile's prefetches come in bursts of at most
// max_prefetch_burst_lines a slice: bf16 rank 15 of 3s (high_rank_bench's
// permutation: 243 source runs of 162 bytes, 4 lines each, a tile) takes
// 21 slices where it took 8; f32 rank 14 of 3s (81 runs of 3 lines) and
// tiles of 2s (64 runs of 256 bytes, 5 lines) keep 8. Streamed moves of
// 3s (bf16 and u8, rank 12-13, odd dims of 5 among them) whose tiles take
// more than 8 slices, their units and staged runs sliced unevenly, match
// the reference bit for bit at every level.
TEST_F(grouped_transpose, tiles_of_many_runs_prefetch_in_short_bursts) {
    const permutation p = numpy_permutation(dims_t(15, 3), {6, 5, 8, 11, 14, 9, 10, 7, 13, 3, 4, 12, 1, 2, 0});
    const auto g = grouped_plan(make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0), 2, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->source_run_offset.size(), 243u);
    EXPECT_EQ(g->schedule.prefetch_lines_per_run, 4u);
    EXPECT_EQ(g->schedule.slices, 21u);
    const permutation q = numpy_permutation(dims_t(14, 3), {5, 12, 11, 4, 0, 13, 7, 6, 1, 2, 8, 3, 10, 9});
    const auto h = grouped_plan(make_copy_plan(q.dims, q.src_strides, 0, q.dst_strides, 0), 4, cpu_isa::avx2);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->schedule.slices, min_grouped_tile_slices);
    std::mt19937 rng(41);
    const permutation r = numpy_permutation(dims_t(22, 2), random_axis_order(22, rng));
    const auto k = grouped_plan(make_copy_plan(r.dims, r.src_strides, 0, r.dst_strides, 0), 4, cpu_isa::avx2);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->schedule.slices, min_grouped_tile_slices);
    int found = 0;
    for (int trial = 0; trial < 40 && found < 3; ++trial) {
        const std::size_t e = trial % 2 == 0 ? 2 : 1;
        const std::size_t rank = 12 + static_cast<std::size_t>(trial % 3 == 2);
        dims_t dims(rank, 3);
        if (trial % 4 == 3) dims[rng() % rank] = 5;
        const std::vector<std::size_t> perm = random_axis_order(rank, rng);
        const permutation s = numpy_permutation(dims, perm);
        const copy_plan plan = make_copy_plan(s.dims, s.src_strides, 0, s.dst_strides, 0);
        if (static_cast<std::size_t>(plan.volume) * e > (std::size_t{4} << 20)) continue;
        const auto m = grouped_plan(plan, e, cpu_isa::avx2);
        if (!m || !m->stream || m->micro_lanes == 0 || m->schedule.slices <= min_grouped_tile_slices) continue;
        ++found;
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(e, s.dims, s.src_strides, 0, plan.volume, s.dst_strides, 0, plan.volume,
                                             isa, rng, text(dims, perm));
    }
    EXPECT_EQ(found, 3);
}

// split_long_dims peels each dim's small prime factors off its inside, up
// to a tile buffer's worth of elements, leaving the rest one dim: the
// same elements in the same order (every flat position maps to the same
// source and destination elements).
TEST_F(grouped_transpose, split_long_dims_keeps_every_element_in_place) {
    // [2, 2^20, 2] f32 (rank 22 of 2s with the first and last dims
    // swapped): the middle splits into 14 dims of 2 (16384 elements, the
    // buffer's 64 KiB) and a dim of 64 outside them.
    const permutation p = numpy_permutation(dims_t(22, 2), {21, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                                           17, 18, 19, 20, 0});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    ASSERT_EQ(plan.dims.size(), 3u);
    const copy_plan split = split_long_dims(plan, 4);
    ASSERT_EQ(split.dims.size(), 17u);
    EXPECT_EQ(split.volume, plan.volume);
    EXPECT_EQ(split.dims[1].size, 64);
    EXPECT_EQ(split.dims[1].src_stride, 2 * 16384);
    EXPECT_EQ(split.dims[1].dst_stride, 2 * 16384);
    for (std::size_t k = 2; k < 16; ++k) EXPECT_EQ(split.dims[k].size, 2) << k;
    EXPECT_EQ(split.dims[15].src_stride, 2);
    // Mixed factors, a prime and a dim of 1 left whole; offsets kept.
    copy_plan mixed;
    mixed.dims = {{7, 1, 360 * 3}, {360, 21, 3}, {1, 0, 0}, {3, 7, 1}};
    mixed.volume = 7 * 360 * 3;
    mixed.src_offset = 5;
    mixed.dst_offset = 9;
    for (std::size_t e : {1u, 16u}) {
        const copy_plan s = split_long_dims(mixed, e);
        EXPECT_EQ(s.src_offset, 5);
        EXPECT_EQ(s.dst_offset, 9);
        for (dim_t flat = 0; flat < mixed.volume; flat += 7) {
            const element_pair a = element_at(mixed, flat), b = element_at(s, flat);
            EXPECT_EQ(a.src, b.src) << flat;
            EXPECT_EQ(a.dst, b.dst) << flat;
        }
    }
    // 360 = 2 * 2 * 2 * 3 * 3 * 5 in six dims (under a buffer's worth at
    // either size); the primes 7 and 3 and the dim of 1 stay as they are.
    EXPECT_EQ(split_long_dims(mixed, 1).dims.size(), 9u);
    EXPECT_EQ(split_long_dims(mixed, 16).dims.size(), 9u);
}

// Permutations that keep a long run of dims in order on both sides and
// swap small ones around it ([s, M, t] after coalescing: the first and
// last dims swapped, and such swaps inside) had no blocks (the middle dim
// too long for a tile) and went to the element walk or oneDNN; split,
// they go grouped, every element size, dims of 2, 3 and 4, every level.
TEST_F(grouped_transpose, long_kept_dims_split_into_blocks) {
    std::mt19937 rng(41);
    struct shape {
        dims_t dims;
        std::vector<std::size_t> perm;
    };
    std::vector<shape> shapes;
    for (dim_t d : {2, 3, 4}) {
        const std::size_t rank = d == 2 ? 16 : d == 3 ? 10 : 8;
        std::vector<std::size_t> swap_ends(rank);
        std::iota(swap_ends.begin(), swap_ends.end(), 0);
        std::swap(swap_ends.front(), swap_ends.back());
        shapes.push_back({dims_t(rank, d), swap_ends});
        // The last two and the first two dims swapped in pairs.
        std::vector<std::size_t> pairs(rank);
        std::iota(pairs.begin(), pairs.end(), 0);
        std::swap(pairs[0], pairs[rank - 2]);
        std::swap(pairs[1], pairs[rank - 1]);
        shapes.push_back({dims_t(rank, d), pairs});
    }
    // Mixed dims: [4, 2, 3, ..., 2] with its ends swapped.
    shapes.push_back({{4, 2, 3, 2, 4, 3, 2, 2, 3, 2}, {9, 1, 2, 3, 4, 5, 6, 7, 8, 0}});
    int split = 0;
    for (const shape &s : shapes)
        for (std::size_t e : {1u, 2u, 4u, 8u, 16u}) {
            const permutation p = numpy_permutation(s.dims, s.perm);
            const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
            ASSERT_EQ(plan.dims.size(), 3u) << text(s.dims, s.perm); // [s, M, t]
            if (choose_grouped_blocks(plan, e, false)) continue; // blocks without the split
            ++split;
            // Both ends under a line: the grouped transpose's (else the tiles').
            const auto e_elements = static_cast<dim_t>(e);
            if (plan.dims.front().size * e_elements < 64 && plan.dims.back().size * e_elements < 64) {
                EXPECT_EQ(choose_fast_path(plan, e), fast_path::grouped_transpose) << text(s.dims, s.perm) << " e " << e;
            }
            for (cpu_isa isa : levels_here())
                expect_grouped_matches_reference(e, p.dims, p.src_strides, 0, plan.volume, p.dst_strides, 0,
                                                 plan.volume, isa, rng, text(s.dims, s.perm));
        }
    EXPECT_GE(split, 15); // 19 of the 35: the others have blocks without it
}

// Tiles under the floor in a large move whose runs cannot grow by a whole
// next dim take the split plan, whose runs grow by part of it: bf16 rank
// 12 of 4s (the high-rank sweep's case 17), whose destination runs of 64
// elements continue into a dim of 16 (a 32 KiB tile), made 1024-element
// tiles (2 KiB) whole and 8192-element ones (16 KiB) split. Smaller
// moves (rank 10 of 4s, 2 MiB, streamed here) that take the split plan
// move as the reference does at every level.
TEST_F(grouped_transpose, small_tiles_in_large_moves_grow_by_part_of_a_dim) {
    const permutation p = numpy_permutation(dims_t(12, 4), {2, 10, 9, 1, 6, 8, 0, 3, 4, 11, 7, 5});
    const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
    const auto whole = choose_grouped_blocks(plan, 2, true);
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->tile, 1024);
    const auto g = grouped_plan(plan, 2, cpu_isa::avx2);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->element_bytes, 2u);
    EXPECT_EQ(g->tile, 8192);
    EXPECT_EQ(g->source_run, 128);
    EXPECT_EQ(g->destination_run, 256);
    std::mt19937 rng(53);
    const int found = rank_10_of_4s_matching_reference({2, 4}, 3, rng, [](const copy_plan &move, std::size_t e) {
        const auto unsplit = choose_grouped_blocks(move, e, true);
        const auto h = grouped_plan(move, e);
        return unsplit && h && h->element_bytes == e && h->tile > unsplit->tile;
    });
    EXPECT_GT(found, 0);
}

// High-rank plans whose transposed sides reach a line only through a
// coalesced dim (a 16 or a 9 where two dims kept their order) take the
// grouped transpose while both sides stay under max_high_rank_side_lines
// lines (the tiled and window transposes had taken them, at 0.14-0.37 of
// a streaming copy); plans of fewer dims keep the tiles.
TEST_F(grouped_transpose, high_rank_plans_with_a_coalesced_side_take_it) {
    auto path = [](const dims_t &dims, const std::vector<std::size_t> &perm, std::size_t e) {
        const permutation p = numpy_permutation(dims, perm);
        return choose_fast_path(make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0), e);
    };
    // Innermost destination dim a 16 of f32 (64 bytes): the window transpose.
    EXPECT_EQ(path(dims_t(12, 4), {10, 1, 9, 2, 11, 7, 3, 6, 8, 0, 4, 5}, 4), fast_path::grouped_transpose);
    // Both sides a 9 of c64 (72 bytes): the tiled transpose.
    EXPECT_EQ(path(dims_t(14, 3), {3, 2, 4, 7, 12, 13, 11, 5, 6, 8, 10, 9, 0, 1}, 8), fast_path::grouped_transpose);
    // c64 with a 16 (128 bytes) innermost in the destination.
    EXPECT_EQ(path({4, 4, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {7, 4, 11, 6, 3, 9, 8, 10, 5, 2, 0, 1}, 8),
              fast_path::grouped_transpose);
    // Few dims: a side of a line or more keeps the tiles (the window
    // transpose's here).
    EXPECT_EQ(path({4, 4, 16, 16}, {3, 0, 2, 1}, 4), fast_path::window_transpose);
    std::mt19937 rng(61);
    // Rank 10 of 4s, 8 dims after coalescing (the window transpose and
    // the tiled one had taken these), moved bit for bit at every level.
    for (const std::vector<std::size_t> &perm : {std::vector<std::size_t>{3, 6, 4, 5, 9, 8, 0, 7, 1, 2},
                                                 std::vector<std::size_t>{3, 4, 6, 5, 1, 0, 2, 8, 9, 7}}) {
        const permutation p = numpy_permutation(dims_t(10, 4), perm);
        const copy_plan plan = make_copy_plan(p.dims, p.src_strides, 0, p.dst_strides, 0);
        EXPECT_GE(plan.dims.size(), min_high_rank_dims);
        ASSERT_EQ(choose_fast_path(plan, 4), fast_path::grouped_transpose) << text(dims_t(10, 4), perm);
        for (cpu_isa isa : levels_here())
            expect_grouped_matches_reference(4, p.dims, p.src_strides, 0, plan.volume, p.dst_strides, 0, plan.volume, isa,
                                             rng, text(dims_t(10, 4), perm));
    }
}

// Streamed gathers (no micro blocks: dims of 3 whose blocks share their
// inner dims) stream the whole lines of destination runs that start or end
// inside lines, and store the partial ones: every element size, every
// level, bit for bit; with an offset that puts the runs at other bytes of
// their lines.
TEST_F(grouped_transpose, streamed_gathers_of_runs_that_end_inside_lines_match_the_reference) {
    std::mt19937 rng(62);
    for (std::size_t e : {1, 2, 4, 8, 16}) {
        bool found = false;
        for (int draw = 0; draw < 60 && !found; ++draw) {
            const std::vector<std::size_t> perm = random_axis_order(12, rng);
            const permutation q = numpy_permutation(dims_t(12, 3), perm);
            for (const dim_t offset : {dim_t{0}, dim_t{5}}) {
                const copy_plan plan = make_copy_plan(q.dims, q.src_strides, offset, q.dst_strides, offset);
                const auto g = grouped_plan(plan, e);
                if (!g || !g->stream || g->micro_kernel || g->destination_run * static_cast<dim_t>(g->element_bytes) % 64 == 0)
                    break;
                found = true;
                for (cpu_isa isa : levels_here())
                    expect_grouped_matches_reference(e, q.dims, q.src_strides, offset, plan.volume + offset, q.dst_strides,
                                                     offset, plan.volume + offset + 7, isa, rng,
                                                     text(dims_t(12, 3), perm) + " offset " + std::to_string(offset));
            }
        }
        EXPECT_TRUE(found) << e;
    }
}


// c64 (and f64) with a shared inner dim of 4: 32-byte runs, which the run
// copy moved at 0.14-0.26 of a streaming copy in high-rank plans (2-16
// runs a call). The planner folds the dim into 32-byte elements and the
// fast-path choice takes the grouped transpose for them; low-rank plans
// with long calls keep the run copy. Bit for bit at every level, with an
// offset too.
TEST_F(grouped_transpose, shared_inner_dims_of_32_bytes_move_as_wide_elements) {
    std::mt19937 rng(64);
    for (const std::vector<std::size_t> &perm : {std::vector<std::size_t>{2, 0, 7, 1, 3, 9, 4, 5, 8, 6, 10},
                                                 std::vector<std::size_t>{9, 2, 1, 6, 3, 5, 8, 7, 0, 4, 10},
                                                 std::vector<std::size_t>{5, 3, 1, 0, 8, 6, 4, 2, 9, 7, 10}}) {
        // Dims of 3 and two 2s; the innermost a 4 of c64 (32 bytes),
        // innermost on both sides.
        const dims_t dims{3, 3, 3, 3, 2, 3, 3, 2, 3, 3, 4};
        const permutation p = numpy_permutation(dims, perm);
        for (const dim_t offset : {dim_t{0}, dim_t{4}}) {
            const copy_plan plan = make_copy_plan(p.dims, p.src_strides, offset, p.dst_strides, offset);
            EXPECT_EQ(choose_fast_path(plan, 8), fast_path::grouped_transpose) << text(dims, perm);
            const auto g = grouped_plan(plan, 8);
            ASSERT_TRUE(g.has_value()) << text(dims, perm);
            EXPECT_EQ(g->element_bytes, 32u);
            EXPECT_EQ(g->micro_kernel, nullptr);
            for (cpu_isa isa : levels_here())
                expect_grouped_matches_reference(8, p.dims, p.src_strides, offset, plan.volume + offset, p.dst_strides,
                                                 offset, plan.volume + offset + 5, isa, rng,
                                                 text(dims, perm) + " offset " + std::to_string(offset));
        }
    }
    const permutation few = numpy_permutation({64, 64, 4}, {1, 0, 2});
    EXPECT_EQ(choose_fast_path(make_copy_plan(few.dims, few.src_strides, 0, few.dst_strides, 0), 8), fast_path::run_copy);
}

namespace {
// A micro kernel's call on random source bytes into a zeroed destination
// of `dst_bytes`, returning the destination.
std::vector<std::uint8_t> micro_call(micro_transpose_fn kernel, const std::vector<std::uint8_t> &src,
                                     const std::vector<std::ptrdiff_t> &load, const std::vector<std::ptrdiff_t> &store,
                                     const std::vector<std::ptrdiff_t> &block_source,
                                     const std::vector<std::ptrdiff_t> &block_offset, const std::vector<dim_t> &across,
                                     std::size_t dst_bytes, const std::vector<std::uint8_t> &pre,
                                     const std::vector<std::uint8_t> &post, bool one_unit_a_call) {
    std::vector<std::uint8_t> dst(dst_bytes, 0);
    const auto blocks = static_cast<dim_t>(block_source.size());
    const auto steps = static_cast<dim_t>(across.size());
    const std::uint8_t *p = pre.empty() ? nullptr : pre.data(), *q = post.empty() ? nullptr : post.data();
    if (!one_unit_a_call) {
        kernel(src.data(), load.data(), store.data(), block_source.data(), block_offset.data(), blocks, across.data(),
               steps, dst.data(), false, p, q);
        return dst;
    }
    for (dim_t i = 0; i < blocks; ++i)
        for (dim_t k = 0; k < steps; ++k)
            kernel(src.data(), load.data(), store.data(), block_source.data() + i, block_offset.data() + i, 1,
                   across.data() + k, 1, dst.data(), false, p, q);
    return dst;
}
} // namespace

// The 1- and 2-byte micro blocks of 128-bit vectors go two at a time in
// 256-bit vectors (the pairs running across blocks and across steps, an
// odd unit left alone): L x L transposes against their definition (vector
// a's lane b is loaded vector b's element a), and the shared-lanes blocks
// against one block a call (the single path the planner's reference tests
// cover), for 1 to 5 blocks and 1 to 3 across steps at scattered offsets.
TEST(grouped_micro_pairs, match_one_block_at_a_time_and_the_transpose) {
    if (detected_cpu_isa() < cpu_isa::avx2) GTEST_SKIP() << "no AVX2 here";
    std::mt19937 rng(77);
    struct kind {
        int log2e;
        dim_t lanes;
        int swaps; // 0: the L x L transpose
    };
    for (const kind kd : {kind{0, 16, 0}, kind{1, 8, 0}, kind{0, 16, 1}, kind{0, 16, 2}, kind{0, 16, 3}, kind{1, 8, 1},
                          kind{1, 8, 2}}) {
        const auto e = std::size_t{1} << kd.log2e;
        const micro_transpose_fn kernel = kd.swaps == 0 ? grouped_micro_kernel(cpu_isa::avx2, kd.log2e, kd.lanes)
                                                        : grouped_shared_lanes_kernel(cpu_isa::avx2, kd.log2e, kd.swaps);
        ASSERT_NE(kernel, nullptr);
        const std::size_t vectors = kd.swaps == 0 ? static_cast<std::size_t>(kd.lanes) : std::size_t{1} << kd.swaps;
        const std::size_t vector_bytes = static_cast<std::size_t>(kd.lanes) * e;
        for (std::size_t blocks = 1; blocks <= 5; ++blocks)
            for (std::size_t steps = 1; steps <= 3; ++steps) {
                // Source: each vector of each block and step at its own
                // place (odd offsets); destination rows likewise.
                const std::size_t region = 4096;
                std::vector<std::uint8_t> src(blocks * region + 2 * region);
                for (auto &b : src) b = static_cast<std::uint8_t>(rng());
                std::vector<std::ptrdiff_t> load, store, block_source, block_offset;
                std::vector<dim_t> across;
                for (std::size_t b = 0; b < vectors; ++b) load.push_back(static_cast<std::ptrdiff_t>(b * 97 * e));
                for (std::size_t s = 0; s < steps; ++s) across.push_back(static_cast<dim_t>(s * 3));
                // store has an entry per across index (steps 3 apart) and vector.
                const std::size_t store_entries = (steps - 1) * 3 + vectors;
                for (std::size_t a = 0; a < store_entries; ++a) store.push_back(static_cast<std::ptrdiff_t>(a * (vector_bytes + 5 * e)));
                const std::size_t block_span = store_entries * (vector_bytes + 5 * e) + vector_bytes;
                for (std::size_t i = 0; i < blocks; ++i) {
                    block_source.push_back(static_cast<std::ptrdiff_t>(i * region + 7 * e));
                    block_offset.push_back(static_cast<std::ptrdiff_t>(i * block_span + 3 * e));
                }
                std::vector<std::uint8_t> pre, post;
                if (kd.swaps > 0) { // a byte permutation of the lanes before and after (pshufb indices)
                    std::vector<std::uint8_t> lanes(static_cast<std::size_t>(kd.lanes));
                    std::iota(lanes.begin(), lanes.end(), std::uint8_t{0});
                    for (auto *table : {&pre, &post}) {
                        std::shuffle(lanes.begin(), lanes.end(), rng);
                        for (std::size_t l = 0; l < lanes.size(); ++l)
                            for (std::size_t u = 0; u < e; ++u) table->push_back(static_cast<std::uint8_t>(lanes[l] * e + u));
                    }
                }
                const std::size_t dst_bytes = blocks * block_span + 64;
                const std::string what = "log2e " + std::to_string(kd.log2e) + " swaps " + std::to_string(kd.swaps) +
                                         " blocks " + std::to_string(blocks) + " steps " + std::to_string(steps);
                const auto together = micro_call(kernel, src, load, store, block_source, block_offset, across, dst_bytes,
                                                 pre, post, false);
                const auto alone = micro_call(kernel, src, load, store, block_source, block_offset, across, dst_bytes,
                                              pre, post, true);
                EXPECT_EQ(together, alone) << what;
                if (kd.swaps != 0) continue;
                std::vector<std::uint8_t> expected(dst_bytes, 0);
                for (std::size_t i = 0; i < blocks; ++i)
                    for (std::size_t s = 0; s < steps; ++s)
                        for (std::size_t a = 0; a < vectors; ++a)
                            for (std::size_t b = 0; b < vectors; ++b)
                                std::memcpy(expected.data() + block_offset[i] + store[static_cast<std::size_t>(across[s]) + a] + b * e,
                                            src.data() + block_source[i] + across[s] * static_cast<dim_t>(e) + load[b] + a * e, e);
                EXPECT_EQ(together, expected) << what;
            }
    }
}
