// Run grids (run_grid.hpp) with AVX2: compiled with -mavx2, called only
// where the CPU has it (the AVX2 and AVX-512 levels).
#include <immintrin.h>

#include <cstring>

#include "kernels/run_grid.hpp"

namespace reshaper::impl {
namespace {


__m256i load(const std::uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
void store(std::uint8_t *p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v); }

} // namespace

void copy_run_grid_avx2(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                        const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                        std::size_t run_bytes, std::size_t along_count, std::size_t across_count) {
    // 64-byte runs back to back along the destination (the heads of s8
    // attention split: [S,H,64] -> [H,S,64]) in blocks of 4 steps along,
    // as at AVX-512 (run_grid_avx512.cpp): at each position across, the
    // block's 4 runs loaded, then stored as one 256-byte run (blocks for
    // the heads merged measured no faster: docs/performance.md). The last
    // steps go on below.
    if (run_bytes == 64 && dst_along == 64) {
        constexpr std::size_t block = 4;
        std::size_t i = 0;
        for (; i + block <= along_count; i += block, dst += block * dst_along, src += block * src_along) {
            std::uint8_t *d = dst;
            const std::uint8_t *s = src;
            for (std::size_t j = 0; j < across_count; ++j, d += dst_across, s += src_across) {
                __m256i v[2 * block];
                for (std::size_t k = 0; k < block; ++k) {
                    v[2 * k] = load(s + k * src_along);
                    v[2 * k + 1] = load(s + k * src_along + 32);
                }
                for (std::size_t k = 0; k < 2 * block; ++k) store(d + 32 * k, v[k]);
            }
        }
        along_count -= i;
    }
    // Runs of whole vector pairs (64, 128, 256 B: the heads of s8, bf16
    // and f32 attention) take a loop of pairs and nothing else.
    if (run_bytes % 64 == 0) {
        for (std::size_t i = 0; i < along_count; ++i, dst += dst_along, src += src_along) {
            std::uint8_t *d = dst;
            const std::uint8_t *s = src;
            for (std::size_t j = 0; j < across_count; ++j, d += dst_across, s += src_across)
                for (std::size_t b = 0; b < run_bytes; b += 64) {
                    const __m256i x = load(s + b), y = load(s + b + 32);
                    store(d + b, x);
                    store(d + b + 32, y);
                }
        }
        return;
    }
    if (run_bytes < 32) {
        copy_run_grid_scalar(dst, dst_along, dst_across, src, src_along, src_across, run_bytes, along_count,
                             across_count);
        return;
    }
    // Other runs of a vector or more: vectors from the start, the last one
    // ending at the run's end (overlapping the one before).
    const std::size_t last = run_bytes - 32;
    for (std::size_t i = 0; i < along_count; ++i, dst += dst_along, src += src_along) {
        std::uint8_t *d = dst;
        const std::uint8_t *s = src;
        for (std::size_t j = 0; j < across_count; ++j, d += dst_across, s += src_across) {
            for (std::size_t b = 0; b < last; b += 32) store(d + b, load(s + b));
            store(d + last, load(s + last));
        }
    }
}

} // namespace reshaper::impl
