// What one thread's DRAM transposes could reach on this machine: access
// patterns of f32 NHWC as NCHW ([16, 4096, 256] -> [16, 256, 4096], 64 MiB
// each way, line-aligned, pre-faulted) with and without the transpose's
// work, against the streaming copy of the same bytes. Each walk is timed in
// turn with the others, rounds interleaved; medians (docs/performance.md,
// "Why the kernels are tuned as they are": the ceiling bullet).
//
//   dram_ceiling_bench [ROUNDS [WALK,WALK,...|all [DST_OFFSET]]]
//
// (a walk named twice runs twice a round: copy,library,memcpy,copy times
// the copy again after memcpy, as reshaper-run's rounds run them)
//
// The walks (see `walks` in main):
// - copy, read, read_prefetch, memcpy: the yardsticks (the NT-store copy,
//   loads alone in order, the same with a software prefetch a step ahead,
//   glibc's memcpy).
// - library: the move through strided_copy, the planned kernel itself;
//   partition: the same as a graph's compiled partition through the
//   public API (as reshaper-run --mode=perf executes it).
// - kernel: the AVX2 walk's streamed wide tile as the strips call it (8
//   tiles side by side, 128 KiB column steps, the next step's lines
//   prefetched, avx2_ops::walk[far_rows][f32]).
// - kernel_loads: the same loads and streamed stores in the same order,
//   without the shuffles (what the walk's memory order alone costs);
//   kernel_reads: its loads and prefetches alone (no shuffles, no stores);
//   kernel_reads_by_line: the same with each line's halves loaded together.
// - kernel_to_l1: the kernel's reads and shuffles, stores into an L1
//   buffer (no writes to memory); kernel_from_l2: the source a fixed
//   128 KiB that stays in L2, streamed stores (compute and writes);
//   compute: both (compute alone).
// - line_halves: the kernel with both halves of each source line
//   transposed together (one L2 -> L1 fill per line), the call's 16 rows
//   of 512 bytes held, then streamed.
// - staged_call: the kernel, each call's 128 source lines first copied in
//   order into an L1 buffer (one L2 -> L1 fill per line, not two) and
//   transposed from there.
// - touch_next_step, touch_two_steps: the kernel with its prefetches
//   replaced by demand loads of the next (or the second next) step's lines
//   in memory order, for the hardware prefetchers to follow.
// - prefetch_rows_D: the kernel with its prefetches starting D source rows
//   past the step's start (the kernel: 128, one step).
// - seq_R, seq_R_prefetch: no shuffle; the source read in order in chunks
//   of R rows (R KiB), each line streamed whole to a line of the
//   destination rows, each row receiving R * 4 bytes per chunk (R = 16: a
//   line into each of the 256 rows); _prefetch adds the kernel's software
//   prefetch of the next chunk, in memory order, a line per line copied.
// - chunk_R_pfK: the transpose with the source read in chunks of R rows
//   (R / 16 tiles side by side), the chunk K ahead prefetched, a share per
//   tile call.
// - window_staged_pfK: 16-row windows (a tile's rows) read and transposed
//   into an L2 buffer of 256 rows x 512 bytes, streamed out in 512-byte
//   runs after 8 windows; the window K ahead prefetched.
// - rows_staged_R[_full][_overlap][_pfD[_l2]]: in-order chunks of R source
//   rows (one sequential stream), 8 rows at a time across all channels,
//   each 8 x 8 block transposed into an L2 buffer of 256 rows x R * 4
//   bytes (R = 64: 64 KiB), streamed out R * 4 bytes per row; _full: the
//   blocks' rows loaded whole (8 loads and lane permutes, not 16 halves);
//   _overlap: two buffers, a chunk's rows streamed a share per 8-row group
//   of the next; _pfD: D KiB ahead in memory order prefetched, 4 lines per
//   block (_l2: into L2). rows_staged_64_fixed: every chunk read from the
//   first (in L2): the staging's compute, buffer and writes alone.
// - kernel_l2, kernel_l2_Nsteps: the kernel with its prefetches into L2
//   (prefetcht2), one or N steps ahead.
// - two_level_l2 / two_level_l1 / near_only / two_level_l2_2steps: the
//   kernel's next-step prefetch into L2 (L1; none; two steps ahead into
//   L2) plus the next tile call's 128 lines into L1 (prefetchw, through
//   line_prefetch::writes), a share per register block.
// - lines_c_outer, lines_w_outer, lines_pairs: a wide tile that does not
//   spill (lines_call: each 64-byte destination line made from two half-row
//   blocks, 8 vectors live, and streamed as soon as it is made), in three
//   orders; _l2: the same from a source fixed in L2 (compute and writes).
// - lines_buffered, lines_buffered_whole (and _l2): the same blocks into an
//   L1 buffer of 8 or all 16 of the call's destination rows, each row then
//   streamed as one 512-byte run (lines_buffered_call).
// DST_OFFSET: bytes past a page the destination starts at (4K aliasing).
//
// Build at the library's optimisation level (-O3): at -O2 the wide tile's
// helpers spill and the kernel alone ran at half its speed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "kernels/isa_kernels_simd.hpp"
#include "kernels/strided_copy.hpp"
#include "reshaper/reshaper.hpp"

