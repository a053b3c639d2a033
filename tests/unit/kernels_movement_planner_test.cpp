// The movement planner on its own (plan_movement, movement_program.hpp):
// which fast path, tiles, walk, strips, thread pieces and stores it plans
// for which shape on a given machine. Nothing is moved here; the bit-exact
// tests of what the programs do are kernels_movement_engine_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <variant>

#include "core/status.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/isa_kernels.hpp"
#include "kernels/movement_program.hpp"

using namespace reshaper::impl;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

// A machine with `threads` threads at the active level, streaming copies
// from 8 MiB and transposes from 4 MiB (a 24 MiB last-level cache).
machine_facts machine(int threads) {
    machine_facts m;
    m.isa = active_cpu_isa();
    m.threads = threads;
    m.copy_streaming_bytes = 8 * MiB;
    m.transpose_streaming_bytes = 4 * MiB;
    m.last_level_walk_bytes = 1 * MiB;
    return m;
}

// NHWC data seen as NCHW into dense NCHW: dims [n, c, hw].
copy_plan nhwc_as_nchw(dim_t n, dim_t c, dim_t hw) {
    return make_copy_plan({n, c, hw}, {c * hw, 1, c}, 0, {c * hw, hw, 1}, 0);
}

copy_plan dense(dim_t elements) { return make_copy_plan({elements}, {1}, 0, {1}, 0); }

} // namespace

// Attention heads split ([B,S,H,D] -> [B,H,S,D]): runs of D elements. In
// the caches each call goes along S (many runs) rather than along the
// source's innermost outer dim H (8 runs); streamed, in the source's order.
TEST(movement_planner, short_runs_in_the_caches_go_along_the_longer_outer_dim) {
    const dim_t s = 64, h = 8, d = 64;
    const auto split_heads = [&](dim_t b) {
        return make_copy_plan({b, h, s, d}, {s * h * d, d, h * d, 1}, 0, {h * s * d, s * d, d, 1}, 0);
    };
    const movement_program cached = plan_movement(split_heads(1), data_type::s8, machine(1));
    ASSERT_EQ(cached.path, fast_path::run_copy);
    const auto &r = std::get<run_copy_program>(cached.detail);
    EXPECT_TRUE(r.short_runs);
    EXPECT_FALSE(cached.stream);
    EXPECT_EQ(r.order, short_run_order::destination);
    EXPECT_EQ(r.along_count, static_cast<std::size_t>(s));
    EXPECT_EQ(r.along_src, h * d);
    EXPECT_EQ(r.along_dst, d);
    // 16 MiB: streamed, in the source's order (along H).
    const movement_program streamed = plan_movement(split_heads(512), data_type::s8, machine(1));
    const auto &big = std::get<run_copy_program>(streamed.detail);
    EXPECT_TRUE(streamed.stream);
    EXPECT_EQ(big.order, short_run_order::source);
    EXPECT_EQ(big.along_count, static_cast<std::size_t>(h));
}

// Where the destination's innermost outer dim holds no more runs than the
// source's (4 against 8), the calls keep the source's order, but go along
// its next dim where that is longer (64 runs rather than 8).
TEST(movement_planner, short_runs_in_the_caches_go_along_the_sources_longer_next_dim) {
    // Destination order [Y=8, X=64, Z=4, runs of 16 f32]; the source's is
    // Z, X, Y from outer to inner.
    const copy_plan plan = make_copy_plan({8, 64, 4, 16}, {16, 128, 8192, 1}, 0, {4096, 64, 16, 1}, 0);
    const movement_program cached = plan_movement(plan, data_type::f32, machine(1));
    ASSERT_EQ(cached.path, fast_path::run_copy);
    const auto &r = std::get<run_copy_program>(cached.detail);
    EXPECT_FALSE(cached.stream);
    EXPECT_EQ(r.order, short_run_order::source_but_longer_along);
    EXPECT_EQ(r.along_count, 64u);
    EXPECT_EQ(r.along_src, 128 * 4);
    EXPECT_EQ(r.along_dst, 64 * 4);
}

