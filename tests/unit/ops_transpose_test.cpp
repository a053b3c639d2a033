// StaticTranspose-1 and ONNX Transpose (1, 13, 21, 23, 24, 25) through graph
// files: the sheets' worked examples and error tables, per version.
#include <gtest/gtest.h>

#include "ops/registry.hpp"
#include "ops_movement_support.hpp"

namespace reshaper::impl::testing {
namespace {

movement_case static_transpose(dims_t input, std::vector<std::int64_t> order) {
    return {.kind = "StaticTranspose", .domain = "", .input = std::move(input),
            .attrs = s64s_attr("order", order)};
}

TEST(StaticTranspose, WorkedExamples) {
    // 1: the benchdnn file, dst given with the permuted strides.
    {
        movement_case c = static_transpose({224, 12, 384, 64}, {0, 2, 1, 3});
        c.output = dims_t{224, 384, 12, 64};
        EXPECT_EQ(inferred_shape(c), (dims_t{224, 384, 12, 64}));
    }
    EXPECT_EQ(inferred_shape(static_transpose({1024, 64, 32}, {2, 0, 1})), (dims_t{32, 1024, 64}));
    EXPECT_EQ(inferred_shape(static_transpose({2, 4, 1024}, {-2, 2, 0})), (dims_t{4, 1024, 2}));
    EXPECT_EQ(inferred_shape(static_transpose({2, 4, 1024}, {})), (dims_t{1024, 4, 2}));
    EXPECT_EQ(inferred_shape(static_transpose({}, {})), (dims_t{}));
    expect_case_error(static_transpose({2, 4, 1024}, {1, 1, 0}), status::invalid_shape,
                      "axis_duplicate",
                      "op 3 'm' StaticTranspose-1: order [1,1,0] names axis 1 twice (at indices 0 and 1)");
    expect_case_error(static_transpose({2, 4, 1024}, {1, 0}), status::invalid_shape, "perm_length",
                      "order [1,0] has 2 entries, but input [2,4,1024] of rank 3 needs one per axis");
    expect_case_error(static_transpose({2, 4, 1024}, {1, 3, 0}), status::invalid_shape,
                      "axis_range", "order [1,3,0] has 3 at index 1, outside [-3, 2]");
}

TEST(StaticTranspose, UnknownAndZeroDimsCarryOver) {
    EXPECT_EQ(inferred_shape(static_transpose({-1, 0, 5}, {2, 0, 1})), (dims_t{5, -1, 0}));
    movement_case given = static_transpose({-1, 3}, {1, 0});
    given.output = dims_t{3, 7}; // the output fills the unknown dim
    EXPECT_EQ(inferred_shape(given), (dims_t{3, 7}));
}

TEST(StaticTranspose, OpDefinitionErrors) {
    movement_case missing = static_transpose({2, 3}, {});
    missing.attrs = "";
    expect_case_error(missing, status::invalid_graph_op, "required_attribute", "attr order=<absent>");
    movement_case wrong_kind = static_transpose({2, 3}, {});
    wrong_kind.attrs = s64_attr("order", 1);
    expect_case_error(wrong_kind, status::invalid_graph_op, "attribute_kind", "attr order=1");
    movement_case integer = static_transpose({2, 3}, {1, 0});
    integer.dtype = "s8";
    expect_case_error(integer, status::invalid_data_type, "type_constraint",
                      "input 0 'src' dtype=s8 violates type_constraint T (allowed: f32, bf16, f16)");
    movement_case mixed = static_transpose({2, 3}, {1, 0});
    mixed.output_dtype = "bf16";
    expect_case_error(mixed, status::invalid_data_type, "type_constraint", "T is f32");
    movement_case two_inputs = static_transpose({2, 3}, {1, 0});
    two_inputs.axes = std::vector<std::int64_t>{0};
    expect_case_error(two_inputs, status::invalid_graph_op, "input_count", "input count=2");
}

TEST(StaticTranspose, GivenOutputMustAgree) {
    movement_case c = static_transpose({2, 4, 8}, {2, 0, 1});
    c.output = dims_t{8, 4, 2};
    expect_case_error(c, status::invalid_shape, "output_shape_match",
                      "output 0 is given as [8,4,2] but the transpose gives [8,2,4]");
    c.output = dims_t{8, 8};
    expect_case_error(c, status::invalid_shape, "output_shape_match", "[8,8]");
    c.output = dims_t{-1, 2, -1};
    EXPECT_EQ(inferred_shape(c), (dims_t{8, 2, 4}));
}

const std::vector<std::int64_t> onnx_transpose_versions{1, 13, 21, 23, 24, 25};

movement_case onnx_transpose(std::int64_t version, dims_t input,
                             std::optional<std::vector<std::int64_t>> perm) {
    return {.kind = "Transpose", .version = version, .input = std::move(input),
            .attrs = perm ? s64s_attr("perm", *perm) : ""};
}

TEST(OnnxTranspose, WorkedExamplesInEveryVersion) {
    for (std::int64_t v : onnx_transpose_versions) {
        SCOPED_TRACE("Transpose-" + std::to_string(v));
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {1, 2, 3}, std::nullopt)), (dims_t{3, 2, 1}));
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {1, 2, 3}, {{1, 0, 2}})), (dims_t{2, 1, 3}));
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {1, 2, 3}, {{1, 2, 0}})), (dims_t{2, 3, 1}));
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {8, 3, 224, 224}, {{0, 2, 3, 1}})),
                  (dims_t{8, 224, 224, 3}));
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {}, std::nullopt)), (dims_t{}));
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {7}, std::nullopt)), (dims_t{7}));
        // The sheet's decision: an empty perm reads as an absent one.
        EXPECT_EQ(inferred_shape(onnx_transpose(v, {1, 2, 3}, {{}})), (dims_t{3, 2, 1}));
        expect_case_error(onnx_transpose(v, {2, 3, 4}, {{0, -1, 1}}), status::invalid_shape,
                          "axis_range", "perm [0,-1,1] has -1 at index 1, outside [0, 2]");
        expect_case_error(onnx_transpose(v, {2, 3, 4}, {{0, 0, 1}}), status::invalid_shape,
                          "axis_duplicate", "names axis 0 twice");
        // A short perm is an error (the sheet's decision), not a 2-D output.
        expect_case_error(onnx_transpose(v, {2, 3, 4}, {{1, 0}}), status::invalid_shape,
                          "perm_length", "perm [1,0] has 2 entries");
        movement_case other = onnx_transpose(v, {2, 3}, {{1, 0}});
        other.attrs += ", " + s64_attr("axis", 0);
        expect_case_error(other, status::invalid_graph_op, "unknown_attribute", "attr axis=0");
        movement_case kind = onnx_transpose(v, {2, 3}, std::nullopt);
        kind.attrs = s64_attr("perm", 0);
        expect_case_error(kind, status::invalid_graph_op, "attribute_kind", "attr perm=0");
        movement_case given = onnx_transpose(v, {2, 3}, {{1, 0}});
        given.output = dims_t{2, 3};
        expect_case_error(given, status::invalid_shape, "output_shape_match", "gives [3,2]");
    }
}

