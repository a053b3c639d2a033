// tiny_tiles: the tiny transpose's executor (tiny_transpose_program), per
// level: each planned tile's source runs gathered into a 64 x 64-byte L1
// buffer, transposed whole by the level's tile kernel (inlined), its rows
// scattered to their destination runs. Compiled in each level's table file,
// so the gathers and scatters move the level's vector width at a time.
#pragma once

#include <cstring>

#include "kernels/movement_program.hpp"
#include "kernels/short_copy.hpp"

namespace reshaper::impl {
namespace {

template <tile_transpose_fn Tile, int E>
[[gnu::flatten]] void tiny_tiles(const tiny_transpose_program &t, const std::uint8_t *src, std::uint8_t *dst) {
    // The output buffer lies half a page off the input's: at the same
    // offset within a page, the tile's stores and loads alias (4K aliasing).
    constexpr std::ptrdiff_t tile_area = tile_bytes * tile_bytes, out_shift = tile_area / 2 + tile_bytes;
    alignas(64) std::uint8_t buffers[2 * tile_area + out_shift];
    std::uint8_t *in = buffers, *out = buffers + tile_area + out_shift;
    for (const tiny_tile &tile : t.tiles) {
        const std::ptrdiff_t *col = t.src_col_offsets.data() + tile.col_start;
        const std::ptrdiff_t *row = t.dst_row_offsets.data() + tile.row_start;
        const std::uint8_t *from = in;
        if (tile.src_pitch != 0) {
            from = src + tile.src + col[0];
        } else {
            const auto row_bytes = static_cast<std::size_t>(tile.rows) * E;
            for (int c = 0; c < tile.cols; ++c) copy_short(in + c * tile_bytes, src + tile.src + col[c], row_bytes);
        }
        if (tile.dst_pitch != 0) {
            Tile(from, tile.src_pitch != 0 ? tile.src_pitch : tile_bytes, dst + tile.dst + row[0], tile.dst_pitch, false);
            continue;
        }
        Tile(from, tile.src_pitch != 0 ? tile.src_pitch : tile_bytes, out, tile_bytes, false);
        const auto col_bytes = static_cast<std::size_t>(tile.cols) * E;
        for (int r = 0; r < tile.rows; ++r) copy_short(dst + tile.dst + row[r], out + r * tile_bytes, col_bytes);
    }
}

} // namespace
} // namespace reshaper::impl