TEST(movement_planner, a_dense_copy_is_one_run_cut_into_pieces_for_threads) {
    // 4 KiB of f32: one run, one piece, on the calling thread, cached.
    const movement_program small = plan_movement(dense(1024), data_type::f32, machine(2));
    ASSERT_EQ(small.path, fast_path::run_copy);
    const auto &r = std::get<run_copy_program>(small.detail);
    EXPECT_EQ(r.run_bytes, 4096u);
    EXPECT_FALSE(r.short_runs);
    EXPECT_EQ(r.pieces, 1u);
    EXPECT_FALSE(small.split.parallel);
    EXPECT_FALSE(small.stream);
    // 64 MiB: pieces of a MiB shared by two threads, streamed.
    const movement_program large = plan_movement(dense(16 << 20), data_type::f32, machine(2));
    const auto &big = std::get<run_copy_program>(large.detail);
    EXPECT_EQ(big.piece, MiB);
    EXPECT_EQ(big.pieces, 64u);
    EXPECT_TRUE(large.split.parallel);
    EXPECT_TRUE(large.stream);
    // The same on one thread: not forked.
    EXPECT_FALSE(plan_movement(dense(16 << 20), data_type::f32, machine(1)).split.parallel);
}

TEST(movement_planner, streaming_follows_the_thresholds_of_the_machine) {
    // A copy streams from copy_streaming_bytes, a transpose from
    // transpose_streaming_bytes.
    EXPECT_FALSE(plan_movement(dense((8 << 20) / 4 - 1), data_type::f32, machine(1)).stream);
    EXPECT_TRUE(plan_movement(dense((8 << 20) / 4), data_type::f32, machine(1)).stream);
    EXPECT_FALSE(plan_movement(nhwc_as_nchw(1, 64, (4 << 20) / 256 - 1), data_type::f32, machine(1)).stream);
    EXPECT_TRUE(plan_movement(nhwc_as_nchw(1, 64, (4 << 20) / 256), data_type::f32, machine(1)).stream);
    machine_facts never = machine(1);
    never.transpose_streaming_bytes = std::size_t{1} << 62;
    EXPECT_FALSE(plan_movement(nhwc_as_nchw(1, 64, (4 << 20) / 256), data_type::f32, never).stream);
}

