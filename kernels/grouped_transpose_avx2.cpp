// The grouped transpose's gathers at the AVX2 level (compiled with -mavx2,
// called only when the CPU has it; the AVX-512 level uses them too): a
// destination run is gathered from the tile's buffer 32 bytes at a time
// with vpgatherdd / vpgatherdq (4- and 8-byte elements) or plain loads
// packed into words (1- and 2-byte ones), then stored, streamed where a
// whole line of the run starts on a line.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/grouped_transpose.hpp"
#include "kernels/short_copy.hpp"

namespace reshaper::impl {
namespace {

using byte = std::uint8_t;

// 32 bytes of a run of 1- or 2-byte elements: plain loads of each,
// packed into 8-byte words (faster than vpgatherdd and packing on Zen 3:
// docs/performance.md).
template <std::size_t N>
__m256i gather32_loads(const byte *base, const std::int32_t *gather) {
    static_assert(N == 1 || N == 2);
    using unit = std::conditional_t<N == 1, std::uint8_t, std::uint16_t>;
    constexpr int per_word = 8 / static_cast<int>(N);
    long long word[4];
    for (int w = 0; w < 4; ++w) {
        std::uint64_t packed = 0;
        for (int k = 0; k < per_word; ++k) {
            unit u;
            std::memcpy(&u, base + static_cast<std::ptrdiff_t>(gather[w * per_word + k]) * static_cast<std::ptrdiff_t>(N), N);
            packed |= static_cast<std::uint64_t>(u) << (8 * N * static_cast<std::size_t>(k));
        }
        word[w] = static_cast<long long>(packed);
    }
    return _mm256_setr_epi64x(word[0], word[1], word[2], word[3]);
}

// 32 bytes of a run: the gathers of elements [j, j + 32 / N).
template <std::size_t N>
__m256i gather32(const byte *base, const std::int32_t *gather) {
    if constexpr (N == 4) {
        const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(gather));
        return _mm256_i32gather_epi32(reinterpret_cast<const int *>(base), idx, 4);
    } else if constexpr (N == 8) {
        const __m128i idx = _mm_loadu_si128(reinterpret_cast<const __m128i *>(gather));
        return _mm256_i32gather_epi64(reinterpret_cast<const long long *>(base), idx, 8);
    } else { // N == 1 or 2
        return gather32_loads<N>(base, gather);
    }
}

// With `stream`, each run's whole lines are streamed and its partial first
// and last lines (runs that do not start or end on a line: dims of 3) take
// ordinary stores, which stay off the streamed lines (a line both cached
// and streamed measured far slower). Stored with ordinary stores, as they
// were unless both ends fell on lines, the runs of a DRAM-sized move read
// every destination line first: f32 rank 15 of 3s spent two thirds of its
// gathers on those stores (docs/performance.md, "The grouped transpose's
// gathers streamed").
template <std::size_t N>
void gather_runs_avx2(const byte *buffer, const std::int32_t *gather, dim_t run, const std::int32_t *run_base,
                      const std::ptrdiff_t *run_offset, dim_t runs, byte *dst, bool stream) {
    constexpr dim_t per_vector = 32 / static_cast<dim_t>(N);
    constexpr auto n = static_cast<std::ptrdiff_t>(N);
    const auto element = [&](const byte *base, byte *to, dim_t j) {
        std::memcpy(to + j * n, base + static_cast<std::ptrdiff_t>(gather[j]) * n, N);
    };
    for (dim_t r = 0; r < runs; ++r) {
        const byte *base = buffer + static_cast<std::ptrdiff_t>(run_base[r]) * n;
        byte *to = dst + run_offset[r];
        dim_t j = 0;
        if (stream) {
            // Elements up to the first line (element-aligned: the run's
            // bytes are), then whole lines, two vectors each.
            const auto at = reinterpret_cast<std::uintptr_t>(to);
            const dim_t head = std::min<dim_t>(run, static_cast<dim_t>(((64 - at % 64) % 64) / N));
            for (; j < head; ++j) element(base, to, j);
            const bool on_line = (at + static_cast<std::uintptr_t>(head) * N) % 64 == 0; // else misaligned elements
            for (; on_line && j + 2 * per_vector <= run; j += 2 * per_vector) {
                _mm256_stream_si256(reinterpret_cast<__m256i *>(to + j * n), gather32<N>(base, gather + j));
                _mm256_stream_si256(reinterpret_cast<__m256i *>(to + (j + per_vector) * n),
                                    gather32<N>(base, gather + j + per_vector));
            }
        }
        for (; j + per_vector <= run; j += per_vector)
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(to + j * n), gather32<N>(base, gather + j));
        for (; j < run; ++j) element(base, to, j);
    }
}

