// The blocked transpose (kernels/blocked_transpose.hpp): ABcd<t>a<t>b to
// abcd and back for every element size, odd spatial dims, offsets and
// misaligned destinations, at every SIMD level here, on one thread and
// split for two, against the independent element copy; and which moves
// the planner gives it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "element_copy_reference.hpp"
#include "isa_levels_support.hpp"
#include "permute_move_support.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/isa_kernels.hpp"
#include "kernels/movement_program.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::element_copy_reference;
using reshaper::impl::testing::levels_here;

namespace {

using reshaper::impl::testing::permute;
using reshaper::impl::testing::permute_move;

// ABcd<t>a<t>b with t = 64 / e, A = blocks_a * t, B = blocks_b * t:
// physical (A/t, B/t, c, d, t, t); abcd's (A/t, t, B/t, t, c, d).
permute_move from_blocked(dim_t blocks_a, dim_t blocks_b, dim_t c, dim_t d, dim_t t) {
    return permute({blocks_a, blocks_b, c, d, t, t}, {0, 4, 1, 5, 2, 3});
}
permute_move to_blocked(dim_t blocks_a, dim_t blocks_b, dim_t c, dim_t d, dim_t t) {
    return permute({blocks_a, t, blocks_b, t, c, d}, {0, 2, 4, 5, 1, 3});
}

machine_facts streamed(cpu_isa isa, int threads) {
    machine_facts m = current_machine();
    m.isa = isa;
    m.threads = threads;
    m.transpose_streaming_bytes = 0; // every move streams
    m.copy_streaming_bytes = 0;
    return m;
}

// Runs the move and compares every destination byte, guards included,
// with the element copy; returns the path taken.
fast_path check(const permute_move &m, std::size_t e, dim_t src_offset, std::size_t dst_misalign,
                const machine_facts &machine, std::mt19937 &rng) {
    const std::size_t guard = 128;
    dim_t extent = 1; // the source's elements, padded strides included
    for (std::size_t d = 0; d < m.dims.size(); ++d) extent += (m.dims[d] - 1) * m.src_strides[d];
    std::vector<std::uint8_t> src(static_cast<std::size_t>(extent + src_offset) * e);
    // Line-aligned destination (plus dst_misalign bytes), as the kernels stream into.
    std::vector<std::uint8_t> storage(static_cast<std::size_t>(m.volume) * e + 2 * guard + 64);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (auto &b : storage) b = static_cast<std::uint8_t>(rng());
    const std::size_t lead = (64 - reinterpret_cast<std::uintptr_t>(storage.data() + guard) % 64) % 64 + dst_misalign;
    std::vector<std::uint8_t> expected = storage;
    element_copy_reference(m.dims, e, src.data(), m.src_strides, src_offset, expected.data() + guard + lead,
                           m.dst_strides, 0);
    const copy_plan plan = make_copy_plan(m.dims, m.src_strides, src_offset, m.dst_strides, 0);
    const movement_program program = plan_movement(plan, 8 * e, machine);
    run_movement(program, src.data(), storage.data() + guard + lead);
    const auto mismatch = std::mismatch(storage.begin(), storage.end(), expected.begin());
    EXPECT_TRUE(mismatch.first == storage.end())
        << e << "-byte elements, src offset " << src_offset << ", dst misaligned by " << dst_misalign << ", "
        << to_string(machine.isa) << ", " << describe(program) << ": first wrong byte at "
        << (mismatch.first - storage.begin()) << " of " << storage.size();
    return program.path;
}

} // namespace

