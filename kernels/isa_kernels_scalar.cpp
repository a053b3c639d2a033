// Portable level: plain loops and plain stores (no streaming); the
// reference the SIMD levels are tested against, and the path on CPUs
// without AVX2.
#include <cstring>
#include <utility>

#include "kernels/isa_kernels.hpp"
#include "kernels/isa_split_rows.hpp"
#include "kernels/isa_tiny_tiles.hpp"

namespace reshaper::impl {
namespace {

// W tiles side by side (see tile_walk): source row r of tile w lands at
// element w * T + r of the destination rows.
// (No prefetching: this level is bound by its element copies.)
template <int E, int W>
void transpose_tiles(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                     std::ptrdiff_t dst_pitch, bool /*stream*/, line_prefetch * /*ahead*/) {
    constexpr int T = static_cast<int>(tile_bytes) / E;
    for (int c = 0; c < T; ++c)
        for (int r = 0; r < W * T; ++r) std::memcpy(dst + c * dst_pitch + r * E, src + r * src_pitch + c * E, E);
}

template <int E>
void one_tile(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst, std::ptrdiff_t dst_pitch,
              bool stream) {
    transpose_tiles<E, 1>(src, src_pitch, dst, dst_pitch, stream, nullptr);
}

void run_copy(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes, bool /*stream*/) {
    std::memcpy(dst, src, bytes);
}

void copy_runs(std::uint8_t *dst, std::ptrdiff_t dst_step, const std::uint8_t *src,
               std::ptrdiff_t src_step, std::size_t run_bytes, std::size_t count, bool /*stream*/) {
    for (std::size_t i = 0; i < count; ++i, dst += dst_step, src += src_step)
        std::memcpy(dst, src, run_bytes);
}

// Block rows of R bytes (see block_rows_fn): element c of destination row
// i is element i of source row c.
template <int E, int R>
void block_rows(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst, std::size_t rows,
                bool /*stream*/) {
    constexpr int C = R / E;
    for (std::size_t i = 0; i < rows; ++i)
        for (int c = 0; c < C; ++c)
            std::memcpy(dst + i * R + c * E, src + c * src_pitch + static_cast<std::ptrdiff_t>(i) * E, E);
}

// Strips along all columns, no column blocks and no prefetch: runs of
// lines for 1- and 2-byte elements, single tiles for wider ones (the
// scalar level is the reference, not a speed target).
constexpr per_size_class<tile_walk> walk = {{{4, 4}, {2, 1}, {1, 1}, {1, 4}, {1, 4}}};

template <std::size_t... L>
constexpr per_size_class<tile_transpose_fn> one_tiles(std::index_sequence<L...>) {
    return {&one_tile<1 << L>...};
}
template <std::size_t... L>
constexpr per_size_class<wide_tile_fn> wide_tiles(std::index_sequence<L...>) {
    return {&transpose_tiles<1 << L, walk[L].wide>...};
}
constexpr auto sizes = std::make_index_sequence<element_size_classes>();
template <std::size_t... L>
constexpr per_size_class<tiny_tiles_fn> tiny_tiles_of(std::index_sequence<L...>) {
    return {&tiny_tiles<&one_tile<1 << L>, 1 << L>...};
}

constexpr isa_kernels table = {
    .isa = cpu_isa::scalar,
    .tile = one_tiles(sizes),
    .walk = same_at_every_reach(walk),
    .wide_tile = same_at_every_reach(wide_tiles(sizes)),
    .half_wide_tile = same_at_every_reach(no_kernel_at_any_size<wide_tile_fn>),
    .copy = &run_copy,
    .copy_runs = &copy_runs,
    .tile_partial = no_kernel_at_any_size<tile_partial_fn>,
    .block_rows = {{{&block_rows<1, 16>, &block_rows<2, 16>, &block_rows<4, 16>, no_kernel, no_kernel},
                    {&block_rows<1, 32>, &block_rows<2, 32>, &block_rows<4, 32>, &block_rows<8, 32>, no_kernel},
                    {&block_rows<1, 64>, &block_rows<2, 64>, &block_rows<4, 64>, &block_rows<8, 64>,
                     &block_rows<16, 64>}}},
    .packed_wide = walk[0].wide,
    .packed_tile = &transpose_tiles<1, walk[0].wide>,
    .split_nibbles = &split_nibble_pairs,
    .split_nibbles_streamed = no_kernel, // no streaming stores
    .byte_tiles_split_streamed = no_kernel,
    .byte_tiles_split_alignment = 0,
    .split_rows = row_group_kernels<true>(),
    .join_rows = row_group_kernels<false>(),
    .one_tile_rows_tile_by_tile = true,
    .blocked_columns = two_column_tiles,
    .whole_tiles = no_kernel_at_any_size<whole_tiles_fn>, // not measured here: strip by strip
    .whole_blocks_4 = nullptr, // the planner's small transpose ways
    .tiny_tiles = tiny_tiles_of(sizes),
};
RESHAPER_ASSERT_COMPLETE_TABLE(table);

} // namespace

const isa_kernels &scalar_kernels() { return table; }

} // namespace reshaper::impl
