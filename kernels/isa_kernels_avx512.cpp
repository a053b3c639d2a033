// AVX-512 (F + BW) level: compiled with -mavx512f -mavx512bw; only called
// when the CPU has both (see cpu_isa).
#include <immintrin.h>

#include <cstring>

#include "kernels/isa_kernels_simd.hpp"
#include "kernels/isa_nibble_pairs.hpp"
#include "kernels/isa_tiny_tiles.hpp"

namespace reshaper::impl {
namespace {

struct avx512_ops {
    using vec = __m512i;
    static constexpr int bytes = 64;
    static constexpr int lanes = 4;
    // Tuned on an AMD EPYC with AVX-512: the AVX2 level's column blocks
    // with prefetch, 2 tiles side by side where rows lie a page or more
    // apart; 16-byte elements streamed as the AVX2 level walks them (column
    // blocks of 4 tiles: their strips of 4 tiles ran far slower on an Intel
    // Xeon with AVX-512). In a core's caches 8 tiles side by side for 1- and
    // 2-byte elements, 4 for 4- and 8-byte ones (as the AVX2 level on the
    // AMD machines; measured here on an Intel Xeon: each column step's
    // source stays in L1 for the strip's row tiles where destination rows
    // lie a multiple of 4 KiB apart). In the last-level cache, 8 with the
    // next step's lines prefetched, 16-byte elements in column blocks of 4
    // (measured on the Intel Xeon alone). Figures: docs/performance.md, "Why
    // the kernels are tuned as they are".
    static constexpr level_walks walk = with_far_sources_in_single_tiles(
            {{{{{2, 0, 64, true}, {4, 0, 128, true}, {4, 0, 64, true}, {8, 0, 128, true}, {4, 0, 64, true}}},
              {{{2, 0, 128, true}, {2, 0, 128, true}, {2, 0, 128, true}, {2, 0, 128, true}, {4, 0, 64, true}}},
              {{{8, 0, 128}, {8, 0, 128}, {4, 0, 128}, {4, 0, 128}, {1, 4}}},
              {{{8, 0, 128, true}, {8, 0, 128, true}, {8, 0, 128, true}, {8, 0, 128, true}, {4, 0, 64, true}}}}});

    static vec load(const std::uint8_t *p) { return _mm512_loadu_si512(p); }
    // 16 bytes from each of p, p + step, p + 2 step, p + 3 step, in lanes 0-3.
    static vec load_quarters(const std::uint8_t *p, std::ptrdiff_t step) {
        const auto quarter = [](const std::uint8_t *q) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(q)); };
        vec v = _mm512_castsi128_si512(quarter(p));
        v = _mm512_inserti32x4(v, quarter(p + step), 1);
        v = _mm512_inserti32x4(v, quarter(p + 2 * step), 2);
        return _mm512_inserti32x4(v, quarter(p + 3 * step), 3);
    }
    static void store(std::uint8_t *p, vec v) { _mm512_storeu_si512(p, v); }
    // The join of a destination line that starts `offset` dwords before a
    // tile row (transpose_quarters_in_lines): dwords 16 - offset .. 31 -
    // offset of the rows before and at it, side by side.
    static vec join_index(unsigned offset) {
        return _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                _mm512_set1_epi32(16 - static_cast<int>(offset)));
    }
    static vec join_lines(vec before, vec index, vec now) { return _mm512_permutex2var_epi32(before, index, now); }
    // Dwords offset .. 15 of a line.
    static __mmask16 dwords_from(unsigned offset) { return static_cast<__mmask16>(0xFFFFu << offset); }
    // Dwords 0 .. offset - 1 of a line.
    static __mmask16 dwords_below(unsigned offset) { return static_cast<__mmask16>(~dwords_from(offset)); }
    static void store_dwords(std::uint8_t *p, vec v, __mmask16 dwords) { _mm512_mask_storeu_epi32(p, dwords, v); }
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

// The first `bytes` (0..64) bytes of a vector.
__mmask64 first_bytes(int bytes) {
    return bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
}

// The first `bytes` bytes at p, the rest zero, never touching memory past
// them. Plain 128/256-bit accesses where the width allows: byte-masked
// loads and stores measured far slower (nChw8c f32: docs/performance.md).
__m512i load_first(const std::uint8_t *p, int bytes, __mmask64 mask) {
    switch (bytes) {
    case 64: return _mm512_loadu_si512(p);
    case 32: return _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
    case 16: return _mm512_zextsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    default: return _mm512_maskz_loadu_epi8(mask, p);
    }
}
void store_first(std::uint8_t *p, __m512i v, int bytes, __mmask64 mask) {
    switch (bytes) {
    case 64: _mm512_storeu_si512(p, v); return;
    case 32: _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), _mm512_castsi512_si256(v)); return;
    case 16: _mm_storeu_si128(reinterpret_cast<__m128i *>(p), _mm512_castsi512_si128(v)); return;
    default: _mm512_mask_storeu_epi8(p, mask, v);
    }
}

