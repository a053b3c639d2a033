// Packed transpose: the transpose of packed 4- or 2-bit elements whose
// rows all start on a byte and hold whole bytes: 64 x 64-byte tiles
// transposed as bytes, each result row then split into the 2 (4)
// destination rows of its nibbles (bit pairs). plan_packed_transpose
// decides the strips and the stores.
#include <algorithm>
#include <cstring>

#include "kernels/movement_units.hpp"

namespace reshaper::impl {
namespace {

// Packed elements, P = 8 / Bits to a byte: destination row P*b+q, byte j,
// packs element q of byte b of source rows P*j .. P*j+P-1. Both ways below
// cut the whole tensor into 64 x 64-byte tiles for the SIMD byte transpose
// and differ in where the elements are regrouped (each measured slower at
// the other width: docs/performance.md).
//
// Destination rows [row, row + rows) (multiples of P: whole source bytes)
// of one outer position, all `cols` columns (a multiple of P): source rows
// are byte rows at src_pitch, destination rows byte rows at dst_pitch.
// With `stream` (4-bit) each pair of destination row parts is split
// straight into the destination with streaming stores where the level has
// that split and the rows allow it (split_nibbles_streamed), or a whole
// step's tiles at once where the level has byte_tiles_split_streamed and
// the rows are aligned as it needs,
// else into an L1 buffer and written by the streaming run copy (each
// measured faster than the one before: docs/performance.md, "Why the
// kernels are tuned as they are").
template <std::size_t Bits>
void packed_strip(const isa_kernels &k, const byte *src, std::ptrdiff_t src_pitch, byte *dst,
                  std::ptrdiff_t dst_pitch, dim_t row, dim_t rows, dim_t cols, bool stream);

// 4-bit: byte-transpose first. Byte j of a transposed byte row x holds the
// nibble pairs of source rows 2j and 2j+1; destination row 2c takes their
// low nibbles, row 2c+1 their high ones (isa_kernels::split_nibbles).
template <>
void packed_strip<4>(const isa_kernels &k, const byte *src, std::ptrdiff_t src_pitch, byte *dst,
                     std::ptrdiff_t dst_pitch, dim_t row, dim_t rows, dim_t cols, bool stream) {
    // A step is w byte tiles side by side (the level's packed_wide, at most
    // max_wide_tiles): 64 * w source rows, so each destination row gets
    // 32 * w bytes at once (w = 4: two whole lines); with one tile a step
    // wrote half lines, 128 rows apart in time.
    const dim_t w = k.packed_wide, step_rows = tile_bytes * w;
    alignas(64) byte out[byte_tiles_split_scratch_bytes]; // the packed tiles' rows, or the whole-step split's scratch
    alignas(64) byte pair[2][tile_bytes * max_wide_tiles / 2];
    const dim_t strip_bytes = rows / 2; // source bytes per source row in this strip
    src += row / 2;
    dst += row * dst_pitch;
    for (dim_t c = 0; c < cols; c += step_rows) {
        const dim_t n = std::min<dim_t>(step_rows, cols - c); // source rows in the step
        // The next whole step's source lines, prefetched in memory order a
        // share per tile call (as the tiles' wide steps do; measured:
        // docs/performance.md); levels whose packed tile does not prefetch
        // ignore it.
        line_prefetch ahead{};
        line_prefetch *next = nullptr;
        if (cols - c >= 2 * step_rows) {
            const auto first = reinterpret_cast<std::uintptr_t>(src + step_rows * src_pitch);
            const std::uintptr_t begin = first / tile_bytes,
                                 end = (first + static_cast<std::uintptr_t>(strip_bytes) + tile_bytes - 1) / tile_bytes;
            const dim_t lines = step_rows * static_cast<dim_t>(end - begin),
                        calls = (strip_bytes + tile_bytes - 1) / tile_bytes;
            ahead = line_prefetch{begin * tile_bytes, src_pitch, static_cast<std::ptrdiff_t>(end - begin), step_rows, 0,
                                  static_cast<int>((lines + calls - 1) / calls)};
            next = &ahead;
        }
        // The strip's rows a tile (64 source bytes) at a time.
        for (dim_t part = 0; part < strip_bytes; part += tile_bytes) {
            const dim_t row_bytes = std::min<dim_t>(tile_bytes, strip_bytes - part);
            const byte *from = src + part;
            byte *to = dst + 2 * part * dst_pitch;
            const auto half = static_cast<std::size_t>(n / 2);
            const bool split_streamed = stream && k.split_nibbles_streamed && half % split_streamed_pairs == 0 &&
                                        dst_pitch % split_streamed_pairs == 0 &&
                                        reinterpret_cast<std::uintptr_t>(to) % split_streamed_pairs == 0;
            const std::ptrdiff_t whole_step_alignment = k.byte_tiles_split_alignment;
            const bool whole_step_split = stream && k.byte_tiles_split_streamed &&
                                          dst_pitch % whole_step_alignment == 0 &&
                                          reinterpret_cast<std::uintptr_t>(to) % whole_step_alignment == 0;
            if (n == step_rows && row_bytes == tile_bytes) {
                if (whole_step_split) {
                    const int parts = part == 0 && strip_bytes == 2 * tile_bytes ? 2 : 1;
                    k.byte_tiles_split_streamed(from, src_pitch, to, dst_pitch, parts, next, out);
                    if (parts == 2) break;
                    continue;
                }
                k.packed_tile(from, src_pitch, out, step_rows, false, next);
            } else {
                // A ragged step's rows through the thread's staging buffer
                // (off the stack, which holds `out` already).
                byte *buffer = staging_buffer(static_cast<std::size_t>((step_rows + 1) * tile_bytes));
                byte *in = buffer + (tile_bytes - line_offset(buffer));
                for (dim_t r = 0; r < n; ++r)
                    std::memcpy(in + r * tile_bytes, from + r * src_pitch, static_cast<std::size_t>(row_bytes));
                k.packed_tile(in, tile_bytes, out, step_rows, false, nullptr);
            }
            for (dim_t b = 0; b < row_bytes; ++b) {
                byte *low = to + 2 * b * dst_pitch;
                if (!stream || split_streamed) {
                    (split_streamed ? k.split_nibbles_streamed : k.split_nibbles)(out + b * step_rows, half, low,
                                                                                 low + dst_pitch);
                    continue;
                }
                k.split_nibbles(out + b * step_rows, half, pair[0], pair[1]);
                k.copy_runs(low, dst_pitch, pair[0], sizeof pair[0], half, 2, true);
            }
        }
        src += step_rows * src_pitch;
        dst += step_rows / 2;
    }
}

// 2-bit: regroup first. The bytes at position b of source rows 4j .. 4j+3
// form a 4 x 4 matrix of elements (row i: source row 4j+i; column q:
// destination row 4b+q), and destination row 4b+q, byte j, is column q.
// Transposing each such matrix in place turns source row 4j+q, byte b,
// into that destination byte; four plain byte transposes (of the rows q,
// q+4, q+8, ...: the tile kernel at four times the pitch) then write whole
// destination rows. The 4 x 4 transpose is two rounds of delta swaps: the
// high nibbles of rows 0-1 with the low nibbles of rows 2-3, then the odd
// bit pairs of rows 0 and 2 with the even ones of rows 1 and 3; in 64-bit
// lanes, which every SIMD level shifts (bytes it does not), the masks
// keeping each byte's bits to that byte.
void transpose_bit_pairs(const byte *const *from, byte *to) {
    constexpr std::size_t lanes = tile_bytes / 8;
    std::uint64_t v[4][lanes];
    for (std::size_t i = 0; i < 4; ++i) std::memcpy(v[i], from[i], tile_bytes);
    auto swap = [&](std::size_t i, std::size_t j, unsigned shift, std::uint64_t mask) {
        for (std::size_t n = 0; n < lanes; ++n) {
            const std::uint64_t t = ((v[i][n] >> shift) ^ v[j][n]) & mask;
            v[j][n] ^= t;
            v[i][n] ^= t << shift;
        }
    };
    swap(0, 2, 4, 0x0F0F0F0F0F0F0F0Full);
    swap(1, 3, 4, 0x0F0F0F0F0F0F0F0Full);
    swap(0, 1, 2, 0x3333333333333333ull);
    swap(2, 3, 2, 0x3333333333333333ull);
    std::memcpy(to, v, sizeof v); // may overwrite `from`: all read above
}

template <>
void packed_strip<2>(const isa_kernels &k, const byte *src, std::ptrdiff_t src_pitch, byte *dst,
                     std::ptrdiff_t dst_pitch, dim_t row, dim_t rows, dim_t cols, bool /*stream*/) {
    constexpr dim_t tile_rows = 4 * tile_bytes; // source rows of a tile
    // Zeroed: an edge tile leaves part of it unread from the source.
    alignas(64) byte in[tile_rows * tile_bytes] = {};
    alignas(64) byte out[tile_bytes * tile_bytes];
    const dim_t row_bytes = rows / 4; // source bytes per source row in this strip
    src += row / 4;
    dst += row * dst_pitch;
    for (dim_t c = 0; c < cols; c += tile_rows) {
        const dim_t n = std::min(tile_rows, cols - c); // source rows in the tile
        // Whole source rows are read in place, parts of rows through `in`.
        const bool whole_rows = row_bytes == tile_bytes;
        if (!whole_rows)
            for (dim_t r = 0; r < n; ++r)
                std::memcpy(in + r * tile_bytes, src + r * src_pitch, static_cast<std::size_t>(row_bytes));
        for (dim_t g = 0; g < n; g += 4) {
            const byte *from[4];
            for (dim_t i = 0; i < 4; ++i) from[i] = whole_rows ? src + (g + i) * src_pitch : in + (g + i) * tile_bytes;
            transpose_bit_pairs(from, in + g * tile_bytes);
        }
        for (dim_t q = 0; q < 4; ++q) {
            const byte *part = in + q * tile_bytes;
            byte *to = dst + q * dst_pitch;
            if (n == tile_rows && whole_rows) {
                k.tile[0](part, 4 * tile_bytes, to, 4 * dst_pitch, false);
                continue;
            }
            // Edge tile: the valid part only.
            k.tile[0](part, 4 * tile_bytes, out, tile_bytes, false);
            for (dim_t b = 0; b < row_bytes; ++b)
                std::memcpy(to + b * 4 * dst_pitch, out + b * tile_bytes, static_cast<std::size_t>(n / 4));
        }
        src += tile_rows * src_pitch;
        dst += tile_bytes;
    }
}


} // namespace

void run_packed_transpose(const movement_program &p, const packed_transpose_program &t, const byte *src,
                          byte *dst) {
    const isa_kernels &k = *t.kernels;
    const auto row_tiles = static_cast<std::size_t>(t.row_tiles);
    for_units(p.split, p.stream, [&](std::size_t begin, std::size_t end) {
        for (std::size_t u = begin; u < end; ++u) {
            const outer_walk at(t.outer, u / row_tiles);
            const dim_t row = static_cast<dim_t>(u % row_tiles) * t.strip_rows;
            const dim_t rows = std::min(t.strip_rows, t.rows - row);
            if (t.bits == 4)
                packed_strip<4>(k, src + at.src(), t.src_pitch, dst + at.dst(), t.dst_pitch, row, rows, t.cols, p.stream);
            else
                packed_strip<2>(k, src + at.src(), t.src_pitch, dst + at.dst(), t.dst_pitch, row, rows, t.cols, p.stream);
        }
    });
}

} // namespace reshaper::impl
