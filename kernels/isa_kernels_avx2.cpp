// AVX2 level: compiled with -mavx2; only called when the CPU has it. Its
// vector ops (avx2_ops) live in isa_kernels_simd.hpp: the AVX-512 level
// uses them too, for 32-byte block rows.
#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

isa_kernels make_avx2_kernels() {
    isa_kernels table = make_simd_kernels<avx2_ops>(cpu_isa::avx2);
    const auto &walk = avx2_ops::walk;
    // 4-bit transposes: 8 byte tiles side by side (isa_kernels::packed_wide).
    table.packed_wide = 8;
    table.packed_tile = &transpose_tiles<avx2_ops, 1, 8, false>;
    table.half_wide_tile[0] = &transpose_half_tiles<avx2_ops, 1, walk[0].wide>;
    table.half_wide_tile[1] = &transpose_half_tiles<avx2_ops, 2, walk[1].wide>;
    table.half_wide_tile[2] = &transpose_half_tiles<avx2_ops, 4, walk[2].wide>;
    table.half_wide_tile[3] = &transpose_half_tiles<avx2_ops, 8, walk[3].wide>;
    table.half_wide_tile[4] = &transpose_half_tiles<avx2_ops, 16, walk[4].wide>;
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
