// Run grids (kernels/run_grid.hpp): short runs in the caches copied along
// one outer dim and across a short one in each call. The kernels of every
// level here against plain memcpy loops at odd counts and run lengths; run
// copies that take a grid (attention heads split and merged, channel
// shuffle, random outer dims, offsets, element sizes) at every level, on
// one thread and split for two, against the independent element copy with
// guards around the destination; and when the planner takes one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <variant>
#include <vector>

#include "element_copy_reference.hpp"
#include "isa_levels_support.hpp"
#include "permute_move_support.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/run_grid.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::element_copy_reference;
using reshaper::impl::testing::levels_here;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t guard_bytes = 64;

machine_facts machine(cpu_isa isa, int threads) {
    machine_facts m;
    m.isa = isa;
    m.threads = threads;
    m.copy_streaming_bytes = 8 * MiB;
    m.transpose_streaming_bytes = 4 * MiB;
    return m;
}

using reshaper::impl::testing::permute;
using reshaper::impl::testing::permute_move;
using reshaper::impl::testing::row_major_strides;

// Runs the move on `machine` and compares every destination byte, and
// guards on both sides, with the element copy; returns the program.
movement_program check(const permute_move &m, std::size_t e, const machine_facts &machine, std::mt19937 &rng) {
    const std::size_t guard = 96;
    std::vector<std::uint8_t> src(static_cast<std::size_t>(m.volume + m.offset) * e);
    std::vector<std::uint8_t> dst(static_cast<std::size_t>(m.volume) * e + 2 * guard);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (auto &b : dst) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> expected = dst;
    element_copy_reference(m.dims, e, src.data(), m.src_strides, m.offset, expected.data() + guard, m.dst_strides, 0);
    const movement_program program =
        plan_movement(make_copy_plan(m.dims, m.src_strides, m.offset, m.dst_strides, 0), 8 * e, machine);
    run_movement(program, src.data(), dst.data() + guard);
    const auto mismatch = std::mismatch(dst.begin(), dst.end(), expected.begin());
    EXPECT_TRUE(mismatch.first == dst.end())
        << "first wrong byte " << (mismatch.first - dst.begin()) - static_cast<std::ptrdiff_t>(guard) << " at "
        << to_string(machine.isa) << ", " << machine.threads << " threads, " << e << "-byte elements, "
        << describe(program);
    return program;
}

// A grid of `along` x `across` runs of `run` bytes, each side's steps in
// bytes, from random bytes one past the buffers' starts and a vector's
// guard past their ends: every kernel of `kernels` writes exactly the runs
// an element copy writes.
void expect_grid_copied(const std::vector<run_grid_fn> &kernels, std::mt19937 &rng, std::size_t run, std::size_t along,
                        std::size_t across, std::ptrdiff_t src_along, std::ptrdiff_t src_across, std::ptrdiff_t dst_along,
                        std::ptrdiff_t dst_across) {
    const auto extent = [&](std::ptrdiff_t step_along, std::ptrdiff_t step_across) {
        return static_cast<std::size_t>(step_along * static_cast<std::ptrdiff_t>(along - 1) +
                                        step_across * static_cast<std::ptrdiff_t>(across - 1)) +
               run + 1 + guard_bytes;
    };
    std::vector<std::uint8_t> src(extent(src_along, src_across));
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> expected(extent(dst_along, dst_across));
    for (auto &b : expected) b = static_cast<std::uint8_t>(rng());
    const std::vector<std::uint8_t> before = expected;
    for (std::size_t i = 0; i < along; ++i)
        for (std::size_t j = 0; j < across; ++j)
            std::memcpy(expected.data() + 1 + i * dst_along + j * dst_across,
                        src.data() + 1 + i * src_along + j * src_across, run);
    for (run_grid_fn kernel : kernels) {
        std::vector<std::uint8_t> dst = before;
        kernel(dst.data() + 1, dst_along, dst_across, src.data() + 1, src_along, src_across, run, along, across);
        EXPECT_EQ(dst, expected) << "runs of " << run << ", " << along << " steps along, " << across << " across";
    }
}

bool takes_grid(const movement_program &p) {
    const auto *r = std::get_if<run_copy_program>(&p.detail);
    return r != nullptr && r->grid != nullptr;
}

} // namespace