using namespace reshaper::impl;

namespace {

using byte_t = std::uint8_t;

constexpr std::ptrdiff_t images = 16, positions = 4096, channels = 256, element = 4;
constexpr std::ptrdiff_t src_pitch = channels * element;  // 1 KiB
constexpr std::ptrdiff_t dst_pitch = positions * element; // 16 KiB
constexpr std::ptrdiff_t image_bytes = positions * channels * element;
constexpr std::size_t total_bytes = images * image_bytes;
constexpr int wide = 8, tile = 16; // the walk's f32 far-rows wide tile
constexpr std::ptrdiff_t step_rows = wide * tile;

double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void stream_line(byte_t *d, const byte_t *s) {
    avx2_ops::stream(d, avx2_ops::load(s));
    avx2_ops::stream(d + 32, avx2_ops::load(s + 32));
}

void streaming_copy(const byte_t *src, byte_t *dst) {
    for (std::size_t i = 0; i < total_bytes; i += 64) stream_line(dst + i, src + i);
    _mm_sfence();
}

void read_alone(const byte_t *src, bool prefetch = false) {
    __m256i acc = _mm256_setzero_si256();
    const std::size_t ahead = step_rows * src_pitch;
    for (std::size_t i = 0; i < total_bytes; i += 64) {
        if (prefetch) // an integer address: past the buffer at its end
            __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<std::uintptr_t>(src) + i + ahead), 0, 3);
        acc = _mm256_xor_si256(acc, _mm256_xor_si256(avx2_ops::load(src + i), avx2_ops::load(src + i + 32)));
    }
    asm volatile("" ::"x"(acc));
}

enum class kernel_mode { touch, whole, loads_only, reads_only, reads_by_line, to_l1, from_l2, compute, staged_call, line_halves,
                         two_level_l2, two_level_l1, near_only, whole_l2, lines_c_outer, lines_w_outer, lines_pairs, lines_c_outer_l2, lines_w_outer_l2, lines_pairs_l2, lines_buffered, lines_buffered_l2, lines_buffered_whole, lines_buffered_whole_l2 };

// One call's half-row blocks of group (w, c): source rows r and 4 + r in
// one vector's two halves (a: rows 0-7, b: rows 8-15), so a 4 x 4
// transpose within each half leaves whole 32-byte destination rows.
inline void half_row_blocks(const byte_t *from, int w, int c, __m256i (&a)[4], __m256i (&b)[4]) {
    const byte_t *low = from + w * tile * src_pitch + c * 16, *high = low + 4 * src_pitch;
    const byte_t *low2 = low + 8 * src_pitch, *high2 = low + 12 * src_pitch;
    asm("" : "+r"(low), "+r"(high), "+r"(low2), "+r"(high2));
    for (int r = 0; r < 4; ++r) {
        a[r] = avx2_ops::load_halves(low + r * src_pitch, high + r * src_pitch);
        b[r] = avx2_ops::load_halves(low2 + r * src_pitch, high2 + r * src_pitch);
    }
    transpose_in_lanes<avx2_ops, 4>(a);
    transpose_in_lanes<avx2_ops, 4>(b);
}

// A wide tile that does not spill at AVX2: each 64-byte destination line
// made whole from two half-row blocks of 4 x 8 (source rows r and 4 + r in
// one vector's halves, so the in-lane 4 x 4 transpose alone leaves whole
// 32-byte destination rows: 8 vectors live) and streamed as soon as it is
// made. The 16 destination rows of a call in 4 groups (c: source bytes
// c * 16 ...); Order 0: c outermost (4 rows interleaved, each source line
// read 4 times a call); 1: tiles outermost (16 rows interleaved, each line
// read 4 times back to back); 2: pairs of c outermost, the pair inner (8
// rows interleaved, a line's halves read back to back).
// The same half-row blocks stored into an L1 buffer of 16 / Parts rows of
// 512 bytes (ordinary stores; the register blocks' spill made explicit,
// without the lane permutes), each row then streamed as one 512-byte run:
// Parts = 2 as the kernel (8 rows, 4 KiB), 1 the whole call (16 rows).
template <int Parts>
void lines_buffered_call(const byte_t *from, byte_t *to, line_prefetch *next) {
    constexpr int groups = 4 * wide, rows = 16 / Parts;
    const int per_group = next ? (next->per_call + groups - 1) / groups : 0;
    alignas(64) static byte_t buffer[rows][wide * 64];
    for (int h = 0; h < Parts; ++h) {
        for (int w = 0; w < wide; ++w)
            for (int c = h * (4 / Parts); c < (h + 1) * (4 / Parts); ++c) {
                if (next) next->issue<3>(per_group);
                __m256i a[4], b[4];
                half_row_blocks(from, w, c, a, b);
                byte_t *line = buffer[(c % (4 / Parts)) * 4] + w * 64;
                for (int j = 0; j < 4; ++j) {
                    avx2_ops::store(line + j * wide * 64, a[j]);
                    avx2_ops::store(line + j * wide * 64 + 32, b[j]);
                }
            }
        byte_t *row = to + h * rows * dst_pitch;
        for (int j = 0; j < rows; ++j, row += dst_pitch) {
            asm("" : "+r"(row));
            for (int p = 0; p < wide * 2; ++p) avx2_ops::stream(row + p * 32, avx2_ops::load(buffer[j] + p * 32));
        }
    }
}

