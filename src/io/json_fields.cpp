#include "io/json_fields.hpp"

#include <cmath>
#include <limits>

namespace reshaper::impl::graph_io {

std::string dump(const ojson &j, int indent) {
    return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

std::string excerpt(json_view j) {
    constexpr std::size_t limit = 80;
    std::string s = dump(to_ojson(j));
    if (s.size() > limit) s = s.substr(0, limit) + "...";
    return s;
}

std::string in_quotes(std::string_view s) {
    std::string out(1, '"');
    out.append(s).push_back('"');
    return out;
}

std::optional<std::int64_t> exact_int64(json_view j) {
    if (j.type() == json_tree::kind::unsigned_integer) {
        const auto u = j.unsigned_integer();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(u);
    }
    if (j.type() == json_tree::kind::integer) return j.integer();
    if (j.type() == json_tree::kind::floating) {
        const auto [d, beyond] = *number_of(j);
        if (beyond == 0 && std::isfinite(d) && d == std::floor(d) && d >= -0x1p63 && d < 0x1p63)
            return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

json_view require_field(json_view object, std::string_view key, const context &ctx) {
    return require_field(object.find(key), key, ctx);
}

json_view require_field(const std::optional<json_view> &found, std::string_view key, const context &ctx) {
    if (found) return *found;
    ctx.fail(rule::required_field, "missing field " + in_quotes(key));
}

[[noreturn]] void wrong_json_type(json_view v, std::string_view field, std::string_view expected,
                                  const context &ctx) {
    ctx.fail(rule::field_type, "field " + in_quotes(field) + " must be " + std::string(expected) + ", got " + excerpt(v));
}

std::int64_t as_int(json_view v, std::string_view field, const context &ctx) {
    if (auto i = exact_int64(v)) return *i;
    wrong_json_type(v, field, "an integer within int64", ctx);
}

std::int64_t as_id(json_view v, std::string_view field, const context &ctx) {
    auto i = exact_int64(v);
    if (!i || *i < 0) wrong_json_type(v, field, "a non-negative integer", ctx);
    return *i;
}

std::string_view as_string(json_view v, std::string_view field, const context &ctx) {
    if (!v.is_string()) wrong_json_type(v, field, "a string", ctx);
    return v.string();
}

json_view as_array(json_view v, std::string_view field, const context &ctx) {
    if (!v.is_array()) wrong_json_type(v, field, "an array", ctx);
    return v;
}

dims_t as_int_list(json_view v, std::string_view field, const context &ctx) {
    dims_t out;
    out.reserve(as_array(v, field, ctx).size());
    for (json_view e : v.elements()) {
        const auto i = exact_int64(e);
        if (!i) as_int(e, std::string(field) + "[" + std::to_string(out.size()) + "]", ctx); // throws
        out.push_back(*i);
    }
    return out;
}

} // namespace reshaper::impl::graph_io
