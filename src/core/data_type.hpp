// Element types of the contract: oneDNN's names plus the ones added for ONNX.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace reshaper::impl {

enum class data_type {
    undef,
    // oneDNN's
    f32, f16, bf16, s8, u8, s32, boolean, f8_e5m2, f8_e4m3, s4, u4,
    // added for ONNX
    f64, s16, u16, u32, s64, u64, c64, c128, string,
    f8_e4m3fnuz, f8_e5m2fnuz, f8_e8m0, f4_e2m1,
};

// Every defined type except undef, in declaration order.
const std::vector<data_type> &all_data_types();

// Contract spelling ("f32", "boolean", ...); "undef" for undef.
std::string_view to_string(data_type t);
std::optional<data_type> data_type_from_string(std::string_view name);

// Storage of one element in bits: 4 for the packed types (s4, u4, f4_e2m1,
// two per byte, low nibble first), 8 * sizeof(std::string) for string
// (an element is an owned std::string object).
std::size_t element_bits(data_type t);
inline bool is_packed_4bit(data_type t) { return element_bits(t) == 4; }

// Bytes a dense buffer of `count` elements occupies (packed types round up).
// The caller checks count * bits for overflow beforehand via checked_math.
std::size_t dense_bytes(data_type t, std::size_t count);

bool is_integer(data_type t);        // s4 u4 s8 u8 s16 u16 s32 u32 s64 u64
bool is_floating_point(data_type t); // every float incl. f8, f4, e8m0
bool is_complex(data_type t);        // c64 c128

} // namespace reshaper::impl