template <int Order>
void lines_call(const byte_t *from, byte_t *to, line_prefetch *next) {
    constexpr int groups = 4 * wide;
    const int per_group = next ? (next->per_call + groups - 1) / groups : 0;
    const auto group = [&](int w, int c) {
        if (next) next->issue<3>(per_group);
        byte_t *row = to + c * 4 * dst_pitch + w * 64;
        asm("" : "+r"(row));
        __m256i a[4], b[4];
        half_row_blocks(from, w, c, a, b);
        for (int j = 0; j < 4; ++j) {
            avx2_ops::stream(row + j * dst_pitch, a[j]);
            avx2_ops::stream(row + j * dst_pitch + 32, b[j]);
        }
    };
    if constexpr (Order == 0) {
        for (int c = 0; c < 4; ++c)
            for (int w = 0; w < wide; ++w) group(w, c);
    } else if constexpr (Order == 1) {
        for (int w = 0; w < wide; ++w)
            for (int c = 0; c < 4; ++c) group(w, c);
    } else {
        for (int h = 0; h < 2; ++h)
            for (int w = 0; w < wide; ++w)
                for (int c = 2 * h; c < 2 * h + 2; ++c) group(w, c);
    }
}

// The kernel's step walk: per image, column steps of 128 source rows, each
// step a wide tile call per 16 channels; the next step's lines prefetched
// from `prefetch_rows` rows past the step's start (none for the last).
void kernel_walk(const byte_t *src, byte_t *dst, kernel_mode mode, std::ptrdiff_t prefetch_rows = step_rows) {
    alignas(64) static byte_t sink[tile * wide * 64];
    alignas(64) static byte_t fixed[step_rows * src_pitch];
    static const bool filled = (std::memset(fixed, 3, sizeof fixed), true); // pages of its own, not the zero page's
    (void)filled;
    for (std::ptrdiff_t n = 0; n < images; ++n) {
        const byte_t *s = src + n * image_bytes;
        byte_t *d = dst + n * image_bytes;
        for (std::ptrdiff_t col = 0; col < positions; col += step_rows) {
            line_prefetch ahead{};
            line_prefetch *next = nullptr;
            if (col + prefetch_rows + step_rows <= positions) {
                ahead = line_prefetch{reinterpret_cast<std::uintptr_t>(s + (col + prefetch_rows) * src_pitch), src_pitch,
                                      src_pitch / 64, step_rows, 0,
                                      static_cast<int>(step_rows * (src_pitch / 64) / (channels / tile))};
                next = &ahead;
            }
            for (std::ptrdiff_t r = 0; r < channels; r += tile) {
                const byte_t *from = s + col * src_pitch + r * element;
                byte_t *to = d + r * dst_pitch + col * element;
                switch (mode) {
                case kernel_mode::whole:
                    transpose_tiles<avx2_ops, 4, wide, true>(from, src_pitch, to, dst_pitch, true, next);
                    break;
                case kernel_mode::lines_c_outer: lines_call<0>(from, to, next); break;
                case kernel_mode::lines_w_outer: lines_call<1>(from, to, next); break;
                case kernel_mode::lines_pairs: lines_call<2>(from, to, next); break;
                case kernel_mode::lines_buffered: lines_buffered_call<2>(from, to, next); break;
                case kernel_mode::lines_buffered_l2: lines_buffered_call<2>(fixed + r * element, to, nullptr); break;
                case kernel_mode::lines_buffered_whole: lines_buffered_call<1>(from, to, next); break;
                case kernel_mode::lines_buffered_whole_l2: lines_buffered_call<1>(fixed + r * element, to, nullptr); break;
                case kernel_mode::lines_c_outer_l2: lines_call<0>(fixed + r * element, to, nullptr); break;
                case kernel_mode::lines_w_outer_l2: lines_call<1>(fixed + r * element, to, nullptr); break;
                case kernel_mode::lines_pairs_l2: lines_call<2>(fixed + r * element, to, nullptr); break;
                case kernel_mode::whole_l2: // the kernel with its prefetches into L2 (prefetcht2)
                    transpose_tiles<avx2_ops, 4, wide, true, 1>(from, src_pitch, to, dst_pitch, true, next);
                    break;
                case kernel_mode::two_level_l2:
                case kernel_mode::two_level_l1:
                case kernel_mode::near_only: {
                    // the next step's lines into L2 (or L1) as the kernel
                    // does, and the next call's 128 lines (the same rows'
                    // next line, or the next step's first) into L1 for
                    // writing (prefetchw: line_prefetch::writes), a share
                    // per register block beside them
                    const byte_t *near_from = r + tile < channels ? from + tile * element
                                              : col + step_rows < positions ? s + (col + step_rows) * src_pitch : nullptr;
                    line_prefetch near{}, far{};
                    line_prefetch *both = nullptr;
                    if (near_from) {
                        near = line_prefetch{reinterpret_cast<std::uintptr_t>(near_from), src_pitch, 1, step_rows, 0, 0};
                        if (mode == kernel_mode::near_only || !next)
                            far = line_prefetch{0, 0, 1, 0, 0, static_cast<int>(step_rows)}; // no rows: issues nothing
                        else
                            far = *next;
                        far.per_call = static_cast<int>(step_rows);
                        far.writes = &near;
                        both = &far;
                    }
                    if (mode == kernel_mode::two_level_l1)
                        transpose_tiles<avx2_ops, 4, wide, true, 3>(from, src_pitch, to, dst_pitch, true, both);
                    else
                        transpose_tiles<avx2_ops, 4, wide, true, 1>(from, src_pitch, to, dst_pitch, true, both);
                    if (both && next) { // the far walk's position carried on
                        next->row = far.row;
                        next->line = far.line;
                        next->rows_left = far.rows_left;
                    }
                    break;
                }
                case kernel_mode::to_l1:
                    transpose_tiles<avx2_ops, 4, wide, true>(from, src_pitch, sink, wide * 64, false, next);
                    break;
                case kernel_mode::from_l2:
                    transpose_tiles<avx2_ops, 4, wide, false>(fixed + r * element, src_pitch, to, dst_pitch, true, nullptr);
                    break;
                case kernel_mode::compute:
                    transpose_tiles<avx2_ops, 4, wide, false>(fixed + r * element, src_pitch, sink, wide * 64, false,
                                                              nullptr);
                    break;
                case kernel_mode::loads_only: {
                    // transpose_tiles' streamed path without transpose_block's shuffles
                    using vec = __m256i;
                    constexpr int B = 8, parts = 2, blocks = parts * parts * wide;
                    const int per_block = next ? (next->per_call + blocks - 1) / blocks : 0;
                    for (int b = 0; b < parts; ++b) {
                        vec out[wide][parts][B];
                        for (int w = 0; w < wide; ++w)
                            for (int a = 0; a < parts; ++a) {
                                if (next) next->issue<3>(per_block);
                                const byte_t *f = from + (w * tile + a * B) * src_pitch + b * 32;
                                for (int q = 0; q < B; ++q) out[w][a][q] = avx2_ops::load(f + q * src_pitch);
                            }
                        store_rows<avx2_ops>(out, to + b * B * dst_pitch, dst_pitch, true);
                    }
                    break;
                }
                case kernel_mode::touch: {
                    // the next step's lines loaded (demand loads, in memory
                    // order, a share per call) instead of prefetched, so the
                    // hardware prefetchers see an ascending demand stream
                    if (next) {
                        __m256i acc = _mm256_setzero_si256();
                        std::uintptr_t at = next->row;
                        for (int k = 0; k < next->per_call; ++k, at += 64)
                            acc = _mm256_or_si256(acc, _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(at))));
                        next->row = at;
                        asm volatile("" ::"x"(acc));
                    }
                    transpose_tiles<avx2_ops, 4, wide, false>(from, src_pitch, to, dst_pitch, true, nullptr);
                    break;
                }
                case kernel_mode::reads_only: {
                    // the kernel's loads in its order with its prefetches: no shuffles, no stores
                    using vec = __m256i;
                    constexpr int B = 8, parts = 2, blocks = parts * parts * wide;
                    const int per_block = next ? (next->per_call + blocks - 1) / blocks : 0;
                    vec acc = _mm256_setzero_si256();
                    for (int b = 0; b < parts; ++b)
                        for (int w = 0; w < wide; ++w)
                            for (int a = 0; a < parts; ++a) {
                                if (next) next->issue<3>(per_block);
                                const byte_t *f = from + (w * tile + a * B) * src_pitch + b * 32;
                                for (int q = 0; q < B; ++q) acc = _mm256_xor_si256(acc, avx2_ops::load(f + q * src_pitch));
                            }
                    asm volatile("" ::"x"(acc));
                    break;
                }
                case kernel_mode::reads_by_line: {
                    // as reads_only, each line's two halves loaded together
                    using vec = __m256i;
                    constexpr int B = 8, parts = 2, blocks = parts * wide;
                    const int per_block = next ? (next->per_call + blocks - 1) / blocks : 0;
                    vec acc = _mm256_setzero_si256();
                    for (int w = 0; w < wide; ++w)
                        for (int a = 0; a < parts; ++a) {
                            if (next) next->issue<3>(per_block);
                            const byte_t *f = from + (w * tile + a * B) * src_pitch;
                            for (int q = 0; q < B; ++q)
                                acc = _mm256_xor_si256(acc, _mm256_xor_si256(avx2_ops::load(f + q * src_pitch),
                                                                             avx2_ops::load(f + q * src_pitch + 32)));
                        }
                    asm volatile("" ::"x"(acc));
                    break;
                }
                case kernel_mode::line_halves: {
                    // both 32-byte halves of each source line transposed
                    // together (one L2 -> L1 fill per line), all 16 rows'
                    // runs held, then streamed
                    using vec = __m256i;
                    constexpr int B = 8, parts = 2, blocks = parts * wide;
                    const int per_block = next ? (next->per_call + blocks - 1) / blocks : 0;
                    vec out[parts][wide][parts][B]; // [b][w][a][row]
                    for (int w = 0; w < wide; ++w)
                        for (int a = 0; a < parts; ++a) {
                            if (next) next->issue<3>(per_block);
                            const byte_t *f = from + (w * tile + a * B) * src_pitch;
                            transpose_block<avx2_ops, 4>(f, src_pitch, out[0][w][a]);
                            transpose_block<avx2_ops, 4>(f + 32, src_pitch, out[1][w][a]);
                        }
                    for (int b = 0; b < parts; ++b) store_rows<avx2_ops>(out[b], to + b * B * dst_pitch, dst_pitch, true);
                    break;
                }
                case kernel_mode::staged_call: {
                    alignas(64) byte_t staged[step_rows * 64];
                    const int per_line = next ? (next->per_call + step_rows - 1) / step_rows : 0;
                    const byte_t *f = from;
                    for (int q = 0; q < step_rows; ++q, f += src_pitch) {
                        if (next && q % 4 == 0) next->issue<3>(4 * per_line);
                        asm("" : "+r"(f));
                        avx2_ops::store(staged + q * 64, avx2_ops::load(f));
                        avx2_ops::store(staged + q * 64 + 32, avx2_ops::load(f + 32));
                    }
                    transpose_tiles<avx2_ops, 4, wide, false>(staged, 64, to, dst_pitch, true, nullptr);
                    break;
                }
                }
            }
        }
    }
    _mm_sfence();
}

