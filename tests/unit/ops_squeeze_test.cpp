// ONNX Squeeze and Unsqueeze (1, 11, 13, 21, 23, 24, 25) through graph files:
// the sheets' worked examples and error tables, in every version of the form
// each case uses (attribute before 13, input 1 from 13).
#include <gtest/gtest.h>

#include "ops/registry.hpp"
#include "ops_movement_support.hpp"

namespace reshaper::impl::testing {
namespace {

const std::vector<std::int64_t> all_versions{1, 11, 13, 21, 23, 24, 25};

// The case in version `v`: axes as the attribute or as a constant input 1.
movement_case with_axes(const std::string &kind, std::int64_t v, dims_t input,
                        std::optional<std::vector<std::int64_t>> axes, dims_t output) {
    movement_case c{.kind = kind, .version = v, .input = std::move(input), .output = std::move(output)};
    if (axes && v >= 13) c.axes = axes;
    else if (axes) c.attrs = s64s_attr("axes", *axes);
    return c;
}

dims_t unknown(std::size_t rank) { return dims_t(rank, unknown_dim); }

TEST(OnnxSqueeze, WorkedExamples) {
    for (std::int64_t v : all_versions) {
        SCOPED_TRACE("Squeeze-" + std::to_string(v));
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 3, 1, 5}, std::nullopt, unknown(2))),
                  (dims_t{3, 5}));
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 3, 1, 5}, {{0, 2}}, unknown(2))),
                  (dims_t{3, 5}));
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 3, 1, 5}, {{2, 0}}, unknown(2))),
                  (dims_t{3, 5})); // a set: order does not matter
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 1, 1}, std::nullopt, {})), (dims_t{}));
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {0, 1, 4}, std::nullopt, unknown(2))),
                  (dims_t{0, 4}));
        expect_case_error(with_axes("Squeeze", v, {1, 3, 1, 5}, {{1}}, unknown(3)),
                          status::invalid_shape, "squeeze_not_one",
                          "axes [1] remove axis 1 of size 3 from input [1,3,1,5]");
        expect_case_error(with_axes("Squeeze", v, {1, 3, 1, 5}, {{0, 0}}, unknown(3)),
                          status::invalid_shape, "axis_duplicate", "names axis 0 twice");
        expect_case_error(with_axes("Squeeze", v, {1, 3}, {{2}}, unknown(1)),
                          status::invalid_shape, "axis_range", "axes [2] has 2 at index 0");
        if (v == 1) {
            expect_case_error(with_axes("Squeeze", v, {1, 3}, {{-2}}, unknown(1)),
                              status::invalid_shape, "axis_range", "outside [0, 1]");
        } else {
            EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 3, 1, 5}, {{-2}}, unknown(3))),
                      (dims_t{1, 3, 5}));
            EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {3, 1}, {{-1}}, unknown(1))), (dims_t{3}));
            expect_case_error(with_axes("Squeeze", v, {1, 3, 1, 5}, {{2, -2}}, unknown(3)),
                              status::invalid_shape, "axis_duplicate", "names axis 2 twice");
            expect_case_error(with_axes("Squeeze", v, {1, 3}, {{-3}}, unknown(1)),
                              status::invalid_shape, "axis_range", "outside [-2, 1]");
        }
    }
}

TEST(OnnxSqueeze, EmptyAxesFollowTheSheetsDecision) {
    // 1/11: an empty attribute is no attribute (every size-1 dim goes).
    for (std::int64_t v : {1, 11})
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 3, 1}, {{}}, unknown(1))), (dims_t{3})) << v;
    // 13+: an empty input removes nothing.
    for (std::int64_t v : {13, 21, 25})
        EXPECT_EQ(inferred_shape(with_axes("Squeeze", v, {1, 3, 1}, {{}}, unknown(3))),
                  (dims_t{1, 3, 1})) << v;
}

