// Element encodings: one element's bits <-> its value, for every data type
// except string. No library covers the 8- and 4-bit float formats, so all
// float formats narrower than f32 share one table-driven codec here.
//
// Encoding a double into a float format rounds to nearest, ties to even.
// Out-of-range finite values (and +-inf) become +-inf where the format has
// inf (f16, bf16, f8_e5m2, f32, f64); the formats without inf (f8_e4m3,
// f8_e4m3fnuz, f8_e5m2fnuz, f8_e8m0, f4_e2m1) saturate to the largest finite
// value, as OCP's saturating conversion does. f8_e8m0 has no zero and no
// sign: positive values below its smallest (2^-127) saturate to it, and zero
// or negative values cannot be encoded. f4_e2m1 cannot encode NaN.
// Decoding is exact (every value of these formats is a double).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/data_type.hpp"

namespace reshaper::impl {

// Complex types are stored as pairs of their component type (c64: f32,
// c128: f64; real part first); every other type is its own component.
data_type component_type(data_type t);
inline std::size_t components_per_element(data_type t) { return is_complex(t) ? 2 : 1; }

// Bits of component `index` in a dense buffer of component type `t` (not
// string, not complex): for packed types as load_packed reads them (see
// data_type.hpp); native byte order otherwise.
// Returned right-aligned; store_bits keeps only the type's width of `bits`.
std::uint64_t load_bits(data_type t, const std::uint8_t *base, std::size_t index);
void store_bits(data_type t, std::uint8_t *base, std::size_t index, std::uint64_t bits);

// Float formats: f64 f32 f16 bf16 f8_e5m2 f8_e4m3 f8_e4m3fnuz f8_e5m2fnuz
// f8_e8m0 f4_e2m1. Nothing when `t` cannot encode `v` at all (see above).
// `beyond`, the sign of (x - v) when `v` is the double nearest a decimal x,
// decides a tie that `v` sits on, so that x is rounded once, straight to `t`
// (see io/decimal_text.hpp); 0 when `v` is the value itself.
std::optional<std::uint64_t> encode_float(data_type t, double v, int beyond = 0);
double decode_float(data_type t, std::uint64_t bits);
// The largest finite value of a float format (448 for f8_e4m3, 6 for f4_e2m1).
double max_finite(data_type t);

// Integer types (s2 u2 s4 u4 s8 u8 s16 u16 s32 u32 s64 u64) and boolean (0 or 1):
// s2 holds -2..1, u2 0..3, s4 -8..7, u4 0..15.
struct integer_range {
    std::int64_t min;
    std::uint64_t max;
};
integer_range range_of(data_type t);
bool is_signed_integer(data_type t); // s2 s4 s8 s16 s32 s64

// Nothing when `v` is outside the type's range.
std::optional<std::uint64_t> encode_signed(data_type t, std::int64_t v);
std::optional<std::uint64_t> encode_unsigned(data_type t, std::uint64_t v);
// For signed types (sign-extends the type's width) ...
std::int64_t decode_signed(data_type t, std::uint64_t bits);
// ... and for unsigned types and boolean (any non-zero byte is true: 1).
std::uint64_t decode_unsigned(data_type t, std::uint64_t bits);

} // namespace reshaper::impl
