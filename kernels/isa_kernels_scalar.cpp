// Portable level: plain loops and plain stores (no streaming); the
// reference the SIMD levels are tested against, and the path on CPUs
// without AVX2.
#include <cstring>

#include "kernels/isa_kernels.hpp"

namespace reshaper::impl {
namespace {

template <int E>
void transpose_tile(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                    std::ptrdiff_t dst_pitch, bool /*stream*/) {
    constexpr int T = static_cast<int>(tile_bytes) / E;
    for (int c = 0; c < T; ++c)
        for (int r = 0; r < T; ++r) std::memcpy(dst + c * dst_pitch + r * E, src + r * src_pitch + c * E, E);
}

void run_copy(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes, bool /*stream*/) {
    std::memcpy(dst, src, bytes);
}

void copy_runs(std::uint8_t *dst, std::ptrdiff_t dst_step, const std::uint8_t *src,
               std::ptrdiff_t src_step, std::size_t run_bytes, std::size_t count, bool /*stream*/) {
    for (std::size_t i = 0; i < count; ++i, dst += dst_step, src += src_step)
        std::memcpy(dst, src, run_bytes);
}

} // namespace

const isa_kernels &scalar_kernels() {
    static const isa_kernels table{cpu_isa::scalar,
                                   {&transpose_tile<1>, &transpose_tile<2>, &transpose_tile<4>,
                                    &transpose_tile<8>, &transpose_tile<16>},
                                   &run_copy, &copy_runs, {}};
    return table;
}

} // namespace reshaper::impl
