// split_rows_fn (isa_kernels.hpp) for every row count and element size
// (both fixed at compile time: row_group_kernels), and split_nibbles_fn, each written once as
// a plain loop which the compiler vectorises for the including file's ISA
// (groups of R elements read as interleaved loads). Included by each level's file, compiled with
// its own -m flags: everything here has internal linkage, so no level's
// copy can stand in for another's (see isa_kernels_simd.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/isa_kernels.hpp"

namespace reshaper::impl {
namespace {

// Split (R rows `pitch` bytes apart from `cols` groups of R back to back)
// or joined (the inverse: the rows on the source side); split_rows_fn.
// Elements move as fixed-size memcpys: bit-exact for every dtype, at any
// alignment (an intermediate row of composed rows starts wherever the
// tensor does), and the compiler still vectorises them. (Integer typedefs
// with aligned(1) lost the attribute in this template: UBSan reported
// misaligned 8-byte loads, and GCC emitted aligned 16-byte loads that
// faulted.)
template <bool Split, int R, int E>
void row_groups(const std::uint8_t *src, std::uint8_t *dst, std::ptrdiff_t pitch, std::ptrdiff_t cols) {
    const std::uint8_t *__restrict in = src;
    std::uint8_t *__restrict out = dst;
    // No two rows overlap, nor source and destination: without the pragma
    // the loop ran a versioned scalar copy wherever GCC's run-time alias
    // check over whole rows failed (1-byte elements, 8 rows).
#pragma GCC ivdep
    for (std::ptrdiff_t c = 0; c < cols; ++c)
        for (int r = 0; r < R; ++r) {
            if constexpr (Split) std::memcpy(out + r * pitch + c * E, in + (c * R + r) * E, E);
            else std::memcpy(out + (c * R + r) * E, in + r * pitch + c * E, E);
        }
}

// Rows of 5 and 7 of 1- or 2-byte elements, which the plain loop above
// leaves an element at a time: each group is widened to 8 elements in an
// L1 buffer (one fixed-size copy a group), the vectorised 8-row loop moves
// those, and the R real rows are copied whole (joined rows the other way
// round; the padding rows hold whatever the buffer held and are dropped).
// The last group moves R elements only, so nothing past either tensor's
// groups is read or written.
template <bool Split, int R, int E>
void padded_row_groups(const std::uint8_t *src, std::uint8_t *dst, std::ptrdiff_t pitch, std::ptrdiff_t cols) {
    constexpr int padded = 8;
    constexpr std::ptrdiff_t chunk = 1024; // columns a pass: both buffers stay in L1
    alignas(64) std::uint8_t groups[chunk * padded * E];
    alignas(64) std::uint8_t rows[padded * chunk * E];
    for (std::ptrdiff_t c0 = 0; c0 < cols; c0 += chunk) {
        const std::ptrdiff_t m = cols - c0 < chunk ? cols - c0 : chunk;
        if constexpr (Split) {
            const std::uint8_t *in = src + c0 * R * E;
            for (std::ptrdiff_t c = 0; c + 1 < m; ++c) std::memcpy(groups + c * padded * E, in + c * R * E, padded * E);
            std::memcpy(groups + (m - 1) * padded * E, in + (m - 1) * R * E, R * E);
            row_groups<true, padded, E>(groups, rows, chunk * E, m);
            for (int r = 0; r < R; ++r) std::memcpy(dst + r * pitch + c0 * E, rows + r * chunk * E, m * E);
        } else {
            for (int r = 0; r < R; ++r) std::memcpy(rows + r * chunk * E, src + r * pitch + c0 * E, m * E);
            row_groups<false, padded, E>(rows, groups, chunk * E, m);
            std::uint8_t *out = dst + c0 * R * E;
            for (std::ptrdiff_t c = 0; c + 1 < m; ++c) std::memcpy(out + c * R * E, groups + c * padded * E, padded * E);
            std::memcpy(out + (m - 1) * R * E, groups + (m - 1) * padded * E, R * E);
        }
    }
}

// The kernel of R rows of E bytes: padded to 8 rows where the plain loop
// stays scalar, for split bytes only (joined rows and 2-byte elements
// measured slower padded: docs/performance.md).
template <bool Split, int R, int E>
constexpr split_rows_fn row_group_kernel() {
    if constexpr (Split && (R == 5 || R == 7) && E == 1) return &padded_row_groups<Split, R, E>;
    else return &row_groups<Split, R, E>;
}

template <bool Split, int R, std::size_t... L>
constexpr per_size_class<split_rows_fn> row_groups_of(std::index_sequence<L...>) {
    return {(has_row_group_kernel(R, std::size_t{1} << L) ? row_group_kernel<Split, R, 1 << L>() : split_rows_fn{no_kernel})...};
}

// isa_kernels::split_rows (Split) or join_rows: a kernel for every row
// count and size class has_row_group_kernel names, no_kernel elsewhere.
template <bool Split>
constexpr row_group_table row_group_kernels() {
    constexpr auto sizes = std::make_index_sequence<element_size_classes>();
    row_group_table table{};
    table[2] = row_groups_of<Split, 2>(sizes);
    table[3] = row_groups_of<Split, 3>(sizes);
    table[4] = row_groups_of<Split, 4>(sizes);
    table[5] = row_groups_of<Split, 5>(sizes);
    table[6] = row_groups_of<Split, 6>(sizes);
    table[7] = row_groups_of<Split, 7>(sizes);
    table[8] = row_groups_of<Split, 8>(sizes);
    table[16] = row_groups_of<Split, 16>(sizes);
    return table;
}

// split_nibbles_fn (isa_kernels.hpp). A byte pair read as one 16-bit
// value v = a | b << 8 makes both results shifts and masks of v, which the
// compiler vectorises (16-bit lanes narrowed to bytes).
void split_nibble_pairs(const std::uint8_t *pairs, std::size_t count, std::uint8_t *low, std::uint8_t *high) {
    const std::uint8_t *__restrict in = pairs;
    std::uint8_t *__restrict lo = low;
    std::uint8_t *__restrict hi = high;
#pragma GCC ivdep
    for (std::size_t j = 0; j < count; ++j) {
        std::uint16_t pair;
        std::memcpy(&pair, in + 2 * j, 2);
        const unsigned v = pair;
        lo[j] = static_cast<std::uint8_t>((v & 0x0Fu) | ((v >> 4) & 0xF0u));
        hi[j] = static_cast<std::uint8_t>(((v >> 4) & 0x0Fu) | ((v >> 8) & 0xF0u));
    }
}

} // namespace
} // namespace reshaper::impl