// 16- and 32-byte elements (c128; c64 and f64 with a shared inner dim of
// 4, widened, no transposes): one vector load and store each. Streamed
// runs store ordinarily up to their first line and stream the whole lines
// from there (a vector-aligned run reaches one after at most 3 elements).
template <std::size_t Bytes>
struct whole_element_vector;
template <>
struct whole_element_vector<16> {
    static __m128i load(const byte *p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }
    static void store(byte *p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i *>(p), v); }
    static void stream(byte *p, __m128i v) { _mm_stream_si128(reinterpret_cast<__m128i *>(p), v); }
};
template <>
struct whole_element_vector<32> {
    static __m256i load(const byte *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
    static void store(byte *p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v); }
    static void stream(byte *p, __m256i v) { _mm256_stream_si256(reinterpret_cast<__m256i *>(p), v); }
};

template <std::size_t Bytes>
void gather_runs_avx2_whole(const byte *buffer, const std::int32_t *gather, dim_t run, const std::int32_t *run_base,
                            const std::ptrdiff_t *run_offset, dim_t runs, byte *dst, bool stream) {
    using vector = whole_element_vector<Bytes>;
    constexpr auto n = static_cast<dim_t>(Bytes);
    constexpr dim_t per_line = 64 / n;
    for (dim_t r = 0; r < runs; ++r) {
        const byte *base = buffer + static_cast<std::ptrdiff_t>(run_base[r]) * n;
        byte *to = dst + run_offset[r];
        const auto element = [&](dim_t j) { return vector::load(base + static_cast<std::ptrdiff_t>(gather[j]) * n); };
        dim_t j = 0;
        const auto at = reinterpret_cast<std::uintptr_t>(to);
        if (stream && at % Bytes == 0) {
            const dim_t head = std::min<dim_t>(run, static_cast<dim_t>((64 - at % 64) % 64) / n);
            for (; j < head; ++j) vector::store(to + j * n, element(j));
            for (; j + per_line <= run; j += per_line)
                for (dim_t k = 0; k < per_line; ++k) vector::stream(to + (j + k) * n, element(j + k));
        }
        for (; j < run; ++j) vector::store(to + j * n, element(j));
    }
}

// Micro blocks: L vectors of L elements transposed in registers. The
// transposes are inlined into the block loops: called, they pass their
// registers through the stack.
template <typename Store>
void store_vector(std::uint8_t *to, Store v, bool stream);
template <>
inline void store_vector<__m256i>(std::uint8_t *to, __m256i v, bool stream) {
    if (stream) _mm256_stream_si256(reinterpret_cast<__m256i *>(to), v);
    else _mm256_storeu_si256(reinterpret_cast<__m256i *>(to), v);
}
template <>
inline void store_vector<__m128i>(std::uint8_t *to, __m128i v, bool stream) {
    if (stream) _mm_stream_si128(reinterpret_cast<__m128i *>(to), v);
    else _mm_storeu_si128(reinterpret_cast<__m128i *>(to), v);
}

