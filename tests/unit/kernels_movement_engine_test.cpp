// The fast paths of the movement engine (run copy, tiled transpose), at
// every SIMD level this CPU has, against a plain element-by-element copy:
// every element size, whole and partial tiles, misaligned buffers, sizes
// that split across threads and sizes that stream. Bytes the destination
// does not cover (gaps between strided elements, guards before and after)
// must come out untouched.
#include <gtest/gtest.h>

#include <thread>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/line_aligned.hpp"
#include "core/status.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/isa_kernels.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/strided_copy.hpp"
#include "element_copy_reference.hpp"
#include "isa_levels_support.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::levels_here;
using reshaper::impl::testing::element_copy_reference;

namespace {

// The program the kernel lowering would make for `plan` at `isa` (this
// machine's threads and streaming thresholds), run into `dst`.
void run_at(cpu_isa isa, const copy_plan &plan, std::size_t element_bits, const void *src, void *dst) {
    machine_facts machine = current_machine();
    machine.isa = isa;
    run_movement(plan_movement(plan, element_bits, machine), src, dst);
}

} // namespace

// The moves here stream as they did before the thresholds followed the
// last-level cache (a third and a sixth of it: several MiB): copies from
// 2 MiB, transposes from 1 MiB, which the cases are sized to cross so that
// test-sized moves reach the streamed paths;
// large_moves_kept_in_the_cache_* takes the others.
class movement_engine : public ::testing::Test {
protected:
    void SetUp() override { override_streaming_threshold_for_testing(std::size_t{2} << 20); }
    void TearDown() override { override_streaming_threshold_for_testing(std::nullopt); }
};

