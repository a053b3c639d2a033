// 64-bit arithmetic that reports overflow instead of wrapping. Every volume,
// byte size and stride product in the project goes through these.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/dims.hpp"

namespace reshaper::impl {

// Marks an unknown dimension in a logical tensor's shape.
inline constexpr dim_t unknown_dim = -1;

// a * b, or nothing when the exact result does not fit in int64.
inline std::optional<dim_t> checked_mul(dim_t a, dim_t b) {
    dim_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

inline std::optional<dim_t> checked_add(dim_t a, dim_t b) {
    dim_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// Product of known, non-negative dims; nothing on overflow. The caller makes
// sure no dim is unknown (see has_unknown_dims). A 0 anywhere makes the
// product 0 even when the dims before it would overflow.
inline std::optional<dim_t> checked_volume(const dims_t &dims) {
    for (dim_t d : dims)
        if (d == 0) return 0;
    dim_t v = 1;
    for (dim_t d : dims) {
        auto next = checked_mul(v, d);
        if (!next) return std::nullopt;
        v = *next;
    }
    return v;
}

inline bool has_unknown_dims(const dims_t &dims) {
    for (dim_t d : dims)
        if (d < 0) return true;
    return false;
}

} // namespace reshaper::impl
