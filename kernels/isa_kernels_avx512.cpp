// AVX-512 (F + BW) level: compiled with -mavx512f -mavx512bw; only called
// when the CPU has both (see cpu_isa).
#include <immintrin.h>

#include "kernels/isa_kernels_simd.hpp"

namespace reshaper::impl {
namespace {

struct avx512_ops {
    using vec = __m512i;
    static constexpr int bytes = 64;
    static constexpr int lanes = 4;

    static vec load(const std::uint8_t *p) { return _mm512_loadu_si512(p); }
    static void store(std::uint8_t *p, vec v) { _mm512_storeu_si512(p, v); }
    static void stream(std::uint8_t *p, vec v) { _mm512_stream_si512(reinterpret_cast<vec *>(p), v); }

    template <int E> static vec unpacklo(vec a, vec b) {
        if constexpr (E == 1) return _mm512_unpacklo_epi8(a, b);
        else if constexpr (E == 2) return _mm512_unpacklo_epi16(a, b);
        else if constexpr (E == 4) return _mm512_unpacklo_epi32(a, b);
        else return _mm512_unpacklo_epi64(a, b);
    }
    template <int E> static vec unpackhi(vec a, vec b) {
        if constexpr (E == 1) return _mm512_unpackhi_epi8(a, b);
        else if constexpr (E == 2) return _mm512_unpackhi_epi16(a, b);
        else if constexpr (E == 4) return _mm512_unpackhi_epi32(a, b);
        else return _mm512_unpackhi_epi64(a, b);
    }
    // v[l] := the l-th 128-bit lanes of v[0..3]. 0x88 picks lanes 0 and 2
    // of each source, 0xdd lanes 1 and 3.
    static void lane_transpose(vec *v) {
        const vec x0 = _mm512_shuffle_i32x4(v[0], v[1], 0x88);
        const vec x1 = _mm512_shuffle_i32x4(v[0], v[1], 0xdd);
        const vec y0 = _mm512_shuffle_i32x4(v[2], v[3], 0x88);
        const vec y1 = _mm512_shuffle_i32x4(v[2], v[3], 0xdd);
        v[0] = _mm512_shuffle_i32x4(x0, y0, 0x88);
        v[1] = _mm512_shuffle_i32x4(x1, y1, 0x88);
        v[2] = _mm512_shuffle_i32x4(x0, y0, 0xdd);
        v[3] = _mm512_shuffle_i32x4(x1, y1, 0xdd);
    }
};

} // namespace

const isa_kernels &avx512_kernels() {
    static const isa_kernels table = make_simd_kernels<avx512_ops>(cpu_isa::avx512);
    return table;
}

} // namespace reshaper::impl
