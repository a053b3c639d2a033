// Run grids (run_grid.hpp) with AVX-512: compiled with -mavx512f, called
// only where the CPU has it (the AVX-512 level).
#include <immintrin.h>

#include "kernels/run_grid.hpp"

namespace reshaper::impl {

void copy_run_grid_avx512(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                          const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                          std::size_t run_bytes, std::size_t along_count, std::size_t across_count) {
    // Runs of one vector back to back along the destination (the 64-byte
    // heads of s8 attention split: [S,H,64] -> [H,S,64]) in blocks of 4
    // steps along: at each position across, the block's 4 runs loaded, then
    // stored as one 256-byte run, where a run per step and position
    // measured slower (docs/performance.md). Other grids (the heads merged
    // measured no faster so), and the last steps, as at AVX2.
    if (run_bytes != 64 || dst_along != 64) {
        copy_run_grid_avx2(dst, dst_along, dst_across, src, src_along, src_across, run_bytes, along_count,
                           across_count);
        return;
    }
    constexpr std::size_t block = 4;
    std::size_t i = 0;
    for (; i + block <= along_count; i += block, dst += block * dst_along, src += block * src_along) {
        std::uint8_t *d = dst;
        const std::uint8_t *s = src;
        for (std::size_t j = 0; j < across_count; ++j, d += dst_across, s += src_across) {
            const __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + src_along),
                          c = _mm512_loadu_si512(s + 2 * src_along), e = _mm512_loadu_si512(s + 3 * src_along);
            _mm512_storeu_si512(d, a);
            _mm512_storeu_si512(d + dst_along, b);
            _mm512_storeu_si512(d + 2 * dst_along, c);
            _mm512_storeu_si512(d + 3 * dst_along, e);
        }
    }
    if (i < along_count)
        copy_run_grid_avx2(dst, dst_along, dst_across, src, src_along, src_across, run_bytes, along_count - i,
                           across_count);
}

} // namespace reshaper::impl