TEST(OnnxTranspose, OpsetsSelectTheirVersion) {
    const std::vector<std::pair<std::int64_t, int>> opset_to_schema{
        {1, 1}, {12, 1}, {13, 13}, {20, 13}, {21, 21}, {22, 21},
        {23, 23}, {24, 24}, {25, 25}, {26, 25}, {27, 25}, {28, 25}};
    for (const auto &[opset, schema] : opset_to_schema) {
        const op_schema *s = op_registry::instance().find("ai.onnx", "Transpose", opset);
        ASSERT_NE(s, nullptr) << opset;
        EXPECT_EQ(s->since_version, schema) << opset;
    }
    // Graph files: any dtype of that version's list, int8 since 1.
    movement_case c = onnx_transpose(28, {2, 3}, {{1, 0}});
    c.dtype = "s8";
    EXPECT_EQ(inferred_shape(c), (dims_t{3, 2}));
    expect_case_error(onnx_transpose(29, {2, 3}, {{1, 0}}), status::invalid_graph_op, "version",
                      "opset 29 is outside 1..28");
    expect_case_error(onnx_transpose(0, {2, 3}, {{1, 0}}), status::invalid_graph_op, "version",
                      "opset 0 is outside 1..28");
}

// 2-bit types cannot be read from files yet: these graphs are built in C++.
graph two_bit_transpose(std::int64_t version, data_type dtype) {
    graph g;
    g.tensors[0] = tensor(0, dtype, {4, 8});
    g.tensors[2] = tensor(2, data_type::undef, {-1, -1});
    op o;
    o.id = 3;
    o.name = "t";
    o.kind = "Transpose";
    o.domain = "ai.onnx";
    o.version = version;
    o.attrs["perm"] = std::vector<std::int64_t>{1, 0};
    o.inputs = {0};
    o.outputs = {2};
    g.ops.push_back(o);
    return g;
}

TEST(OnnxTranspose, TwoBitTypesArriveInVersion25) {
    for (data_type t : {data_type::s2, data_type::u2}) {
        graph g24 = two_bit_transpose(24, t);
        expect_rule([&] { infer_graph_shapes(g24); }, status::invalid_data_type, "type_constraint",
                    "ai.onnx.Transpose-24: input 0 'data' dtype=" + std::string(to_string(t)));
        graph g25 = two_bit_transpose(25, t);
        infer_graph_shapes(g25);
        EXPECT_EQ(g25.tensor(2).shape, (dims_t{8, 4}));
        EXPECT_EQ(g25.tensor(2).dtype, t);
    }
}

} // namespace
} // namespace reshaper::impl::testing
