// AVX2 level: compiled with -mavx2; only called when the CPU has it. Its
// vector ops (avx2_ops) live in isa_kernels_simd.hpp: the AVX-512 level
// uses them too, for 32-byte block rows.
#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

template <int R, std::size_t... L>
void set_half_wide_tiles(isa_kernels &table, std::index_sequence<L...>) {
    ((table.half_wide_tile[R][L] = &transpose_half_tiles<avx2_ops, 1 << L, avx2_ops::walk[R][L].wide>), ...);
}

isa_kernels make_avx2_kernels() {
    isa_kernels table = make_simd_kernels<avx2_ops>(cpu_isa::avx2);
    // 4-bit transposes: 8 byte tiles side by side (isa_kernels::packed_wide).
    table.packed_wide = 8;
    table.packed_tile = &transpose_tiles<avx2_ops, 1, 8, false>;
    // One tile's rows walk as any other rows here (measured on Zen 3: see
    // isa_kernels::one_tile_rows_tile_by_tile).
    table.one_tile_rows_tile_by_tile = false;
    set_half_wide_tiles<near_rows>(table, std::make_index_sequence<5>());
    set_half_wide_tiles<far_rows>(table, std::make_index_sequence<5>());
    set_half_wide_tiles<in_cache>(table, std::make_index_sequence<5>());
    // 64-byte rows of 4- and 8-byte elements: two blocks of 8 (4)
    // vectors fit the 16 registers. 1- and 2-byte elements would hold
    // 64 (32) and keep the tile walk, unmeasured otherwise.
    table.block_rows[2][2] = &block_rows_2<avx2_ops, 4>;
    table.block_rows[2][3] = &block_rows_2<avx2_ops, 8>;
    return table;
}

} // namespace

const isa_kernels &avx2_kernels() {
    static const isa_kernels table = make_avx2_kernels();
    return table;
}

} // namespace reshaper::impl
