// The window transpose (kernels/window_transpose.hpp): window partitions
// of random shapes, element sizes, offsets and padding, at every SIMD
// level here, in the cache and streamed, on one thread and split, against
// the independent element copy; and when the planner takes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "element_copy_reference.hpp"
#include "isa_levels_support.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/movement_program.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::levels_here;
using reshaper::impl::testing::element_copy_reference;

namespace {

// [N, C, H, W] (rows padded by `pad` elements, starting `offset` in) seen
// as [N, wh_count, ww_count, wh, ww, C] windows, into a dense destination
// in that order: maxvit_t's window partition.
// merge: the inverse, windows back into [N, C, H, W] (maxvit_t's window
// merge): the dense windows are the source, the padded image the
// destination.
struct window_case {
    dim_t n, c, wh, ww, wh_count, ww_count, pad, offset;
    bool merge = false;
};

struct strided_move {
    dims_t dims, src_strides, dst_strides;
    dim_t src_extent = 0, dst_extent = 0;
};

strided_move window_move(const window_case &w) {
    const dim_t W = w.ww * w.ww_count + w.pad, H = w.wh * w.wh_count;
    strided_move m;
    m.dims = {w.n, w.wh_count, w.ww_count, w.wh, w.ww, w.c};
    m.src_strides = {w.c * H * W, w.wh * W, w.ww, W, 1, H * W};
    m.src_extent = w.n * w.c * H * W + w.offset;
    dim_t stride = 1;
    m.dst_strides.resize(m.dims.size());
    for (std::size_t k = m.dims.size(); k-- > 0;) {
        m.dst_strides[k] = stride;
        stride *= m.dims[k];
    }
    m.dst_extent = stride;
    if (w.merge) {
        std::swap(m.src_strides, m.dst_strides);
        m.dst_extent = m.src_extent - w.offset;
        m.src_extent = stride + w.offset;
    }
    return m;
}

// Runs the move at `isa` and compares every destination byte, and guards
// on both sides, with the element copy.
void check(const window_case &w, std::size_t e, cpu_isa isa, std::mt19937 &rng, fast_path *path_taken) {
    const strided_move m = window_move(w);
    const std::size_t guard = 128;
    std::vector<std::uint8_t> src(static_cast<std::size_t>(m.src_extent) * e);
    std::vector<std::uint8_t> dst(static_cast<std::size_t>(m.dst_extent) * e + 2 * guard);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (auto &b : dst) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> expected = dst;
    element_copy_reference(m.dims, e, src.data(), m.src_strides, w.offset, expected.data() + guard, m.dst_strides, 0);
    const copy_plan plan = make_copy_plan(m.dims, m.src_strides, w.offset, m.dst_strides, 0);
    machine_facts machine = current_machine();
    machine.isa = isa;
    const movement_program program = plan_movement(plan, 8 * e, machine);
    *path_taken = program.path;
    run_movement(program, src.data(), dst.data() + guard);
    const auto mismatch = std::mismatch(dst.begin(), dst.end(), expected.begin());
    EXPECT_TRUE(mismatch.first == dst.end())
        << (w.merge ? "merge" : "partition") << ", windows " << w.wh << "x" << w.ww << " (" << w.wh_count << "x" << w.ww_count << "), n " << w.n << ", c "
        << w.c << ", pad " << w.pad << ", offset " << w.offset << ", " << e << "-byte elements, " << to_string(isa)
        << ", " << describe(program) << ": first wrong byte at " << (mismatch.first - dst.begin()) << " of "
        << dst.size();
}

void random_windows(std::size_t streaming_threshold, int trials, dim_t max_c) {
    override_streaming_threshold_for_testing(streaming_threshold);
    std::mt19937 rng(20261127);
    int windowed = 0;
    for (int trial = 0; trial < trials; ++trial) {
        const std::size_t e = std::size_t{1} << (rng() % 5);
        auto pick = [&](dim_t lo, dim_t hi) { return lo + static_cast<dim_t>(rng() % static_cast<unsigned>(hi - lo + 1)); };
        window_case w{pick(1, 3), pick(1, max_c), pick(1, 8), pick(2, 9), pick(1, 4), pick(2, 5), 0, 0};
        if (rng() % 3 == 0) w.pad = pick(1, 5);
        if (rng() % 3 == 0) w.offset = pick(1, 17);
        w.merge = rng() % 2 == 0;
        for (cpu_isa isa : levels_here()) {
            fast_path path = fast_path::none;
            check(w, e, isa, rng, &path);
            windowed += path == fast_path::window_transpose;
        }
    }
    override_streaming_threshold_for_testing(std::nullopt);
    // Most random cases are window partitions the window transpose takes
    // (short window widths; the others go to tiles, rows or the walk).
    EXPECT_GT(windowed, trials / 4);
}

} // namespace

TEST(window_transpose, random_windows_in_the_cache_match_the_element_copy) {
    random_windows(std::numeric_limits<std::size_t>::max(), 60, 70);
}