TEST(movement_planner, nhwc_as_nchw_is_a_tiled_transpose_with_the_levels_walk) {
    const machine_facts m = machine(2);
    const isa_kernels &k = kernels_for(m.isa);
    // 256 KiB of f32 (in the cache): 16 x 16 tiles, the level's in-cache walk.
    const movement_program cached = plan_movement(nhwc_as_nchw(1, 64, 1024), data_type::f32, m);
    ASSERT_EQ(cached.path, fast_path::transpose);
    const auto &t = std::get<transpose_program>(cached.detail);
    EXPECT_EQ(t.e, 4);
    EXPECT_EQ(t.t, 16);
    EXPECT_EQ(t.rows, 64);   // the source's contiguous dim: C
    EXPECT_EQ(t.cols, 1024); // the destination's: HW
    EXPECT_EQ(t.src_pitch, 64 * 4);
    EXPECT_EQ(t.dst_pitch, 1024 * 4);
    EXPECT_EQ(t.reach, in_cache);
    EXPECT_EQ(t.walk.wide, k.walk[in_cache][element_size_class(4)].wide);
    EXPECT_FALSE(t.walk.prefetch_ahead); // the caches hold it: no prefetch
    EXPECT_EQ(t.tile, k.tile[element_size_class(4)]);
    EXPECT_EQ(t.block_rows, nullptr);
    EXPECT_EQ(t.strip_rows % t.t, 0);
    EXPECT_EQ(t.pieces, 1); // 256 KiB stays on the calling thread: no pieces
    EXPECT_FALSE(cached.split.parallel);
    EXPECT_FALSE(cached.stream);

    // 64 MiB of f32, rows 16 KiB apart: streamed, the far-rows walk, shared
    // by the threads.
    const movement_program streamed = plan_movement(nhwc_as_nchw(16, 256, 4096), data_type::f32, m);
    const auto &s = std::get<transpose_program>(streamed.detail);
    EXPECT_TRUE(streamed.stream);
    EXPECT_EQ(s.reach, far_rows);
    EXPECT_EQ(s.walk.wide, k.walk[far_rows][element_size_class(4)].wide);
    EXPECT_TRUE(streamed.split.parallel);
    EXPECT_GT(streamed.split.units, 1u);

    // 2 MiB, not streamed, past the last-level walk's threshold (1 MiB): the
    // last-level walk, whose steps prefetch the next step's lines.
    const movement_program from_llc = plan_movement(nhwc_as_nchw(2, 64, 4096), data_type::f32, m);
    const auto &l = std::get<transpose_program>(from_llc.detail);
    EXPECT_FALSE(from_llc.stream);
    EXPECT_EQ(l.reach, in_last_level);
    EXPECT_EQ(l.walk.wide, k.walk[in_last_level][element_size_class(4)].wide);
    EXPECT_EQ(l.walk.prefetch_ahead, k.walk[in_last_level][element_size_class(4)].prefetch_ahead);

    // Rows under a page apart take the near-rows walk.
    const movement_program near = plan_movement(nhwc_as_nchw(256, 256, 256), data_type::f32, m);
    EXPECT_EQ(std::get<transpose_program>(near.detail).reach, near_rows);

    // NCHW into NHWC, 64 MiB of f32: destination rows 1 KiB apart (near),
    // source rows 16 KiB apart: where the level's near-rows walk says so,
    // single tiles, unprefetched, in its far-source column blocks.
    const movement_program far_source = plan_movement(
        make_copy_plan({16, 4096, 256}, {256 * 4096, 1, 4096}, 0, {4096 * 256, 256, 1}, 0), data_type::f32, m);
    const auto &f = std::get<transpose_program>(far_source.detail);
    const tile_walk &near_walk = k.walk[near_rows][element_size_class(4)];
    EXPECT_TRUE(far_source.stream);
    EXPECT_EQ(f.reach, near_rows);
    EXPECT_EQ(f.src_pitch, 4096 * 4);
    if (near_walk.far_source_block_kib > 0) {
        EXPECT_EQ(f.walk.wide, 1);
        EXPECT_FALSE(f.walk.prefetch_ahead);
        EXPECT_EQ(f.walk.block_kib, near_walk.far_source_block_kib);
        EXPECT_EQ(f.strip_rows, std::min<dim_t>(4096, (dim_t{near_walk.far_source_block_kib} << 10) / (16 * 4)));
    } else {
        EXPECT_EQ(f.walk.wide, near_walk.wide);
    }
    // 64 MiB of bf16 NCHW into NHWC at 256 channels: single tiles from
    // source rows the level's far_source_row_bytes apart on, the wide walk
    // at half that.
    const tile_walk &near_bf16 = k.walk[near_rows][element_size_class(2)];
    const dim_t far_hw = near_bf16.far_source_row_bytes / 2;
    for (dim_t hw : {far_hw, far_hw / 2}) {
        const dim_t n = (dim_t{64} << 20) / (hw * 256 * 2);
        const movement_program p = plan_movement(
            make_copy_plan({n, hw, 256}, {256 * hw, 1, hw}, 0, {hw * 256, 256, 1}, 0), data_type::bf16, m);
        const auto &b = std::get<transpose_program>(p.detail);
        EXPECT_TRUE(p.stream) << hw;
        EXPECT_EQ(b.reach, near_rows) << hw;
        const bool single = near_bf16.far_source_block_kib > 0 && hw == far_hw;
        EXPECT_EQ(b.walk.wide, single ? 1 : near_bf16.wide) << hw;
    }

    // Other element sizes: tiles of 64 bytes a side.
    for (data_type type : {data_type::s8, data_type::bf16, data_type::f64, data_type::c128}) {
        const auto e = static_cast<dim_t>(element_bits(type) / 8);
        const movement_program p = plan_movement(nhwc_as_nchw(1, 64, 1024), type, m);
        ASSERT_EQ(p.path, fast_path::transpose) << to_string(type);
        EXPECT_EQ(std::get<transpose_program>(p.detail).t, 64 / e) << to_string(type);
    }
}