TEST(blocked_transpose, abcd16a16b_both_ways_match_the_element_copy_at_every_level) {
    std::mt19937 rng(20261127);
    for (std::size_t e : {1, 2, 4, 8, 16}) {
        const auto t = static_cast<dim_t>(64 / e);
        // Odd spatial dims: column counts of whole tiles need c * d a multiple
        // of t; fewer positions for the larger tiles of small elements.
        const dim_t c = t == 64 ? 1 : t == 32 ? 3 : 5, d = t;
        for (bool into : {false, true}) {
            const dim_t blocks_a = t >= 32 ? 1 : 2, blocks_b = t >= 32 ? 2 : 3;
            const permute_move m =
                into ? to_blocked(blocks_a, blocks_b, c, d, t) : from_blocked(blocks_a, blocks_b, c, d, t);
            for (cpu_isa isa : levels_here())
                for (dim_t offset : {0, 3}) {
                    const fast_path path = check(m, e, offset, 0, streamed(isa, 1), rng);
                    EXPECT_EQ(path, fast_path::blocked_transpose) << e << "-byte, into " << into;
                    // Destination rows off their lines: ordinary stores.
                    check(m, e, offset, e, streamed(isa, 1), rng);
                }
        }
    }
}

// Large enough to be split into tasks for two threads (parallel_threshold_bytes).
TEST(blocked_transpose, split_for_threads_matches_the_element_copy) {
    std::mt19937 rng(5);
    for (bool into : {false, true}) {
        const permute_move m = into ? to_blocked(2, 4, 16, 16, 16) : from_blocked(2, 4, 16, 16, 16); // 1 MiB of f32
        for (cpu_isa isa : levels_here()) {
            const machine_facts machine = streamed(isa, 2);
            const movement_program p =
                plan_movement(make_copy_plan(m.dims, m.src_strides, 0, m.dst_strides, 0), 32, machine);
            EXPECT_TRUE(p.split.parallel) << describe(p);
            EXPECT_EQ(check(m, 4, 0, 0, machine, rng), fast_path::blocked_transpose);
        }
    }
}

TEST(blocked_transpose, taken_only_streamed_and_where_the_tiled_walk_jumps_through_the_source) {
    const permute_move from = from_blocked(2, 2, 4, 4, 16);
    const copy_plan plan = make_copy_plan(from.dims, from.src_strides, 0, from.dst_strides, 0);
    machine_facts in_cache = current_machine();
    in_cache.transpose_streaming_bytes = std::size_t{1} << 40;
    EXPECT_EQ(plan_movement(plan, 32, in_cache).path, fast_path::transpose);
    const movement_program p = plan_movement(plan, 32, streamed(current_machine().isa, 1));
    ASSERT_EQ(p.path, fast_path::blocked_transpose);
    const auto &b = std::get<blocked_transpose_program>(p.detail);
    EXPECT_EQ(b.inner.volume, 16u); // ABcd16a16b's a lies inside each c,d column of the source
    EXPECT_EQ(b.tile_src_bytes, std::size_t{16} * 16 * 16 * 4); // a column tile's c,d x a x b, dense
    // abcd -> ABcd16a16b: `a` continues each destination row after `b`, so
    // it makes the column tiles (16 of them), each B x c x d apart.
    const permute_move into = to_blocked(2, 2, 4, 4, 16);
    const movement_program q = plan_movement(make_copy_plan(into.dims, into.src_strides, 0, into.dst_strides, 0), 32,
                                             streamed(current_machine().isa, 1));
    ASSERT_EQ(q.path, fast_path::blocked_transpose);
    const auto &qb = std::get<blocked_transpose_program>(q.detail);
    EXPECT_EQ(qb.col_tiles, 16);
    EXPECT_EQ(qb.tile_src_col, std::ptrdiff_t{2} * 16 * 4 * 4 * 4); // B/16 x 16 b x c x d f32
    EXPECT_NE(describe(p).find("blocked transpose"), std::string::npos);
    // nChw16c -> nchw and NHWC as NCHW read their source in order when
    // walked as the tiled transpose: they keep it.
    for (const permute_move &m : {permute({4, 4, 8, 8, 16}, {0, 1, 4, 2, 3}), permute({2, 64, 256}, {0, 2, 1})}) {
        const copy_plan q = make_copy_plan(m.dims, m.src_strides, 0, m.dst_strides, 0);
        EXPECT_EQ(plan_movement(q, 32, streamed(current_machine().isa, 1)).path, fast_path::transpose);
    }
    // Partial tiles (spatial dims of no whole tile) keep the tiled transpose.
    const permute_move odd = from_blocked(1, 2, 3, 5, 16);
    const copy_plan r = make_copy_plan(odd.dims, odd.src_strides, 0, odd.dst_strides, 0);
    EXPECT_EQ(plan_movement(r, 32, streamed(current_machine().isa, 1)).path, fast_path::transpose);
}

