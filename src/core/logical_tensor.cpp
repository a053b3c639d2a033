#include "core/logical_tensor.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/element_codec.hpp"
#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

std::string_view to_string(layout_type l) {
    switch (l) {
    case layout_type::undef: return "undef";
    case layout_type::any: return "any";
    case layout_type::strided: return "strided";
    case layout_type::opaque: return "opaque";
    }
    return "undef";
}

std::optional<layout_type> layout_type_from_string(std::string_view s) {
    for (auto l : {layout_type::undef, layout_type::any, layout_type::strided, layout_type::opaque})
        if (to_string(l) == s) return l;
    return std::nullopt;
}

std::string_view to_string(property_type p) {
    switch (p) {
    case property_type::undef: return "undef";
    case property_type::variable: return "variable";
    case property_type::constant: return "constant";
    }
    return "undef";
}

std::optional<property_type> property_type_from_string(std::string_view s) {
    for (auto p : {property_type::undef, property_type::variable, property_type::constant})
        if (to_string(p) == s) return p;
    return std::nullopt;
}

std::vector<std::int64_t> values_as_int64(const tensor_values &v) {
    if (v.count > 0 && !is_integer(v.type))
        fail(rule::type_constraint, "shape values must have an integer type, got " +
                 std::string(to_string(v.type)));
    std::vector<std::int64_t> out(v.count);
    for (std::size_t i = 0; i < v.count; ++i) {
        const std::uint64_t bits = load_bits(v.type, v.bytes.data(), i);
        if (is_signed_integer(v.type)) {
            out[i] = decode_signed(v.type, bits);
            continue;
        }
        const std::uint64_t u = decode_unsigned(v.type, bits);
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail(rule::overflow, "u64 shape value " + std::to_string(u) + " at index " + std::to_string(i) +
                                     " does not fit in int64");
        out[i] = static_cast<std::int64_t>(u);
    }
    return out;
}

std::optional<dims_t> dense_strides(const dims_t &shape) {
    if (has_unknown_dims(shape)) return std::nullopt;
    const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
    dims_t strides(shape.size());
    std::optional<dim_t> running = 1; // nothing once it overflowed
    for (std::size_t i = shape.size(); i-- > 0;) {
        // A tensor of no elements addresses none: where the product
        // overflows, its strides are 0 instead of an error.
        if (!running && !empty) return std::nullopt;
        strides[i] = running.value_or(0);
        if (i > 0 && running) running = checked_mul(*running, std::max<dim_t>(shape[i], 1));
    }
    return strides;
}

std::optional<dims_t> effective_strides(const logical_tensor &lt) {
    if (!reads_as_strided(lt.layout) || !lt.shape_known()) return std::nullopt;
    if (!lt.strides.empty()) return lt.strides;
    return dense_strides(lt.shape);
}

bool same_strided_layout(const dims_t &shape, const dims_t &a, const dims_t &b) {
    if (a.size() != shape.size() || b.size() != shape.size()) return a == b;
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return true; // no element
    for (std::size_t k = 0; k < shape.size(); ++k)
        if (shape[k] != 1 && a[k] != b[k]) return false;
    return true;
}

const logical_tensor *find_tensor(const std::vector<logical_tensor> &lts, tensor_id id) {
    for (const logical_tensor &lt : lts)
        if (lt.id == id) return &lt;
    return nullptr;
}

std::optional<dims_t> merge_known_dims(const dims_t &a, const dims_t &b) {
    if (a.size() != b.size()) return std::nullopt;
    dims_t merged = a;
    for (std::size_t i = 0; i < merged.size(); ++i) {
        if (b[i] == unknown_dim) continue;
        if (merged[i] == unknown_dim) merged[i] = b[i];
        else if (merged[i] != b[i]) return std::nullopt;
    }
    return merged;
}

void append_dims(std::string &out, const dims_t &dims) {
    // Made in a buffer, appended a stretch at a time: a call per bracket,
    // comma and number was most of the time of writing a tensor into the
    // JSON report (callgrind), and a large graph's report writes many.
    char text[256];
    constexpr std::size_t widest = 22; // a comma, 20 characters of an int64, the closing bracket
    char *at = text;
    *at++ = '[';
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (static_cast<std::size_t>(text + sizeof text - at) < widest) {
            out.append(text, at);
            at = text;
        }
        if (i) *at++ = ',';
        at = std::to_chars(at, text + sizeof text, dims[i]).ptr;
    }
    *at++ = ']';
    out.append(text, at);
}

std::string dims_to_string(const dims_t &dims) {
    std::string s;
    append_dims(s, dims);
    return s;
}

} // namespace reshaper::impl
