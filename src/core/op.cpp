#include "core/op.hpp"

#include <array>
#include <charconv>
#include <string>

namespace reshaper::impl {
namespace {

// JSON spellings, in the order of attr_kind.
constexpr std::array<std::string_view, 6> attr_kind_names{"bool", "s64",  "s64[]",
                                                          "f32",  "f32[]", "string"};

std::string float_to_string(float f) {
    // Shortest text that reads back to the same float.
    std::array<char, 32> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), f);
    if (ec != std::errc()) return std::to_string(f);
    return std::string(buf.data(), end);
}

template <typename T, typename Format>
std::string list_to_string(const std::vector<T> &values, Format format) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) s += ",";
        s += format(values[i]);
    }
    return s + "]";
}

std::string quoted(const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

} // namespace

std::string_view to_string(attr_kind k) { return attr_kind_names[static_cast<std::size_t>(k)]; }

std::optional<attr_kind> attr_kind_from_string(std::string_view s) {
    for (std::size_t i = 0; i < attr_kind_names.size(); ++i)
        if (attr_kind_names[i] == s) return static_cast<attr_kind>(i);
    return std::nullopt;
}

std::string attribute_to_string(const attribute_value &v) {
    switch (kind_of(v)) {
    case attr_kind::boolean: return std::get<bool>(v) ? "true" : "false";
    case attr_kind::s64: return std::to_string(std::get<std::int64_t>(v));
    case attr_kind::s64_list:
        return list_to_string(std::get<std::vector<std::int64_t>>(v),
                              [](std::int64_t x) { return std::to_string(x); });
    case attr_kind::f32: return float_to_string(std::get<float>(v));
    case attr_kind::f32_list:
        return list_to_string(std::get<std::vector<float>>(v), float_to_string);
    case attr_kind::string: return quoted(std::get<std::string>(v));
    }
    return "";
}

} // namespace reshaper::impl