// Each level's kernel copies exactly the grid's runs: runs of every length
// class (under a vector, between one and two, whole vector pairs, others),
// odd counts, runs not on any alignment, nothing outside them written.
TEST(run_grid, kernels_copy_exactly_their_runs) {
    std::mt19937 rng(11);
    std::vector<run_grid_fn> kernels{&copy_run_grid_scalar};
    for (cpu_isa isa : levels_here()) kernels.push_back(run_grid_kernel(isa));
    for (std::size_t run : {1u, 7u, 31u, 32u, 33u, 63u, 64u, 96u, 100u, 128u, 192u, 256u, 257u, 1024u}) {
        const std::size_t along = 5, across = 3;
        // Source runs apart by run + 3, destination in the grid's order
        // with a gap of 5 bytes between runs.
        const auto src_across = static_cast<std::ptrdiff_t>(run + 3);
        const std::ptrdiff_t src_along = src_across * static_cast<std::ptrdiff_t>(across) + 11;
        const auto dst_across = static_cast<std::ptrdiff_t>(run + 5);
        const std::ptrdiff_t dst_along = dst_across * static_cast<std::ptrdiff_t>(across);
        expect_grid_copied(kernels, rng, run, along, across, src_along, src_across, dst_along, dst_across);
    }
}

// The split heads' grid ([S,H,D] -> [H,S,D] with D of 64, 128 or 256
// bytes: runs back to back along the destination), which the AVX2 and
// AVX-512 levels copy in blocks of steps along: along counts below, at and
// past a whole number of blocks (8, 4 or 2 steps at AVX2, 4 at AVX-512),
// source runs off any alignment, nothing outside the runs written.
TEST(run_grid, kernels_copy_runs_back_to_back_along_the_destination) {
    std::mt19937 rng(12);
    std::vector<run_grid_fn> kernels{&copy_run_grid_scalar};
    for (cpu_isa isa : levels_here()) kernels.push_back(run_grid_kernel(isa));
    constexpr std::size_t across = 3;
    for (std::size_t run : {64u, 128u, 256u})
        for (std::size_t along : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 11u, 16u, 17u}) {
            const auto src_across = static_cast<std::ptrdiff_t>(run + 3);
            const std::ptrdiff_t src_along = src_across * static_cast<std::ptrdiff_t>(across) + 7;
            const auto dst_along = static_cast<std::ptrdiff_t>(run);
            const auto dst_across = static_cast<std::ptrdiff_t>(run * along + 9);
            expect_grid_copied(kernels, rng, run, along, across, src_along, src_across, dst_along, dst_across);
        }
}

// Runs that are no multiple of a vector, back to back across the
// destination (channel shuffle, heads merged) or along it (heads split),
// which the AVX-512 level stores as whole vectors where a later run of the
// call overwrites their tails: exactly the runs written, the last ones of
// each row and of the call included, at odd counts and source runs off
// any alignment.
TEST(run_grid, kernels_copy_ragged_runs_back_to_back_in_the_destination) {
    std::mt19937 rng(13);
    std::vector<run_grid_fn> kernels{&copy_run_grid_scalar};
    for (cpu_isa isa : levels_here()) kernels.push_back(run_grid_kernel(isa));
    for (std::size_t run : {33u, 49u, 63u, 65u, 80u, 98u, 127u, 196u, 392u})
        for (std::size_t along : {1u, 2u, 5u})
            for (std::size_t across : {1u, 2u, 3u}) {
                const auto r = static_cast<std::ptrdiff_t>(run);
                const auto a = static_cast<std::ptrdiff_t>(along), c = static_cast<std::ptrdiff_t>(across);
                // Across back to back (shuffle: [g, C/g, HW] -> [C/g, g, HW];
                // source runs back to back along, or apart).
                expect_grid_copied(kernels, rng, run, along, across, r, r * a + 5, r * c, r);
                expect_grid_copied(kernels, rng, run, along, across, r + 3, (r + 3) * a + 5, r * c, r);
                // Along back to back (split: [S, H, D] -> [H, S, D]; source
                // runs back to back across, or apart).
                expect_grid_copied(kernels, rng, run, along, across, r * c + 7, r, r, r * a);
                expect_grid_copied(kernels, rng, run, along, across, (r + 1) * c + 7, r + 1, r, r * a);
            }
}

