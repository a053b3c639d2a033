// movement_request, the family's face for the backend: every schema is a
// movement schema, and each kind reads and resolves as the header says
// (permutation only for transposes of rank >= 1; values, values_input and
// value_count; runtime values).
#include <gtest/gtest.h>

#include "ops/movement_request.hpp"
#include "ops/registry.hpp"
#include "ops_movement_support.hpp"

namespace reshaper::impl::testing {
namespace {

const op_schema &schema_of(const graph &g) { return *op_registry::instance().resolve(g.ops.at(0)); }

movement_request request_of(const graph &g) {
    return read_movement_request(schema_of(g), g.ops.at(0), g);
}

TEST(MovementRequest, EverySchemaOfTheRegistryIsAMovementSchema) {
    for (const op_schema &s : op_registry::instance().schemas()) {
        EXPECT_TRUE(is_movement_schema(s)) << s.versioned_name();
        EXPECT_NE(s.reshape.has_value(), s.movement.has_value()) << s.versioned_name();
    }
    EXPECT_FALSE(is_movement_schema(op_schema{}));
}

TEST(MovementRequest, TransposeResolvesToAPermutation) {
    const graph g = read_graph_json(movement_json(
        {.kind = "StaticTranspose", .domain = "", .input = {2, 3, 4},
         .attrs = s64s_attr("order", {-1, 0, 1})}));
    const movement_request r = request_of(g);
    EXPECT_FALSE(r.reshape);
    ASSERT_TRUE(r.movement);
    EXPECT_EQ(r.movement->kind, movement_kind::permute_axes);
    EXPECT_FALSE(r.values_input);
    EXPECT_EQ(r.values, (std::vector<std::int64_t>{-1, 0, 1}));
    EXPECT_EQ(r.value_count, 3u);
    const movement_transform t = resolve_movement(g.ops[0], {2, 3, 4}, r);
    EXPECT_TRUE(t.is_permutation());
    EXPECT_EQ(t.output_dims, (dims_t{4, 2, 3}));
    EXPECT_EQ(t.permutation, (std::vector<std::size_t>{2, 0, 1}));
    // Other dims than at inference (a dynamic partition): the rule again.
    EXPECT_EQ(resolve_movement(g.ops[0], {5, 6, 7}, r).output_dims, (dims_t{7, 5, 6}));
    expect_rule([&] { resolve_movement(g.ops[0], {5, 6}, r); }, status::invalid_shape, "perm_length",
                "op 3 'm' StaticTranspose-1: order [-1,0,1] has 3 entries");
}

TEST(MovementRequest, TransposePermutationIsNonEmptyIffRankAtLeastOne) {
    for (const dims_t &input : {dims_t{}, dims_t{5}, dims_t{2, 3}}) {
        const graph g = read_graph_json(
            movement_json({.kind = "Transpose", .version = 25, .input = input}));
        const movement_request r = request_of(g);
        EXPECT_TRUE(r.values_absent);
        EXPECT_EQ(r.values, std::vector<std::int64_t>{});
        const movement_transform t = resolve_movement(g.ops[0], input, r);
        EXPECT_EQ(t.permutation.size(), input.size());
        EXPECT_EQ(t.is_permutation(), !input.empty());
        EXPECT_EQ(t.output_dims, dims_t(input.rbegin(), input.rend()));
    }
    // The identity too is a permutation (the lowering may see it is one).
    const graph g = read_graph_json(movement_json(
        {.kind = "Transpose", .version = 13, .input = {2, 3}, .attrs = s64s_attr("perm", {0, 1})}));
    const movement_transform t = resolve_movement(g.ops[0], {2, 3}, request_of(g));
    EXPECT_EQ(t.permutation, (std::vector<std::size_t>{0, 1}));
}

TEST(MovementRequest, ReshapesKeepTheirRequest) {
    const reshape_variant &v = variant_named("Onnx_Reshape_14");
    graph g = make_reshape_graph(v, {2, 3}, {3, 2}, zero_rule::copy_from_input,
                                 {.shape_values_known = false});
    const movement_request r = read_movement_request(schema_of(g), g.ops[0], g);
    ASSERT_TRUE(r.reshape);
    EXPECT_FALSE(r.movement);
    EXPECT_EQ(r.values_input, 1u);
    EXPECT_FALSE(r.values);
    EXPECT_EQ(r.value_count, 2u);
    const std::vector<std::int64_t> target{-1, 2};
    const movement_transform t = resolve_movement(g.ops[0], {2, 3}, r, &target);
    EXPECT_FALSE(t.is_permutation());
    EXPECT_EQ(t.output_dims, (dims_t{3, 2}));
}

} // namespace
} // namespace reshaper::impl::testing