// 8 x 8 4-byte elements.
[[gnu::always_inline]] inline void transpose_8x8_32(const __m256i *in, __m256i *out) {
    __m256 r[8], t[8], q[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_castsi256_ps(in[i]);
    for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) { // rows 0-3, then 4-7
        q[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
        q[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
        q[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
        q[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
        out[i] = _mm256_castps_si256(_mm256_permute2f128_ps(q[i], q[4 + i], 0x20));
        out[4 + i] = _mm256_castps_si256(_mm256_permute2f128_ps(q[i], q[4 + i], 0x31));
    }
}

// 4 x 4 8-byte elements.
[[gnu::always_inline]] inline void transpose_4x4_64(const __m256i *in, __m256i *out) {
    const __m256d r0 = _mm256_castsi256_pd(in[0]), r1 = _mm256_castsi256_pd(in[1]), r2 = _mm256_castsi256_pd(in[2]),
                  r3 = _mm256_castsi256_pd(in[3]);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
                  t3 = _mm256_unpackhi_pd(r2, r3);
    out[0] = _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x20));
    out[1] = _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x20));
    out[2] = _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x31));
    out[3] = _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x31));
}

// 8 x 8 2-byte elements twice, one block in each 128-bit half of the
// vectors (the unpacks work within halves).
[[gnu::always_inline]] inline void transpose_8x8_16_halves(const __m256i *r, __m256i *out) {
    __m256i a[8], b[8];
    for (int i = 0; i < 4; ++i) {
        a[2 * i] = _mm256_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm256_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) { // rows 0-3, then 4-7
        b[4 * h + 0] = _mm256_unpacklo_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 1] = _mm256_unpackhi_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 2] = _mm256_unpacklo_epi32(a[4 * h + 1], a[4 * h + 3]);
        b[4 * h + 3] = _mm256_unpackhi_epi32(a[4 * h + 1], a[4 * h + 3]);
    }
    for (int i = 0; i < 4; ++i) {
        out[2 * i] = _mm256_unpacklo_epi64(b[i], b[4 + i]);
        out[2 * i + 1] = _mm256_unpackhi_epi64(b[i], b[4 + i]);
    }
}

// 8 x 8 2-byte elements (128-bit vectors): the two-block transpose on the
// low halves alone (the upper ones are never read back).
[[gnu::always_inline]] inline void transpose_8x8_16(const __m128i *r, __m128i *out) {
    __m256i wide[8], moved[8];
    for (int i = 0; i < 8; ++i) wide[i] = _mm256_castsi128_si256(r[i]);
    transpose_8x8_16_halves(wide, moved);
    for (int i = 0; i < 8; ++i) out[i] = _mm256_castsi256_si128(moved[i]);
}

