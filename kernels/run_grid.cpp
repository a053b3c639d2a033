// Run grids (run_grid.hpp): the scalar level's kernel and the choice of a
// level's.
#include "kernels/run_grid.hpp"

#include <cstring>

namespace reshaper::impl {

void copy_run_grid_scalar(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                          const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                          std::size_t run_bytes, std::size_t along_count, std::size_t across_count) {
    for (std::size_t i = 0; i < along_count; ++i, dst += dst_along, src += src_along) {
        std::uint8_t *d = dst;
        const std::uint8_t *s = src;
        for (std::size_t j = 0; j < across_count; ++j, d += dst_across, s += src_across) std::memcpy(d, s, run_bytes);
    }
}

run_grid_fn run_grid_kernel(cpu_isa isa) {
#if defined(RESHAPER_X86_KERNELS)
    if (isa == cpu_isa::avx512) return &copy_run_grid_avx512;
    if (isa != cpu_isa::scalar) return &copy_run_grid_avx2;
#endif
    (void)isa;
    return &copy_run_grid_scalar;
}

} // namespace reshaper::impl
