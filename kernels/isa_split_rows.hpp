// split_rows_fn (isa_kernels.hpp) for every row count and element size
// (both fixed at compile time), and split_nibbles_fn, each written once as
// a plain loop which the compiler vectorises for the including file's ISA
// (groups of R elements read as interleaved loads). Included by each level's file, compiled with
// its own -m flags: everything here has internal linkage, so no level's
// copy can stand in for another's (see isa_kernels_simd.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/isa_kernels.hpp"

namespace reshaper::impl {
namespace {

// The element as an unsigned integer of its size, read and written at any
// alignment: bit-exact for every dtype. (The attributes hold on these
// typedefs; GCC ignores them on a dependent type.)
template <int E> struct element_bits_of;
template <> struct element_bits_of<1> { typedef std::uint8_t type __attribute__((aligned(1), may_alias)); };
template <> struct element_bits_of<2> { typedef std::uint16_t type __attribute__((aligned(1), may_alias)); };
template <> struct element_bits_of<4> { typedef std::uint32_t type __attribute__((aligned(1), may_alias)); };
template <> struct element_bits_of<8> { typedef std::uint64_t type __attribute__((aligned(1), may_alias)); };
// 16 bytes as a packed pair: GCC keeps 16-byte alignment for a typedef of
// unsigned __int128 whatever the attribute says, and its aligned loads
// fault on groups that start off a 16-byte boundary.
template <> struct element_bits_of<16> {
    struct __attribute__((packed, may_alias)) type {
        std::uint64_t half[2];
    };
};

// Split (R rows `pitch` bytes apart from `cols` groups of R back to back)
// or joined (the inverse: the rows on the source side); split_rows_fn.
template <bool Split, int R, int E>
void row_groups(const std::uint8_t *src, std::uint8_t *dst, std::ptrdiff_t pitch_bytes, std::ptrdiff_t cols) {
    using unaligned = typename element_bits_of<E>::type;
    const auto *__restrict in = reinterpret_cast<const unaligned *>(src);
    auto *__restrict out = reinterpret_cast<unaligned *>(dst);
    const std::ptrdiff_t pitch = pitch_bytes / E;
    // No two rows overlap, nor source and destination: without the pragma
    // the loop ran a versioned scalar copy wherever GCC's run-time alias
    // check over whole rows failed (1-byte elements, 8 rows: 8.5 GB/s).
#pragma GCC ivdep
    for (std::ptrdiff_t c = 0; c < cols; ++c)
        for (int r = 0; r < R; ++r) {
            if constexpr (Split) out[r * pitch + c] = in[c * R + r];
            else out[c * R + r] = in[r * pitch + c];
        }
}

template <int R, std::size_t... L>
void set_split_rows_of(isa_kernels &table, std::index_sequence<L...>) {
    ((table.split_rows[R][L] = has_row_group_kernel(R, std::size_t{1} << L) ? &row_groups<true, R, 1 << L> : nullptr), ...);
    ((table.join_rows[R][L] = has_row_group_kernel(R, std::size_t{1} << L) ? &row_groups<false, R, 1 << L> : nullptr), ...);
}

// split_nibbles_fn (isa_kernels.hpp). A byte pair read as one 16-bit
// value v = a | b << 8 makes both results shifts and masks of v, which the
// compiler vectorises (16-bit lanes narrowed to bytes).
void split_nibble_pairs(const std::uint8_t *pairs, std::size_t count, std::uint8_t *low, std::uint8_t *high) {
    using unaligned = element_bits_of<2>::type;
    const auto *__restrict in = reinterpret_cast<const unaligned *>(pairs);
    auto *__restrict lo = low;
    auto *__restrict hi = high;
#pragma GCC ivdep
    for (std::size_t j = 0; j < count; ++j) {
        const unsigned v = in[j];
        lo[j] = static_cast<std::uint8_t>((v & 0x0Fu) | ((v >> 4) & 0xF0u));
        hi[j] = static_cast<std::uint8_t>(((v >> 4) & 0x0Fu) | ((v >> 8) & 0xF0u));
    }
}

// Fills table.split_rows, table.join_rows and table.split_nibbles.
inline void set_split_rows(isa_kernels &table) {
    table.split_nibbles = &split_nibble_pairs;
    const auto sizes = std::make_index_sequence<split_row_sizes>();
    set_split_rows_of<2>(table, sizes);
    set_split_rows_of<3>(table, sizes);
    set_split_rows_of<4>(table, sizes);
    set_split_rows_of<5>(table, sizes);
    set_split_rows_of<6>(table, sizes);
    set_split_rows_of<7>(table, sizes);
    set_split_rows_of<8>(table, sizes);
    set_split_rows_of<16>(table, sizes);
}

} // namespace
} // namespace reshaper::impl