// 4 x 4 4-byte elements (128-bit vectors).
[[gnu::always_inline]] inline void transpose_4x4_32(const __m128i *in, __m128i *out) {
    __m128 r0 = _mm_castsi128_ps(in[0]), r1 = _mm_castsi128_ps(in[1]), r2 = _mm_castsi128_ps(in[2]),
           r3 = _mm_castsi128_ps(in[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    out[0] = _mm_castps_si128(r0);
    out[1] = _mm_castps_si128(r1);
    out[2] = _mm_castps_si128(r2);
    out[3] = _mm_castps_si128(r3);
}

// 2 x 2 8-byte elements (128-bit vectors).
[[gnu::always_inline]] inline void transpose_2x2_64(const __m128i *in, __m128i *out) {
    out[0] = _mm_unpacklo_epi64(in[0], in[1]);
    out[1] = _mm_unpackhi_epi64(in[0], in[1]);
}

// 16 x 16 1-byte elements (128-bit vectors): interleaves of bytes, then
// of 2-, 4- and 8-byte units, each stage pairing rows twice as far apart.
[[gnu::always_inline]] inline void transpose_16x16_8(const __m128i *r, __m128i *out) {
    __m128i t[16], u[16], v[16];
    for (int i = 0; i < 8; ++i) { // rows 2i, 2i + 1: columns 0-7, then 8-15
        t[2 * i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
    }
    for (int j = 0; j < 4; ++j) { // rows 4j to 4j + 3: columns 0-3, 4-7, 8-11, 12-15
        u[4 * j + 0] = _mm_unpacklo_epi16(t[4 * j], t[4 * j + 2]);
        u[4 * j + 1] = _mm_unpackhi_epi16(t[4 * j], t[4 * j + 2]);
        u[4 * j + 2] = _mm_unpacklo_epi16(t[4 * j + 1], t[4 * j + 3]);
        u[4 * j + 3] = _mm_unpackhi_epi16(t[4 * j + 1], t[4 * j + 3]);
    }
    for (int h = 0; h < 2; ++h) // rows 8h to 8h + 7: v[8h + m] holds columns 2m and 2m + 1
        for (int c = 0; c < 4; ++c) {
            v[8 * h + 2 * c] = _mm_unpacklo_epi32(u[8 * h + c], u[8 * h + 4 + c]);
            v[8 * h + 2 * c + 1] = _mm_unpackhi_epi32(u[8 * h + c], u[8 * h + 4 + c]);
        }
    for (int m = 0; m < 8; ++m) {
        out[2 * m] = _mm_unpacklo_epi64(v[m], v[8 + m]);
        out[2 * m + 1] = _mm_unpackhi_epi64(v[m], v[8 + m]);
    }
}

// 2 x 2 16-byte elements (256-bit vectors: a 128-bit half each).
[[gnu::always_inline]] inline void transpose_2x2_128(const __m256i *in, __m256i *out) {
    out[0] = _mm256_permute2x128_si256(in[0], in[1], 0x20);
    out[1] = _mm256_permute2x128_si256(in[0], in[1], 0x31);
}

// 16 x 16 1-byte elements twice, one block in each 128-bit half of the
// vectors (transpose_16x16_8's interleaves work within halves).
[[gnu::always_inline]] inline void transpose_16x16_8_halves(const __m256i *r, __m256i *out) {
    __m256i t[16], u[16], v[16];
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm256_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
    }
    for (int j = 0; j < 4; ++j) {
        u[4 * j + 0] = _mm256_unpacklo_epi16(t[4 * j], t[4 * j + 2]);
        u[4 * j + 1] = _mm256_unpackhi_epi16(t[4 * j], t[4 * j + 2]);
        u[4 * j + 2] = _mm256_unpacklo_epi16(t[4 * j + 1], t[4 * j + 3]);
        u[4 * j + 3] = _mm256_unpackhi_epi16(t[4 * j + 1], t[4 * j + 3]);
    }
    for (int h = 0; h < 2; ++h)
        for (int c = 0; c < 4; ++c) {
            v[8 * h + 2 * c] = _mm256_unpacklo_epi32(u[8 * h + c], u[8 * h + 4 + c]);
            v[8 * h + 2 * c + 1] = _mm256_unpackhi_epi32(u[8 * h + c], u[8 * h + 4 + c]);
        }
    for (int m = 0; m < 8; ++m) {
        out[2 * m] = _mm256_unpacklo_epi64(v[m], v[8 + m]);
        out[2 * m + 1] = _mm256_unpackhi_epi64(v[m], v[8 + m]);
    }
}

// The 128-bit blocks (1- and 2-byte elements) two at a time where the
// level has the transpose within halves: each vector loaded as the two
// blocks' halves, one transpose of 256-bit vectors, each half stored to
// its block. Half the transposes' instructions, which bound these blocks
// as much as their memory traffic (docs/performance.md, "High rank,
// highrank7"). Units are (block, across step) pairs in the single loop's
// order, paired in turn.
template <int L, std::size_t N, void (*Pair)(const __m256i *, __m256i *)>
[[gnu::always_inline]] inline dim_t micro_pairs_avx2(const byte *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                                                    const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset,
                                                    dim_t blocks, const dim_t *across, dim_t across_steps, byte *dst) {
    const dim_t units = blocks * across_steps;
    dim_t i = 0, k = 0; // the first unit of the pair
    dim_t u = 0;
    for (; u + 1 < units; u += 2) {
        dim_t i1 = i, k1 = k + 1;
        if (k1 == across_steps) {
            k1 = 0;
            ++i1;
        }
        const byte *low = src + block_source[i] + across[k] * static_cast<dim_t>(N);
        const byte *high = src + block_source[i1] + across[k1] * static_cast<dim_t>(N);
        byte *to_low = dst + block_offset[i], *to_high = dst + block_offset[i1];
        const std::ptrdiff_t *stored_low = store + across[k], *stored_high = store + across[k1];
        __m256i in[L], out[L];
        for (int b = 0; b < L; ++b)
            in[b] = _mm256_loadu2_m128i(reinterpret_cast<const __m128i *>(high + load[b]),
                                        reinterpret_cast<const __m128i *>(low + load[b]));
        Pair(in, out);
        for (int a = 0; a < L; ++a)
            _mm256_storeu2_m128i(reinterpret_cast<__m128i *>(to_high + stored_high[a]),
                                 reinterpret_cast<__m128i *>(to_low + stored_low[a]), out[a]);
        i = i1;
        k = k1 + 1;
        if (k == across_steps) {
            k = 0;
            ++i;
        }
    }
    return u; // units left from here: at most one
}

template <typename Vector, int L, std::size_t N, void (*Transpose)(const Vector *, Vector *),
          void (*Pair)(const __m256i *, __m256i *) = nullptr>
void micro_blocks_avx2(const byte *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                       const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset, dim_t blocks,
                       const dim_t *across, dim_t across_steps, byte *dst, bool stream, const byte * /*pre*/,
                       const byte * /*post*/) {
    static_assert(sizeof(Vector) == L * N);
    // One block from base (its vectors' loads), to (its stores' base).
    const auto block = [&](const byte *base, byte *to, const std::ptrdiff_t *stored) __attribute__((always_inline)) {
        Vector in[L], out[L];
        for (int b = 0; b < L; ++b) {
            const byte *at = base + load[b];
            if constexpr (sizeof(Vector) == 32) in[b] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at));
            else in[b] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
        }
        Transpose(in, out);
        // Streamed where the whole block's rows are vector-aligned.
        const bool streamed = stream && reinterpret_cast<std::uintptr_t>(to) % sizeof(Vector) == 0;
        for (int a = 0; a < L; ++a) store_vector<Vector>(to + stored[a], out[a], streamed);
    };
    if constexpr (Pair != nullptr) {
        const dim_t done = micro_pairs_avx2<L, N, Pair>(src, load, store, block_source, block_offset, blocks, across,
                                                       across_steps, dst);
        if (done < blocks * across_steps) {
            const dim_t i = done / across_steps, k = done % across_steps;
            block(src + block_source[i] + across[k] * static_cast<dim_t>(N), dst + block_offset[i], store + across[k]);
        }
        return;
    }
    // One across step (dims of 2 and 4): no inner loop, which costs
    // 2 x 2 blocks of 16-byte elements measurably.
    if (across_steps == 1) {
        const byte *from = src + across[0] * static_cast<dim_t>(N);
        const std::ptrdiff_t *stored = store + across[0];
        for (dim_t i = 0; i < blocks; ++i) block(from + block_source[i], dst + block_offset[i], stored);
        return;
    }
    for (dim_t i = 0; i < blocks; ++i)
        for (dim_t k = 0; k < across_steps; ++k)
            block(src + block_source[i] + across[k] * static_cast<dim_t>(N), dst + block_offset[i], store + across[k]);
}