// Thresholds low enough that the larger cases stream and split for threads.
TEST(window_transpose, random_windows_streamed_match_the_element_copy) { random_windows(64 << 10, 12, 300); }

TEST(window_transpose, maxvit_partitions_take_it_with_rows_over_several_dims) {
    override_streaming_threshold_for_testing(std::numeric_limits<std::size_t>::max());
    for (const window_case &w : {window_case{2, 256, 7, 7, 2, 2, 0, 0}, window_case{1, 64, 7, 7, 8, 8, 0, 0},
                                window_case{2, 96, 7, 7, 4, 4, 0, 0}}) {
        const strided_move m = window_move(w);
        const copy_plan plan = make_copy_plan(m.dims, m.src_strides, 0, m.dst_strides, 0);
        EXPECT_EQ(choose_fast_path(plan, 4), fast_path::window_transpose);
        const movement_program p = plan_movement(plan, 32, current_machine());
        const auto &wt = std::get<window_transpose_program>(p.detail);
        // Source runs of 7 elements become rows of whole window rows or images.
        EXPECT_EQ(wt.short_run, 7);
        EXPECT_FALSE(wt.merge);
        EXPECT_GE(wt.span, 14);
        EXPECT_EQ(wt.span % 7, 0);
        EXPECT_NE(describe(p).find("window transpose"), std::string::npos);
        std::mt19937 rng(7);
        fast_path path = fast_path::none;
        for (cpu_isa isa : levels_here()) check(w, 4, isa, rng, &path);
    }
    // The merges mirror it: destination runs of 7 span the window rows.
    for (const window_case &w : {window_case{2, 256, 7, 7, 2, 2, 0, 0, true}, window_case{1, 64, 7, 7, 8, 8, 0, 0, true}}) {
        const strided_move m = window_move(w);
        const copy_plan plan = make_copy_plan(m.dims, m.src_strides, 0, m.dst_strides, 0);
        EXPECT_EQ(choose_fast_path(plan, 4), fast_path::window_transpose);
        const movement_program p = plan_movement(plan, 32, current_machine());
        const auto &wt = std::get<window_transpose_program>(p.detail);
        EXPECT_TRUE(wt.merge);
        EXPECT_EQ(wt.short_run, 7);
        EXPECT_GE(wt.span, 14);
        std::mt19937 rng(8);
        fast_path path = fast_path::none;
        for (cpu_isa isa : levels_here()) check(w, 4, isa, rng, &path);
    }
    // Source runs of a line or more keep the tiled transpose; so do runs
    // that no other source dim continues.
    const copy_plan wide = make_copy_plan({4, 32, 2, 16}, {1024, 16, 512, 1}, 0, {1024, 32, 16, 1}, 0);
    EXPECT_NE(choose_fast_path(wide, 4), fast_path::window_transpose);
    override_streaming_threshold_for_testing(std::nullopt);
}

// Short runs in the cache go in the destination's order where it puts more
// runs in a call (the head split of attention: [128,4,49,32] from a q/k/v
// slice), in the source's order when streamed.
TEST(run_copy_order, short_runs_take_the_order_with_more_runs_a_call) {
    const copy_plan plan = make_copy_plan({128, 4, 49, 32}, {18816, 32, 384, 1}, 0, {6272, 1568, 32, 1}, 0);
    override_streaming_threshold_for_testing(std::numeric_limits<std::size_t>::max());
    movement_program p = plan_movement(plan, 32, current_machine());
    const auto *r = std::get_if<run_copy_program>(&p.detail);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->order, short_run_order::destination);
    EXPECT_EQ(r->along_count, 49u);
    override_streaming_threshold_for_testing(std::size_t{1} << 10);
    p = plan_movement(plan, 32, current_machine());
    r = std::get_if<run_copy_program>(&p.detail);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->order, short_run_order::source);
    EXPECT_EQ(r->along_count, 4u);
    override_streaming_threshold_for_testing(std::nullopt);
    // Both orders copy the same elements.
    std::mt19937 rng(3);
    for (std::size_t threshold : {std::numeric_limits<std::size_t>::max(), std::size_t{1} << 10}) {
        override_streaming_threshold_for_testing(threshold);
        const dims_t dims{16, 4, 9, 32}, ss{3456, 32, 384, 1}, ds{1152, 288, 32, 1};
        std::vector<std::uint8_t> src(16 * 3456 * 4), dst(16 * 1152 * 4), expected(dst.size());
        for (auto &b : src) b = static_cast<std::uint8_t>(rng());
        element_copy_reference(dims, 4, src.data(), ss, 0, expected.data(), ds, 0);
        for (cpu_isa isa : levels_here()) {
            std::fill(dst.begin(), dst.end(), 0);
            machine_facts machine = current_machine();
            machine.isa = isa;
            run_movement(plan_movement(make_copy_plan(dims, ss, 0, ds, 0), 32, machine), src.data(), dst.data());
            EXPECT_EQ(dst, expected) << to_string(isa);
        }
    }
    override_streaming_threshold_for_testing(std::nullopt);
}