TEST(movement_planner, too_few_strips_are_cut_into_column_pieces_only_when_large) {
    const machine_facts m = machine(2);
    // [1, 16, 1 << 15] f32, 2 MiB: one strip of 16 rows; cut into pieces so
    // that the threads share it.
    const movement_program wide_program = plan_movement(nhwc_as_nchw(1, 16, 1 << 15), data_type::f32, m);
    const auto &wide = std::get<transpose_program>(wide_program.detail);
    EXPECT_GT(wide.pieces, 1);
    EXPECT_EQ(wide.piece_cols % wide.t, 0);
    // [1, 16, 1024], 64 KiB: under the parallel threshold, one piece.
    const movement_program small_program = plan_movement(nhwc_as_nchw(1, 16, 1024), data_type::f32, m);
    const auto &small = std::get<transpose_program>(small_program.detail);
    EXPECT_EQ(small.pieces, 1);
}

TEST(movement_planner, nchw_into_nchw16c_writes_block_rows) {
    // nchw -> nChw16c over [n, C/16, 16, hw]: destination rows of 16 f32
    // (one line) back to back.
    const dim_t n = 2, c = 64, hw = 1024, b = 16, cb = c / b;
    const copy_plan plan =
        make_copy_plan({n, cb, b, hw}, {c * hw, b * hw, hw, 1}, 0, {cb * hw * b, hw * b, 1, b}, 0);
    const machine_facts m = machine(1);
    const movement_program p = plan_movement(plan, data_type::f32, m);
    ASSERT_EQ(p.path, fast_path::transpose);
    const auto &t = std::get<transpose_program>(p.detail);
    EXPECT_EQ(t.dst_pitch, 64);
    EXPECT_EQ(t.block_rows, kernels_for(m.isa).block_rows[block_row_kind(64)][element_size_class(4)]);
    // Strips of 64 KiB of destination.
    EXPECT_EQ(t.strip_rows * t.dst_pitch, 64 << 10);
}

TEST(movement_planner, few_channels_split_or_join_rows) {
    const machine_facts m = machine(1);
    // NHWC of 3 channels as NCHW: 3 destination rows from groups of 3.
    const movement_program split = plan_movement(nhwc_as_nchw(1, 3, 4096), data_type::f32, m);
    ASSERT_EQ(split.path, fast_path::split_rows);
    const auto &g = std::get<row_groups_program>(split.detail);
    EXPECT_TRUE(g.split);
    EXPECT_EQ(g.group_bytes, 12);
    EXPECT_NE(g.outer_kernel, nullptr);
    EXPECT_EQ(g.inner_kernel, nullptr);
    // 12 channels of s8: two kernels composed (3 x 4).
    const movement_program composed_program = plan_movement(nhwc_as_nchw(1, 12, 4096), data_type::s8, m);
    const auto &composed = std::get<row_groups_program>(composed_program.detail);
    EXPECT_NE(composed.inner_kernel, nullptr);
    EXPECT_EQ(composed.outer_rows * composed.inner_rows, 12);
    // NCHW of 3 channels as NHWC: joined rows.
    const copy_plan join = make_copy_plan({1, 4096, 3}, {3 * 4096, 1, 4096}, 0, {3 * 4096, 3, 1}, 0);
    EXPECT_EQ(plan_movement(join, data_type::f32, m).path, fast_path::join_rows);
}