// Blocks of 8 across x 16 along 2-byte elements (micro_along_lanes): the
// source rows of along elements 0-7 in the vectors' low halves, 8-15 in
// their high halves, so that each across element's 16 along elements,
// contiguous in the destination, leave as one 256-bit store.
void micro_wide_along_avx2_16(const byte *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                              const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset, dim_t blocks,
                              const dim_t *across, dim_t across_steps, byte *dst, bool stream, const byte * /*pre*/,
                              const byte * /*post*/) {
    for (dim_t i = 0; i < blocks; ++i)
        for (dim_t k = 0; k < across_steps; ++k) {
            const byte *base = src + block_source[i] + across[k] * 2;
            byte *to = dst + block_offset[i];
            const std::ptrdiff_t *stored = store + across[k];
            __m256i in[8], out[8];
            for (int b = 0; b < 8; ++b)
                in[b] = _mm256_inserti128_si256(
                    _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(base + load[b]))),
                    _mm_loadu_si128(reinterpret_cast<const __m128i *>(base + load[b + 8])), 1);
            transpose_8x8_16_halves(in, out);
            const bool streamed = stream && reinterpret_cast<std::uintptr_t>(to) % 32 == 0;
            for (int a = 0; a < 8; ++a) store_vector<__m256i>(to + stored[a], out[a], streamed);
        }
}

