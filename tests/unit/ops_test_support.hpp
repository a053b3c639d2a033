// Helpers shared by the ops_* tests: the reshape op x version variants and
// one-op graphs built directly in C++ (no JSON).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "ops/reshape_rule.hpp"

// Tests set options by designated initializers that name only what they
// change; GCC 12 warns about the fields left at their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace reshaper::impl::testing {

// One reshape op at one version, and how a test states its target and zeros.
struct reshape_variant {
    std::string label; // test-name friendly
    std::string domain;
    std::string kind;
    std::int64_t version;
    bool target_is_input; // else the s64[] attribute "shape"
    data_type shape_dtype;
    enum class zero_attr { special_zero, allowzero, none } zeros;
    bool allows_0d_shape_input;
};

// gtest prints parameters by this (not as raw bytes).
inline void PrintTo(const reshape_variant &v, std::ostream *os) { *os << v.label; }

inline const std::vector<reshape_variant> &all_reshape_variants() {
    using z = reshape_variant::zero_attr;
    static const std::vector<reshape_variant> v{
        {"StaticReshape_1", "", "StaticReshape", 1, false, data_type::undef, z::special_zero, false},
        {"DynamicReshape_1", "", "DynamicReshape", 1, true, data_type::s32, z::special_zero, true},
        {"Reshape_1", "", "Reshape", 1, true, data_type::s64, z::special_zero, true},
        {"Reshape_1_u8_shape", "", "Reshape", 1, true, data_type::u8, z::special_zero, true},
        {"Onnx_Reshape_1", "ai.onnx", "Reshape", 1, false, data_type::undef, z::none, false},
        {"Onnx_Reshape_5", "ai.onnx", "Reshape", 5, true, data_type::s64, z::none, false},
        {"Onnx_Reshape_13", "ai.onnx", "Reshape", 13, true, data_type::s64, z::none, false},
        {"Onnx_Reshape_14", "ai.onnx", "Reshape", 14, true, data_type::s64, z::allowzero, false},
        {"Onnx_Reshape_19", "ai.onnx", "Reshape", 19, true, data_type::s64, z::allowzero, false},
        {"Onnx_Reshape_21", "ai.onnx", "Reshape", 21, true, data_type::s64, z::allowzero, false},
        {"Onnx_Reshape_23", "ai.onnx", "Reshape", 23, true, data_type::s64, z::allowzero, false},
        {"Onnx_Reshape_24", "ai.onnx", "Reshape", 24, true, data_type::s64, z::allowzero, false},
    };
    return v;
}

inline const reshape_variant &variant_named(const std::string &label) {
    for (const auto &v : all_reshape_variants())
        if (v.label == label) return v;
    throw std::logic_error("no variant " + label);
}

inline bool supports(const reshape_variant &v, zero_rule zeros) {
    return zeros == zero_rule::copy_from_input || v.zeros != reshape_variant::zero_attr::none;
}

// Whether every value fits the variant's shape input dtype.
inline bool values_fit(const reshape_variant &v, const std::vector<std::int64_t> &values) {
    for (std::int64_t x : values) {
        switch (v.shape_dtype) {
        case data_type::s32:
            if (x < INT32_MIN || x > INT32_MAX) return false;
            break;
        case data_type::u8:
            if (x < 0 || x > 255) return false;
            break;
        default: break;
        }
    }
    return true;
}

// Dense little-endian elements of `type` holding `values`.
inline tensor_values int_values(data_type type, const std::vector<std::int64_t> &values) {
    tensor_values tv{type, values.size(), {}, {}};
    const std::size_t bytes = element_bits(type) / 8;
    tv.bytes.resize(values.size() * bytes);
    for (std::size_t i = 0; i < values.size(); ++i)
        std::memcpy(tv.bytes.data() + i * bytes, &values[i], bytes); // low bytes first
    return tv;
}

inline logical_tensor tensor(tensor_id id, data_type dtype, dims_t shape) {
    logical_tensor lt;
    lt.id = id;
    lt.dtype = dtype;
    lt.shape = std::move(shape);
    return lt;
}

inline void set_zero_rule(const reshape_variant &v, op &o, zero_rule zeros) {
    const bool copy = zeros == zero_rule::copy_from_input;
    switch (v.zeros) {
    case reshape_variant::zero_attr::special_zero: o.attrs["special_zero"] = copy; break;
    case reshape_variant::zero_attr::allowzero:
        o.attrs["allowzero"] = std::int64_t{copy ? 0 : 1};
        break;
    case reshape_variant::zero_attr::none: break;
    }
}

// Ids in every one-op graph: data 0, shape 1 (when an input), output 2, op 3.
inline constexpr tensor_id data_id = 0, shape_id = 1, output_id = 2;

struct reshape_graph_options {
    data_type data_dtype = data_type::f32;
    data_type output_dtype = data_type::undef;
    // The output's given shape; nothing: unknown dims of the target's rank.
    std::optional<dims_t> given_output;
    bool shape_values_known = true;
    // The shape input's own shape; nothing: [target.size()].
    std::optional<dims_t> shape_tensor_shape;
};

inline graph make_reshape_graph(const reshape_variant &v, const dims_t &input,
                                const std::vector<std::int64_t> &target, zero_rule zeros,
                                const reshape_graph_options &opt = {}) {
    graph g;
    op o;
    o.id = 3;
    o.name = "Reshape_0";
    o.kind = v.kind;
    o.domain = v.domain;
    o.version = v.version;
    set_zero_rule(v, o, zeros);
    g.tensors[data_id] = tensor(data_id, opt.data_dtype, input);
    o.inputs = {data_id};
    if (v.target_is_input) {
        logical_tensor s = tensor(shape_id, v.shape_dtype,
                                  opt.shape_tensor_shape.value_or(
                                      dims_t{static_cast<dim_t>(target.size())}));
        if (opt.shape_values_known) {
            s.property = property_type::constant;
            s.values = int_values(v.shape_dtype, target);
        }
        g.tensors[shape_id] = s;
        o.inputs.push_back(shape_id);
    } else {
        o.attrs["shape"] = target;
    }
    g.tensors[output_id] = tensor(
        output_id, opt.output_dtype,
        opt.given_output.value_or(dims_t(target.size(), unknown_dim)));
    o.outputs = {output_id};
    g.ops.push_back(o);
    return g;
}

// Runs `fn`, expecting an error with `code` whose message holds `substring`.
inline void expect_error(const std::function<void()> &fn, status code,
                         const std::string &substring) {
    try {
        fn();
        ADD_FAILURE() << "expected " << to_string(code) << " containing '" << substring
                      << "', got success";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), code) << e.what();
        EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
            << "message '" << e.what() << "' lacks '" << substring << "'";
    }
}

} // namespace reshaper::impl::testing