TEST(movement_planner, packed_elements_take_the_packed_transpose_or_the_byte_run_copy) {
    const machine_facts m = machine(1);
    const movement_program s4 = plan_movement(nhwc_as_nchw(1, 64, 1024), data_type::s4, m);
    ASSERT_EQ(s4.path, fast_path::packed_transpose);
    const auto &t = std::get<packed_transpose_program>(s4.detail);
    EXPECT_EQ(t.bits, 4);
    EXPECT_EQ(t.strip_rows, 2 * 64 * 2); // two byte tiles of nibbles high
    EXPECT_EQ(t.src_pitch, 64 / 2);      // source rows in bytes
    EXPECT_EQ(t.dst_pitch, 1024 / 2);
    const movement_program s2 = plan_movement(nhwc_as_nchw(1, 64, 1024), data_type::s2, m);
    ASSERT_EQ(s2.path, fast_path::packed_transpose);
    EXPECT_EQ(std::get<packed_transpose_program>(s2.detail).strip_rows, 4 * 64);
    // Whole-byte runs of nibbles: the run copy, over bytes.
    const movement_program copy = plan_movement(dense(4096), data_type::u4, m);
    ASSERT_EQ(copy.path, fast_path::run_copy);
    EXPECT_EQ(std::get<run_copy_program>(copy.detail).run_bytes, 2048u);
    // Rows that start mid-byte: the element walk.
    EXPECT_EQ(plan_movement(make_copy_plan({8, 6}, {8, 1}, 0, {6, 1}, 0), data_type::s2, m).path, fast_path::none);
}

TEST(movement_planner, what_no_fast_path_takes_is_walked_element_by_element) {
    const machine_facts m = machine(2);
    // No contiguous source dim: one part, on the calling thread.
    const movement_program narrow =
        plan_movement(make_copy_plan({8, 8}, {16, 2}, 0, {8, 1}, 0), data_type::f32, m);
    ASSERT_EQ(narrow.path, fast_path::none);
    const auto &w = std::get<element_walk_program>(narrow.detail);
    ASSERT_EQ(w.parts.size(), 1u);
    EXPECT_EQ(w.parts[0].chunk, 0);
    EXPECT_NE(w.walk, nullptr);
    // Strings always walk; a large transpose of them goes tile by tile, in
    // chunks over tasks.
    const movement_program strings = plan_movement(nhwc_as_nchw(4, 70, 1000), data_type::string, m);
    ASSERT_EQ(strings.path, fast_path::none);
    const auto &sw = std::get<element_walk_program>(strings.detail);
    EXPECT_GT(sw.parts.size(), 1u); // whole tiles and the edge strips
    EXPECT_GT(sw.parts[0].chunk, 0);
    // A gather with no contiguous destination dim: one part in chunks of
    // whole rows.
    const movement_program gather =
        plan_movement(make_copy_plan({1024, 512}, {1024, 2}, 0, {1, 1024}, 0), data_type::f32, m);
    ASSERT_EQ(gather.path, fast_path::none);
    const auto &gw = std::get<element_walk_program>(gather.detail);
    ASSERT_FALSE(gw.parts.empty());
    EXPECT_GT(gw.parts[0].chunk, 0);
}