// Blocks of 8 x 8 1-byte elements (dims of 3, where no axes reach 16
// elements for the 16 x 16 blocks but two dims of 3 make 9): each
// vector's 8 bytes loaded into the low half of a 128-bit register,
// interleaved three times, each column stored as 8 bytes. The micro
// kernels store into the staged tile or with ordinary stores (the
// executor passes no streaming to them).
[[gnu::always_inline]] inline void transpose_8x8_8(const __m128i *r, __m128i *columns) {
    const __m128i t0 = _mm_unpacklo_epi8(r[0], r[1]), t1 = _mm_unpacklo_epi8(r[2], r[3]),
                  t2 = _mm_unpacklo_epi8(r[4], r[5]), t3 = _mm_unpacklo_epi8(r[6], r[7]);
    const __m128i u0 = _mm_unpacklo_epi16(t0, t1), u1 = _mm_unpackhi_epi16(t0, t1), u2 = _mm_unpacklo_epi16(t2, t3),
                  u3 = _mm_unpackhi_epi16(t2, t3);
    // columns[c] holds columns 2c and 2c + 1 (8 bytes each).
    columns[0] = _mm_unpacklo_epi32(u0, u2);
    columns[1] = _mm_unpackhi_epi32(u0, u2);
    columns[2] = _mm_unpacklo_epi32(u1, u3);
    columns[3] = _mm_unpackhi_epi32(u1, u3);
}

void micro_blocks_avx2_8x8_8(const byte *src, const std::ptrdiff_t *load, const std::ptrdiff_t *store,
                             const std::ptrdiff_t *block_source, const std::ptrdiff_t *block_offset, dim_t blocks,
                             const dim_t *across, dim_t across_steps, byte *dst, bool /*stream*/, const byte * /*pre*/,
                             const byte * /*post*/) {
    for (dim_t i = 0; i < blocks; ++i)
        for (dim_t k = 0; k < across_steps; ++k) {
            const byte *base = src + block_source[i] + across[k];
            byte *to = dst + block_offset[i];
            const std::ptrdiff_t *stored = store + across[k];
            __m128i in[8], columns[4];
            for (int b = 0; b < 8; ++b) in[b] = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(base + load[b]));
            transpose_8x8_8(in, columns);
            for (int c = 0; c < 4; ++c) {
                _mm_storel_epi64(reinterpret_cast<__m128i *>(to + stored[2 * c]), columns[c]);
                // The high half through an unaligned 64-bit store: the
                // destination's 8 bytes need not be 8-byte aligned, which
                // _mm_storeh_pd's double store assumes.
                _mm_storel_epi64(reinterpret_cast<__m128i *>(to + stored[2 * c + 1]),
                                 _mm_unpackhi_epi64(columns[c], columns[c]));
            }
        }
}