// Out of blocks of half a line (nChw8c f32, nChw16c bf16) into nchw,
// streamed: the tiled transpose's half tiles, which prefetch the next wide
// step's source lines (positions back to back: each line once; padded
// positions: line by line). Bit-exact at every level, with several wide
// steps and ragged last columns, source offsets, misaligned destinations
// and padded source positions.
TEST(blocked_transpose, half_line_blocks_to_nchw_streamed_match_the_element_copy) {
    std::mt19937 rng(81127);
    for (const std::size_t e : {std::size_t{4}, std::size_t{2}}) {
        const dim_t block = static_cast<dim_t>(32 / e);
        for (const dims_t &hw : {dims_t{24, 48}, dims_t{7, 131}}) {
            const permute_move dense = permute({2, 3, hw[0], hw[1], block}, {0, 1, 4, 2, 3});
            permute_move padded = dense; // each position's block 2 blocks apart in the source
            for (std::size_t d = 0; d < padded.dims.size(); ++d)
                if (padded.src_strides[d] != 1) padded.src_strides[d] *= 2;
            for (cpu_isa isa : levels_here())
                for (dim_t offset : {0, 3}) {
                    const machine_facts machine = streamed(isa, 1);
                    for (const permute_move *m : {&dense, static_cast<const permute_move *>(&padded)}) {
                        const movement_program p = plan_movement(
                            make_copy_plan(m->dims, m->src_strides, offset, m->dst_strides, 0), 8 * e, machine);
                        const auto *t = std::get_if<transpose_program>(&p.detail);
                        ASSERT_NE(t, nullptr) << describe(p);
                        if (isa != cpu_isa::scalar) { // AVX-512: through AVX2's half tiles
                            EXPECT_NE(t->half_wide, nullptr) << describe(p);
                            EXPECT_TRUE(t->walk.prefetch_ahead) << describe(p);
                        }
                        check(*m, e, offset, 0, machine, rng);
                        check(*m, e, offset, e, machine, rng);
                    }
                }
        }
    }
}

// A unit's column tiles and its prefetches' cache are the level's table's
// (isa_kernels::blocked_columns, the streamed walk's prefetch_locality: the
// Intel Xeon's table takes 4 tiles out of blocks, into L2), so the moves
// above ran each tuning's walk; with a ragged last unit (5 column tiles)
// and a unit as wide as all the columns.
TEST(blocked_transpose, a_unit_s_column_tiles_and_prefetch_cache_are_the_level_s) {
    std::mt19937 rng(112826);
    for (cpu_isa isa : levels_here()) {
        const isa_kernels &k = kernels_for(isa);
        const int locality = k.walk[near_rows][element_size_class(4)].prefetch_locality;
        for (bool into : {false, true})
            for (dim_t c : {5, 1}) {
                const permute_move m = into ? to_blocked(2, 2, c, 16, 16) : from_blocked(2, 2, c, 16, 16);
                const movement_program p = plan_movement(make_copy_plan(m.dims, m.src_strides, 0, m.dst_strides, 0),
                                                         32, streamed(isa, 1));
                ASSERT_EQ(p.path, fast_path::blocked_transpose) << describe(p);
                const auto &b = std::get<blocked_transpose_program>(p.detail);
                EXPECT_EQ(b.col_tiles, into ? 16 : c) << to_string(isa) << ", into " << into;
                const dim_t tiles = into ? k.blocked_columns.into_blocks : k.blocked_columns.out_of_blocks;
                EXPECT_EQ(b.step_tiles, std::min<dim_t>(b.col_tiles, tiles)) << to_string(isa) << ", into " << into;
                EXPECT_EQ(b.prefetch_locality, locality) << to_string(isa);
                EXPECT_EQ(check(m, 4, 0, 0, streamed(isa, 1), rng), fast_path::blocked_transpose);
                EXPECT_EQ(check(m, 4, 7, 0, streamed(isa, 1), rng), fast_path::blocked_transpose);
            }
    }
}
