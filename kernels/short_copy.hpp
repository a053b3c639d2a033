// Copies of a few bytes without a library call, for the kernels whose rows
// or runs are shorter than a cache line: a call of memcpy per row of a
// partial tile, per run of a grouped transpose or per entry of a tiny
// gather cost more than the move itself (docs/performance.md, "Why the
// kernels are tuned as they are"). The source and destination never
// overlap. In an unnamed namespace: each SIMD level's file compiles its own
// copy with its own vector width, which an inline function shared between
// files compiled for different levels would not guarantee.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace reshaper::impl {
namespace {

// P bytes, P a constant: one load and one store where P is a register's width.
template <std::size_t P>
inline void copy_fixed(std::uint8_t *to, const std::uint8_t *from) {
    struct block {
        std::uint8_t bytes[P];
    } b;
    std::memcpy(&b, from, P);
    std::memcpy(to, &b, P);
}

// n bytes, 0 to 64: two copies of the largest power of two within n, the
// second ending where n does, overlapping the first where n is no power of
// two; nothing outside [to, to + n) is written.
inline void copy_short(std::uint8_t *to, const std::uint8_t *from, std::size_t n) {
    const auto two = [&](auto width) {
        constexpr std::size_t w = decltype(width)::value;
        copy_fixed<w>(to, from);
        copy_fixed<w>(to + n - w, from + n - w);
    };
    if (n >= 32) two(std::integral_constant<std::size_t, 32>{});
    else if (n >= 16) two(std::integral_constant<std::size_t, 16>{});
    else if (n >= 8) two(std::integral_constant<std::size_t, 8>{});
    else if (n >= 4) two(std::integral_constant<std::size_t, 4>{});
    else if (n >= 2) two(std::integral_constant<std::size_t, 2>{});
    else if (n == 1) *to = *from;
}

} // namespace
} // namespace reshaper::impl