namespace {

// Strides of `dims` laid out in `order` (outermost first), each dim padded
// by pad[k] elements, so the layout may leave gaps.
dims_t strides_in_order(const dims_t &dims, const std::vector<std::size_t> &order, const dims_t &pad,
                        dim_t &extent) {
    dims_t strides(dims.size());
    dim_t stride = 1;
    for (std::size_t i = order.size(); i-- > 0;) {
        const std::size_t k = order[i];
        strides[k] = stride;
        stride *= dims[k] + pad[k];
    }
    extent = stride;
    return strides;
}

struct move_case {
    std::string name;
    dims_t dims;
    std::vector<std::size_t> src_order, dst_order;
    dims_t src_pad, dst_pad;
    dim_t src_offset = 0, dst_offset = 0;
    dim_t volume() const {
        dim_t v = 1;
        for (const dim_t d : dims) v *= d;
        return v;
    }
};

// Runs one case at one level for one element size and compares all bytes
// of the destination buffer (guards included) with the reference.
void check_case(const move_case &c, std::size_t e, cpu_isa isa, std::mt19937 &rng) {
    dim_t src_extent = 0, dst_extent = 0;
    const dims_t ss = strides_in_order(c.dims, c.src_order, c.src_pad, src_extent);
    const dims_t ds = strides_in_order(c.dims, c.dst_order, c.dst_pad, dst_extent);
    const std::size_t guard = 192;
    std::vector<std::uint8_t> src(static_cast<std::size_t>(src_extent + c.src_offset) * e + guard);
    std::vector<std::uint8_t> dst(static_cast<std::size_t>(dst_extent + c.dst_offset) * e + 2 * guard);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (auto &b : dst) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> expected = dst;
    // The destination starts `guard` bytes in, plus an odd shift for
    // misalignment when the offset asks for it.
    element_copy_reference(c.dims, e, src.data(), ss, c.src_offset, expected.data() + guard, ds, c.dst_offset);

    const copy_plan plan = make_copy_plan(c.dims, ss, c.src_offset, ds, c.dst_offset);
    const fast_path path = choose_fast_path(plan, e);
    ASSERT_NE(path, fast_path::none) << c.name;
    run_at(isa, plan, 8 * e, src.data(), dst.data() + guard);
    const auto mismatch = std::mismatch(dst.begin(), dst.end(), expected.begin());
    EXPECT_TRUE(mismatch.first == dst.end())
        << c.name << ", " << e << "-byte elements, " << to_string(isa) << ", " << to_string(path)
        << ": first wrong byte at " << (mismatch.first - dst.begin()) << " of " << dst.size();
}

// Every case of at most 4 KiB, at each element size, checked at `isa`.
void check_small_cases(const std::vector<move_case> &small, cpu_isa isa, std::mt19937 &rng) {
    for (std::size_t e : {1, 2, 4, 8, 16})
        for (const auto &c : small) {
            if (static_cast<std::size_t>(c.volume()) * e > 4096) continue;
            SCOPED_TRACE(c.name + " at " + std::string(to_string(isa)) + ", " + std::to_string(e) + "-byte elements");
            check_case(c, e, isa, rng);
        }
}

// The program `machine` plans for a case at `e`-byte elements.
movement_program program_of(const move_case &c, std::size_t e, const machine_facts &machine) {
    dim_t extent = 0;
    const dims_t ss = strides_in_order(c.dims, c.src_order, c.src_pad, extent);
    const dims_t ds = strides_in_order(c.dims, c.dst_order, c.dst_pad, extent);
    return plan_movement(make_copy_plan(c.dims, ss, c.src_offset, ds, c.dst_offset), 8 * e, machine);
}

std::vector<move_case> cases() {
    return {
        // 2-D transposes: whole tiles, partial tiles, below one tile.
        {"transpose_64x64", {64, 64}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"transpose_130x67", {130, 67}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"transpose_5x300", {5, 300}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"transpose_300x7", {300, 7}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        // Padded rows and misaligned starts on both sides.
        {"transpose_padded_offset", {97, 83}, {1, 0}, {0, 1}, {3, 5}, {1, 9}, 7, 3},
        // NHWC seen as NCHW into dense NCHW, and back.
        {"nhwc_to_nchw", {2, 24, 9, 11}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"nchw_to_nhwc", {2, 24, 9, 11}, {0, 1, 2, 3}, {0, 2, 3, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        // 7 x 7 planes (destination rows of 49 elements: partial tiles of
        // every width, their rows copied in overlapping pieces), channels
        // past a tile.
        {"nhwc_to_nchw_7x7", {3, 100, 7, 7}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        // A 3-D permutation whose middle dim is the destination's outermost.
        {"permute_201", {6, 40, 33}, {2, 0, 1}, {1, 0, 2}, {0, 0, 0}, {0, 0, 0}},
        // Large enough to split across threads and to stream (> 4 MiB at
        // 4-byte elements); destination rows a line apart and not.
        {"transpose_large", {1024, 1100}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"transpose_large_aligned", {1024, 1024}, {1, 0}, {0, 1}, {0, 0}, {0, 0}, 0, 16},
        // Wide tiles (several tiles side by side for small elements): wide
        // steps then single tiles then a partial one along the columns,
        // a partial last strip, padded rows, misaligned starts; streamed
        // (1-byte elements past 4 MiB); 8- and 16-byte elements (strips of
        // several tiles) streamed too (past 1 MiB).
        {"transpose_wide_70x600", {70, 600}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"transpose_wide_padded_offset", {131, 1030}, {1, 0}, {0, 1}, {2, 3}, {5, 7}, 3, 5},
        {"transpose_large_bytes", {2048, 2112}, {1, 0}, {0, 1}, {0, 0}, {0, 0}, 0, 0},
        {"transpose_large_bytes_odd", {2050, 2111}, {1, 0}, {0, 1}, {0, 0}, {0, 1}, 0, 64},
        {"transpose_large_wide_elements", {600, 610}, {1, 0}, {0, 1}, {0, 0}, {0, 2}, 0, 4},
        // Column blocks (tile_walk strip_tiles 0): more rows than one block
        // holds (a ragged last strip), ragged columns, streamed.
        {"nhwc_large_column_blocks", {2, 300, 37, 41}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        // Destination rows a page or more apart at every element size (the
        // far_rows walk), with ragged rows and columns.
        {"nhwc_far_rows", {1, 70, 65, 66}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        // NCHW into NHWC, streamed, source rows far apart (single tiles
        // where the level says so: tile_walk::far_source_row_bytes): 2112
        // bytes apart at 2-byte elements, 4224 at 4-byte ones; 2400 at
        // 4-byte elements; ragged channels and a partial last strip.
        {"nchw_large_far_source", {5, 200, 33, 32}, {0, 1, 2, 3}, {0, 2, 3, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"nchw_large_far_source_2k", {8, 200, 20, 30}, {0, 1, 2, 3}, {0, 2, 3, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        // The walks per reach (row_reach): streamed rows far apart and near
        // for the element sizes the cases above leave out (for one element
        // size each: "_e<bytes>"); the cases under the streaming
        // threshold take the in_cache walk.
        {"streamed_far_rows_e1", {1100, 4100}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"streamed_far_rows_e2", {600, 2100}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        {"streamed_near_rows_e8", {2000, 300}, {1, 0}, {0, 1}, {0, 0}, {0, 0}},
        // NHWC as NCHW in the caches with destination rows off a line
        // boundary (tile_walk::line_stores): source rows 256, 512 and 1024
        // bytes apart at 2-byte elements (the joins' tiles in groups of 4,
        // 2 and none: line_store_tiles), 2 bytes further (every tile at
        // once), a ragged last tile row, a destination a dword and an
        // element off its alignment.
        {"nhwc_in_lines_128_channels", {1, 128, 1000}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"nhwc_in_lines_256_channels", {1, 256, 998}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}, 0, 2},
        {"nhwc_in_lines_512_channels", {1, 512, 540}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"nhwc_in_lines_ragged", {1, 129, 1000}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}, 0, 1},
        // Columns narrower than a wide step in the caches, walked row tile
        // by row tile (7 x 7 and 14 x 14 NHWC as NCHW): ragged rows and
        // columns, a misaligned destination.
        {"nhwc_narrow_7x7", {1, 300, 49}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        // A channel shuffle of 4 x 6 channels of 7 x 7 planes ([N,g,C/g,HW]
        // -> [N,C/g,g,HW]): runs of 49 elements, 4 and 6 to a call, a
        // misaligned destination.
        {"shuffle_4x6_7x7_planes", {5, 4, 6, 49}, {0, 2, 1, 3}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}, 0, 3},
        {"nhwc_narrow_14x14_offset", {1, 130, 196}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}, 0, 3},
        // Columns under a tile, destination rows back to back (each row
        // stored whole, its tail overwritten by the next): rows under half
        // a line and over, ragged rows, a misaligned destination.
        {"nhwc_narrow_dense_13", {2, 100, 13}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"nhwc_narrow_dense_25_offset", {1, 70, 25}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}, 0, 3},
        // Half tiles (destination rows T/2 of the element size's tile side
        // T: nChw8c's 8 f32 channels, nChw16c's 16 bf16 ones) and other
        // short strips, ragged columns; streamed ones too.
        {"strip_4_rows", {3, 4, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"strip_8_rows", {3, 8, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"strip_16_rows", {3, 16, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"strip_32_rows", {3, 32, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"strip_large_8_rows", {40, 8, 4100}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"strip_large_16_rows", {40, 16, 4100}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        // Streamed destination rows off a line boundary (a pitch that is no
        // multiple of 64 bytes), so staged in the cache: rows back to back
        // and whole strips within the staging budget (14x14 as NCHW), with
        // padded rows from a misaligned start and ragged columns (strips
        // cut along the columns between threads), and rows a page apart.
        {"nhwc_large_staged_dense", {16, 256, 14, 14}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"transpose_large_staged_padded", {300, 1100}, {1, 0}, {0, 1}, {0, 0}, {0, 3}, 0, 5},
        {"nhwc_large_staged_far_rows", {2, 256, 41, 50}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        // Few destination rows from groups back to back (NHWC images of 2
        // to 7 channels as NCHW: split rows), with padded destination rows
        // and misaligned starts; large enough to split across threads; and
        // padded groups, which are tiled.
        {"split_2_rows", {3, 2, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"split_3_rows", {3, 3, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"split_7_rows_padded_offset", {3, 7, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 5}, 3, 7},
        {"split_large_3_rows", {5, 3, 100000}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"split_large_5_rows", {3, 5, 70001}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        // 6 rows: composed of 3 and 2 up to 8-byte elements, a kernel of its
        // own for 16-byte ones; past one chunk of the L1 buffer, padded and
        // misaligned.
        {"split_6_rows_padded_offset", {3, 6, 3001}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 5}, 3, 7},
        {"join_6_rows_padded_offset", {3, 3001, 6}, {0, 2, 1}, {0, 1, 2}, {0, 5, 0}, {0, 0, 0}, 7, 3},
        {"padded_groups_5_rows", {3, 5, 301}, {0, 2, 1}, {0, 1, 2}, {0, 1, 0}, {0, 0, 0}},
        // Row counts two kernels compose (composed_inner_rows), split and
        // joined, past one chunk of the L1 buffer, padded and misaligned.
        {"split_12_rows", {3, 12, 301}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"split_24_rows_padded_offset", {2, 24, 1500}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 3}, 5, 2},
        {"split_10_rows", {2, 10, 2001}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"split_large_12_rows", {3, 12, 30001}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"join_12_rows_padded_offset", {2, 1500, 12}, {0, 2, 1}, {0, 1, 2}, {0, 3, 0}, {0, 0, 0}, 2, 5},
        {"join_large_12_rows", {3, 30001, 12}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        // The inverse (NCHW images as NHWC: joined rows), from padded
        // source rows and misaligned starts; large enough for threads.
        {"join_2_rows", {3, 301, 2}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"join_3_rows", {3, 301, 3}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"join_7_rows_padded_offset", {3, 301, 7}, {0, 2, 1}, {0, 1, 2}, {0, 5, 0}, {0, 0, 0}, 7, 3},
        {"join_large_3_rows", {5, 100000, 3}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"join_large_6_rows", {3, 70001, 6}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"join_8_rows", {3, 301, 8}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"join_16_rows", {3, 301, 16}, {0, 2, 1}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        // Runs contiguous on both sides: one dense run, short runs, long
        // padded runs, a misaligned start.
        {"dense_copy", {3, 1000, 700}, {0, 1, 2}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        {"short_runs", {50, 40, 3}, {1, 0, 2}, {0, 1, 2}, {0, 0, 0}, {0, 0, 0}},
        // Runs copied inline (up to a KiB in the caches): whole vectors and
        // a last one overlapping, padded and misaligned (attention heads).
        {"short_runs_inline_padded_offset", {7, 9, 37}, {1, 0, 2}, {0, 1, 2}, {0, 0, 3}, {0, 0, 5}, 1, 3},
        {"short_runs_inline_heads", {1, 16, 8, 64}, {0, 1, 2, 3}, {0, 2, 1, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"padded_runs", {40, 3000}, {0, 1}, {0, 1}, {0, 17}, {0, 5}, 1, 3},
    };
}

TEST_F(movement_engine, every_level_and_element_size_matches_the_element_copy) {
    std::mt19937 rng(11);
    for (cpu_isa isa : levels_here())
        for (std::size_t e : {1, 2, 4, 8, 16})
            for (const auto &c : cases()) {
                // Keep the largest cases to the sizes that matter for them.
                const bool large = c.name.find("large") != std::string::npos || c.name == "dense_copy";
                if (const auto at = c.name.find("_e"); c.name.rfind("streamed_", 0) == 0 && at != std::string::npos) {
                    if (std::to_string(e) != c.name.substr(at + 2)) continue;
                } else if (c.name.find("large_bytes") != std::string::npos) {
                    if (e != 1) continue;
                } else if (c.name.find("large_wide_elements") != std::string::npos) {
                    if (e < 8) continue;
                } else if (large && e != 4 && e != 2) {
                    continue;
                }
                check_case(c, e, isa, rng);
            }
}

// Random shapes and permutations, small enough to run many.
// The large cases with ordinary stores (never streamed): split across
// threads, the cached walks, at every level.
TEST_F(movement_engine, large_moves_kept_in_the_cache_match_the_element_copy) {
    override_streaming_threshold_for_testing(std::numeric_limits<std::size_t>::max());
    std::mt19937 rng(12);
    for (cpu_isa isa : levels_here())
        for (const auto &c : cases()) {
            if (c.name.find("large") == std::string::npos && c.name != "dense_copy") continue;
            for (std::size_t e : {1, 4})
                if ((e == 1) == (c.name.find("large_bytes") != std::string::npos) || c.name == "transpose_large")
                    check_case(c, e, isa, rng);
        }
}

// Every case with ordinary stores and the last-level walk (prefetches of
// the next step's source and destination lines: row_reach in_last_level),
// which moves of test sizes take only with its threshold lowered.
TEST_F(movement_engine, moves_walked_from_the_last_level_cache_match_the_element_copy) {
    override_streaming_threshold_for_testing(std::numeric_limits<std::size_t>::max());
    override_last_level_walk_threshold_for_testing(1);
    std::mt19937 rng(13);
    for (cpu_isa isa : levels_here())
        for (const auto &c : cases()) {
            const bool large = c.name.find("large") != std::string::npos || c.name == "dense_copy";
            for (std::size_t e : {1, 2, 4, 8, 16})
                if (!large || e == 2) check_case(c, e, isa, rng);
        }
    override_last_level_walk_threshold_for_testing(std::nullopt);
}

// The core's own cache is the level below the last that sysfs lists (L2
// here), and transposes walk from the last-level cache from 8 times it.
TEST(last_level_walk_threshold, follows_the_core_cache_of_this_machine) {
    EXPECT_GE(core_cache_bytes(), std::size_t{64} << 10);
    EXPECT_LT(core_cache_bytes(), last_level_cache_bytes() + 1);
    std::ifstream level("/sys/devices/system/cpu/cpu0/cache/index2/level"),
        size("/sys/devices/system/cpu/cpu0/cache/index2/size");
    int l = 0;
    std::size_t kib = 0;
    char unit = 0;
    if (level >> l && l == 2 && size >> kib >> unit && unit == 'K' && last_level_cache_bytes() > (kib << 10)) {
        EXPECT_EQ(core_cache_bytes(), kib << 10);
    }
    EXPECT_EQ(last_level_walk_threshold_bytes(), 8 * core_cache_bytes());
    override_last_level_walk_threshold_for_testing(std::size_t{5} << 20);
    EXPECT_EQ(last_level_walk_threshold_bytes(), std::size_t{5} << 20);
    override_last_level_walk_threshold_for_testing(std::nullopt);
    EXPECT_EQ(last_level_walk_threshold_bytes(), 8 * core_cache_bytes());
}

// The thresholds are a third (copies) and a sixth (transposes) of the
// last-level cache read from the machine: here, the highest level sysfs
// lists for cpu0 where it lists one.
TEST(streaming_threshold, follows_the_last_level_cache_of_this_machine) {
    EXPECT_EQ(streaming_threshold_bytes(), last_level_cache_bytes() / 3);
    EXPECT_EQ(transpose_streaming_threshold_bytes(), last_level_cache_bytes() / 3 / 2);
    EXPECT_GE(last_level_cache_bytes(), std::size_t{256} << 10);
    std::ifstream level("/sys/devices/system/cpu/cpu0/cache/index3/level"),
        size("/sys/devices/system/cpu/cpu0/cache/index3/size");
    int l = 0;
    std::size_t kib = 0;
    char unit = 0;
    if (level >> l && l == 3 && size >> kib >> unit && unit == 'K') {
        EXPECT_LE(last_level_cache_bytes(), kib << 10);
        EXPECT_EQ(listed_last_level_cache_bytes(), kib << 10); // whole, as listed
    }
    // The share counted is at most the cache listed, and is it where the
    // listing names no more than max_cache_bytes_per_cpu a CPU.
    EXPECT_LE(last_level_cache_bytes(), listed_last_level_cache_bytes());
    EXPECT_GE(last_level_cache_bytes(), std::min(listed_last_level_cache_bytes(), max_cache_bytes_per_cpu));
    override_streaming_threshold_for_testing(std::size_t{3} << 20);
    EXPECT_EQ(streaming_threshold_bytes(), std::size_t{3} << 20);
    EXPECT_EQ(transpose_streaming_threshold_bytes(), std::size_t{3} << 19);
    override_streaming_threshold_for_testing(std::nullopt);
    EXPECT_EQ(streaming_threshold_bytes(), last_level_cache_bytes() / 3);
}

// A guest's few CPUs listed as sharing its host's whole cache count on
// their share of it; real caches are taken as listed.
TEST(streaming_threshold, a_cache_listed_for_few_cpus_counts_as_their_share) {
    constexpr std::size_t mib = std::size_t{1} << 20;
    EXPECT_EQ(cache_share_bytes(480 * mib, 2), 2 * max_cache_bytes_per_cpu); // an Intel Xeon VM's 2 CPUs
    EXPECT_EQ(cache_share_bytes(32 * mib, 2), 32 * mib);                     // the Zen 3 EPYC VM's CCX
    EXPECT_EQ(cache_share_bytes(32 * mib, 16), 32 * mib);                    // a CCX's 8 cores, 16 threads
    EXPECT_EQ(cache_share_bytes(1024 * mib, 1), max_cache_bytes_per_cpu);
    EXPECT_EQ(max_cache_bytes_per_cpu, 128 * mib);
    EXPECT_EQ(cache_share_bytes(480 * mib, 0), 480 * mib); // sharing not listed: as listed
}

// What the thresholds come to on the machines the kernels were measured on
// and the ones they are judged on, from the facts sysfs lists for cpu0
// there (docs/performance.md, the bullet on the cache counted).
TEST(streaming_threshold, thresholds_from_the_cache_facts_of_known_machines) {
    constexpr std::size_t kib = std::size_t{1} << 10, mib = std::size_t{1} << 20;
    struct known {
        const char *machine;
        cache_facts facts;
        std::size_t counted;
    };
    const known machines[] = {
        // A Zen 3 EPYC (7003): 32 MiB per CCX of 8 cores, 16 CPUs with SMT.
        {"Zen 3 EPYC", {32 * mib, 16, 512 * kib}, 32 * mib},
        // This session's Zen 3 VM: the same 32 MiB listed for its 2 CPUs
        // (cpuid 0x8000001D says 2 share it too).
        {"Zen 3 EPYC VM", {32 * mib, 2, 512 * kib}, 32 * mib},
        // A Zen 4 EPYC (9004, AVX-512): 32 MiB per CCD of 8 cores, L2 1 MiB.
        {"Zen 4 EPYC", {32 * mib, 16, 1024 * kib}, 32 * mib},
        // The Intel Xeon VM: its host's 480 MiB listed for 2 CPUs.
        {"Intel Xeon VM", {480 * mib, 2, 2048 * kib}, 2 * max_cache_bytes_per_cpu},
        // Sharing not listed (sysconf's figure): as listed.
        {"sysconf only", {256 * mib, 0, 512 * kib}, 256 * mib},
    };
    for (const known &m : machines) {
        SCOPED_TRACE(m.machine);
        const cache_thresholds t = thresholds_for(m.facts);
        EXPECT_EQ(t.last_level_bytes, m.counted);
        EXPECT_EQ(t.copy_streaming_bytes, m.counted / 3);
        EXPECT_EQ(t.transpose_streaming_bytes, m.counted / 6);
        EXPECT_EQ(t.last_level_walk_bytes, 8 * m.facts.core_bytes);
    }
    // The Zen 3 and 4 EPYCs: copies stream from 10.7 MiB of output,
    // transposes from 5.3 MiB, where a move plus the next op's read measured
    // faster streamed on the Zen 3 VM (transposes from 6-8 MiB, copies from
    // 8-12); the Intel VM: 85 and 42 MiB (its transposes from 32-64 MiB).
    EXPECT_EQ(thresholds_for({32 * mib, 16, 512 * kib}).copy_streaming_bytes, 11184810u);
    EXPECT_EQ(thresholds_for({32 * mib, 16, 512 * kib}).transpose_streaming_bytes, 5592405u);
    EXPECT_EQ(thresholds_for({480 * mib, 2, 2048 * kib}).transpose_streaming_bytes, 44739242u);
    // This machine's thresholds are those of its own facts.
    const cache_thresholds here = thresholds_for(machine_cache_facts());
    EXPECT_EQ(last_level_cache_bytes(), here.last_level_bytes);
    EXPECT_EQ(streaming_threshold_bytes(), here.copy_streaming_bytes);
    EXPECT_EQ(transpose_streaming_threshold_bytes(), here.transpose_streaming_bytes);
    EXPECT_EQ(last_level_walk_threshold_bytes(), here.last_level_walk_bytes);
}

TEST_F(movement_engine, random_permutations_match_the_element_copy) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 200; ++trial) {
        move_case c;
        const std::size_t rank = 2 + rng() % 3;
        for (std::size_t k = 0; k < rank; ++k) {
            c.dims.push_back(1 + static_cast<dim_t>(rng() % 40));
            c.src_pad.push_back(rng() % 4 == 0 ? static_cast<dim_t>(rng() % 3) : 0);
            c.dst_pad.push_back(rng() % 4 == 0 ? static_cast<dim_t>(rng() % 3) : 0);
            c.src_order.push_back(k);
            c.dst_order.push_back(k);
        }
        std::shuffle(c.src_order.begin(), c.src_order.end(), rng);
        std::shuffle(c.dst_order.begin(), c.dst_order.end(), rng);
        c.src_offset = static_cast<dim_t>(rng() % 5);
        c.dst_offset = static_cast<dim_t>(rng() % 5);
        c.name = "random " + std::to_string(trial);
        dim_t unused = 0;
        const copy_plan plan = make_copy_plan(c.dims, strides_in_order(c.dims, c.src_order, c.src_pad, unused),
                                              0, strides_in_order(c.dims, c.dst_order, c.dst_pad, unused), 0);
        const std::size_t e = std::size_t{1} << (rng() % 5);
        if (choose_fast_path(plan, e) == fast_path::none) continue;
        for (cpu_isa isa : levels_here()) check_case(c, e, isa, rng);
    }
}

// Every level's whole-tile transpose against the scalar one: each source
// byte lands where the scalar level puts it, for every element size.
TEST_F(movement_engine, tile_kernels_agree_with_the_scalar_level) {
    std::mt19937 rng(3);
    std::vector<std::uint8_t> src(64 * 100), want(64 * 64), got(64 * 64);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (cpu_isa isa : levels_here())
        for (std::size_t log2e = 0; log2e < element_size_classes; ++log2e) {
            scalar_kernels().tile[log2e](src.data(), 100, want.data(), 64, false);
            kernels_for(isa).tile[log2e](src.data(), 100, got.data(), 64, false);
            EXPECT_EQ(got, want) << to_string(isa) << " " << (1 << log2e) << "-byte elements";
            // The scalar tile is a transpose: row c, element r = source row r, element c.
            const int e = 1 << log2e, t = 64 / e;
            for (int r = 0; r < t; ++r)
                for (int c = 0; c < t; ++c)
                    ASSERT_EQ(0, std::memcmp(want.data() + c * 64 + r * e, src.data() + r * 100 + c * e, e));
        }
}

// Every level's partial-tile kernel (where it has one) at every element
// size and every count of source and destination rows up to a tile:
// destination rows back to back (the tile's columns whole rows, where the
// AVX2 kernel stores rows whole, each overwriting the tail of the one
// before, straight into the destination) and further apart, streamed
// whole rows too. Each element lands where the transpose puts it; no byte
// between or past the destination rows is written, and the source is read
// from a buffer that ends with its last element.
TEST_F(movement_engine, partial_tile_kernels_match_the_transpose) {
    std::mt19937 rng(27);
    for (cpu_isa isa : levels_here())
        for (std::size_t log2e = 0; log2e < element_size_classes; ++log2e) {
            const auto kernel = kernels_for(isa).tile_partial[log2e];
            if (kernel == nullptr) continue;
            const int e = 1 << log2e, t = 64 / e;
            for (int src_rows = 1; src_rows <= t; ++src_rows)
                for (int dst_rows = 1; dst_rows <= t; ++dst_rows)
                    for (const int gap : {0, 3, 64}) {
                        if (src_rows == t && dst_rows == t) continue; // a whole tile
                        const std::ptrdiff_t src_pitch = dst_rows * e + 5, dst_pitch = src_rows * e + gap * e;
                        std::vector<std::uint8_t> src(static_cast<std::size_t>((src_rows - 1) * src_pitch + dst_rows * e));
                        for (auto &b : src) b = static_cast<std::uint8_t>(rng());
                        const std::size_t used = static_cast<std::size_t>(dst_rows * dst_pitch) + 128;
                        for (const bool stream : {false, true}) {
                            if (stream && (src_rows != t || gap == 3)) continue;
                            line_aligned_bytes out(used + 64, 0xA5);
                            std::uint8_t *got = out.data();
                            kernel(src.data(), src_pitch, got, dst_pitch, src_rows, dst_rows, stream);
                            if (stream) store_fence();
                            for (int c = 0; c < dst_rows; ++c)
                                for (int r = 0; r < src_rows; ++r)
                                    ASSERT_EQ(0, std::memcmp(got + c * dst_pitch + r * e,
                                                             src.data() + r * src_pitch + c * e, static_cast<std::size_t>(e)))
                                        << to_string(isa) << " " << e << "-byte elements, " << src_rows << " x "
                                        << dst_rows << ", gap " << gap << ": row " << c << ", element " << r;
                            for (std::size_t b = 0; b < used + 64; ++b) {
                                const auto row = static_cast<std::ptrdiff_t>(b) / dst_pitch;
                                const auto at = static_cast<std::ptrdiff_t>(b) % dst_pitch;
                                if (row < dst_rows && at < src_rows * e) continue;
                                ASSERT_EQ(got[b], 0xA5) << to_string(isa) << " " << e << "-byte elements, " << src_rows
                                                        << " x " << dst_rows << ", gap " << gap << ": byte " << b;
                            }
                        }
                    }
        }
}

// Transposes of at most 4 KiB with sides of 2 or 3, many small dims or odd
// sizes, some padded and misaligned, match the element copy at every level
// and element size, guards untouched; a bf16 [2,16,32] reversal (a side of
// 2, 16 outer positions) and an s8 rank-5 permutation of 4s take the tiny
// transpose at every level, in one tile each (the reversal's written in
// place: whole, its destination rows at one pitch).
TEST_F(movement_engine, tiny_transposes_match_the_element_copy) {
    std::mt19937 rng(28);
    const std::vector<move_case> tiny = {
        {"reverse_2x16x32", {2, 16, 32}, {0, 1, 2}, {2, 1, 0}, {0, 0, 0}, {0, 0, 0}},
        {"rotate_2x16x32", {2, 16, 32}, {0, 1, 2}, {1, 2, 0}, {0, 0, 0}, {0, 0, 0}},
        {"swap_8x16x2", {8, 16, 2}, {0, 1, 2}, {0, 2, 1}, {0, 0, 0}, {0, 0, 0}},
        {"reverse_3x32x8", {3, 32, 8}, {0, 1, 2}, {2, 1, 0}, {0, 0, 0}, {0, 0, 0}},
        {"rotate_3x5x7", {3, 5, 7}, {0, 1, 2}, {1, 2, 0}, {0, 0, 0}, {0, 0, 0}},
        {"rank5_4s", {4, 4, 4, 4, 4}, {0, 1, 2, 3, 4}, {3, 2, 4, 1, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}},
        {"rank5_2s", {2, 2, 2, 2, 2}, {0, 1, 2, 3, 4}, {1, 3, 2, 4, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}},
        {"odd_4x3x5x7", {4, 3, 5, 7}, {0, 1, 2, 3}, {3, 1, 0, 2}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"nhwc_to_nchw_16", {1, 16, 16, 16}, {0, 2, 3, 1}, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"transpose_7x7", {7, 7}, {0, 1}, {1, 0}, {0, 0}, {0, 0}},
        {"reverse_2x16x32_padded_offset", {2, 16, 32}, {0, 1, 2}, {2, 1, 0}, {0, 0, 3}, {1, 0, 0}, 5, 3},
        {"rank5_4s_padded_offset", {4, 4, 4, 4, 4}, {0, 1, 2, 3, 4}, {3, 2, 4, 1, 0}, {0, 1, 0, 0, 0}, {0, 0, 0, 1, 0}, 1, 7},
    };
    for (cpu_isa isa : levels_here()) {
        machine_facts machine = current_machine();
        machine.isa = isa;
        check_small_cases(tiny, isa, rng);
        for (const auto &[c, e, tiles] : {std::tuple{std::size_t{0}, std::size_t{2}, std::size_t{1}},
                                           std::tuple{std::size_t{5}, std::size_t{1}, std::size_t{1}}}) {
            const movement_program p = program_of(tiny[c], e, machine);
            const auto *t = std::get_if<tiny_transpose_program>(&p.detail);
            ASSERT_NE(t, nullptr) << tiny[c].name << " at " << to_string(isa) << ": " << describe(p);
            EXPECT_EQ(t->tiles.size(), tiles) << tiny[c].name << " at " << to_string(isa);
            // The reversal's one whole tile writes its destination rows (64
            // bytes apart) in place; the rank-5 tile, a quarter full, goes
            // through the buffer both ways.
            EXPECT_EQ(t->tiles[0].dst_pitch, c == 0 ? 64 : 0) << tiny[c].name;
            EXPECT_EQ(t->tiles[0].src_pitch, 0) << tiny[c].name;
        }
    }
}

// Small transposes whose tiles would stand mostly empty take the tiny
// gather at every level and match the element copy bit for bit: sides of 1
// to 17, many outer positions (s8 [13,16,11] reversed: 16 partial tiles),
// destination rows back to back (s8 [2,5,12] (0,2,1), a blocked format's
// inner block), s8 moves past the tiny transpose's 4 tiles, padded strides
// and offsets on either side; guards untouched. A whole tile keeps the
// tiles (f32 [16,16]).
TEST_F(movement_engine, tiny_gathers_match_the_element_copy) {
    std::mt19937 rng(29);
    const std::vector<move_case> sparse = {
        {"reverse_13x16x11", {13, 16, 11}, {0, 1, 2}, {2, 1, 0}, {0, 0, 0}, {0, 0, 0}},
        {"blocked_2x5x12", {2, 5, 12}, {0, 1, 2}, {0, 2, 1}, {0, 0, 0}, {0, 0, 0}},
        {"swap_8x16x2", {8, 16, 2}, {0, 1, 2}, {0, 2, 1}, {0, 0, 0}, {0, 0, 0}},
        {"rank6_odd", {2, 3, 2, 3, 2, 3}, {0, 1, 2, 3, 4, 5}, {1, 4, 2, 0, 5, 3}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
        {"rank4_s8_past_4_tiles", {13, 3, 7, 8}, {0, 1, 2, 3}, {3, 0, 2, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"side_of_1_and_17", {1, 17, 3}, {0, 1, 2}, {2, 1, 0}, {0, 0, 0}, {0, 0, 0}},
        {"reverse_padded_offset", {5, 6, 7}, {0, 1, 2}, {2, 1, 0}, {0, 3, 1}, {1, 0, 2}, 5, 3},
    };
    for (cpu_isa isa : levels_here()) {
        machine_facts machine = current_machine();
        machine.isa = isa;
        check_small_cases(sparse, isa, rng);
        for (const std::size_t c : {0, 1, 4, 6}) {
            const movement_program p = program_of(sparse[c], 1, machine);
            const auto *g = std::get_if<tiny_gather_program>(&p.detail);
            ASSERT_NE(g, nullptr) << sparse[c].name << " at " << to_string(isa) << ": " << describe(p);
            EXPECT_EQ(g->src_offsets.size(), static_cast<std::size_t>(sparse[c].volume())) << sparse[c].name;
            EXPECT_EQ(p.path, fast_path::transpose) << sparse[c].name;
        }
        // A dense destination is one run; a padded one, several.
        EXPECT_EQ(std::get<tiny_gather_program>(program_of(sparse[0], 1, machine).detail).runs.size(), 1U);
        EXPECT_GT(std::get<tiny_gather_program>(program_of(sparse[6], 1, machine).detail).runs.size(), 1U);
        const move_case whole{"whole_16x16", {16, 16}, {0, 1}, {1, 0}, {0, 0}, {0, 0}};
        EXPECT_FALSE(std::holds_alternative<tiny_gather_program>(program_of(whole, 4, machine).detail)) << to_string(isa);
    }
}

// Small moves whose runs (contiguous on both sides) are shorter than a
// vector gather whole runs: entries of 1 to 31 bytes, powers of two and
// not (two overlapping copies), padded strides and offsets; bit-exact at
// every level, guards untouched. Runs of a vector or more keep the run copy.
TEST_F(movement_engine, tiny_gathers_of_short_runs_match_the_element_copy) {
    std::mt19937 rng(30);
    const std::vector<move_case> runs = {
        {"runs_of_5", {6, 7, 5}, {0, 1, 2}, {1, 0, 2}, {0, 0, 0}, {0, 0, 0}},
        {"runs_of_3", {4, 3, 2, 3}, {0, 1, 2, 3}, {2, 0, 1, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"runs_of_7_padded", {5, 4, 7}, {0, 1, 2}, {1, 0, 2}, {1, 0, 2}, {0, 3, 1}, 3, 5},
        {"runs_of_2", {3, 5, 2, 2}, {0, 1, 2, 3}, {2, 1, 0, 3}, {0, 0, 0, 0}, {0, 0, 0, 0}},
    };
    for (cpu_isa isa : levels_here()) {
        machine_facts machine = current_machine();
        machine.isa = isa;
        for (std::size_t e : {1, 2, 4, 8, 16})
            for (const auto &c : runs) {
                SCOPED_TRACE(c.name + " at " + std::string(to_string(isa)) + ", " + std::to_string(e) + "-byte elements");
                check_case(c, e, isa, rng);
                const movement_program p = program_of(c, e, machine);
                const auto run_bytes = static_cast<std::size_t>(c.dims.back()) * e;
                const auto *g = std::get_if<tiny_gather_program>(&p.detail);
                EXPECT_EQ(g != nullptr, run_bytes < 32) << describe(p);
                if (g) {
                    EXPECT_EQ(static_cast<std::size_t>(g->entry_bytes), run_bytes) << describe(p);
                }
                EXPECT_EQ(p.path, fast_path::run_copy) << describe(p);
            }
    }
}

// A one-unit transpose of whole tiles in the caches (the 4 KiB [32,32] f32
// execute) is planned as one whole_tiles call where the level has the
// kernel, and matches the element copy bit for bit: every element size,
// tile counts 1-3 by 1-3, odd row paddings and offsets on either side
// (unaligned destination rows), guards untouched. Wide steps, a blocked
// format's inner block and shapes off whole tiles keep the strip.
TEST_F(movement_engine, whole_small_transposes_match_the_element_copy) {
    std::mt19937 rng(27);
    for (cpu_isa isa : levels_here()) {
        machine_facts machine = current_machine();
        machine.isa = isa;
        for (std::size_t log2e = 0; log2e < element_size_classes; ++log2e) {
            const std::size_t e = std::size_t{1} << log2e;
            const dim_t t = static_cast<dim_t>(64 / e);
            for (dim_t row_tiles : {1, 2, 3})
                for (dim_t col_tiles : {1, 2, 3})
                    for (int padded = 0; padded < 2; ++padded) {
                        const move_case c{"whole_tiles", {col_tiles * t, row_tiles * t}, {0, 1}, {1, 0},
                                          {0, padded * 3}, {padded * 5, 0}, padded * 7, padded * 3};
                        SCOPED_TRACE(std::string(to_string(isa)) + " e" + std::to_string(e) + " " + std::to_string(row_tiles) +
                                     "x" + std::to_string(col_tiles) + (padded ? " padded" : ""));
                        check_case(c, e, isa, rng);
                        const movement_program p = program_of(c, e, machine);
                        const auto *tp = std::get_if<transpose_program>(&p.detail);
                        ASSERT_NE(tp, nullptr);
                        // Destination rows of one tile back to back (unpadded, one
                        // column tile) are a blocked format's inner block: its block
                        // rows where the level has them for that width.
                        const bool wide_step = tp->wide && col_tiles >= tp->walk.wide;
                        const bool block_rows = col_tiles == 1 && !padded && tp->block_rows;
                        // Else, at 4 KiB or less of 4-byte elements, 8 x 8 blocks
                        // where the level has them (whole_blocks_4).
                        const bool tiles = kernels_for(isa).whole_tiles[log2e] != nullptr && !wide_step && !block_rows;
                        const bool blocks = e == 4 && kernels_for(isa).whole_blocks_4 != nullptr &&
                                            row_tiles * col_tiles * t * t * 4 <= 4096;
                        EXPECT_EQ(tp->whole != nullptr, tiles || blocks);
                        if (tiles)
                            EXPECT_EQ(tp->whole, kernels_for(isa).whole_tiles[log2e]);
                        else if (blocks)
                            EXPECT_EQ(tp->whole, kernels_for(isa).whole_blocks_4);
                    }
            // Off whole tiles: the strip, partial tiles and all.
            const move_case odd{"odd_tiles", {2 * t + 1, t + 3}, {0, 1}, {1, 0}, {0, 1}, {0, 0}, 1, 0};
            check_case(odd, e, isa, rng);
            const movement_program p = program_of(odd, e, machine);
            if (const auto *tp = std::get_if<transpose_program>(&p.detail)) {
                EXPECT_EQ(tp->whole, nullptr);
            }
        }
    }
}

// 4-byte transposes of at most 4 KiB whose sides are multiples of 8 but
// not all of the tile ([128,8], [24,40], [8,8]), or that took wide tiles
// or block rows ([64,16], [16,64]), are planned as one whole_blocks_4 call
// where the level has it (else whole tiles where those take the move), and
// match the element copy bit for bit: padded rows and odd offsets on
// either side (unaligned rows), guards untouched. Source rows a multiple of
// 2 KiB apart, and more than 4 KiB, keep the other ways.
TEST_F(movement_engine, whole_8x8_blocks_match_the_element_copy) {
    std::mt19937 rng(8);
    for (cpu_isa isa : levels_here()) {
        machine_facts machine = current_machine();
        machine.isa = isa;
        const whole_tiles_fn blocks = kernels_for(isa).whole_blocks_4;
        for (dim_t rows : {8, 16, 24, 40, 64, 128})
            for (dim_t cols : {8, 16, 24, 32, 56, 128})
                for (int padded = 0; padded < 2; ++padded) {
                    if (rows * cols * 4 > 4096) continue;
                    // Source rows of `rows` elements (dim 1), destination rows of `cols`.
                    const move_case c{"blocks", {cols, rows}, {0, 1}, {1, 0}, {0, padded * 3}, {padded * 5, 0},
                                      padded * 7, padded * 3};
                    SCOPED_TRACE(std::string(to_string(isa)) + " " + std::to_string(rows) + " x " + std::to_string(cols) +
                                 (padded ? " padded" : ""));
                    check_case(c, 4, isa, rng);
                    if (!blocks) continue;
                    const movement_program p = program_of(c, 4, machine);
                    const auto *tp = std::get_if<transpose_program>(&p.detail);
                    ASSERT_NE(tp, nullptr) << describe(p);
                    EXPECT_TRUE(tp->whole == blocks || tp->whole == kernels_for(isa).whole_tiles[2]) << describe(p);
                    if (rows % 16 != 0 || cols % 16 != 0) EXPECT_EQ(tp->whole, blocks) << describe(p);
                }
        // Source rows 2 KiB apart; 8 KiB.
        for (const move_case &c : {move_case{"far_rows", {8, 8}, {0, 1}, {1, 0}, {0, 504}, {0, 0}},
                                   move_case{"8_KiB", {16, 128}, {0, 1}, {1, 0}, {0, 0}, {0, 0}}}) {
            SCOPED_TRACE(c.name + " at " + std::string(to_string(isa)));
            check_case(c, 4, isa, rng);
            const movement_program p = program_of(c, 4, machine);
            const auto *tp = std::get_if<transpose_program>(&p.detail);
            EXPECT_TRUE(tp == nullptr || tp->whole != blocks || !blocks) << describe(p);
        }
    }
}

// w tiles of e-byte elements side by side, transposed into `got` (filled
// with 0xA5 first, `used` bytes): destination row c, element r = source
// row r, element c, for every one of the w * 64 / e source rows, and no
// byte of the destination rows' gaps or past the last row written.
::testing::AssertionResult tiles_transposed(const std::uint8_t *got, std::ptrdiff_t dst_pitch, const std::uint8_t *src,
                                            std::ptrdiff_t src_pitch, int e, int w, std::size_t used) {
    const int t = 64 / e;
    const auto where = [&] {
        return ::testing::AssertionFailure() << e << "-byte elements, " << w << " tiles, source rows " << src_pitch
                                             << " bytes apart, destination rows " << dst_pitch << ": ";
    };
    for (int c = 0; c < t; ++c) {
        for (int r = 0; r < w * t; ++r)
            if (std::memcmp(got + c * dst_pitch + r * e, src + r * src_pitch + c * e, e) != 0)
                return where() << "row " << c << " element " << r << " differs";
        for (std::ptrdiff_t g = w * 64; g < dst_pitch; ++g)
            if (got[c * dst_pitch + g] != 0xA5) return where() << "gap byte " << g << " of row " << c << " written";
    }
    for (std::size_t g = static_cast<std::size_t>(t * dst_pitch); g < used; ++g)
        if (got[g] != 0xA5) return where() << "byte " << g << " past the tile written";
    return ::testing::AssertionSuccess();
}

// The wide tiles (walk[.][.].wide tiles side by side) at every level and
// reach, plain and streamed: destination row c, element r = source row r, element c,
// for every one of the w * t source rows, and no byte of the destination
// rows' gaps or past them written. Destination rows lines apart, off a
// line (unaligned stores), 1, 2 and 4 KiB apart (the tiles' ordinary
// stores take another order at multiples of 2 and 4 KiB: AVX2's line
// buffers, AVX-512's groups of 4 tiles a quarter at a time; elsewhere
// AVX-512 stores each tile's lines as made; AVX2's in-cache 4- and 8-byte
// wide tiles load whole rows (transpose_block_permuted_into), column
// halves outermost at 2 KiB multiples, each source row's whole lines in
// turn elsewhere).
TEST_F(movement_engine, wide_tiles_transpose_at_every_level) {
    std::mt19937 rng(13);
    constexpr std::ptrdiff_t src_pitch = 100, max_dst_pitch = 4096;
    std::vector<std::uint8_t> src(src_pitch * 64 * max_wide_tiles + 64);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    alignas(64) static std::uint8_t got[64 * max_dst_pitch + 64];
    for (const std::ptrdiff_t dst_pitch :
         {std::ptrdiff_t{(max_wide_tiles + 1) * 64}, std::ptrdiff_t{max_wide_tiles * 64 + 40}, std::ptrdiff_t{1024},
          std::ptrdiff_t{2048}, max_dst_pitch})
    for (cpu_isa isa : levels_here())
        for (int reach = 0; reach < row_reaches; ++reach)
        for (std::size_t log2e = 0; log2e < element_size_classes; ++log2e)
            for (bool stream : {false, true}) {
                if (stream && dst_pitch % 64 != 0) continue; // streaming stores take aligned rows only
                const int e = 1 << log2e, t = 64 / e, w = kernels_for(isa).walk[reach][log2e].wide;
                ASSERT_TRUE(w >= 1 && w <= max_wide_tiles);
                const std::size_t used = static_cast<std::size_t>(t * dst_pitch + 64);
                std::memset(got, 0xA5, used);
                kernels_for(isa).wide_tile[reach][log2e](src.data(), src_pitch, got, dst_pitch, stream, nullptr);
                if (stream) store_fence();
                ASSERT_TRUE(tiles_transposed(got, dst_pitch, src.data(), src_pitch, e, w, used))
                    << to_string(isa) << (stream ? ", streamed" : "");
            }
}

// Source rows 1, 2 and 4 KiB apart put a tile's lines in a few of L1's
// sets; the two-lane (AVX2) in-cache tiles then copy each tile's source
// into an L1 buffer first (staged_source_lines_per_set). The wide and the
// single tiles at every level and reach with ordinary stores, rows 3 KiB
// and 3 KiB + 100 bytes apart (not staged) beside them, destination rows
// near and 4 KiB apart: every element in place, no gap byte written.
TEST_F(movement_engine, tiles_with_source_rows_in_few_l1_sets_transpose_at_every_level) {
    std::mt19937 rng(17);
    constexpr std::ptrdiff_t max_src_pitch = 4096, max_dst_pitch = 4096;
    std::vector<std::uint8_t> src(max_src_pitch * 64 * max_wide_tiles + 128);
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    alignas(64) static std::uint8_t got[64 * max_dst_pitch + 64];
    for (const std::ptrdiff_t src_pitch : {std::ptrdiff_t{1024}, std::ptrdiff_t{2048}, std::ptrdiff_t{3072},
                                           std::ptrdiff_t{3172}, max_src_pitch})
        for (const std::ptrdiff_t dst_pitch : {std::ptrdiff_t{(max_wide_tiles + 1) * 64}, max_dst_pitch})
            for (cpu_isa isa : levels_here())
                for (int reach = 0; reach < row_reaches; ++reach)
                    for (std::size_t log2e = 0; log2e < element_size_classes; ++log2e)
                        for (bool single : {false, true}) {
                            const int e = 1 << log2e, t = 64 / e;
                            const int w = single ? 1 : kernels_for(isa).walk[reach][log2e].wide;
                            if (single && reach > 0) continue; // one kernel for every reach
                            const std::size_t used = static_cast<std::size_t>(t * dst_pitch + 64);
                            std::memset(got, 0xA5, used);
                            if (single)
                                kernels_for(isa).tile[log2e](src.data(), src_pitch, got, dst_pitch, false);
                            else
                                kernels_for(isa).wide_tile[reach][log2e](src.data(), src_pitch, got, dst_pitch, false,
                                                                         nullptr);
                            ASSERT_TRUE(tiles_transposed(got, dst_pitch, src.data(), src_pitch, e, w, used))
                                << to_string(isa);
                        }
}

// NCHW as NHWC with planes of 1, 2 and 4 KiB (source rows that many bytes
// apart: the staged in-cache tiles), whole and with partial edge tiles,
// at every level and element size, against the element copy.
TEST_F(movement_engine, transposes_with_source_rows_in_few_l1_sets_match_the_element_copy) {
    std::mt19937 rng(18);
    for (cpu_isa isa : levels_here())
        for (std::size_t e : {1, 2, 4, 8})
            for (const dim_t plane_bytes : {1024, 2048, 4096})
                for (const dim_t channels : {64, 96, 200}) {
                    const dim_t hw = plane_bytes / static_cast<dim_t>(e);
                    const move_case c{"nchw_as_nhwc_" + std::to_string(channels) + "x" + std::to_string(hw),
                                      {channels, hw}, {0, 1}, {1, 0}, {0, 0}, {0, 0}};
                    SCOPED_TRACE(c.name);
                    check_case(c, e, isa, rng);
                }
}

// NHWC as NCHW in the caches with destination rows (planes) of 4 and 8 KiB
// (the in-cache wide tiles' orders for rows a multiple of 4 KiB apart:
// AVX2's 4-byte quads), whole and cut short (channels past a tile, an odd
// element offset on either side), at every level and element size,
// against the element copy.
TEST_F(movement_engine, transposes_into_rows_4k_apart_match_the_element_copy) {
    std::mt19937 rng(19);
    for (cpu_isa isa : levels_here())
        for (std::size_t e : {1, 2, 4, 8})
            for (const dim_t plane_bytes : {4096, 8192})
                for (const dim_t channels : {64, 80})
                    for (const dim_t offset : {0, 3}) {
                        const dim_t hw = plane_bytes / static_cast<dim_t>(e);
                        const move_case c{"nhwc_as_nchw_" + std::to_string(channels) + "x" + std::to_string(hw) +
                                                  "+" + std::to_string(offset),
                                          {channels, hw}, {1, 0}, {0, 1}, {0, 0}, {0, 0}, offset, offset};
                        SCOPED_TRACE(c.name);
                        check_case(c, e, isa, rng);
                    }
}

// NHWC as NCHW in the caches into destination rows 4 and 12 KiB apart that
// the positions do not fill (a padded destination): wide steps whose lines
// go out through the L1 buffer a row of 4 tiles at a time (AVX2's 1-byte
// tiles, transpose_lane_lines_across), then the step cut short, single
// tiles and a partial tile; channels past a whole tile and an odd element
// offset on either side. Every level and element size, against the
// element copy (the gap bytes between rows stay as they were).
TEST_F(movement_engine, transposes_into_padded_rows_4k_apart_match_the_element_copy) {
    std::mt19937 rng(23);
    for (cpu_isa isa : levels_here())
        for (std::size_t e : {1, 2, 4})
            for (const dim_t pitch_bytes : {4096, 12288})
                for (const dim_t channels : {64, 72})
                    for (const dim_t offset : {0, 5}) {
                        const dim_t pitch = pitch_bytes / static_cast<dim_t>(e);
                        const dim_t hw = pitch - 200 / static_cast<dim_t>(e);
                        const move_case c{"nhwc_as_nchw_" + std::to_string(channels) + "x" + std::to_string(hw) +
                                                  "_pitch_" + std::to_string(pitch) + "+" + std::to_string(offset),
                                          {channels, hw}, {1, 0}, {0, 1}, {0, 0}, {0, pitch - hw}, offset, offset};
                        SCOPED_TRACE(c.name);
                        check_case(c, e, isa, rng);
                    }
}

// The wide tiles of walks that prefetch the next step issue at least their
// call's share of its lines (line_prefetch::per_call) at every level, reach
// and size, streamed, however they spread them (a register block's share
// at once or a share per source row: tile_walk::prefetch_by_row).
TEST_F(movement_engine, wide_tiles_issue_their_share_of_the_next_step) {
    constexpr std::ptrdiff_t src_pitch = 256, dst_pitch = 4096, row_lines = 4, rows = 1000;
    std::vector<std::uint8_t> src(src_pitch * 64 * max_wide_tiles);
    alignas(64) static std::uint8_t got[64 * dst_pitch];
    for (cpu_isa isa : levels_here())
        for (int reach = 0; reach < row_reaches; ++reach)
            for (std::size_t log2e = 0; log2e < element_size_classes; ++log2e) {
                const tile_walk &walk = kernels_for(isa).walk[reach][log2e];
                if (!walk.prefetch_ahead) continue;
                for (const int per_call : {1, 24, 200}) {
                    line_prefetch ahead{reinterpret_cast<std::uintptr_t>(src.data()), src_pitch, row_lines, rows, 0,
                                        per_call};
                    kernels_for(isa).wide_tile[reach][log2e](src.data(), src_pitch, got, dst_pitch, true, &ahead);
                    store_fence();
                    const std::ptrdiff_t issued = (rows - ahead.rows_left) * row_lines + ahead.line;
                    EXPECT_GE(issued, per_call) << to_string(isa) << " reach " << reach << ", " << (1 << log2e)
                                                << "-byte elements";
                }
            }
}

// Plain NCHW into nChw<b>c, as [n, C/b, hw, b] (the source's contiguous dim
// is hw, the destination's b): per image and channel block, b source rows
// into hw destination rows of b elements back to back. Every element size
// at every level, with rows of 16, 32 and 64 bytes (the block kernels and
// whole tiles) and others (partial tiles); hw not a multiple of a strip, of
// b, or of a tile, so every leftover path runs; sizes that split across
// threads and stream, with the destination on a line boundary and off it
// (then not streamed: the block kernels stream only aligned runs). The
// buffers are line-aligned, so `shift` (bytes) sets the alignment.
void check_blocked_producer(dim_t n, dim_t c, dim_t hw, dim_t b, std::size_t e, std::size_t shift, cpu_isa isa,
                            std::mt19937 &rng) {
    const dim_t cb = c / b;
    const dims_t dims{n, cb, hw, b}, ss{c * hw, b * hw, 1, hw}, ds{c * hw, hw * b, b, 1};
    const std::size_t bytes = static_cast<std::size_t>(n * c * hw) * e, guard = 128;
    line_aligned_bytes src(bytes), dst(bytes + 2 * guard + shift);
    for (auto &x : src) x = static_cast<std::uint8_t>(rng());
    for (auto &x : dst) x = static_cast<std::uint8_t>(rng());
    line_aligned_bytes expected = dst;
    element_copy_reference(dims, e, src.data(), ss, 0, expected.data() + guard + shift, ds, 0);
    const copy_plan plan = make_copy_plan(dims, ss, 0, ds, 0);
    // Small blocks along long rows are joined rows (which ones:
    // fast_path_choice_follows_the_layout), the rest tiled.
    const fast_path path = choose_fast_path(plan, e);
    ASSERT_TRUE(path == fast_path::transpose || path == fast_path::join_rows)
        << to_string(path) << ", blocks of " << b << ", " << e << "-byte elements";
    run_at(isa, plan, 8 * e, src.data(), dst.data() + guard + shift);
    const auto mismatch = std::mismatch(dst.begin(), dst.end(), expected.begin());
    EXPECT_TRUE(mismatch.first == dst.end())
        << "[" << n << "," << c << "," << hw << "] nChw" << b << "c, " << e << "-byte elements, shift " << shift
        << ", " << to_string(isa) << ": first wrong byte at " << (mismatch.first - dst.begin()) << " of "
        << dst.size();
}

TEST_F(movement_engine, blocked_producer_layouts_match_the_element_copy) {
    std::mt19937 rng(17);
    for (cpu_isa isa : levels_here())
        for (std::size_t e : {1, 2, 4, 8, 16})
            for (dim_t b : {4, 8, 16, 32}) {
                if (b * static_cast<dim_t>(e) > 128) continue;
                // Small (one strip, whole and partial tiles), a few strips
                // with every leftover, misaligned by an element.
                check_blocked_producer(1, b, 37, b, e, 0, isa, rng);
                check_blocked_producer(2, 3 * b, 2500, b, e, 0, isa, rng);
                check_blocked_producer(2, 2 * b, 1031, b, e, e, isa, rng);
            }
    // Large enough to split across threads and to stream (past 1 MiB of
    // destination), aligned (streamed) and off a line by 16 and 32 bytes.
    for (cpu_isa isa : levels_here())
        for (std::size_t e : {1, 2, 4})
            for (dim_t b : {8, 16})
                for (std::size_t shift : {0, 16, 32}) {
                    // Past 4 MiB for 1-byte elements, 1 MiB for the others
                    // (where they streamed before; the fixture: from 1 MiB).
                    const dim_t bytes = e == 1 ? dim_t{9} << 19 : dim_t{3} << 19;
                    check_blocked_producer(2, 4 * b, bytes / (8 * b * static_cast<dim_t>(e)) + 3, b, e, shift, isa, rng);
                }
}

TEST_F(movement_engine, fast_path_choice_follows_the_layout) {
    auto path = [](const dims_t &dims, const dims_t &ss, const dims_t &ds, std::size_t e) {
        return choose_fast_path(make_copy_plan(dims, ss, 0, ds, 0), e);
    };
    EXPECT_EQ(path({8, 8}, {8, 1}, {8, 1}, 4), fast_path::run_copy);
    EXPECT_EQ(path({8, 8}, {1, 8}, {8, 1}, 4), fast_path::transpose);
    // At most 4 KiB, sides of 2 or 3 take partial tiles.
    EXPECT_EQ(path({8, 3}, {1, 8}, {3, 1}, 4), fast_path::transpose);
    EXPECT_EQ(path({32, 16, 2}, {1, 32, 512}, {32, 2, 1}, 2), fast_path::transpose);
    // Runs of a vector or more, many to a call (s8 attention heads of 32
    // bytes split, channel shuffles of 7 x 7 planes, 4 x 6 too): the run copy. Dims
    // of 2 keep the grouped transpose.
    EXPECT_EQ(path({3, 256, 32}, {32, 96, 1}, {8192, 32, 1}, 1), fast_path::run_copy);
    EXPECT_EQ(path({56, 8, 3, 49}, {1176, 49, 392, 1}, {1176, 147, 49, 1}, 1), fast_path::run_copy);
    EXPECT_EQ(path({111, 6, 4, 49}, {1176, 49, 294, 1}, {1176, 196, 49, 1}, 1), fast_path::run_copy);
    {
        dims_t dims(12, 2), src(12, 1), dst(12, 1);
        dims[11] = 32; // 11 dims of 2 reversed, a run of 32 bytes kept in place
        for (std::size_t i = 0; i < 11; ++i) {
            src[i] = dim_t{32} << i;
            dst[i] = dim_t{32} << (10 - i);
        }
        EXPECT_EQ(choose_fast_path(make_copy_plan(dims, src, 0, dst, 0), 1), fast_path::grouped_transpose);
    }
    // Few destination rows from groups back to back: split, not tiled.
    EXPECT_EQ(path({3, 64}, {1, 3}, {64, 1}, 4), fast_path::split_rows);
    EXPECT_EQ(path({7, 64}, {1, 7}, {64, 1}, 8), fast_path::split_rows);
    EXPECT_EQ(path({8, 64}, {1, 8}, {64, 1}, 4), fast_path::transpose); // a half tile of f32
    EXPECT_EQ(path({3, 512}, {1, 4}, {512, 1}, 4), fast_path::none);     // groups with gaps
    EXPECT_EQ(path({5, 64}, {1, 6}, {64, 1}, 4), fast_path::transpose);
    EXPECT_EQ(path({5, 64}, {1, 5}, {64, 1}, 16), fast_path::split_rows);
    EXPECT_EQ(path({4, 16}, {1, 4}, {16, 1}, 4), fast_path::transpose); // short rows keep tiles
    // 8 and 16 rows where a group is under half a tile row (32 bytes).
    EXPECT_EQ(path({8, 64}, {1, 8}, {64, 1}, 1), fast_path::split_rows);
    EXPECT_EQ(path({16, 64}, {1, 16}, {64, 1}, 1), fast_path::split_rows);
    EXPECT_EQ(path({16, 64}, {1, 16}, {64, 1}, 2), fast_path::transpose);
    EXPECT_EQ(path({64, 8}, {1, 64}, {8, 1}, 1), fast_path::join_rows);
    // Row counts two kernels compose (12 = 3 x 4, 24 = 3 x 8, 10 = 5 x 2),
    // up to groups of 48 bytes, joins up to 16 rows; others keep the tiles.
    EXPECT_EQ(path({12, 64}, {1, 12}, {64, 1}, 1), fast_path::split_rows);
    EXPECT_EQ(path({12, 64}, {1, 12}, {64, 1}, 4), fast_path::split_rows);
    EXPECT_EQ(path({24, 64}, {1, 24}, {64, 1}, 2), fast_path::split_rows);
    EXPECT_EQ(path({10, 64}, {1, 10}, {64, 1}, 1), fast_path::split_rows);
    EXPECT_EQ(path({24, 64}, {1, 24}, {64, 1}, 4), fast_path::transpose);
    EXPECT_EQ(path({9, 64}, {1, 9}, {64, 1}, 1), fast_path::transpose);
    EXPECT_EQ(path({64, 12}, {1, 64}, {12, 1}, 1), fast_path::join_rows);
    EXPECT_EQ(path({64, 24}, {1, 64}, {24, 1}, 1), fast_path::transpose);
    EXPECT_EQ(composed_inner_rows(12, 1), 4);
    EXPECT_EQ(composed_inner_rows(24, 1), 8);
    EXPECT_EQ(composed_inner_rows(24, 2), 8);
    EXPECT_EQ(composed_inner_rows(24, 4), 0);
    EXPECT_EQ(composed_inner_rows(6, 8), 2); // 3 x 2: the compiler leaves 6 an element at a time
    EXPECT_EQ(composed_inner_rows(6, 16), 0); // a kernel of its own (two make 32 bytes)
    EXPECT_EQ(composed_inner_rows(5, 1), 0);
    EXPECT_EQ(composed_inner_rows(24, 1, true), 0);
    // Few source rows into groups back to back: joined, but for groups the
    // block rows write (16, 32 or 64 bytes).
    EXPECT_EQ(path({64, 3}, {1, 64}, {3, 1}, 4), fast_path::join_rows);
    EXPECT_EQ(path({64, 6}, {1, 70}, {6, 1}, 2), fast_path::join_rows);
    EXPECT_EQ(path({64, 4}, {1, 64}, {4, 1}, 4), fast_path::transpose);
    EXPECT_EQ(path({64, 5}, {1, 64}, {6, 1}, 4), fast_path::transpose); // groups with gaps
    EXPECT_EQ(path({8, 8}, {0, 1}, {8, 1}, 4), fast_path::run_copy); // broadcast rows
    EXPECT_EQ(path({8, 8}, {8, 0}, {8, 1}, 4), fast_path::none);  // broadcast elements: a gather
    EXPECT_EQ(path({8, 8}, {16, 2}, {8, 1}, 4), fast_path::none); // no contiguous source dim
    EXPECT_EQ(path({8, 8}, {1, 8}, {1, 8}, 4), fast_path::run_copy); // same order: coalesced
    EXPECT_EQ(path({8, 8}, {1, 8}, {8, 1}, 3), fast_path::none);  // no 3-byte kernel
}

TEST_F(movement_engine, copy_bytes_copies_any_length_and_alignment) {
    std::mt19937 rng(8);
    for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                              std::size_t{1000}, std::size_t{5} << 20}) {
        for (std::size_t shift : {0, 1, 37}) {
            std::vector<std::uint8_t> src(bytes + 64), dst(bytes + 128, 0xEE);
            for (auto &b : src) b = static_cast<std::uint8_t>(rng());
            copy_bytes(dst.data() + shift, src.data() + 3, bytes);
            EXPECT_EQ(0, std::memcmp(dst.data() + shift, src.data() + 3, bytes)) << bytes << " " << shift;
            EXPECT_TRUE(std::all_of(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(shift),
                                    [](std::uint8_t b) { return b == 0xEE; }));
            EXPECT_TRUE(std::all_of(dst.begin() + static_cast<std::ptrdiff_t>(shift + bytes), dst.end(),
                                    [](std::uint8_t b) { return b == 0xEE; }));
        }
    }
}

TEST(cpu_isa, levels_parse_and_cap) {
    EXPECT_EQ(parse_cpu_isa("AVX2"), cpu_isa::avx2);
    EXPECT_EQ(parse_cpu_isa("avx512_core"), cpu_isa::avx512);
    EXPECT_EQ(parse_cpu_isa("default"), cpu_isa::scalar);
    EXPECT_EQ(parse_cpu_isa("sse9"), std::nullopt);
    EXPECT_LE(active_cpu_isa(), detected_cpu_isa());
    EXPECT_EQ(kernels_for(active_cpu_isa()).isa, active_cpu_isa());
}

} // namespace

namespace {

// Packed elements as the contract lays them out, written out here apart
// from the library's load_packed: element e of `bits` bits is bits
// [(e % (8 / bits)) * bits, ... + bits) of byte e / (8 / bits).
std::uint8_t get_packed(const std::vector<std::uint8_t> &b, std::size_t bits, dim_t e) {
    const dim_t per_byte = 8 / static_cast<dim_t>(bits);
    const unsigned shift = static_cast<unsigned>(e % per_byte) * static_cast<unsigned>(bits);
    return static_cast<std::uint8_t>((b[static_cast<std::size_t>(e / per_byte)] >> shift) & ((1u << bits) - 1));
}
void set_packed(std::vector<std::uint8_t> &b, std::size_t bits, dim_t e, std::uint8_t v) {
    const dim_t per_byte = 8 / static_cast<dim_t>(bits);
    const unsigned shift = static_cast<unsigned>(e % per_byte) * static_cast<unsigned>(bits);
    const unsigned mask = ((1u << bits) - 1) << shift;
    auto &byte = b[static_cast<std::size_t>(e / per_byte)];
    byte = static_cast<std::uint8_t>((byte & ~mask) | ((static_cast<unsigned>(v) << shift) & mask));
}

// A 3-D packed move: source [outer, cols, rows] read as [outer, rows, cols]
// (the source's contiguous dim is the destination's rows: a transpose), or,
// with `same_order`, both tensors row-major [outer, rows, cols] (runs).
// Rows are padded by src_pad / dst_pad elements. With `line_aligned` the
// destination (before its offset) starts on a line boundary, as the
// driver's buffers do (the streamed nibble split needs aligned rows).
struct packed_case {
    dim_t outer, rows, cols;
    dim_t src_pad, dst_pad, src_offset, dst_offset;
    bool same_order = false;
    bool line_aligned = false;
};

std::string describe(const packed_case &c) {
    return std::to_string(c.outer) + "x" + std::to_string(c.rows) + "x" + std::to_string(c.cols) + " pads " +
           std::to_string(c.src_pad) + "/" + std::to_string(c.dst_pad) + " offsets " +
           std::to_string(c.src_offset) + "/" + std::to_string(c.dst_offset) + (c.same_order ? " runs" : " transpose");
}

// Moves one case at one level (through its fast path if it has one, else
// through strided_copy's element walk) and compares every byte of the
// destination buffer, guard bytes before and after included, with an
// element-by-element copy. Returns the path taken.
fast_path check_packed_case(const packed_case &c, std::size_t bits, cpu_isa isa, std::mt19937 &rng) {
    const dims_t dims{c.outer, c.rows, c.cols};
    const dims_t ss = c.same_order ? dims_t{c.rows * (c.cols + c.src_pad), c.cols + c.src_pad, 1}
                                   : dims_t{c.cols * (c.rows + c.src_pad), 1, c.rows + c.src_pad};
    const dims_t ds{c.rows * (c.cols + c.dst_pad), c.cols + c.dst_pad, 1};
    const dim_t per_byte = 8 / static_cast<dim_t>(bits), guard = 64;
    std::vector<std::uint8_t> src(static_cast<std::size_t>((c.outer * ss[0] + c.src_offset) / per_byte + guard));
    std::vector<std::uint8_t> dst(static_cast<std::size_t>((c.outer * ds[0] + c.dst_offset) / per_byte + 3 * guard));
    for (auto &b : src) b = static_cast<std::uint8_t>(rng());
    for (auto &b : dst) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> expected = dst;
    // The destination buffer starts `start` bytes in: `guard`, and up to the
    // next line boundary where the case asks for one.
    const auto misalign = static_cast<dim_t>(reinterpret_cast<std::uintptr_t>(dst.data() + guard) % 64);
    const dim_t start = guard + (c.line_aligned ? (64 - misalign) % 64 : 0);
    const dim_t dst_start = start * per_byte + c.dst_offset;
    for (dim_t o = 0; o < c.outer; ++o)
        for (dim_t r = 0; r < c.rows; ++r)
            for (dim_t k = 0; k < c.cols; ++k)
                set_packed(expected, bits, dst_start + o * ds[0] + r * ds[1] + k * ds[2],
                           get_packed(src, bits, c.src_offset + o * ss[0] + r * ss[1] + k * ss[2]));

    const data_type type = bits == 2 ? data_type::u2 : data_type::u4;
    const copy_plan plan = make_copy_plan(dims, ss, c.src_offset, ds, c.dst_offset);
    const fast_path path = choose_packed_fast_path(plan, bits);
    EXPECT_EQ(path, strided_copy_path(type, dims, ss, ds) == fast_path::none ? fast_path::none : path)
        << describe(c); // the offsets only ever take a fast path away
    if (path != fast_path::none)
        run_at(isa, plan, bits, src.data(), dst.data() + start);
    else
        strided_copy(type, dims, strided_tensor{src.data(), c.src_offset, ss},
                     strided_tensor{dst.data() + start, c.dst_offset, ds});
    const auto mismatch = std::mismatch(dst.begin(), dst.end(), expected.begin());
    EXPECT_TRUE(mismatch.first == dst.end())
        << bits << "-bit " << describe(c) << ", " << to_string(isa) << ", " << to_string(path)
        << ": first wrong byte at " << (mismatch.first - dst.begin()) << " of " << dst.size();
    return path;
}

// Packed 4- and 2-bit moves at every SIMD level: the packed transpose where
// rows start on bytes and hold whole bytes, the whole-byte run copy where
// runs do, the element walk elsewhere (odd sizes, offsets inside a byte).
TEST_F(movement_engine, packed_moves_match_the_element_copy_at_every_level) {
    std::mt19937 rng(21);
    const std::vector<packed_case> cases{
        // Transposes: whole tiles (a 2-bit strip is 256 rows), partial
        // tiles, padded rows, aligned offsets, below one tile.
        {1, 256, 64, 0, 0, 0, 0},  {1, 128, 64, 0, 0, 0, 0}, {3, 260, 72, 4, 8, 4, 8},
        {2, 512, 200, 0, 0, 0, 0}, {1, 8, 300, 0, 0, 0, 4},  {2, 12, 12, 0, 0, 0, 0},
        {2, 6, 300, 2, 0, 2, 2},
        // Large enough to split across threads; and to stream (past 4 MiB
        // of 4-bit elements), with destination rows on line boundaries
        // and not.
        {4, 512, 1032, 0, 0, 0, 0},
        {1, 2048, 4352, 0, 0, 0, 0},
        {1, 2048, 4360, 0, 6, 0, 2},
        // Streamed into line-aligned rows (the nibble split streams
        // straight into them where a level has that split): rows a whole
        // number of lines apart, then half a line, then a last step whose
        // row parts are no multiple of 32 bytes (the L1 pair buffer).
        {1, 2048, 4352, 0, 0, 0, 0, false, true},
        {1, 2048, 4352, 0, 64, 0, 0, false, true},
        {1, 2048, 4392, 0, 0, 0, 0, false, true},
        // Destination rows an odd number of half lines apart (AVX2's whole
        // step split takes them, AVX-512's not), and a last strip of one
        // 64-byte part per source row (its steps prefetched).
        {1, 2048, 4416, 0, 0, 0, 0, false, true},
        {1, 2176, 4352, 0, 0, 0, 0, false, true},
        // Rows that do not hold whole bytes, offsets inside a byte: the walk.
        {2, 40, 9, 0, 0, 0, 0},    {1, 33, 64, 0, 0, 0, 0},  {1, 64, 64, 0, 0, 1, 0},
        {1, 64, 64, 0, 0, 0, 3},   {1, 64, 64, 0, 0, 2, 2},  {3, 17, 31, 1, 3, 3, 1},
        // Runs: dense, padded, aligned offsets (whole bytes); mid-byte
        // starts in the same and in different places of their bytes.
        {3, 1000, 700, 0, 0, 0, 0, true}, {1, 40, 3000, 12, 4, 8, 4, true},
        {2, 30, 64, 0, 0, 1, 1, true},    {2, 30, 64, 0, 0, 1, 2, true},
        {2, 31, 63, 1, 0, 3, 3, true},    {1, 7, 5, 0, 3, 2, 1, true},
    };
    for (std::size_t bits : {std::size_t{4}, std::size_t{2}}) {
        int transposes = 0, runs = 0, walks = 0;
        for (cpu_isa isa : levels_here())
            for (const packed_case &c : cases) {
                const fast_path path = check_packed_case(c, bits, isa, rng);
                transposes += path == fast_path::packed_transpose;
                runs += path == fast_path::run_copy;
                walks += path == fast_path::none;
            }
        const int levels = static_cast<int>(levels_here().size());
        // Each kind of move was exercised at each level (counts per level).
        EXPECT_GE(transposes / levels, bits == 4 ? 9 : 7) << bits;
        EXPECT_GE(runs / levels, 2) << bits;
        EXPECT_GE(walks / levels, 8) << bits;
    }
}

// The streamed nibble split (split_nibbles_streamed) bit for bit as the
// plain one, at every level that has it, for every pair count it takes up
// to a tile step's, into aligned rows with every byte around them kept.
TEST_F(movement_engine, streamed_nibble_split_matches_the_plain_one) {
    std::mt19937 rng(27);
    constexpr std::size_t most = tile_bytes * max_wide_tiles / 2, guard = 64;
    std::vector<std::uint8_t> pairs(2 * most);
    for (auto &b : pairs) b = static_cast<std::uint8_t>(rng());
    int levels_with_it = 0;
    for (cpu_isa isa : levels_here()) {
        const isa_kernels &k = kernels_for(isa);
        if (!k.split_nibbles_streamed) continue;
        ++levels_with_it;
        for (std::size_t count = split_streamed_pairs; count <= most; count += split_streamed_pairs) {
            line_aligned_bytes got(2 * (count + 2 * guard)), want(got.size());
            for (auto &b : got) b = static_cast<std::uint8_t>(rng());
            want = got;
            std::uint8_t *low = got.data() + guard, *high = got.data() + count + 3 * guard;
            k.split_nibbles_streamed(pairs.data(), count, low, high);
            store_fence();
            k.split_nibbles(pairs.data(), count, want.data() + guard, want.data() + count + 3 * guard);
            ASSERT_TRUE(got == want) << to_string(isa) << ", " << count << " pairs";
        }
    }
    const auto levels = levels_here();
    if (std::find(levels.begin(), levels.end(), cpu_isa::avx2) != levels.end()) {
        EXPECT_GE(levels_with_it, 1);
    }
}

// Every pair of bytes (a, b) split as the definition says, low = (a & 0x0F)
// | (b << 4) and high = (a >> 4) | (b & 0xF0), by the plain split and the
// streamed one (whose multiply-add of masked nibbles would go wrong on
// any pair a sign or a saturation reached) at every level that has them.
TEST_F(movement_engine, nibble_splits_match_the_definition_for_every_byte_pair) {
    constexpr std::size_t count = 256 * 256;
    std::vector<std::uint8_t> pairs(2 * count);
    for (std::size_t j = 0; j < count; ++j) {
        pairs[2 * j] = static_cast<std::uint8_t>(j);
        pairs[2 * j + 1] = static_cast<std::uint8_t>(j >> 8);
    }
    std::vector<std::uint8_t> want_low(count), want_high(count);
    for (std::size_t j = 0; j < count; ++j) {
        const unsigned a = pairs[2 * j], b = pairs[2 * j + 1];
        want_low[j] = static_cast<std::uint8_t>((a & 0x0F) | (b << 4));
        want_high[j] = static_cast<std::uint8_t>((a >> 4) | (b & 0xF0));
    }
    for (cpu_isa isa : levels_here()) {
        const isa_kernels &k = kernels_for(isa);
        for (const split_nibbles_fn split : {k.split_nibbles, k.split_nibbles_streamed}) {
            if (!split) continue;
            line_aligned_bytes low(count), high(count);
            split(pairs.data(), count, low.data(), high.data());
            store_fence();
            EXPECT_TRUE(std::equal(want_low.begin(), want_low.end(), low.begin())) << to_string(isa);
            EXPECT_TRUE(std::equal(want_high.begin(), want_high.end(), high.begin())) << to_string(isa);
        }
    }
}

// A streamed step's byte tiles transposed and split at once
// (byte_tiles_split_streamed: split in registers, or nibbles regrouped
// first) bit for bit as the level's packed tile followed by the plain
// split, at every level that has it: source rows off line boundaries,
// destination rows on lines with a line between them, every gap byte kept.
TEST_F(movement_engine, byte_tiles_split_in_registers_match_tile_then_split) {
    std::mt19937 rng(28);
    int levels_with_it = 0;
    for (cpu_isa isa : levels_here()) {
        const isa_kernels &k = kernels_for(isa);
        if (!k.byte_tiles_split_streamed) continue;
        ++levels_with_it;
        // One 64-byte part of each source row, then two (the whole rows of
        // a strip of 256 elements) in one call.
        for (int parts = 1; parts <= 2; ++parts) {
            const std::ptrdiff_t w = k.packed_wide, src_pitch = 200, row_bytes = 32 * w, dst_pitch = row_bytes + 64;
            std::vector<std::uint8_t> src(static_cast<std::size_t>(64 * w * src_pitch + 8));
            for (auto &b : src) b = static_cast<std::uint8_t>(rng());
            const std::uint8_t *from = src.data() + 3; // rows off line boundaries
            line_aligned_bytes got(static_cast<std::size_t>(128 * parts * dst_pitch + 128)), want;
            for (auto &b : got) b = static_cast<std::uint8_t>(rng());
            want = got;
            line_aligned_bytes scratch(byte_tiles_split_scratch_bytes);
            k.byte_tiles_split_streamed(from, src_pitch, got.data() + 64, dst_pitch, parts, nullptr, scratch.data());
            store_fence();
            line_aligned_bytes bytes(static_cast<std::size_t>(64 * 64 * w));
            for (int part = 0; part < parts; ++part) {
                k.packed_tile(from + 64 * part, src_pitch, bytes.data(), 64 * w, false, nullptr);
                for (std::ptrdiff_t c = 0; c < 64; ++c) {
                    std::uint8_t *low = want.data() + 64 + 2 * (64 * part + c) * dst_pitch;
                    k.split_nibbles(bytes.data() + c * 64 * w, static_cast<std::size_t>(row_bytes), low,
                                    low + dst_pitch);
                }
            }
            const auto mismatch = std::mismatch(got.begin(), got.end(), want.begin());
            EXPECT_TRUE(mismatch.first == got.end()) << to_string(isa) << ", " << parts << " parts: first wrong byte at "
                                                     << (mismatch.first - got.begin()) << " of " << got.size();
        }
    }
    const auto levels = levels_here();
    if (std::find(levels.begin(), levels.end(), cpu_isa::avx2) != levels.end()) {
        EXPECT_GE(levels_with_it, 1);
    }
}

// Random shapes, orders, pads and offsets of 2-bit tensors through
// strided_copy (any path), against the element copy.
TEST_F(movement_engine, random_2bit_moves_match_the_element_copy) {
    std::mt19937 rng(4);
    for (int trial = 0; trial < 300; ++trial) {
        packed_case c{1 + static_cast<dim_t>(rng() % 3), 1 + static_cast<dim_t>(rng() % 70),
                      1 + static_cast<dim_t>(rng() % 70), static_cast<dim_t>(rng() % 5), static_cast<dim_t>(rng() % 5),
                      static_cast<dim_t>(rng() % 8), static_cast<dim_t>(rng() % 8), rng() % 2 == 0};
        if (rng() % 2 == 0) { // half of them aligned, so that fast paths are hit too
            c.rows = (c.rows + 3) / 4 * 4;
            c.cols = (c.cols + 3) / 4 * 4;
            c.src_pad = c.src_pad / 4 * 4;
            c.dst_pad = c.dst_pad / 4 * 4;
            c.src_offset = c.src_offset / 4 * 4;
            c.dst_offset = c.dst_offset / 4 * 4;
        }
        check_packed_case(c, 2, active_cpu_isa(), rng);
    }
}

TEST_F(movement_engine, packed_fast_path_choice_follows_the_layout) {
    auto path = [](const dims_t &dims, const dims_t &ss, dim_t so, const dims_t &ds, dim_t dof, std::size_t bits) {
        return choose_packed_fast_path(make_copy_plan(dims, ss, so, ds, dof), bits);
    };
    EXPECT_EQ(path({8, 8}, {8, 1}, 0, {8, 1}, 0, 2), fast_path::run_copy);
    EXPECT_EQ(path({8, 8}, {8, 1}, 4, {8, 1}, 0, 2), fast_path::run_copy);
    EXPECT_EQ(path({8, 8}, {8, 1}, 2, {8, 1}, 0, 2), fast_path::none);   // mid-byte source start
    EXPECT_EQ(path({8, 8}, {8, 1}, 2, {8, 1}, 0, 4), fast_path::run_copy); // a whole byte of nibbles
    EXPECT_EQ(path({8, 6}, {8, 1}, 0, {6, 1}, 0, 2), fast_path::none);   // rows of 1.5 bytes
    EXPECT_EQ(path({8, 8}, {1, 8}, 0, {8, 1}, 0, 2), fast_path::packed_transpose);
    EXPECT_EQ(path({8, 8}, {1, 8}, 0, {8, 1}, 4, 2), fast_path::packed_transpose);
    EXPECT_EQ(path({8, 8}, {1, 8}, 0, {8, 1}, 2, 2), fast_path::none);   // mid-byte destination start
    EXPECT_EQ(path({8, 6}, {1, 8}, 0, {6, 1}, 0, 2), fast_path::none);   // source rows of 1.5 bytes
    EXPECT_EQ(path({6, 8}, {1, 6}, 0, {8, 1}, 0, 2), fast_path::none);   // 6 destination rows: not whole bytes
    EXPECT_EQ(path({6, 8}, {1, 6}, 0, {8, 1}, 0, 4), fast_path::packed_transpose);
    EXPECT_EQ(path({8, 3}, {1, 8}, 0, {3, 1}, 0, 4), fast_path::none);   // too narrow to tile
    EXPECT_EQ(path({8, 8}, {1, 8}, 0, {8, 1}, 0, 8), fast_path::none);   // not a packed width
    EXPECT_EQ(strided_copy_path(data_type::s2, {8, 8}, {1, 8}, {8, 1}), fast_path::packed_transpose);
    EXPECT_EQ(strided_copy_path(data_type::u2, {8, 8}, {8, 1}, {8, 1}), fast_path::run_copy);
    EXPECT_EQ(strided_copy_path(data_type::s4, {8, 8}, {1, 8}, {8, 1}), fast_path::packed_transpose);
}

// strided_copy of s2 and u2 (any path) into a destination whose other
// elements of shared bytes must survive: 2-bit elements at every place in
// their byte, rows sharing bytes.
TEST_F(movement_engine, packed_2bit_copies_keep_neighbouring_elements) {
    std::mt19937 rng(9);
    for (data_type t : {data_type::s2, data_type::u2})
        for (dim_t src_off = 0; src_off < 4; ++src_off)
            for (dim_t dst_off = 0; dst_off < 4; ++dst_off) {
                // [5, 7] read transposed from a [7, 5] source, written with rows 9 apart.
                const dims_t dims{5, 7}, ss{1, 5}, ds{9, 1};
                std::vector<std::uint8_t> src(12), dst(14);
                for (auto &b : src) b = static_cast<std::uint8_t>(rng());
                for (auto &b : dst) b = static_cast<std::uint8_t>(rng());
                std::vector<std::uint8_t> expected = dst;
                for (dim_t r = 0; r < 5; ++r)
                    for (dim_t c = 0; c < 7; ++c)
                        set_packed(expected, 2, dst_off + r * 9 + c, get_packed(src, 2, src_off + r + c * 5));
                strided_copy(t, dims, strided_tensor{src.data(), src_off, ss}, strided_tensor{dst.data(), dst_off, ds});
                EXPECT_EQ(dst, expected) << to_string(t) << " offsets " << src_off << "/" << dst_off;
            }
}

} // namespace

// The prefetch cursor of a wide step (line_prefetch): `row_lines` lines of
// each row in turn, then the next row `pitch` bytes on, stopping after the
// last row however many lines are asked for. (A prefetch never faults, so
// the addresses need not be mapped.)
TEST_F(movement_engine, line_prefetch_walks_its_rows_in_memory_order) {
    line_prefetch p{0x10000, 512, 3, 2, 0, 4};
    p.issue(4); // row 0's 3 lines, then row 1's first
    EXPECT_EQ(p.row, 0x10000u + 512);
    EXPECT_EQ(p.line, 1);
    EXPECT_EQ(p.rows_left, 1);
    p.issue(1);
    EXPECT_EQ(p.line, 2);
    p.issue(10); // the last line, then nothing
    EXPECT_EQ(p.rows_left, 0);
    EXPECT_EQ(p.line, 0);
    EXPECT_EQ(p.row, 0x10000u + 1024);
    p.issue(3);
    EXPECT_EQ(p.rows_left, 0);
    EXPECT_EQ(p.row, 0x10000u + 1024);
}

// The run copy at every level, plain, where the destination lies a few
// bytes past a multiple of 4 KiB from the source (the distances that take
// the vector loop instead of memcpy) and at others: every byte copied,
// nothing around the destination touched, bodies and tails of every length.
TEST_F(movement_engine, run_copy_at_every_distance_from_the_source) {
    std::mt19937 rng(17);
    std::vector<std::uint8_t> buffer(8 * 4096 + 256); // room for the farthest destination
    for (cpu_isa isa : levels_here())
        for (std::ptrdiff_t past : {0, 1, 8, 16, 31, 32, 4080})
            for (std::size_t bytes : {std::size_t{64}, std::size_t{2047}, std::size_t{2048}, std::size_t{2049},
                                      std::size_t{4096 + 129}, std::size_t{3 * 4096 - 5}})
                for (bool before : {false, true}) {
                    for (auto &b : buffer) b = static_cast<std::uint8_t>(rng());
                    const std::vector<std::uint8_t> original = buffer;
                    // Source and destination 3 pages (+ past) apart, in either order.
                    const std::ptrdiff_t low = 64, high = low + 3 * 4096 + past;
                    const std::ptrdiff_t from = before ? high : low, to = before ? low : high;
                    kernels_for(isa).copy(buffer.data() + to, buffer.data() + from, bytes, false);
                    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(buffer.size()); ++i) {
                        const bool inside = i >= to && i < to + static_cast<std::ptrdiff_t>(bytes);
                        ASSERT_EQ(buffer[i], inside ? original[from + (i - to)] : original[i])
                            << to_string(isa) << " past " << past << ", " << bytes << " bytes, byte " << i;
                    }
                }
}
