// Run grids (run_grid.hpp) with AVX2: compiled with -mavx2, called only
// where the CPU has it (the AVX2 and AVX-512 levels).
#include <immintrin.h>

#include <cstring>

#include "kernels/run_grid.hpp"

namespace reshaper::impl {
namespace {


__m256i load(const std::uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
void store(std::uint8_t *p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v); }

// Blocks of 512 bytes along of Run-byte runs back to back along the
// destination: at each position across, the block's runs loaded, then
// stored as one 512-byte run. Advances dst and src past the blocks;
// returns the steps left over.
template <std::size_t Run, std::size_t Steps = 512 / Run>
std::size_t copy_blocks_along(std::uint8_t *&dst, std::ptrdiff_t dst_across, const std::uint8_t *&src,
                              std::ptrdiff_t src_along, std::ptrdiff_t src_across, std::size_t along_count,
                              std::size_t across_count) {
    constexpr std::size_t vectors = Run / 32;
    std::size_t i = 0;
    for (; i + Steps <= along_count; i += Steps, dst += Steps * Run, src += Steps * src_along) {
        std::uint8_t *d = dst;
        const std::uint8_t *s = src;
        for (std::size_t j = 0; j < across_count; ++j, d += dst_across, s += src_across) {
            __m256i v[Steps * vectors];
            for (std::size_t k = 0; k < Steps; ++k)
                for (std::size_t m = 0; m < vectors; ++m) v[k * vectors + m] = load(s + k * src_along + 32 * m);
            for (std::size_t k = 0; k < Steps * vectors; ++k) store(d + 32 * k, v[k]);
        }
    }
    return along_count - i;
}

} // namespace

void copy_run_grid_avx2(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                        const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                        std::size_t run_bytes, std::size_t along_count, std::size_t across_count) {
    // Runs of 64, 128 or 256 bytes back to back along the destination
    // (the heads of s8, bf16 and f32 attention split: [S,H,D] -> [H,S,D])
    // in blocks of 512 bytes along: at each head, the block's 8, 4 or 2
    // runs loaded (16 vectors), then stored as one 512-byte run, where a
    // run per step and head, or blocks of 256 bytes, measured slower
    // (docs/performance.md). The steps left over go on below.
    if (dst_along == static_cast<std::ptrdiff_t>(run_bytes)) {
        if (run_bytes == 64)
            along_count = copy_blocks_along<64>(dst, dst_across, src, src_along, src_across, along_count, across_count);
        else if (run_bytes == 128)
            along_count = copy_blocks_along<128>(dst, dst_across, src, src_along, src_across, along_count, across_count);
        else if (run_bytes == 256)
            along_count = copy_blocks_along<256>(dst, dst_across, src, src_along, src_across, along_count, across_count);
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
