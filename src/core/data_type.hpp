// Element types of the contract: oneDNN's names plus the ones added for ONNX.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace reshaper::impl {

enum class data_type : std::uint8_t {
    undef,
    // oneDNN's
    f32, f16, bf16, s8, u8, s32, boolean, f8_e5m2, f8_e4m3, s4, u4,
    // added for ONNX
    f64, s16, u16, u32, s64, u64, c64, c128, string,
    f8_e4m3fnuz, f8_e5m2fnuz, f8_e8m0, f4_e2m1,
    // ONNX int2 / uint2 (Reshape-25 and the family's version 25)
    s2, u2,
};

// Every defined type except undef, in declaration order.
const std::vector<data_type> &all_data_types();

// Contract spelling ("f32", "boolean", ...); "undef" for undef.
std::string_view to_string(data_type t);
std::optional<data_type> data_type_from_string(std::string_view name);

// Storage of one element in bits: 4 for s4, u4 and f4_e2m1 (two per byte),
// 2 for s2 and u2 (four per byte), 8 * sizeof(std::string) for string (an
// element is an owned std::string object).
std::size_t element_bits(data_type t);

// Sub-byte ("packed") types share bytes: 8 / element_bits elements each.
inline bool is_packed(data_type t) { return element_bits(t) == 2 || element_bits(t) == 4; }

// Element `index` of a buffer of packed `bits`-bit elements (bits 2 or 4):
// byte index / (8 / bits) holds it, the lowest bits holding the lowest
// index (4-bit: the low nibble first; 2-bit: bits 0-1, 2-3, 4-5, 6-7). The
// one place that layout is written down; codecs, kernels and the reference
// all go through these (whole-byte moves of packed runs through
// elements_per_byte).
inline constexpr std::size_t elements_per_byte(std::size_t bits) { return 8 / bits; }
inline std::uint8_t load_packed(const void *base, std::size_t bits, std::size_t index) {
    const std::size_t per_byte = elements_per_byte(bits);
    const std::uint8_t byte = static_cast<const std::uint8_t *>(base)[index / per_byte];
    const auto mask = static_cast<std::uint8_t>((1u << bits) - 1);
    return static_cast<std::uint8_t>((byte >> (index % per_byte * bits)) & mask);
}
// Keeps the byte's other elements; only the low `bits` bits of `value` count.
inline void store_packed(void *base, std::size_t bits, std::size_t index, std::uint8_t value) {
    const std::size_t per_byte = elements_per_byte(bits);
    std::uint8_t &byte = static_cast<std::uint8_t *>(base)[index / per_byte];
    const auto shift = static_cast<unsigned>(index % per_byte * bits);
    const auto mask = static_cast<unsigned>((1u << bits) - 1) << shift;
    byte = static_cast<std::uint8_t>((byte & ~mask) | ((static_cast<unsigned>(value) << shift) & mask));
}

// Bytes a dense buffer of `count` elements occupies (packed types round up
// to whole bytes).
// The caller checks count * bits for overflow beforehand via checked_math.
std::size_t dense_bytes(data_type t, std::size_t count);

bool is_integer(data_type t);        // s2 u2 s4 u4 s8 u8 s16 u16 s32 u32 s64 u64
bool is_floating_point(data_type t); // every float incl. f8, f4, e8m0
bool is_complex(data_type t);        // c64 c128

} // namespace reshaper::impl