TEST(OnnxSqueeze, UnknownDims) {
    // A listed unknown dim goes unchecked (execute checks it); the rest stay.
    EXPECT_EQ(inferred_shape(with_axes("Squeeze", 13, {-1, 3, -1}, {{0}}, unknown(2))),
              (dims_t{3, -1}));
    // Without axes an unknown dim leaves even the rank open: the output stays
    // as given (any rank).
    EXPECT_EQ(inferred_shape(with_axes("Squeeze", 13, {1, -1, 3}, std::nullopt, unknown(1))),
              (dims_t{-1}));
    EXPECT_EQ(inferred_shape(with_axes("Squeeze", 13, {1, -1, 3}, std::nullopt, {-1, 3})),
              (dims_t{-1, 3}));
}

TEST(OnnxSqueeze, AxesInputOnlyFromVersion13) {
    movement_case attr = with_axes("Squeeze", 13, {1, 3}, std::nullopt, unknown(1));
    attr.attrs = s64s_attr("axes", {0});
    expect_case_error(attr, status::invalid_graph_op, "unknown_attribute", "attr axes=[0]");
    movement_case input = with_axes("Squeeze", 11, {1, 3}, std::nullopt, unknown(1));
    input.axes = std::vector<std::int64_t>{0};
    expect_case_error(input, status::invalid_graph_op, "input_count", "input count=2");
    movement_case kind = with_axes("Squeeze", 11, {1, 3}, std::nullopt, unknown(1));
    kind.attrs = s64_attr("axes", 0);
    expect_case_error(kind, status::invalid_graph_op, "attribute_kind", "attr axes=0");
}

TEST(OnnxSqueeze, AxesInputMustBe1dS64) {
    movement_case scalar = with_axes("Squeeze", 13, {1, 3}, {{0}}, unknown(1));
    scalar.axes_shape = dims_t{};
    expect_case_error(scalar, status::invalid_shape, "axes_rank",
                      "input 1 'axes' has shape []; it must be 1-D");
    // The axes' dtype: int64 only.
    std::string json = movement_json(with_axes("Squeeze", 13, {1, 3}, {{0}}, unknown(1)));
    json.replace(json.find("\"s64\""), 5, "\"s32\"");
    expect_rule([&] { graph g = read_graph_json(json); infer_graph_shapes(g); },
                status::invalid_data_type, "type_constraint", "input 1 'axes' dtype=s32 violates type_constraint T_AXES");
}

TEST(OnnxSqueeze, AxesKnownOnlyAtExecuteFixTheRank) {
    movement_case c = with_axes("Squeeze", 13, {1, 3, 1, 5}, std::nullopt, {3, 5});
    c.axes_shape = dims_t{2};
    c.axes_constant = false;
    EXPECT_EQ(inferred_shape(c), (dims_t{3, 5}));
    c.output = dims_t{-1, -1, -1};
    expect_case_error(c, status::invalid_shape, "output_shape_match", "gives rank 2");
    c.output = dims_t{3, 4};
    expect_case_error(c, status::invalid_shape, "volume_mismatch", "[3,4] of 12 elements");
    c.axes_shape = dims_t{5};
    c.output = dims_t{};
    expect_case_error(c, status::invalid_shape, "axis_duplicate", "holds 5 axes");
}

