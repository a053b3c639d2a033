// AVX2 level: compiled with -mavx2; only called when the CPU has it. Its
// vector ops (avx2_ops) live in isa_kernels_simd.hpp: the AVX-512 level
// uses them too, for 32-byte block rows.
#include "kernels/isa_kernels_simd.hpp"
#include "kernels/isa_nibble_stream.hpp"
#include "kernels/isa_tiny_tiles.hpp"
#include "kernels/isa_whole_tiles.hpp"

namespace reshaper::impl {
namespace {

// 4-bit transposes: 8 byte tiles side by side (isa_kernels::packed_wide;
// docs/performance.md).
constexpr int packed_wide = 8;

constexpr isa_kernels table = {
    .isa = cpu_isa::avx2,
    .tile = one_tiles<avx2_ops>(size_classes),
    .walk = avx2_ops::walk,
    .wide_tile = wide_tiles<avx2_ops>(),
    .half_wide_tile = {half_wide_tiles_at<avx2_ops, near_rows>(size_classes),
                       half_wide_tiles_at<avx2_ops, far_rows>(size_classes),
                       half_wide_tiles_at<avx2_ops, in_cache>(size_classes),
                       half_wide_tiles_at<avx2_ops, in_last_level>(size_classes)},
    .copy = &run_copy<avx2_ops>,
    .copy_runs = &copy_runs<avx2_ops>,
    .tile_partial = partial_tiles_two_lanes<avx2_ops>(),
    // 64-byte rows of 4- and 8-byte elements: two blocks of 8 (4) vectors
    // fit the 16 registers; 1- and 2-byte elements would hold 64 (32) and
    // keep the tile walk.
    .block_rows = {{block_rows_16,
                    block_rows_32,
                    {no_kernel, no_kernel, &block_rows_2<avx2_ops, 4>, &block_rows_2<avx2_ops, 8>, no_kernel}}},
    .packed_wide = packed_wide,
    .packed_tile = &transpose_tiles<avx2_ops, 1, packed_wide, true>,
    .split_nibbles = &split_nibble_pairs,
    .split_nibbles_streamed = &split_nibble_pairs_streamed,
    .byte_tiles_split_streamed = &byte_tiles_split_streamed_parts<avx2_ops, packed_wide>,
    .byte_tiles_split_alignment = static_cast<std::ptrdiff_t>(split_streamed_pairs),
    .split_rows = row_group_kernels<true>(),
    .join_rows = row_group_kernels<false>(),
    // One tile's rows walk as any other rows here (measured on Zen 3).
    .one_tile_rows_tile_by_tile = false,
    .blocked_columns = two_column_tiles,
    .whole_tiles = whole_tiles_of<avx2_ops>(size_classes),
    .whole_blocks_4 = &whole_blocks_4<avx2_ops>,
    .tiny_tiles = tiny_tiles_of<avx2_ops>(size_classes),
};
RESHAPER_ASSERT_COMPLETE_TABLE(table);

} // namespace

const isa_kernels &avx2_kernels() { return table; }

} // namespace reshaper::impl
