#include "io/values_json.hpp"
#include "core/fail.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "core/element_codec.hpp"
#include "io/json_fields.hpp"

namespace reshaper::impl::graph_io {
namespace {

// JSON has no NaN or inf: they travel as strings.
std::optional<json_number> float_from_json(json_view j) {
    if (j.is_number()) return number_of(j);
    if (j.is_string()) {
        const std::string_view s = j.string();
        if (s == "nan") return json_number{std::numeric_limits<double>::quiet_NaN()};
        if (s == "inf") return json_number{std::numeric_limits<double>::infinity()};
        if (s == "-inf") return json_number{-std::numeric_limits<double>::infinity()};
    }
    return std::nullopt;
}

// The shortest decimal that reads back as `f` (0.1f is written 0.1, not
// 0.10000000149011612); the float's exact value if that fails.
double shortest_decimal(float f) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
    double d = 0;
    if (ec == std::errc() && std::from_chars(buf, end, d).ec == std::errc() &&
        static_cast<float>(d) == f && std::signbit(d) == std::signbit(f))
        return d;
    return f;
}

} // namespace

ojson float_to_json(double v, bool single_precision) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    return single_precision ? shortest_decimal(static_cast<float>(v)) : v;
}

std::optional<float> f32_from_json(json_view j) {
    const auto d = float_from_json(j);
    if (!d) return std::nullopt;
    const auto f =
        std::bit_cast<float>(static_cast<std::uint32_t>(*encode_float(data_type::f32, d->value, d->beyond)));
    if (std::isinf(f) && std::isfinite(d->value)) return std::nullopt;
    return f;
}

namespace {

[[noreturn]] void bad_value(json_view v, std::size_t index, data_type t, std::string_view why) {
    fail(rule::value_fits_dtype, "values[" + std::to_string(index) + "] = " + excerpt(v) + " cannot be held by dtype " +
                    std::string(to_string(t)) + ": " + std::string(why));
}

std::uint64_t integer_bits(json_view v, std::size_t index, data_type t) {
    std::optional<std::uint64_t> bits;
    if (v.is_boolean() && t == data_type::boolean) {
        bits = v.boolean() ? 1 : 0;
    } else if (v.type() == json_tree::kind::unsigned_integer) {
        bits = encode_unsigned(t, v.unsigned_integer());
    } else if (v.type() == json_tree::kind::integer) {
        bits = encode_signed(t, v.integer());
    } else if (v.type() == json_tree::kind::floating) {
        const auto [d, beyond] = *number_of(v);
        if (beyond != 0 || d != std::floor(d)) bad_value(v, index, t, "not an integer");
        if (d >= -0x1p63 && d < 0x1p63) bits = encode_signed(t, static_cast<std::int64_t>(d));
        else if (d >= 0 && d < 0x1p64) bits = encode_unsigned(t, static_cast<std::uint64_t>(d));
    } else {
        bad_value(v, index, t, "not an integer");
    }
    if (!bits) bad_value(v, index, t, "out of range");
    return *bits;
}

// `t` is the tensor's dtype, whose component the value becomes.
std::uint64_t float_bits(json_view v, std::size_t index, data_type t) {
    const auto d = float_from_json(v);
    if (!d) bad_value(v, index, t, "not a number");
    const auto bits = encode_float(component_type(t), d->value, d->beyond);
    if (!bits) bad_value(v, index, t, "the format has no such value");
    return *bits;
}

} // namespace

tensor_values values_from(json_view list, data_type type, std::size_t count) {
    if (!list.is_array())
        fail(rule::field_type, "values must be an array, got " + excerpt(list));
    if (list.size() != count)
        fail(rule::values_count, "values hold " + std::to_string(list.size()) +
                                               " elements, the shape has " + std::to_string(count));
    tensor_values out;
    out.type = type;
    out.count = count;
    if (type == data_type::string) {
        out.strings.reserve(count);
        std::size_t i = 0;
        for (json_view v : list.elements()) {
            if (!v.is_string()) bad_value(v, i, type, "not a string");
            out.strings.emplace_back(v.string());
            ++i;
        }
        return out;
    }
    if (type == data_type::undef)
        fail(rule::value_fits_dtype, "values need a defined dtype, got undef");
    out.bytes.assign(dense_bytes(type, count), 0);
    const data_type part = component_type(type);
    std::size_t i = 0;
    for (json_view v : list.elements()) {
        if (is_complex(type)) {
            if (!v.is_array() || v.size() != 2) bad_value(v, i, type, "not a [re, im] pair");
            auto pair = v.elements().begin();
            store_bits(part, out.bytes.data(), 2 * i, float_bits(*pair, i, type));
            store_bits(part, out.bytes.data(), 2 * i + 1, float_bits(*++pair, i, type));
        } else if (is_floating_point(type)) {
            store_bits(type, out.bytes.data(), i, float_bits(v, i, type));
        } else {
            store_bits(type, out.bytes.data(), i, integer_bits(v, i, type));
        }
        ++i;
    }
    return out;
}

namespace {

ojson element_to_json(data_type t, const std::uint8_t *bytes, std::size_t index) {
    const std::uint64_t bits = load_bits(t, bytes, index);
    if (is_floating_point(t)) return float_to_json(decode_float(t, bits), t == data_type::f32);
    if (is_signed_integer(t)) return decode_signed(t, bits);
    return decode_unsigned(t, bits);
}

} // namespace

ojson values_to_ojson(const tensor_values &v) {
    ojson list = ojson::array();
    if (v.type == data_type::string) {
        if (v.strings.size() != v.count)
            fail(rule::tensor_values_size, "values hold " + std::to_string(v.strings.size()) +
                                                       " strings for " + std::to_string(v.count) +
                                                       " elements");
        for (const auto &s : v.strings) list.push_back(s);
        return list;
    }
    if (v.type == data_type::undef || v.bytes.size() < dense_bytes(v.type, v.count))
        fail(rule::tensor_values_size, "values of dtype " + std::string(to_string(v.type)) + " hold " +
                        std::to_string(v.bytes.size()) + " bytes for " + std::to_string(v.count) +
                        " elements");
    const data_type part = component_type(v.type);
    for (std::size_t i = 0; i < v.count; ++i) {
        if (is_complex(v.type))
            list.push_back({element_to_json(part, v.bytes.data(), 2 * i),
                            element_to_json(part, v.bytes.data(), 2 * i + 1)});
        else
            list.push_back(element_to_json(v.type, v.bytes.data(), i));
    }
    return list;
}

} // namespace reshaper::impl::graph_io
