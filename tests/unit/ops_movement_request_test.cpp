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
