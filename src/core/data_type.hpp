// Element types of the contract: oneDNN's names plus the ones added for ONNX.
#pragma once

#include <cstddef>
#include <cstdint>
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
    // ONNX int2 / uint2 (Reshape-25 and the family's version 25): four to a
    // byte, lowest bit pair first. Not yet readable from files or the API.
    s2, u2,
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

// Element `index` of a packed 4-bit buffer: the low nibble of byte index/2
// when index is even, the high nibble when odd. The one place that layout is
// written down; codecs, kernels and the reference all go through these.
inline std::uint8_t load_nibble(const void *base, std::size_t index) {
    const std::uint8_t byte = static_cast<const std::uint8_t *>(base)[index / 2];
    return index % 2 == 0 ? byte & 0x0F : byte >> 4;
}
// Keeps the other nibble of the byte; only the low 4 bits of `value` count.
inline void store_nibble(void *base, std::size_t index, std::uint8_t value) {
    std::uint8_t &byte = static_cast<std::uint8_t *>(base)[index / 2];
    value &= 0x0F;
    byte = static_cast<std::uint8_t>(index % 2 == 0 ? (byte & 0xF0) | value
                                                    : (byte & 0x0F) | (value << 4));
}

// Bytes a dense buffer of `count` elements occupies (packed types round up).
// The caller checks count * bits for overflow beforehand via checked_math.
std::size_t dense_bytes(data_type t, std::size_t count);

bool is_integer(data_type t);        // s4 u4 s8 u8 s16 u16 s32 u32 s64 u64
bool is_floating_point(data_type t); // every float incl. f8, f4, e8m0
bool is_complex(data_type t);        // c64 c128

// The types oneDNN's reorder moves bit for bit (through a carrier type of
// the same width, see backend/dnnl_mapping.hpp): f32 f16 bf16 s32 s8 u8.
// Only these run on a GPU engine; on the CPU our own kernels move the rest.
bool onednn_reorder_moves(data_type t);

} // namespace reshaper::impl