namespace reshaper::impl::testing {
namespace {

movement_case squeeze13(dims_t input) {
    return {.kind = "Squeeze", .version = 13, .input = std::move(input), .output = dims_t{-1, -1}};
}

TEST(MovementRequest, SqueezeWithConstantAxes) {
    movement_case c = squeeze13({1, 3, 1, 5});
    c.axes = std::vector<std::int64_t>{-2, 0};
    const graph g = read_graph_json(movement_json(c));
    const movement_request r = request_of(g);
    ASSERT_TRUE(r.movement);
    EXPECT_EQ(r.movement->kind, movement_kind::remove_axes);
    EXPECT_EQ(r.values_input, 1u);
    EXPECT_EQ(r.values, (std::vector<std::int64_t>{-2, 0}));
    EXPECT_EQ(r.value_count, 2u);
    EXPECT_FALSE(r.values_absent);
    const movement_transform t = resolve_movement(g.ops[0], {1, 3, 1, 5}, r);
    EXPECT_FALSE(t.is_permutation());
    EXPECT_EQ(t.output_dims, (dims_t{3, 5}));
    // Values that arrive at execute win over the compile-time ones.
    const std::vector<std::int64_t> runtime{2, -4};
    EXPECT_EQ(resolve_movement(g.ops[0], {1, 3, 1, 5}, r, &runtime).output_dims, (dims_t{3, 5}));
}

TEST(MovementRequest, SqueezeAxesArrivingAtExecute) {
    movement_case c = squeeze13({1, -1, 1});
    c.axes_shape = dims_t{2};
    c.axes_constant = false;
    const graph g = read_graph_json(movement_json(c));
    const movement_request r = request_of(g);
    EXPECT_EQ(r.values_input, 1u);
    EXPECT_FALSE(r.values);
    EXPECT_EQ(r.value_count, 2u);
    expect_rule([&] { resolve_movement(g.ops[0], {1, 7, 1}, r); }, status::invalid_arguments,
                "runtime_shape_given", "op 3 'm' ai.onnx.Squeeze-13: the axes arrive only at execute");
    const std::vector<std::int64_t> axes{0, 2};
    EXPECT_EQ(resolve_movement(g.ops[0], {1, 7, 1}, r, &axes).output_dims, (dims_t{7}));
    const std::vector<std::int64_t> three{0, 1, 2};
    expect_rule([&] { resolve_movement(g.ops[0], {1, 7, 1}, r, &three); }, status::invalid_shape,
                "axes_input_values", "values [0,1,2] at execute do not have the 2 elements");
    // The dim unknown at inference is checked once it is known.
    const std::vector<std::int64_t> middle{0, 1};
    expect_rule([&] { resolve_movement(g.ops[0], {1, 7, 1}, r, &middle); }, status::invalid_shape,
                "squeeze_not_one", "axes [0,1] remove axis 1 of size 7");
}

TEST(MovementRequest, SqueezeWithoutAxes) {
    const graph g = read_graph_json(movement_json(squeeze13({1, 3, 1, 5})));
    const movement_request r = request_of(g);
    EXPECT_FALSE(r.values_input);
    EXPECT_TRUE(r.values_absent);
    EXPECT_EQ(r.values, std::vector<std::int64_t>{});
    EXPECT_EQ(resolve_movement(g.ops[0], {1, 3, 1, 5}, r).output_dims, (dims_t{3, 5}));
    // Other dims at execute: other size-1 dims go.
    EXPECT_EQ(resolve_movement(g.ops[0], {1, 1, 4, 1}, r).output_dims, (dims_t{4}));
    // Squeeze-1 with an empty attribute reads the same (the sheet's decision).
    const graph v1 = read_graph_json(movement_json(
        {.kind = "Squeeze", .version = 1, .input = {1, 3}, .attrs = s64s_attr("axes", {}),
         .output = dims_t{-1}}));
    EXPECT_TRUE(request_of(v1).values_absent);
    EXPECT_EQ(resolve_movement(v1.ops[0], {1, 3}, request_of(v1)).output_dims, (dims_t{3}));
}

TEST(MovementRequest, UnsqueezeAttributeAndInput) {
    const graph v11 = read_graph_json(movement_json(
        {.kind = "Unsqueeze", .version = 11, .input = {3, 4}, .attrs = s64s_attr("axes", {-1}),
         .output = dims_t{-1, -1, -1}}));
    const movement_request r11 = request_of(v11);
    EXPECT_EQ(r11.movement->kind, movement_kind::insert_axes);
    EXPECT_FALSE(r11.values_input);
    EXPECT_EQ(r11.values, std::vector<std::int64_t>{-1});
    EXPECT_EQ(resolve_movement(v11.ops[0], {3, 4}, r11).output_dims, (dims_t{3, 4, 1}));

    movement_case c{.kind = "Unsqueeze", .version = 25, .input = {3, 4}, .output = dims_t{-1, -1, -1, -1}};
    c.axes_shape = dims_t{2};
    c.axes_constant = false;
    const graph v25 = read_graph_json(movement_json(c));
    const movement_request r25 = request_of(v25);
    EXPECT_EQ(r25.values_input, 1u);
    EXPECT_FALSE(r25.values);
    EXPECT_EQ(r25.value_count, 2u);
    const std::vector<std::int64_t> axes{0, -1};
    EXPECT_EQ(resolve_movement(v25.ops[0], {3, 4}, r25, &axes).output_dims, (dims_t{1, 3, 4, 1}));
}

TEST(MovementRequest, FlattenResolvesToTwoDims) {
    const graph g = read_graph_json(movement_json(
        {.kind = "Flatten", .version = 13, .input = {2, 3, 4}, .attrs = s64_attr("axis", -1),
         .output = dims_t{-1, -1}}));
    const movement_request r = request_of(g);
    EXPECT_EQ(r.movement->kind, movement_kind::flatten);
    EXPECT_EQ(r.values, std::vector<std::int64_t>{-1});
    const movement_transform t = resolve_movement(g.ops[0], {2, 3, 4}, r);
    EXPECT_FALSE(t.is_permutation());
    EXPECT_EQ(t.output_dims, (dims_t{6, 4}));
    // The default axis (1) when the file gives none.
    const graph d = read_graph_json(movement_json(
        {.kind = "Flatten", .version = 9, .input = {2, 3, 4}, .output = dims_t{-1, -1}}));
    EXPECT_EQ(request_of(d).values, std::vector<std::int64_t>{1});
    EXPECT_EQ(resolve_movement(d.ops[0], {2, 3, 4}, request_of(d)).output_dims, (dims_t{2, 12}));
}

} // namespace
} // namespace reshaper::impl::testing