// No shuffle: chunks of R source rows read in order, line l of the chunk
// streamed to line l % (R / 16) of destination row l / (R / 16)'s run.
template <int R>
void sequential_lines(const byte_t *src, byte_t *dst, bool prefetch) {
    constexpr std::ptrdiff_t per_row = R / 16;
    for (std::ptrdiff_t n = 0; n < images; ++n) {
        const byte_t *s = src + n * image_bytes;
        byte_t *d = dst + n * image_bytes;
        for (std::ptrdiff_t col = 0; col < positions; col += R) {
            const byte_t *chunk = s + col * src_pitch;
            auto ahead = reinterpret_cast<std::uintptr_t>(chunk + R * src_pitch);
            const bool issue = prefetch && col + 2 * R <= positions;
            for (std::ptrdiff_t c = 0; c < channels; ++c)
                for (std::ptrdiff_t l = 0; l < per_row; ++l) {
                    if (issue) {
                        __builtin_prefetch(reinterpret_cast<const void *>(ahead), 0, 3);
                        ahead += 64;
                    }
                    stream_line(d + c * dst_pitch + col * element + l * 64, chunk + (c * per_row + l) * 64);
                }
        }
    }
    _mm_sfence();
}

// The transpose in chunks of R source rows (R / 16 tiles side by side), the
// chunk `ahead` chunks on prefetched a share per tile call.
template <int R>
void chunked_transpose(const byte_t *src, byte_t *dst, int ahead) {
    constexpr int W = R / tile;
    constexpr std::ptrdiff_t chunk_bytes = R * src_pitch;
    const byte_t *end = src + total_bytes;
    for (std::ptrdiff_t n = 0; n < images; ++n) {
        const byte_t *s = src + n * image_bytes;
        byte_t *d = dst + n * image_bytes;
        for (std::ptrdiff_t col = 0; col < positions; col += R) {
            const byte_t *chunk = s + col * src_pitch;
            auto at = reinterpret_cast<std::uintptr_t>(chunk + ahead * chunk_bytes);
            const int per_call = static_cast<int>(chunk_bytes / 64 / (channels / tile));
            for (std::ptrdiff_t r = 0; r < channels; r += tile) {
                if (ahead && reinterpret_cast<const byte_t *>(at) < end)
                    for (int k = 0; k < per_call; ++k, at += 64) __builtin_prefetch(reinterpret_cast<const void *>(at), 0, 3);
                transpose_tiles<avx2_ops, 4, W, false>(chunk + r * element, src_pitch,
                                                       d + r * dst_pitch + col * element, dst_pitch, true, nullptr);
            }
        }
    }
    _mm_sfence();
}