// Attention heads split and merged and channel shuffle in the cache take a
// grid across the heads (the shuffle's groups); streamed they keep calls
// of one dim.
TEST(run_grid, planner_takes_a_grid_for_short_runs_in_the_cache) {
    const cpu_isa isa = active_cpu_isa();
    // Split [1,S,8,64] -> [1,8,S,64]: along S in the destination's order,
    // across the source's heads.
    const permute_move split = permute({1, 64, 8, 64}, {0, 2, 1, 3}, 0);
    const movement_program s =
        plan_movement(make_copy_plan(split.dims, split.src_strides, 0, split.dst_strides, 0), 8, machine(isa, 1));
    ASSERT_TRUE(takes_grid(s)) << describe(s);
    const auto &rs = std::get<run_copy_program>(s.detail);
    EXPECT_EQ(rs.order, short_run_order::destination);
    EXPECT_EQ(rs.along_count, 64u);
    EXPECT_EQ(rs.across_count, 8u);
    EXPECT_EQ(rs.across_src, 64);
    EXPECT_EQ(rs.across_dst, 64 * 64);
    // Merge [1,8,S,64] -> [1,S,8,64] (f32): along S in the source's order,
    // across the destination's heads.
    const permute_move merge = permute({1, 8, 128, 64}, {0, 2, 1, 3}, 0);
    const movement_program m =
        plan_movement(make_copy_plan(merge.dims, merge.src_strides, 0, merge.dst_strides, 0), 32, machine(isa, 1));
    ASSERT_TRUE(takes_grid(m)) << describe(m);
    const auto &rm = std::get<run_copy_program>(m.detail);
    EXPECT_EQ(rm.order, short_run_order::source);
    EXPECT_EQ(rm.along_count, 128u);
    EXPECT_EQ(rm.across_count, 8u);
    EXPECT_EQ(rm.across_dst, 64 * 4);
    // Channel shuffle [1,2,64,64] -> [1,64,2,64]: across the 2 groups.
    const permute_move shuffle = permute({1, 2, 64, 64}, {0, 2, 1, 3}, 0);
    const movement_program c = plan_movement(
        make_copy_plan(shuffle.dims, shuffle.src_strides, 0, shuffle.dst_strides, 0), 32, machine(isa, 1));
    ASSERT_TRUE(takes_grid(c)) << describe(c);
    EXPECT_EQ(std::get<run_copy_program>(c.detail).across_count, 2u);
    // 16 MiB of s8 heads: streamed, no grid.
    const permute_move big = permute({512, 64, 8, 64}, {0, 2, 1, 3}, 0);
    const movement_program b =
        plan_movement(make_copy_plan(big.dims, big.src_strides, 0, big.dst_strides, 0), 8, machine(isa, 1));
    EXPECT_TRUE(b.stream);
    EXPECT_FALSE(takes_grid(b)) << describe(b);
    // Across dims of 32 runs or more are no grid's: [1,40,36,64] goes along
    // the 40 in the destination's order, and the source's 36 is too long.
    const permute_move wide = permute({1, 40, 36, 64}, {0, 2, 1, 3}, 0);
    EXPECT_FALSE(takes_grid(plan_movement(make_copy_plan(wide.dims, wide.src_strides, 0, wide.dst_strides, 0), 8,
                                          machine(isa, 1))));
    // Heads split from a q/k/v slice ([32,49,3*12*32] read as [32,12,49,32]):
    // the source's rows of heads lie 3 rows apart, so no grid.
    const dims_t qkv_dims{32, 12, 49, 32}, qkv_src{56448, 32, 1152, 1};
    const movement_program q = plan_movement(make_copy_plan(qkv_dims, qkv_src, 0, row_major_strides(qkv_dims), 0), 32,
                                             machine(isa, 1));
    ASSERT_EQ(q.path, fast_path::run_copy);
    EXPECT_FALSE(takes_grid(q)) << describe(q);
}

// Grids of random shapes (odd sizes, a third outer dim, offsets), every
// element size and level, against the element copy; one of ~600 KiB also
// split for two threads (with parallel_threshold_bytes).
TEST(run_grid, grid_moves_match_the_element_copy) {
    std::mt19937 rng(5);
    int grids = 0;
    for (int round = 0; round < 24; ++round) {
        const dim_t b = 1 + static_cast<dim_t>(rng() % 3), s = 3 + static_cast<dim_t>(rng() % 40),
                    h = 2 + static_cast<dim_t>(rng() % 13), d = 1 + static_cast<dim_t>(rng() % 70);
        const std::size_t e = std::size_t{1} << (rng() % 5);
        // Split heads, merge heads, or a 5-dim move whose inner pair swaps.
        const int kind = round % 3;
        const permute_move m = kind == 0   ? permute({b, s, h, d}, {0, 2, 1, 3}, static_cast<dim_t>(rng() % 5))
                               : kind == 1 ? permute({b, h, s, d}, {0, 2, 1, 3}, static_cast<dim_t>(rng() % 5))
                                           : permute({b, 2, h, s, d}, {1, 0, 3, 2, 4}, static_cast<dim_t>(rng() % 5));
        for (cpu_isa isa : levels_here()) grids += takes_grid(check(m, e, machine(isa, 1), rng));
    }
    EXPECT_GT(grids, 0);
    // [1,300,8,64] f32 heads merged: 600 KiB, split between two threads.
    const permute_move large = permute({1, 8, 300, 64}, {0, 2, 1, 3}, 0);
    for (cpu_isa isa : levels_here()) {
        const movement_program p = check(large, 4, machine(isa, 2), rng);
        EXPECT_TRUE(takes_grid(p)) << describe(p);
        EXPECT_TRUE(p.split.parallel) << describe(p);
    }
}
