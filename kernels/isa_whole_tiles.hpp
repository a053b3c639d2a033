// whole_tiles: a one-unit transpose of whole tiles in the caches (the 4 KiB
// [32,32] f32 execute) as one call, the tile kernel inlined into the walk.
// Strip by strip, each tile was an indirect call through the tile table
// behind the strip's step logic: for the 4 KiB execute 4 calls and a
// visible share of its time in perf record (strip::all_steps). Included by
// a level's table file after isa_kernels_simd.hpp.
#pragma once

#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

// The tiles of one_tile<Ops, E>, in a strip's order: column step by column
// step (T source rows), down the destination rows within each.
// Flattened: the tile kernel inlined into the tile loop (as calls, each
// tile paid a call and a frame of saved registers).
//
// 4-byte elements at two-lane vectors (AVX2), where the tile kernel would
// take transpose_blocks_into (source rows spread over L1's sets,
// destination rows not a multiple of 4 KiB apart: the 4 KiB [32,32] f32
// execute): 8 x 8 blocks from whole 32-byte source rows. Rows 0-3 and 4-7
// are each transposed within their lanes, then one vperm2i128 joins the
// low (high) lanes of the two into destination row j (j + 4). That is as
// many shuffles as the quarters' (a vinserti128 per row pair there), but
// half the loads (8 of 32 bytes instead of 16 of 16), and measured faster:
// a 32 x 32 f32 transpose straight-line in a loop of 1000, rdtsc, minimum
// of 200 interleaved rounds on the Zen 3 EPYC, 154 / 163 -> 138 / 152
// ticks in two runs; the C API's 4 KiB execute 1214 -> 1026 instructions
// (docs/performance.md).
template <class Ops>
[[gnu::always_inline]] inline void transpose_8x8_by_rows_4(const std::uint8_t *from, std::ptrdiff_t sp,
                                                           std::uint8_t *to, std::ptrdiff_t dp) {
    using vec = typename Ops::vec;
    // Opaque (as in transpose_block_into): else GCC keeps a pointer per row.
    asm("" : "+r"(from), "+r"(to));
    vec a[4], b[4];
    for (int i = 0; i < 4; ++i) {
        a[i] = Ops::load(from + i * sp);
        b[i] = Ops::load(from + (i + 4) * sp);
    }
    transpose_in_lanes<Ops, 4>(a); // a[j]: lane 0 column j, lane 1 column j + 4, of rows 0-3
    transpose_in_lanes<Ops, 4>(b); // the same of rows 4-7
    for (int j = 0; j < 4; ++j) {
        Ops::store(to + j * dp, _mm256_permute2x128_si256(a[j], b[j], 0x20));
        Ops::store(to + (j + 4) * dp, _mm256_permute2x128_si256(a[j], b[j], 0x31));
    }
}

template <class Ops, int E>
[[gnu::flatten]] void whole_tiles(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst) {
    constexpr std::ptrdiff_t T = tile_bytes / E;
    const std::ptrdiff_t src_pitch = call.src_pitch, dst_pitch = call.dst_pitch;
    const std::ptrdiff_t row_tiles = call.rows / T, col_tiles = call.cols / T;
    if constexpr (E == 4 && Ops::lanes == 2)
        if (whole_8x8_blocks_take(src_pitch, dst_pitch)) {
            // Each tile's 4 blocks in the quarters' order: column half, then row half.
            for (std::ptrdiff_t c = 0; c < col_tiles; ++c)
                for (std::ptrdiff_t r = 0; r < row_tiles; ++r) {
                    const std::uint8_t *s = src + c * T * src_pitch + r * tile_bytes;
                    std::uint8_t *d = dst + r * T * dst_pitch + c * tile_bytes;
                    for (int b = 0; b < 2; ++b)
                        for (int a = 0; a < 2; ++a)
                            transpose_8x8_by_rows_4<Ops>(s + a * 8 * src_pitch + b * Ops::bytes, src_pitch,
                                                         d + b * 8 * dst_pitch + a * Ops::bytes, dst_pitch);
                }
            return;
        }
    for (std::ptrdiff_t c = 0; c < col_tiles; ++c)
        for (std::ptrdiff_t r = 0; r < row_tiles; ++r)
            transpose_tiles<Ops, E, 1, false>(src + c * T * src_pitch + r * tile_bytes, src_pitch,
                                              dst + r * T * dst_pitch + c * tile_bytes, dst_pitch, false, nullptr);
}

// isa_kernels::whole_blocks_4: a one-unit transpose of 4-byte elements of
// at most 4 KiB, its sides (rows, cols: as whole_tiles') multiples of 8
// and its pitches as whole_8x8_blocks_take allows, as transpose_8x8_by_rows_4
// blocks in one call, destination row block by destination row block, with
// nothing decided at execute. The planner's other ways for these sizes
// cost more: [128,8] and [8,128] f32 went through the tiny gather (4100
// instructions an execute), [64,16] a strip of wide tiles; [32,32] whole
// tiles tested the walk at execute (docs/performance.md).
template <class Ops>
[[gnu::flatten]] void whole_blocks_4(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst) {
    const std::ptrdiff_t sp = call.src_pitch, dp = call.dst_pitch, rows = call.rows, cols = call.cols;
    for (std::ptrdiff_t r = 0; r < rows; r += 8)
        for (std::ptrdiff_t c = 0; c < cols; c += 8)
            transpose_8x8_by_rows_4<Ops>(src + c * sp + r * 4, sp, dst + r * dp + c * 4, dp);
}

template <class Ops, std::size_t... L>
constexpr per_size_class<whole_tiles_fn> whole_tiles_of(std::index_sequence<L...>) {
    return {&whole_tiles<Ops, 1 << L>...};
}

} // namespace
} // namespace reshaper::impl