TEST(movement_planner, a_rank_22_permutation_of_twos_is_a_grouped_transpose_planned_once) {
    // Axes reversed, f32 (16 MiB): coalescing leaves 22 dims of 2, so a
    // tile of the two innermost dims would be 2 x 2 elements; the planner
    // makes the grouped transpose's plan, blocks of at least a line each.
    constexpr std::size_t rank = 22;
    dims_t dims(rank, 2), src(rank), dst(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        dst[i] = dim_t{1} << (rank - 1 - i);
        src[i] = dim_t{1} << i;
    }
    const copy_plan plan = make_copy_plan(dims, src, 0, dst, 0);
    const movement_program p = plan_movement(plan, data_type::f32, machine(2));
    ASSERT_EQ(p.path, fast_path::grouped_transpose);
    const auto &g = std::get<grouped_transpose_plan>(p.detail);
    EXPECT_EQ(g.element_bytes, 4u);
    EXPECT_GE(static_cast<std::size_t>(g.source_run) * 4, min_grouped_run_bytes);
    EXPECT_GE(static_cast<std::size_t>(g.destination_run) * 4, min_grouped_run_bytes);
    EXPECT_EQ(g.outer.volume * static_cast<std::size_t>(g.tile), std::size_t{1} << rank);
    EXPECT_TRUE(p.stream); // 16 MiB, past the machine's 4 MiB
    const std::string text = describe(p);
    EXPECT_NE(text.find("grouped transpose"), std::string::npos) << text;
    // Under 4 KiB (rank 9 of 2s, f32: 2 KiB) the element walk keeps it.
    dims_t d9(9, 2), s9(9), t9(9);
    for (std::size_t i = 0; i < 9; ++i) {
        t9[i] = dim_t{1} << (8 - i);
        s9[i] = dim_t{1} << i;
    }
    EXPECT_NE(plan_movement(make_copy_plan(d9, s9, 0, t9, 0), data_type::f32, machine(2)).path,
              fast_path::grouped_transpose);
}

TEST(movement_planner, the_program_in_words_names_path_tiles_and_threads) {
    const std::string transpose = describe(plan_movement(nhwc_as_nchw(16, 256, 4096), data_type::f32, machine(2)));
    EXPECT_NE(transpose.find("tiled transpose"), std::string::npos) << transpose;
    EXPECT_NE(transpose.find("16x16 tiles"), std::string::npos) << transpose;
    EXPECT_NE(transpose.find("strips of"), std::string::npos) << transpose;
    EXPECT_NE(transpose.find("over threads"), std::string::npos) << transpose;
    EXPECT_NE(transpose.find("streaming stores"), std::string::npos) << transpose;
    const std::string copy = describe(plan_movement(dense(1024), data_type::f32, machine(1)));
    EXPECT_NE(copy.find("run copy"), std::string::npos) << copy;
    EXPECT_NE(copy.find("one thread"), std::string::npos) << copy;
    EXPECT_NE(copy.find("ordinary stores"), std::string::npos) << copy;
}

TEST(movement_planner, undefined_and_unknown_element_sizes_are_refused) {
    EXPECT_THROW(plan_movement(dense(8), data_type::undef, machine(1)), error);
    EXPECT_THROW(plan_movement(dense(8), std::size_t{24}, machine(1)), error);
}

namespace reshaper::impl {
namespace {

// The tables' completeness, at run time: the sanitizer builds cannot check
// it at compile time (RESHAPER_ASSERT_COMPLETE_TABLE).
TEST(isa_kernels, every_level_s_table_is_complete) {
    EXPECT_TRUE(complete_table(scalar_kernels()));
#if defined(__x86_64__) // as kernels/CMakeLists.txt builds the x86 levels
    EXPECT_TRUE(complete_table(avx2_kernels()));
    for (kernel_tuning tuning : {kernel_tuning::amd, kernel_tuning::intel})
        EXPECT_TRUE(complete_table(avx512_kernels(tuning))) << to_string(tuning);
#endif
}

// The tuning the kernels follow: RESHAPER_KERNEL_TUNING where the test runs
// with it (tests/CMakeLists.txt runs the kernel tests with each), else the
// vendor /proc/cpuinfo names.
TEST(isa_kernels, kernel_tuning_follows_the_environment_else_the_cpu_vendor) {
    if (const char *asked = std::getenv("RESHAPER_KERNEL_TUNING"); asked && *asked) {
        EXPECT_EQ(to_string(active_kernel_tuning()), asked);
        return;
    }
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
        if (line.rfind("vendor_id", 0) == 0) {
            const bool intel = line.find("GenuineIntel") != std::string::npos;
            EXPECT_EQ(active_kernel_tuning(), intel ? kernel_tuning::intel : kernel_tuning::amd) << line;
            return;
        }
    GTEST_SKIP() << "no vendor_id in /proc/cpuinfo";
}

} // namespace
} // namespace reshaper::impl