// 16-row windows transposed into an L2 buffer of 256 rows x 512 bytes,
// streamed out in 512-byte runs every 8 windows.
void window_staged(const byte_t *src, byte_t *dst, int ahead) {
    constexpr std::ptrdiff_t run = step_rows * element; // 512
    alignas(64) static byte_t staged[channels * run];
    for (std::ptrdiff_t n = 0; n < images; ++n) {
        const byte_t *s = src + n * image_bytes;
        byte_t *d = dst + n * image_bytes;
        for (std::ptrdiff_t col = 0; col < positions; col += step_rows) {
            for (int sub = 0; sub < wide; ++sub) {
                const byte_t *window = s + (col + sub * tile) * src_pitch;
                auto at = reinterpret_cast<std::uintptr_t>(window + ahead * tile * src_pitch);
                for (std::ptrdiff_t r = 0; r < channels; r += tile) {
                    if (ahead)
                        for (int k = 0; k < tile; ++k, at += 64) __builtin_prefetch(reinterpret_cast<const void *>(at), 0, 3);
                    transpose_tiles<avx2_ops, 4, 1, false>(window + r * element, src_pitch, staged + r * run + sub * 64,
                                                           run, false, nullptr);
                }
            }
            for (std::ptrdiff_t c = 0; c < channels; ++c)
                for (int l = 0; l < wide; ++l) stream_line(d + c * dst_pitch + col * element + l * 64, staged + c * run + l * 64);
        }
    }
    _mm_sfence();
}

