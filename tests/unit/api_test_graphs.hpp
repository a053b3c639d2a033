// Small graphs and helpers shared by the api_* tests (which see only the
// public headers and libreshaper.so).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace api_test {

// StaticReshape 0:[2,3,4] -> 1:[4,6] (output shape left to inference), then
// a MatMul this backend does not handle.
inline const char *const reshape_then_matmul = R"({
  "version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict",
  "graph": [
    { "id": 0, "name": "Reshape_0", "kind": "StaticReshape",
      "attrs": { "special_zero": {"type": "bool", "value": 0},
                 "shape": {"type": "s64[]", "value": [4, -1]} },
      "inputs":  [ {"id": 0, "dtype": "f32", "shape": [2, 3, 4], "stride": [12, 4, 1],
                    "layout_type": "strided", "property_type": "undef"} ],
      "outputs": [ {"id": 1, "dtype": "f32", "shape": [-1, -1], "stride": [],
                    "layout_type": "strided", "property_type": "undef"} ] },
    { "id": 7, "name": "MatMul_7", "kind": "MatMul",
      "inputs":  [ {"id": 1, "dtype": "f32", "shape": [4, 6], "stride": [6, 1],
                    "layout_type": "strided", "property_type": "undef"},
                   {"id": 2, "dtype": "f32", "shape": [6, 5], "stride": [5, 1],
                    "layout_type": "strided", "property_type": "undef"} ],
      "outputs": [ {"id": 3, "dtype": "f32", "shape": [4, 5], "stride": [5, 1],
                    "layout_type": "strided", "property_type": "undef"} ] } ]
})";

// StaticReshape whose volumes disagree: 24 elements into [5, 5].
inline const char *const volume_mismatch = R"({
  "version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict",
  "graph": [
    { "id": 0, "name": "Reshape_0", "kind": "StaticReshape",
      "attrs": { "special_zero": {"type": "bool", "value": 0},
                 "shape": {"type": "s64[]", "value": [5, 5]} },
      "inputs":  [ {"id": 0, "dtype": "f32", "shape": [2, 3, 4], "stride": [12, 4, 1],
                    "layout_type": "strided", "property_type": "undef"} ],
      "outputs": [ {"id": 1, "dtype": "f32", "shape": [5, 5], "stride": [5, 1],
                    "layout_type": "strided", "property_type": "undef"} ] } ]
})";

// One StaticReshape [2,3] -> [3,2] with the given dtype name.
inline std::string single_reshape(const std::string &dtype) {
    return R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
    { "id": 0, "name": "Reshape_0", "kind": "StaticReshape",
      "attrs": { "special_zero": {"type": "bool", "value": 0},
                 "shape": {"type": "s64[]", "value": [3, 2]} },
      "inputs":  [ {"id": 0, "dtype": ")" + dtype + R"(", "shape": [2, 3], "stride": [3, 1],
                    "layout_type": "strided", "property_type": "undef"} ],
      "outputs": [ {"id": 1, "dtype": ")" + dtype + R"(", "shape": [3, 2], "stride": [2, 1],
                    "layout_type": "strided", "property_type": "undef"} ] } ] })";
}

// 0, 1, 2, ... as f32.
inline std::vector<float> iota_f32(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
    return v;
}

inline bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

} // namespace api_test
