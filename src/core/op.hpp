// Ops as they appear in a graph: identity, kind, versioned domain,
// attributes and the ids of their input and output logical tensors.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "core/dims.hpp"
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

// A graph holds one op per node (100,000 in a 100,000-op file, kept through
// the whole check), so what an op costs is the graph's: a std::map of
// attributes was a heap node per attribute, the input and output id lists a
// heap block each. Attributes are a sorted array (one heap block for all;
// ops have a few, looked up by name) and up to two ids per side live inside
// the op, in the 24 bytes a std::vector took. The bytes per op before and
// after are in docs/performance.md's tuning section ("What a graph file's
// op costs in memory").
using attribute_map = boost::container::flat_map<std::string, attribute_value, std::less<>>;
using tensor_ids = absl::InlinedVector<tensor_id, 2>;

struct op {
    std::int64_t id = -1;
    std::string name;
    std::string kind;
    std::string domain;                // "" (oneDNN Graph opset) or "ai.onnx"
    std::optional<std::int64_t> version; // as written in the file; nothing = newest
    attribute_map attrs;
    tensor_ids inputs;
    tensor_ids outputs;

    bool operator==(const op &) const = default;

    op_ref ref() const { return op_ref{id, name, kind}; }
    const attribute_value *find_attr(std::string_view attr_name) const {
        auto it = attrs.find(attr_name);
        return it == attrs.end() ? nullptr : &it->second;
    }
};

inline std::string describe(const op &o) { return describe(o.ref()); }

} // namespace reshaper::impl