// In-order chunks of R source rows (R KiB, one sequential stream) read 8
// rows at a time across all channels (8 streams within 8 KiB), each 8 x 8
// block transposed into an L2 buffer of 256 rows x R * 4 bytes, then
// streamed out R * 4 bytes per destination row. `ahead`: bytes past the
// block's place in memory order prefetched, 4 lines per block (none: 0).
// `overlap`: two buffers, each chunk's rows streamed out a share per
// 8-row group of the next chunk (the stores drain while the loads wait).
// Full: each block's 8 rows loaded whole (transpose_block: 8 loads, lane
// permutes) instead of in halves (transpose_block_into: 16 loads).
// Fixed: every chunk read from the same first chunk (in L2 after the
// first): the staging's compute, buffer and streamed writes alone.
template <int R, int Locality, bool Full = false, bool Fixed = false>
void rows_staged(const byte_t *src, byte_t *dst, std::ptrdiff_t ahead, bool overlap) {
    constexpr std::ptrdiff_t run = R * element;
    constexpr std::ptrdiff_t buffer_bytes = channels * run;
    constexpr int groups = R / 8;
    constexpr std::ptrdiff_t rows_per_group = channels / groups;
    alignas(64) static byte_t staged[2][buffer_bytes];
    const byte_t *pending = nullptr; // the previous chunk's buffer, still to stream
    byte_t *pending_to = nullptr;
    int which = 0;
    const auto flush_rows = [&](std::ptrdiff_t first, std::ptrdiff_t count) {
        for (std::ptrdiff_t c = first; c < first + count; ++c)
            for (std::ptrdiff_t l = 0; l < run; l += 64) stream_line(pending_to + c * dst_pitch + l, pending + c * run + l);
    };
    for (std::ptrdiff_t n = 0; n < images; ++n) {
        const byte_t *s = src + n * image_bytes;
        byte_t *d = dst + n * image_bytes;
        for (std::ptrdiff_t col = 0; col < positions; col += R) {
            const byte_t *chunk = Fixed ? src : s + col * src_pitch;
            byte_t *buffer = staged[which];
            auto at = reinterpret_cast<std::uintptr_t>(chunk) + static_cast<std::uintptr_t>(ahead);
            for (int g = 0; g < groups; ++g) {
                const byte_t *rows = chunk + g * 8 * src_pitch;
                for (std::ptrdiff_t cb = 0; cb < channels / 8; ++cb) {
                    if (ahead) {
                        for (int k = 0; k < 4; ++k)
                            __builtin_prefetch(reinterpret_cast<const void *>(at + k * 64), 0, Locality);
                        at += 256;
                    }
                    if constexpr (Full) {
                        __m256i out[8];
                        transpose_block<avx2_ops, 4>(rows + cb * 32, src_pitch, out);
                        for (int k = 0; k < 8; ++k) avx2_ops::store(buffer + (cb * 8 + k) * run + g * 32, out[k]);
                    } else {
                        transpose_block_into<avx2_ops, 4>(rows + cb * 32, src_pitch, buffer + cb * 8 * run + g * 32, run);
                    }
                }
                if (overlap && pending) flush_rows(g * rows_per_group, rows_per_group);
            }
            if (overlap) {
                pending = buffer;
                pending_to = d + col * element;
                which ^= 1;
            } else {
                pending = buffer;
                pending_to = d + col * element;
                flush_rows(0, channels);
            }
        }
    }
    if (overlap && pending) flush_rows(0, channels);
    _mm_sfence();
}

void library(const byte_t *src, byte_t *dst) {
    strided_copy(data_type::f32, {images, channels, positions},
                 {const_cast<byte_t *>(src), 0, {positions * channels, 1, channels}},
                 {dst, 0, {channels * positions, positions, 1}});
}

// The same move as a graph through the public API: a Reshape of the
// [16,256,64,64] tensor whose strides read the NHWC data as NCHW, compiled
// once, executed as reshaper-run --mode=perf executes it.
struct partition_move {
    reshaper::engine engine{reshaper::engine_kind::cpu};
    reshaper::graph graph;
    std::vector<reshaper::partition> parts;
    reshaper::compiled_partition compiled;
    partition_move()
        : graph(reshaper::graph::from_json(
                  R"({"version":"3.3.0","engine_kind":"cpu","graph":[{"id":0,"name":"r","kind":"StaticReshape","attrs":{)"
                  R"("special_zero":{"type":"bool","value":0},"shape":{"type":"s64[]","value":[16,1048576]}},)"
                  R"("inputs":[{"id":0,"dtype":"f32","shape":[16,256,64,64],"stride":[1048576,1,16384,256],)"
                  R"("layout_type":"strided","property_type":"undef"}],"outputs":[{"id":1,"dtype":"f32",)"
                  R"("shape":[16,1048576],"stride":[1048576,1],"layout_type":"strided","property_type":"undef"}]}]})")),
          parts(graph.partitions()), compiled(parts.at(0).compile(engine)) {}
    void run(const byte_t *src, byte_t *dst) const { compiled.execute({src}, {dst}); }
};