TEST(OnnxUnsqueeze, WorkedExamples) {
    for (std::int64_t v : all_versions) {
        SCOPED_TRACE("Unsqueeze-" + std::to_string(v));
        EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {3, 4, 5}, {{0, 4}}, unknown(5))),
                  (dims_t{1, 3, 4, 5, 1}));
        EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {3, 4, 5}, {{4, 0}}, unknown(5))),
                  (dims_t{1, 3, 4, 5, 1}));
        EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {}, {{0}}, unknown(1))), (dims_t{1}));
        EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {}, {{0, 1}}, unknown(2))), (dims_t{1, 1}));
        // Empty axes: the identity (the sheet's decision, in every version).
        EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {3, -1}, {{}}, unknown(2))), (dims_t{3, -1}));
        expect_case_error(with_axes("Unsqueeze", v, {3, 4}, {{1, 1}}, unknown(4)),
                          status::invalid_shape, "axis_duplicate", "names axis 1 twice");
        if (v == 1) {
            expect_case_error(with_axes("Unsqueeze", v, {3, 4}, {{-1}}, unknown(3)),
                              status::invalid_shape, "axis_range",
                              "axes [-1] has -1 at index 0, outside [0, 2] for an output of rank 3");
        } else {
            EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {1, 3, 1, 5}, {{-2}}, unknown(5))),
                      (dims_t{1, 3, 1, 1, 5}));
            EXPECT_EQ(inferred_shape(with_axes("Unsqueeze", v, {3, 4}, {{1, -2}}, unknown(4))),
                      (dims_t{3, 1, 1, 4}));
            expect_case_error(with_axes("Unsqueeze", v, {3, 4, 5}, {{0, -5}}, unknown(5)),
                              status::invalid_shape, "axis_duplicate", "names axis 0 twice");
            expect_case_error(with_axes("Unsqueeze", v, {2, 3}, {{-4}}, unknown(3)),
                              status::invalid_shape, "axis_range", "outside [-3, 2]");
        }
    }
}

TEST(OnnxUnsqueeze, AxesAreRequired) {
    for (std::int64_t v : {1, 11})
        expect_case_error(with_axes("Unsqueeze", v, {3}, std::nullopt, unknown(1)),
                          status::invalid_graph_op, "required_attribute", "attr axes=<absent>");
    for (std::int64_t v : {13, 25})
        expect_case_error(with_axes("Unsqueeze", v, {3}, std::nullopt, unknown(1)),
                          status::invalid_graph_op, "input_count", "input count=1");
    movement_case attr = with_axes("Unsqueeze", 13, {3}, {{0}}, unknown(2));
    attr.attrs = s64s_attr("axes", {0});
    expect_case_error(attr, status::invalid_graph_op, "unknown_attribute", "attr axes=[0]");
    movement_case scalar = with_axes("Unsqueeze", 21, {3}, {{0}}, unknown(2));
    scalar.axes_shape = dims_t{};
    expect_case_error(scalar, status::invalid_shape, "axes_rank", "it must be 1-D");
}

TEST(OnnxUnsqueeze, AxesKnownOnlyAtExecuteFixTheRank) {
    movement_case c = with_axes("Unsqueeze", 13, {3, 4}, std::nullopt, unknown(4));
    c.axes_shape = dims_t{2};
    c.axes_constant = false;
    EXPECT_EQ(inferred_shape(c), unknown(4));
    c.output = unknown(3);
    expect_case_error(c, status::invalid_shape, "output_shape_match", "gives rank 4");
}

TEST(OnnxSqueezeUnsqueeze, TwoBitTypesArriveInVersion25) {
    for (const char *kind : {"Squeeze", "Unsqueeze"})
        for (std::int64_t v : {24, 25}) {
            graph g;
            g.tensors[0] = tensor(0, data_type::u2, {1, 4});
            g.tensors[1] = tensor(1, data_type::s64, {1});
            g.tensors[1].property = property_type::constant;
            g.tensors[1].values = int_values(data_type::s64, {0});
            g.tensors[2] = tensor(2, data_type::undef, {-1, -1});
            if (std::string(kind) == "Squeeze") g.tensors[2].shape = {-1};
            else g.tensors[2].shape = {-1, -1, -1};
            op o;
            o.id = 3;
            o.kind = kind;
            o.domain = "ai.onnx";
            o.version = v;
            o.inputs = {0, 1};
            o.outputs = {2};
            g.ops.push_back(o);
            if (v == 24) {
                expect_rule([&] { infer_graph_shapes(g); }, status::invalid_data_type, "type_constraint",
                            "dtype=u2");
            } else {
                infer_graph_shapes(g);
                EXPECT_EQ(g.tensor(2).dtype, data_type::u2);
                EXPECT_EQ(g.tensor(2).shape, (std::string(kind) == "Squeeze" ? dims_t{4} : dims_t{1, 1, 4}));
            }
        }
}

} // namespace
} // namespace reshaper::impl::testing
