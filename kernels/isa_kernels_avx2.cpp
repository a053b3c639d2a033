// AVX2 level: compiled with -mavx2; only called when the CPU has it. Its
// vector ops (avx2_ops) live in isa_kernels_simd.hpp: the AVX-512 level
// uses them too, for 32-byte block rows.
#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {

const isa_kernels &avx2_kernels() {
    static const isa_kernels table = [] {
        isa_kernels t = make_simd_kernels<avx2_ops>(cpu_isa::avx2);
        // 64-byte rows of 4- and 8-byte elements: two blocks of 8 (4)
        // vectors fit the 16 registers. 1- and 2-byte elements would hold
        // 64 (32) and keep the tile walk, unmeasured otherwise.
        t.block_rows[2][2] = &block_rows_2<avx2_ops, 4>;
        t.block_rows[2][3] = &block_rows_2<avx2_ops, 8>;
        return t;
    }();
    return table;
}

} // namespace reshaper::impl