// A partial tile costs about what a whole one does: each valid source row
// part is loaded (the rest reads as zero), each valid destination row part
// stored. Up to Few source rows (a move's last 1-4 columns: NHWC as NCHW
// at 7 x 7 or 14 x 14) are copied element by element instead: at most 2
// are fewer instructions than the tile's shuffles anywhere.
template <int E, int Few>
void tile_partial(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                  std::ptrdiff_t dst_pitch, int src_rows, int dst_rows, bool stream) {
    constexpr int T = 64 / E;
    if (src_rows <= Few) {
        for (int c = 0; c < dst_rows; ++c)
            for (int r = 0; r < src_rows; ++r) std::memcpy(dst + c * dst_pitch + r * E, src + r * src_pitch + c * E, E);
        return;
    }
    const int load_bytes = dst_rows * E, store_bytes = src_rows * E;
    const __mmask64 load_mask = first_bytes(load_bytes), store_mask = first_bytes(store_bytes);
    __m512i out[T];
    transpose_rows<avx512_ops, E>(
        [&](int r) {
            return r < src_rows ? load_first(src + r * src_pitch, load_bytes, load_mask)
                                : _mm512_setzero_si512();
        },
        out);
    // Destination rows back to back (NHWC as NCHW at 7 x 7: the tile's
    // columns are whole rows): whole-vector stores in row order, each one's
    // tail overwritten by the rows after it, and byte-masked stores only
    // where a tail would pass the tile's last row.
    if (!stream && dst_pitch == store_bytes) {
        int c = 0;
        for (; c < dst_rows && c * store_bytes + 64 <= dst_rows * store_bytes; ++c)
            _mm512_storeu_si512(dst + c * dst_pitch, out[c]);
        for (; c < dst_rows; ++c) store_first(dst + c * dst_pitch, out[c], store_bytes, store_mask);
        return;
    }
    for (int c = 0; c < dst_rows; ++c) {
        if (stream && src_rows == T)
            avx512_ops::stream(dst + c * dst_pitch, out[c]);
        else
            store_first(dst + c * dst_pitch, out[c], store_bytes, store_mask);
    }
}

template <int Few, std::size_t... L>
constexpr per_size_class<tile_partial_fn> partial_tiles(std::index_sequence<L...>) {
    return {&tile_partial<1 << L, Few>...};
}

// Half tiles (half_wide_tiles_at): streamed ones (nChw8c f32, nChw16c bf16
// into nchw) through the AVX2 level's 32-byte register blocks, so that
// they issue the next step's prefetches (partial tiles issue none): into
// L1, a share per register block, whatever Ops::walk's prefetch_locality
// and prefetch_by_row (which whole tiles follow). In the caches, partial
// tiles (masked loads and stores).
template <class Ops>
constexpr per_reach<per_size_class<wide_tile_fn>> half_wide_tiles() {
    return {half_wide_tiles_at<Ops, near_rows>(size_classes), half_wide_tiles_at<Ops, far_rows>(size_classes),
            no_kernel_at_any_size<wide_tile_fn>, no_kernel_at_any_size<wide_tile_fn>};
}

// 4-bit transposes: 4 byte tiles side by side (isa_kernels::packed_wide).
constexpr int packed_wide = 4;

constexpr isa_kernels table = {
    .isa = cpu_isa::avx512,
    .tile = one_tiles<avx512_ops>(size_classes),
    .walk = avx512_ops::walk,
    .wide_tile = wide_tiles<avx512_ops>(),
    .half_wide_tile = half_wide_tiles<avx512_ops>(),
    .copy = &run_copy<avx512_ops>,
    .copy_runs = &copy_runs<avx512_ops>,
    .tile_partial = partial_tiles<2>(size_classes),
    .block_rows = {{block_rows_16, block_rows_32, no_kernel_at_any_size<block_rows_fn>}},
    .packed_wide = packed_wide,
    .packed_tile = &transpose_tiles<avx512_ops, 1, packed_wide, false>,
    .split_nibbles = &split_nibble_pairs,
    .split_nibbles_streamed = no_kernel, // not measured at this level
    // Nibbles regrouped before the byte tiles: less work than the split.
    .byte_tiles_split_streamed = &nibble_pair_tiles<avx512_ops, packed_wide, false>,
    .byte_tiles_split_alignment = tile_bytes,
    .split_rows = row_group_kernels<true>(),
    .join_rows = row_group_kernels<false>(),
    // Tile by tile measured faster on the AMD EPYC with AVX-512 (the Intel
    // Xeon's table walks them as any other rows: intel_tuned).
    .one_tile_rows_tile_by_tile = true,
    .blocked_columns = two_column_tiles,
    .whole_tiles = no_kernel_at_any_size<whole_tiles_fn>, // not measured here: strip by strip
    .whole_blocks_4 = nullptr, // the planner's small transpose ways
    .tiny_tiles = tiny_tiles_of<avx512_ops>(size_classes),
};
RESHAPER_ASSERT_COMPLETE_TABLE(table);

