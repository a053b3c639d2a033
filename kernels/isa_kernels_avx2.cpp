// AVX2 level: compiled with -mavx2; only called when the CPU has it. Its
// vector ops (avx2_ops) live in isa_kernels_simd.hpp: the AVX-512 level
// uses them too, for 32-byte block rows.
#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {

const isa_kernels &avx2_kernels() {
    static const isa_kernels table = make_simd_kernels<avx2_ops>(cpu_isa::avx2);
    return table;
}

} // namespace reshaper::impl
