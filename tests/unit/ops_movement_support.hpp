// Helpers of the ops_* tests of the transposes, squeezes, unsqueezes and
// flattens: one-op graphs read from graph-file JSON (as a user writes them),
// inferred, and errors checked for their status, rule id and text.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {

// One op of the family: data 0 (and axes 1), output 2, op 3 "m".
struct movement_case {
    std::string kind;
    std::string domain = "ai.onnx";
    std::optional<std::int64_t> version;
    dims_t input;
    std::string dtype = "f32";
    // Members of "attrs", e.g. R"("perm": {"type": "s64[]", "value": [1, 0]})".
    std::string attrs;
    // An axes input (input 1): its values (constant), or only its shape.
    std::optional<std::vector<std::int64_t>> axes;
    std::optional<dims_t> axes_shape; // default [axes.size()]
    bool axes_constant = true;
    // The output as the file gives it; default: unknown dims of the input's rank.
    std::optional<dims_t> output;
    std::string output_dtype; // default: as dtype
};

inline std::string lt_json(tensor_id id, const std::string &dtype, const dims_t &shape,
                           const std::string &extra = "") {
    return "{\"id\": " + std::to_string(id) + ", \"dtype\": \"" + dtype +
           "\", \"shape\": " + dims_to_string(shape) +
           ", \"layout_type\": \"strided\", \"property_type\": " + extra + "}";
}

inline std::string movement_json(const movement_case &c) {
    std::string inputs = lt_json(0, c.dtype, c.input, "\"undef\"");
    if (c.axes || c.axes_shape) {
        const dims_t shape =
            c.axes_shape.value_or(dims_t{static_cast<dim_t>(c.axes ? c.axes->size() : 0)});
        std::string extra = c.axes_constant ? "\"constant\"" : "\"variable\"";
        if (c.axes) extra += ", \"values\": " + dims_to_string(*c.axes);
        inputs += ", " + lt_json(1, "s64", shape, extra);
    }
    const dims_t output = c.output.value_or(dims_t(c.input.size(), unknown_dim));
    const std::string output_dtype = c.output_dtype.empty() ? c.dtype : c.output_dtype;
    return "{\"graph\": [{\"id\": 3, \"name\": \"m\", \"kind\": \"" + c.kind +
           "\", \"domain\": \"" + c.domain + "\"" +
           (c.version ? ", \"version\": " + std::to_string(*c.version) : std::string()) +
           ", \"attrs\": {" + c.attrs + "}, \"inputs\": [" + inputs + "], \"outputs\": [" +
           lt_json(2, output_dtype, output, "\"undef\"") + "]}]}";
}

// The inferred graph of the case.
inline graph inferred(const movement_case &c) {
    graph g = read_graph_json(movement_json(c));
    infer_graph_shapes(g);
    return g;
}

inline dims_t inferred_shape(const movement_case &c) { return inferred(c).tensor(2).shape; }

// "perm": s64[] attribute member text.
inline std::string s64s_attr(const std::string &name, const std::vector<std::int64_t> &values) {
    return "\"" + name + "\": {\"type\": \"s64[]\", \"value\": " + dims_to_string(values) + "}";
}
inline std::string s64_attr(const std::string &name, std::int64_t value) {
    return "\"" + name + "\": {\"type\": \"s64\", \"value\": " + std::to_string(value) + "}";
}

// Runs `fn`, expecting an error with `code` and rule `rule` whose message
// holds `substring`.
inline void expect_rule(const std::function<void()> &fn, status code, const std::string &rule,
                        const std::string &substring = "") {
    try {
        fn();
        ADD_FAILURE() << "expected " << to_string(code) << " [" << rule << "], got success";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), code) << e.what();
        EXPECT_EQ(e.rule(), rule) << e.what();
        EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
            << "message '" << e.what() << "' lacks '" << substring << "'";
    }
}

inline void expect_case_error(const movement_case &c, status code, const std::string &rule,
                              const std::string &substring = "") {
    expect_rule([&] { inferred(c); }, code, rule, substring);
}

} // namespace reshaper::impl::testing