// The Intel Xeon's table (kernel_tuning::intel): the one above, tuned on
// the AMD EPYCs, with what measured faster on the Intel Xeon VM alone
// (docs/performance.md): streamed 1- to 8-byte tiles prefetch the next
// step into L2 (locality 1), a share per source row (the L1 fill buffers
// that prefetches into L1 held stalled the tiles' own loads); 4-byte
// elements with rows a page or more apart walk 4 tiles side by side, not
// 2 (each destination row's streamed run two lines longer); 4-bit
// transposes prefetch the next step too, into L2; one tile's rows
// (nChw16c f32) take the far-rows walk, not tile by tile; the blocked
// transpose out of blocks (ABcd16a16b -> abcd) takes 4 column tiles a unit,
// not 2 (with its prefetches into L2, as the walks' above); 2-byte tiles in
// the last-level cache prefetch the next wide call's lines, not the next
// step's (tile_walk::prefetch_next_group; wider and narrower elements
// measured slower so), 4 tiles side by side, not 8 (a call's prefetches
// half as many lines, each issued half as long before its use); in the
// caches, destination rows off a line boundary take whole lines joined in
// registers (tile_walk::line_stores); 2- and 4-byte sources take single
// tiles from rows 2 KiB apart, not a page (far_source_row_bytes: a wide
// step's rows, two to a page, still too many streams for this core's
// prefetchers). Beyond the walks (intel_tuned):
// partial tiles of up to 4 source rows are copied element by element.
constexpr level_walks intel_walks(level_walks w) {
    for (row_reach reach : {near_rows, far_rows})
        for (std::size_t size_class = 0; size_class <= element_size_class(8); ++size_class) {
            w[reach][size_class].prefetch_locality = 1;
            w[reach][size_class].prefetch_by_row = true;
        }
    w[in_last_level][element_size_class(2)].prefetch_next_group = true;
    w[in_last_level][element_size_class(2)].wide = 4;
    w[far_rows][element_size_class(4)].wide = 4;
    for (std::size_t size_class : {element_size_class(2), element_size_class(4)})
        w[near_rows][size_class].far_source_row_bytes = far_row_bytes / 2;
    // 2- to 8-byte elements (1-byte quarters of 16 rows leave no
    // registers for the joins), in groups of tiles whose source stays in
    // L1 (line_store_tiles).
    for (std::size_t size_class = element_size_class(2); size_class <= element_size_class(8); ++size_class)
        w[in_cache][size_class].line_stores = true;
    return w;
}
struct avx512_intel_ops : avx512_ops {
    static constexpr level_walks walk = intel_walks(avx512_ops::walk);
};
constexpr isa_kernels intel_tuned(isa_kernels k) {
    k.walk = avx512_intel_ops::walk;
    k.wide_tile = wide_tiles<avx512_intel_ops>();
    k.half_wide_tile = half_wide_tiles<avx512_intel_ops>();
    k.packed_tile = &transpose_tiles<avx512_ops, 1, packed_wide, true, 1>;
    k.byte_tiles_split_streamed = &nibble_pair_tiles<avx512_ops, packed_wide, true, 1>;
    k.one_tile_rows_tile_by_tile = false;
    k.blocked_columns.out_of_blocks = 4;
    k.tile_partial = partial_tiles<4>(size_classes);
    return k;
}

constexpr isa_kernels intel_table = intel_tuned(table);
RESHAPER_ASSERT_COMPLETE_TABLE(intel_table);

} // namespace

const isa_kernels &avx512_kernels(kernel_tuning tuning) { return tuning == kernel_tuning::intel ? intel_table : table; }

const isa_kernels &avx512_kernels() { return avx512_kernels(active_kernel_tuning()); }

} // namespace reshaper::impl
