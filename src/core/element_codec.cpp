#include "core/element_codec.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::impl {
namespace {

[[noreturn]] void wrong_type(const char *what, data_type t) {
    fail(rule::type_constraint, std::string(what) + " does not apply to dtype " + std::string(to_string(t)));
}

// Where a format keeps its NaN, if it has one.
enum class nan_style {
    ieee,     // exponent all ones, mantissa non-zero (inf: mantissa zero)
    all_ones, // every magnitude bit set (f8_e4m3 "FN", f8_e8m0); no inf
    neg_zero, // the sign bit alone, 0x80 (the "FNUZ" formats); no inf, no -0
    none,     // f4_e2m1: no NaN, no inf
};

struct float_format {
    data_type type;
    int exp_bits;
    int man_bits;
    int bias;
    bool has_sign;
    bool has_subnormals; // exponent field 0 means 0.mantissa * 2^(1-bias)
    nan_style nan;

    int magnitude_bits() const { return exp_bits + man_bits; }
    std::uint64_t magnitude_mask() const { return (std::uint64_t{1} << magnitude_bits()) - 1; }
    std::uint64_t sign_bit() const { return has_sign ? std::uint64_t{1} << magnitude_bits() : 0; }
    int min_exponent() const { return has_subnormals ? 1 - bias : -bias; }
    std::uint64_t inf_code() const { return ((std::uint64_t{1} << exp_bits) - 1) << man_bits; }
    std::uint64_t max_finite_code() const {
        switch (nan) {
        case nan_style::ieee: return inf_code() - 1;
        case nan_style::all_ones: return magnitude_mask() - 1;
        case nan_style::neg_zero:
        case nan_style::none: return magnitude_mask();
        }
        return 0;
    }
};

// f64 is not in the table: a double is already an f64.
constexpr std::array<float_format, 9> float_formats{{
    {data_type::f32, 8, 23, 127, true, true, nan_style::ieee},
    {data_type::f16, 5, 10, 15, true, true, nan_style::ieee},
    {data_type::bf16, 8, 7, 127, true, true, nan_style::ieee},
    {data_type::f8_e5m2, 5, 2, 15, true, true, nan_style::ieee},
    {data_type::f8_e4m3, 4, 3, 7, true, true, nan_style::all_ones},
    {data_type::f8_e4m3fnuz, 4, 3, 8, true, true, nan_style::neg_zero},
    {data_type::f8_e5m2fnuz, 5, 2, 16, true, true, nan_style::neg_zero},
    {data_type::f8_e8m0, 8, 0, 127, false, false, nan_style::all_ones},
    {data_type::f4_e2m1, 2, 1, 1, true, true, nan_style::none},
}};

const float_format &format_of(data_type t) {
    for (const auto &f : float_formats)
        if (f.type == t) return f;
    wrong_type("a float encoding", t);
}

std::optional<std::uint64_t> nan_code(const float_format &f) {
    switch (f.nan) {
    case nan_style::ieee: return f.inf_code() | (std::uint64_t{1} << (f.man_bits - 1)); // quiet
    case nan_style::all_ones: return f.magnitude_mask();
    case nan_style::neg_zero: return std::uint64_t{1} << f.magnitude_bits();
    case nan_style::none: return std::nullopt;
    }
    return std::nullopt;
}

// Magnitude code of a finite a > 0, rounded to nearest, ties to the even
// code (which for man_bits > 0 is the even mantissa, as IEEE rounds), then
// overflowed to inf or saturated.
// `beyond` is the sign of (exact magnitude - a), from the text a was read
// from: it breaks a tie that `a` itself sits on.
std::uint64_t encode_magnitude(const float_format &f, double a, int beyond) {
    std::int64_t code;
    double scaled; // a in units of the code's last place, exact: fewer than 53 bits
    if (a >= std::ldexp(1.0, f.min_exponent())) {
        const int e = std::ilogb(a);
        scaled = std::ldexp(a, f.man_bits - e); // in [2^man, 2^(man+1))
        code = (static_cast<std::int64_t>(e) + f.bias) << f.man_bits;
        code -= std::int64_t{1} << f.man_bits; // the implicit leading one
    } else if (f.has_subnormals) {
        scaled = std::ldexp(a, f.man_bits - f.min_exponent()); // below 2^man
        code = 0;
    } else {
        return 0; // no zero and no subnormals (f8_e8m0): the smallest value
    }
    const double whole = std::floor(scaled);
    const double rest = scaled - whole;
    code += static_cast<std::int64_t>(whole);
    const bool tie_up = beyond != 0 ? beyond > 0 : (code & 1) != 0;
    if (rest > 0.5 || (rest == 0.5 && tie_up)) ++code; // carries into the exponent
    const auto max_code = static_cast<std::int64_t>(f.max_finite_code());
    if (code <= max_code) return static_cast<std::uint64_t>(code);
    return f.nan == nan_style::ieee ? f.inf_code() : f.max_finite_code();
}

std::optional<std::uint64_t> encode_with(const float_format &f, double v, int beyond) {
    if (std::isnan(v)) return nan_code(f);
    const bool negative = std::signbit(v);
    if (!f.has_sign && (negative || v == 0.0)) return std::nullopt;
    const double a = std::fabs(v);
    std::uint64_t code;
    if (std::isinf(a))
        code = f.nan == nan_style::ieee ? f.inf_code() : f.max_finite_code();
    else if (a == 0.0)
        code = 0;
    else
        code = encode_magnitude(f, a, negative ? -beyond : beyond);
    // FNUZ formats have no -0: a negative value that rounds to zero is +0.
    if (negative && !(code == 0 && f.nan == nan_style::neg_zero)) code |= f.sign_bit();
    return code;
}

double decode_with(const float_format &f, std::uint64_t bits) {
    const std::uint64_t magnitude = bits & f.magnitude_mask();
    const bool negative = (bits & f.sign_bit()) != 0;
    const std::uint64_t exp_field = magnitude >> f.man_bits;
    const std::uint64_t mantissa = magnitude & ((std::uint64_t{1} << f.man_bits) - 1);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    switch (f.nan) {
    case nan_style::ieee:
        if (magnitude >= f.inf_code())
            return mantissa != 0 ? nan : (negative ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
        break;
    case nan_style::all_ones:
        if (magnitude == f.magnitude_mask()) return nan;
        break;
    case nan_style::neg_zero:
        if (negative && magnitude == 0) return nan;
        break;
    case nan_style::none: break;
    }
    double value;
    if (exp_field == 0 && f.has_subnormals)
        value = std::ldexp(static_cast<double>(mantissa), f.min_exponent() - f.man_bits);
    else
        value = std::ldexp(static_cast<double>((std::uint64_t{1} << f.man_bits) | mantissa),
                           static_cast<int>(exp_field) - f.bias - f.man_bits);
    return negative ? -value : value;
}

int integer_width(data_type t) {
    switch (t) {
    case data_type::s2: case data_type::u2: return 2;
    case data_type::s4: case data_type::u4: return 4;
    case data_type::s8: case data_type::u8: case data_type::boolean: return 8;
    case data_type::s16: case data_type::u16: return 16;
    case data_type::s32: case data_type::u32: return 32;
    case data_type::s64: case data_type::u64: return 64;
    default: wrong_type("an integer encoding", t);
    }
}

std::uint64_t width_mask(int width) {
    return width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
}

} // namespace

data_type component_type(data_type t) {
    if (t == data_type::c64) return data_type::f32;
    if (t == data_type::c128) return data_type::f64;
    return t;
}

std::uint64_t load_bits(data_type t, const std::uint8_t *base, std::size_t index) {
    switch (element_bits(t)) {
    case 2:
    case 4: return load_packed(base, element_bits(t), index);
    case 8: return base[index];
    case 16: { std::uint16_t v; std::memcpy(&v, base + 2 * index, 2); return v; }
    case 32: { std::uint32_t v; std::memcpy(&v, base + 4 * index, 4); return v; }
    case 64: { std::uint64_t v; std::memcpy(&v, base + 8 * index, 8); return v; }
    default: wrong_type("load_bits", t);
    }
}

void store_bits(data_type t, std::uint8_t *base, std::size_t index, std::uint64_t bits) {
    switch (element_bits(t)) {
    case 2:
    case 4: store_packed(base, element_bits(t), index, static_cast<std::uint8_t>(bits)); return;
    case 8: base[index] = static_cast<std::uint8_t>(bits); return;
    case 16: { auto v = static_cast<std::uint16_t>(bits); std::memcpy(base + 2 * index, &v, 2); return; }
    case 32: { auto v = static_cast<std::uint32_t>(bits); std::memcpy(base + 4 * index, &v, 4); return; }
    case 64: std::memcpy(base + 8 * index, &bits, 8); return;
    default: wrong_type("store_bits", t);
    }
}

std::optional<std::uint64_t> encode_float(data_type t, double v, int beyond) {
    if (t == data_type::f64) return std::bit_cast<std::uint64_t>(v);
    return encode_with(format_of(t), v, beyond);
}

double decode_float(data_type t, std::uint64_t bits) {
    if (t == data_type::f64) return std::bit_cast<double>(bits);
    return decode_with(format_of(t), bits);
}

double max_finite(data_type t) {
    if (t == data_type::f64) return std::numeric_limits<double>::max();
    const auto &f = format_of(t);
    return decode_with(f, f.max_finite_code());
}

integer_range range_of(data_type t) {
    const int width = integer_width(t);
    if (t == data_type::boolean) return {0, 1};
    if (is_signed_integer(t))
        return {static_cast<std::int64_t>(~(width_mask(width) >> 1)), width_mask(width) >> 1};
    return {0, width_mask(width)};
}

bool is_signed_integer(data_type t) {
    switch (t) {
    case data_type::s2: case data_type::s4: case data_type::s8: case data_type::s16:
    case data_type::s32: case data_type::s64: return true;
    default: return false;
    }
}

std::optional<std::uint64_t> encode_signed(data_type t, std::int64_t v) {
    const integer_range r = range_of(t);
    if (v < r.min || (v > 0 && static_cast<std::uint64_t>(v) > r.max)) return std::nullopt;
    return static_cast<std::uint64_t>(v) & width_mask(integer_width(t));
}

std::optional<std::uint64_t> encode_unsigned(data_type t, std::uint64_t v) {
    if (v > range_of(t).max) return std::nullopt;
    return v;
}

std::int64_t decode_signed(data_type t, std::uint64_t bits) {
    if (!is_signed_integer(t)) wrong_type("decode_signed", t);
    const int width = integer_width(t);
    bits &= width_mask(width);
    if (width < 64 && (bits >> (width - 1)) & 1) bits |= ~width_mask(width); // sign-extend
    return static_cast<std::int64_t>(bits);
}

std::uint64_t decode_unsigned(data_type t, std::uint64_t bits) {
    const int width = integer_width(t);
    if (is_signed_integer(t)) wrong_type("decode_unsigned", t);
    bits &= width_mask(width);
    return t == data_type::boolean ? (bits != 0 ? 1 : 0) : bits;
}

} // namespace reshaper::impl
