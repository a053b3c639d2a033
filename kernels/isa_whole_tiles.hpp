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
template <class Ops, int E>
[[gnu::flatten]] void whole_tiles(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst) {
    constexpr std::ptrdiff_t T = tile_bytes / E;
    const std::ptrdiff_t src_pitch = call.src_pitch, dst_pitch = call.dst_pitch;
    const std::ptrdiff_t row_tiles = call.rows / T, col_tiles = call.cols / T;
    for (std::ptrdiff_t c = 0; c < col_tiles; ++c)
        for (std::ptrdiff_t r = 0; r < row_tiles; ++r)
            transpose_tiles<Ops, E, 1, false>(src + c * T * src_pitch + r * tile_bytes, src_pitch,
                                              dst + r * T * dst_pitch + c * tile_bytes, dst_pitch, false, nullptr);
}

template <class Ops, std::size_t... L>
constexpr per_size_class<whole_tiles_fn> whole_tiles_of(std::index_sequence<L...>) {
    return {&whole_tiles<Ops, 1 << L>...};
}

} // namespace
} // namespace reshaper::impl
