#include "core/data_type.hpp"

#include <array>
#include <string>

namespace reshaper::impl {
namespace {

struct type_info {
    data_type type;
    std::string_view name;
    std::size_t bits;
};

// One row per type: the only place names and sizes are written down.
constexpr std::array<type_info, 27> type_table{{
    {data_type::undef, "undef", 0},
    {data_type::f32, "f32", 32},
    {data_type::f16, "f16", 16},
    {data_type::bf16, "bf16", 16},
    {data_type::s8, "s8", 8},
    {data_type::u8, "u8", 8},
    {data_type::s32, "s32", 32},
    {data_type::boolean, "boolean", 8},
    {data_type::f8_e5m2, "f8_e5m2", 8},
    {data_type::f8_e4m3, "f8_e4m3", 8},
    {data_type::s4, "s4", 4},
    {data_type::u4, "u4", 4},
    {data_type::f64, "f64", 64},
    {data_type::s16, "s16", 16},
    {data_type::u16, "u16", 16},
    {data_type::u32, "u32", 32},
    {data_type::s64, "s64", 64},
    {data_type::u64, "u64", 64},
    {data_type::c64, "c64", 64},
    {data_type::c128, "c128", 128},
    {data_type::string, "string", 8 * sizeof(std::string)},
    {data_type::f8_e4m3fnuz, "f8_e4m3fnuz", 8},
    {data_type::f8_e5m2fnuz, "f8_e5m2fnuz", 8},
    {data_type::f8_e8m0, "f8_e8m0", 8},
    {data_type::f4_e2m1, "f4_e2m1", 4},
    {data_type::s2, "s2", 2},
    {data_type::u2, "u2", 2},
}};

const type_info &info(data_type t) {
    for (const auto &row : type_table)
        if (row.type == t) return row;
    return type_table[0];
}

} // namespace

const std::vector<data_type> &all_data_types() {
    static const std::vector<data_type> all = [] {
        std::vector<data_type> v;
        for (const auto &row : type_table)
            if (row.type != data_type::undef) v.push_back(row.type);
        return v;
    }();
    return all;
}

std::string_view to_string(data_type t) { return info(t).name; }

std::optional<data_type> data_type_from_string(std::string_view name) {
    for (const auto &row : type_table)
        if (row.name == name) return row.type;
    return std::nullopt;
}

std::size_t element_bits(data_type t) { return info(t).bits; }

std::size_t dense_bytes(data_type t, std::size_t count) {
    const std::size_t bits = element_bits(t);
    if (bits < 8) { // packed: whole bytes, the last one possibly part used
        const std::size_t per_byte = elements_per_byte(bits);
        return count / per_byte + (count % per_byte != 0 ? 1 : 0);
    }
    return count * (bits / 8);
}

bool is_integer(data_type t) {
    switch (t) {
    case data_type::s2: case data_type::u2: case data_type::s4: case data_type::u4:
    case data_type::s8: case data_type::u8:
    case data_type::s16: case data_type::u16: case data_type::s32: case data_type::u32:
    case data_type::s64: case data_type::u64: return true;
    default: return false;
    }
}

bool is_floating_point(data_type t) {
    switch (t) {
    case data_type::f32: case data_type::f16: case data_type::bf16: case data_type::f64:
    case data_type::f8_e5m2: case data_type::f8_e4m3: case data_type::f8_e4m3fnuz:
    case data_type::f8_e5m2fnuz: case data_type::f8_e8m0: case data_type::f4_e2m1: return true;
    default: return false;
    }
}

bool is_complex(data_type t) { return t == data_type::c64 || t == data_type::c128; }

} // namespace reshaper::impl