// Spot checks of a transposing walk's output.
bool transposed(const byte_t *src, const byte_t *dst) {
    for (std::ptrdiff_t n = 0; n < images; n += 5)
        for (std::ptrdiff_t p = 0; p < positions; p += 7)
            for (std::ptrdiff_t c = 0; c < channels; ++c)
                if (std::memcmp(dst + n * image_bytes + c * dst_pitch + p * element,
                                src + n * image_bytes + p * src_pitch + c * element, element) != 0)
                    return false;
    return true;
}

} // namespace

int main(int argc, char **argv) {
    tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
    const std::string chosen = argc > 2 ? argv[2] : "all";
    const std::size_t offset = argc > 3 ? static_cast<std::size_t>(std::atoi(argv[3])) % 4096 : 0;
    auto *src = static_cast<byte_t *>(std::aligned_alloc(4096, total_bytes));
    auto *dst_buffer = static_cast<byte_t *>(std::aligned_alloc(4096, total_bytes + 4096));
    byte_t *dst = dst_buffer + offset / 64 * 64;
    for (std::size_t i = 0; i < total_bytes; ++i) src[i] = static_cast<byte_t>((i * 2654435761u) >> 13);
    std::memset(dst, 1, total_bytes);

    const partition_move move;
    struct walk {
        std::string name;
        std::function<void()> run;
        bool transposes = false;
    };
    const std::vector<walk> walks = {
            {"copy", [&] { streaming_copy(src, dst); }},
            {"read", [&] { read_alone(src); }},
            {"read_prefetch", [&] { read_alone(src, true); }},
            {"memcpy", [&] { std::memcpy(dst, src, total_bytes); }},
            {"library", [&] { library(src, dst); }, true},
            {"partition", [&] { move.run(src, dst); }, true},
            {"kernel", [&] { kernel_walk(src, dst, kernel_mode::whole); }, true},
            {"touch_next_step", [&] { kernel_walk(src, dst, kernel_mode::touch); }, true},
            {"touch_two_steps", [&] { kernel_walk(src, dst, kernel_mode::touch, 2 * step_rows); }, true},
            {"kernel_loads", [&] { kernel_walk(src, dst, kernel_mode::loads_only); }},
            {"kernel_reads", [&] { kernel_walk(src, dst, kernel_mode::reads_only); }},
            {"kernel_reads_by_line", [&] { kernel_walk(src, dst, kernel_mode::reads_by_line); }},
            {"kernel_to_l1", [&] { kernel_walk(src, dst, kernel_mode::to_l1); }},
            {"kernel_from_l2", [&] { kernel_walk(src, dst, kernel_mode::from_l2); }},
            {"compute", [&] { kernel_walk(src, dst, kernel_mode::compute); }},
            {"staged_call", [&] { kernel_walk(src, dst, kernel_mode::staged_call); }, true},
            {"line_halves", [&] { kernel_walk(src, dst, kernel_mode::line_halves); }, true},
            {"lines_c_outer", [&] { kernel_walk(src, dst, kernel_mode::lines_c_outer); }, true},
            {"lines_w_outer", [&] { kernel_walk(src, dst, kernel_mode::lines_w_outer); }, true},
            {"lines_pairs", [&] { kernel_walk(src, dst, kernel_mode::lines_pairs); }, true},
            {"lines_buffered", [&] { kernel_walk(src, dst, kernel_mode::lines_buffered); }, true},
            {"lines_buffered_l2", [&] { kernel_walk(src, dst, kernel_mode::lines_buffered_l2); }},
            {"lines_buffered_whole", [&] { kernel_walk(src, dst, kernel_mode::lines_buffered_whole); }, true},
            {"lines_buffered_whole_l2", [&] { kernel_walk(src, dst, kernel_mode::lines_buffered_whole_l2); }},
            {"lines_c_outer_l2", [&] { kernel_walk(src, dst, kernel_mode::lines_c_outer_l2); }},
            {"lines_w_outer_l2", [&] { kernel_walk(src, dst, kernel_mode::lines_w_outer_l2); }},
            {"lines_pairs_l2", [&] { kernel_walk(src, dst, kernel_mode::lines_pairs_l2); }},
            {"kernel_l2", [&] { kernel_walk(src, dst, kernel_mode::whole_l2); }, true},
            {"kernel_l2_2steps", [&] { kernel_walk(src, dst, kernel_mode::whole_l2, 2 * step_rows); }, true},
            {"kernel_l2_4steps", [&] { kernel_walk(src, dst, kernel_mode::whole_l2, 4 * step_rows); }, true},
            {"two_level_l2", [&] { kernel_walk(src, dst, kernel_mode::two_level_l2); }, true},
            {"two_level_l1", [&] { kernel_walk(src, dst, kernel_mode::two_level_l1); }, true},
            {"near_only", [&] { kernel_walk(src, dst, kernel_mode::near_only); }, true},
            {"two_level_l2_2steps", [&] { kernel_walk(src, dst, kernel_mode::two_level_l2, 2 * step_rows); }, true},
            {"prefetch_rows_64", [&] { kernel_walk(src, dst, kernel_mode::whole, 64); }},
            {"prefetch_rows_192", [&] { kernel_walk(src, dst, kernel_mode::whole, 192); }},
            {"seq_16", [&] { sequential_lines<16>(src, dst, false); }},
            {"seq_32", [&] { sequential_lines<32>(src, dst, false); }},
            {"seq_64", [&] { sequential_lines<64>(src, dst, false); }},
            {"seq_128", [&] { sequential_lines<128>(src, dst, false); }},
            {"seq_128_prefetch", [&] { sequential_lines<128>(src, dst, true); }},
            {"chunk_16_pf0", [&] { chunked_transpose<16>(src, dst, 0); }, true},
            {"chunk_16_pf2", [&] { chunked_transpose<16>(src, dst, 2); }, true},
            {"chunk_16_pf4", [&] { chunked_transpose<16>(src, dst, 4); }, true},
            {"chunk_32_pf2", [&] { chunked_transpose<32>(src, dst, 2); }, true},
            {"chunk_64_pf1", [&] { chunked_transpose<64>(src, dst, 1); }, true},
            {"chunk_128_pf1", [&] { chunked_transpose<128>(src, dst, 1); }, true},
            {"window_staged_pf2", [&] { window_staged(src, dst, 2); }, true},
            {"rows_staged_32", [&] { rows_staged<32, 3>(src, dst, 0, false); }, true},
            {"rows_staged_64", [&] { rows_staged<64, 3>(src, dst, 0, false); }, true},
            {"rows_staged_128", [&] { rows_staged<128, 3>(src, dst, 0, false); }, true},
            {"rows_staged_64_pf8k", [&] { rows_staged<64, 3>(src, dst, 8 << 10, false); }, true},
            {"rows_staged_64_pf32k", [&] { rows_staged<64, 3>(src, dst, 32 << 10, false); }, true},
            {"rows_staged_64_pf32k_l2", [&] { rows_staged<64, 1>(src, dst, 32 << 10, false); }, true},
            {"rows_staged_64_overlap", [&] { rows_staged<64, 3>(src, dst, 0, true); }, true},
            {"rows_staged_64_overlap_pf8k", [&] { rows_staged<64, 3>(src, dst, 8 << 10, true); }, true},
            {"rows_staged_128_overlap", [&] { rows_staged<128, 3>(src, dst, 0, true); }, true},
            {"rows_staged_64_full_overlap_pf8k", [&] { rows_staged<64, 3, true>(src, dst, 8 << 10, true); }, true},
            {"rows_staged_64_full_pf8k", [&] { rows_staged<64, 3, true>(src, dst, 8 << 10, false); }, true},
            {"rows_staged_128_full_overlap_pf8k", [&] { rows_staged<128, 3, true>(src, dst, 8 << 10, true); }, true},
            {"rows_staged_64_full_overlap_pf16k", [&] { rows_staged<64, 3, true>(src, dst, 16 << 10, true); }, true},
            {"rows_staged_64_fixed", [&] { rows_staged<64, 3, true, true>(src, dst, 0, true); }},
            {"rows_staged_32_overlap", [&] { rows_staged<32, 3>(src, dst, 0, true); }, true},
    };
    // The copy first (the ratios' base), then the chosen walks in the
    // order given (each round runs them in that order: what precedes a
    // walk can matter, as memcpy's dirty lines do).
    std::vector<const walk *> run{&walks[0]};
    if (chosen == "all")
        for (const walk &w : walks) run.push_back(&w);
    for (std::size_t at = 0; chosen != "all" && at < chosen.size();) {
        const std::size_t comma = std::min(chosen.find(',', at), chosen.size());
        const std::string name = chosen.substr(at, comma - at);
        const auto found = std::find_if(walks.begin(), walks.end(), [&](const walk &w) { return w.name == name; });
        if (found == walks.end()) {
            std::printf("no walk %s\n", name.c_str());
            return 2;
        }
        run.push_back(&*found);
        at = comma + 1;
    }
    if (chosen == "all") run.erase(run.begin() + 1); // the copy once

    for (const walk *w : run) {
        w->run(); // warm-up, and the transposes checked
        if (w->transposes && !transposed(src, dst)) {
            std::printf("%s: wrong output\n", w->name.c_str());
            return 1;
        }
    }
    std::vector<std::vector<double>> ms(run.size());
    for (int r = 0; r < rounds; ++r)
        for (std::size_t i = 0; i < run.size(); ++i) {
            const double start = seconds();
            run[i]->run();
            ms[i].push_back((seconds() - start) * 1e3);
        }
    std::vector<double> median(run.size());
    for (std::size_t i = 0; i < run.size(); ++i) {
        std::vector<double> sorted = ms[i];
        std::sort(sorted.begin(), sorted.end());
        median[i] = sorted[sorted.size() / 2];
    }
    std::printf("%-20s %9s %9s %9s\n", "walk", "median ms", "fastest", "/ copy");
    for (std::size_t i = 0; i < run.size(); ++i)
        std::printf("%-20s %9.2f %9.2f %9.2f\n", run[i]->name.c_str(), median[i],
                    *std::min_element(ms[i].begin(), ms[i].end()), median[0] / median[i]);
    std::free(src);
    std::free(dst_buffer);
    return 0;
}