// Staged runs out to the destination: each run's whole lines streamed,
// its partial first and last lines (runs of dims of 3 never start on a
// line) with ordinary stores that stay off the streamed lines (a line
// both cached by an ordinary store and then streamed measured far slower),
// or, for joined tiles, through the carry (a line of 64 bytes per run):
// the last one kept there, the first one completed there and streamed.
// (The engine's run copy takes two calls of memcpy for those: half the
// kernel's time at runs of 324 bytes.)
void write_staged_avx2(const byte *buffer, std::size_t run_bytes, const std::ptrdiff_t *offset, std::size_t runs,
                       byte *dst, byte *carry, bool head_joined, bool tail_joined) {
    for (std::size_t r = 0; r < runs; ++r) {
        const byte *from = buffer + r * run_bytes;
        byte *to = dst + offset[r];
        const auto at = reinterpret_cast<std::uintptr_t>(to);
        const std::size_t first = std::min<std::size_t>(((at + 63) & ~std::uintptr_t{63}) - at, run_bytes);
        const std::size_t last = std::max<std::size_t>(((at + run_bytes) & ~std::uintptr_t{63}) - at, first);
        byte *line = carry ? carry + r * 64 : nullptr;
        // The previous tile's run ended at `to`, its last 64 - first bytes
        // in the carry (joined runs are a line or longer: their first and
        // last lines differ).
        if (line && head_joined && first > 0) {
            // The line joined in registers: the carry's bytes below 64 -
            // first, the 64 bytes ending at from + first above (the staged
            // tile is readable 64 bytes before its start). Written into the
            // carry and loaded back, each load waited for the narrower
            // stores before it (no store forwarding).
            const __m256i at_or_past = _mm256_set1_epi8(static_cast<char>(63 - first));
            const __m256i low_index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                                       19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
            const __m256i high_index = _mm256_add_epi8(low_index, _mm256_set1_epi8(32));
            const byte *window = from + first - 64;
            byte *start = to + first - 64;
            const __m256i low = _mm256_blendv_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(line)),
                                                   _mm256_loadu_si256(reinterpret_cast<const __m256i *>(window)),
                                                   _mm256_cmpgt_epi8(low_index, at_or_past));
            const __m256i high = _mm256_blendv_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(line + 32)),
                                                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(window + 32)),
                                                    _mm256_cmpgt_epi8(high_index, at_or_past));
            _mm256_stream_si256(reinterpret_cast<__m256i *>(start), low);
            _mm256_stream_si256(reinterpret_cast<__m256i *>(start + 32), high);
        } else {
            copy_short(to, from, first);
        }
        for (std::size_t b = first; b < last; b += 64) {
            _mm256_stream_si256(reinterpret_cast<__m256i *>(to + b), _mm256_loadu_si256(reinterpret_cast<const __m256i *>(from + b)));
            _mm256_stream_si256(reinterpret_cast<__m256i *>(to + b + 32),
                                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(from + b + 32)));
        }
        // The next tile's run r starts where this one ends.
        if (line && tail_joined) std::memcpy(line, from + last, run_bytes - last);
        else copy_short(to + last, from + last, run_bytes - last);
    }
}

} // namespace

write_staged_fn avx2_grouped_write_staged() { return &write_staged_avx2; }

micro_transpose_fn avx2_grouped_micro_kernel(int log2e, dim_t lanes, dim_t along_lanes) {
    if (along_lanes != lanes) return log2e == 1 && lanes == 8 && along_lanes == 16 ? &micro_wide_along_avx2_16 : nullptr;
    if (log2e == 0 && lanes == 16) return &micro_blocks_avx2<__m128i, 16, 1, transpose_16x16_8, transpose_16x16_8_halves>;
    if (log2e == 0 && lanes == 8) return &micro_blocks_avx2_8x8_8;
    if (log2e == 1 && lanes == 8) return &micro_blocks_avx2<__m128i, 8, 2, transpose_8x8_16, transpose_8x8_16_halves>;
    if (log2e == 2 && lanes == 8) return &micro_blocks_avx2<__m256i, 8, 4, transpose_8x8_32>;
    if (log2e == 2 && lanes == 4) return &micro_blocks_avx2<__m128i, 4, 4, transpose_4x4_32>;
    if (log2e == 3 && lanes == 4) return &micro_blocks_avx2<__m256i, 4, 8, transpose_4x4_64>;
    if (log2e == 3 && lanes == 2) return &micro_blocks_avx2<__m128i, 2, 8, transpose_2x2_64>;
    if (log2e == 4 && lanes == 2) return &micro_blocks_avx2<__m256i, 2, 16, transpose_2x2_128>;
    return nullptr;
}

gather_runs_fn avx2_grouped_gather_kernel(int log2e) {
    switch (log2e) {
    case 0: return &gather_runs_avx2<1>;
    case 1: return &gather_runs_avx2<2>;
    case 2: return &gather_runs_avx2<4>;
    case 3: return &gather_runs_avx2<8>;
    case 4: return &gather_runs_avx2_whole<16>;
    case 5: return &gather_runs_avx2_whole<32>;
    }
    return nullptr;
}

} // namespace reshaper::impl
