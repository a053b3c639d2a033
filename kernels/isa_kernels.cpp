#include "kernels/isa_kernels.hpp"

#if defined(RESHAPER_X86_KERNELS)
#include <immintrin.h>
#endif

namespace reshaper::impl {

const isa_kernels &kernels_for(cpu_isa isa) {
    switch (isa) {
#if defined(RESHAPER_X86_KERNELS)
    case cpu_isa::avx512: return avx512_kernels();
    case cpu_isa::avx2: return avx2_kernels();
#endif
    default: return scalar_kernels();
    }
}

void store_fence() {
#if defined(RESHAPER_X86_KERNELS)
    _mm_sfence();
#endif
}

} // namespace reshaper::impl
