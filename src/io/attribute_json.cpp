#include "io/attribute_json.hpp"
#include "core/fail.hpp"

#include <string>
#include <vector>

#include "io/values_json.hpp"

namespace reshaper::impl::graph_io {
namespace {

std::optional<attribute_value> attribute_from_json(attr_kind kind, json_view v) {
    switch (kind) {
    case attr_kind::boolean: {
        if (v.is_boolean()) return v.boolean();
        const auto i = exact_int64(v);
        if (i && (*i == 0 || *i == 1)) return *i == 1;
        return std::nullopt;
    }
    case attr_kind::s64:
        if (auto i = exact_int64(v)) return *i;
        return std::nullopt;
    case attr_kind::s64_list: {
        if (!v.is_array()) return std::nullopt;
        std::vector<std::int64_t> list;
        list.reserve(v.size());
        for (json_view e : v.elements()) {
            const auto i = exact_int64(e);
            if (!i) return std::nullopt;
            list.push_back(*i);
        }
        return list;
    }
    case attr_kind::f32:
        if (auto f = f32_from_json(v)) return *f;
        return std::nullopt;
    case attr_kind::f32_list: {
        if (!v.is_array()) return std::nullopt;
        std::vector<float> list;
        list.reserve(v.size());
        for (json_view e : v.elements()) {
            const auto f = f32_from_json(e);
            if (!f) return std::nullopt;
            list.push_back(*f);
        }
        return list;
    }
    case attr_kind::string:
        if (v.is_string()) return std::string(v.string());
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

attribute_value read_attribute(std::string_view name, json_view j, const context &op_ctx) {
    const context ctx = op_ctx.attr(name);
    if (!j.is_object())
        ctx.fail(rule::field_type, "must be an object {\"type\": ..., \"value\": ...}, got " + excerpt(j));
    const std::string_view type = as_string(require_field(j, "type", ctx), "type", ctx);
    const json_view value = require_field(j, "value", ctx);
    const auto kind = attr_kind_from_string(type);
    if (!kind)
        ctx.fail(rule::known_attr_type, "unknown type " + in_quotes(type) + " (bool, s64, s64[], f32, f32[], string)");
    auto parsed = attribute_from_json(*kind, value);
    if (!parsed)
        ctx.fail(rule::attr_value_type, "type " + std::string(type) + " cannot hold value " + excerpt(value));
    return std::move(*parsed);
}

ojson attribute_to_json(const attribute_value &v) {
    ojson value;
    switch (kind_of(v)) {
    case attr_kind::boolean: value = std::get<bool>(v) ? 1 : 0; break;
    case attr_kind::s64: value = std::get<std::int64_t>(v); break;
    case attr_kind::s64_list: value = std::get<std::vector<std::int64_t>>(v); break;
    case attr_kind::f32: value = float_to_json(std::get<float>(v), true); break;
    case attr_kind::f32_list:
        value = ojson::array();
        for (float f : std::get<std::vector<float>>(v)) value.push_back(float_to_json(f, true));
        break;
    case attr_kind::string: value = std::get<std::string>(v); break;
    }
    ojson j = ojson::object();
    j["type"] = std::string(to_string(kind_of(v)));
    j["value"] = std::move(value);
    return j;
}

} // namespace reshaper::impl::graph_io
