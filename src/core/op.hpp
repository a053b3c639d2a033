// Ops as they appear in a graph: identity, kind, versioned domain,
// attributes and the ids of their input and output logical tensors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

enum class attr_kind { boolean, s64, s64_list, f32, f32_list, string };

std::string_view to_string(attr_kind k); // JSON spelling: bool s64 s64[] f32 f32[] string
std::optional<attr_kind> attr_kind_from_string(std::string_view s);

// Alternatives in the order of attr_kind.
using attribute_value = std::variant<bool, std::int64_t, std::vector<std::int64_t>, float,
                                     std::vector<float>, std::string>;

inline attr_kind kind_of(const attribute_value &v) { return static_cast<attr_kind>(v.index()); }

// "true", "7", "[1,2,3]", "0.5", "\"abc\"" - for messages and docs.
std::string attribute_to_string(const attribute_value &v);

struct op {
    std::int64_t id = -1;
    std::string name;
    std::string kind;
    std::string domain;                // "" (oneDNN Graph opset) or "ai.onnx"
    std::optional<std::int64_t> version; // as written in the file; nothing = newest
    std::map<std::string, attribute_value> attrs;
    std::vector<tensor_id> inputs;
    std::vector<tensor_id> outputs;

    bool operator==(const op &) const = default;

    op_ref ref() const { return op_ref{id, name, kind}; }
    const attribute_value *find_attr(std::string_view attr_name) const {
        auto it = attrs.find(std::string(attr_name));
        return it == attrs.end() ? nullptr : &it->second;
    }
};

inline std::string describe(const op &o) { return describe(o.ref()); }

} // namespace reshaper::impl
