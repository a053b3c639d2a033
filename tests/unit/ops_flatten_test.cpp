// ONNX Flatten (1, 9, 11, 13, 21, 23, 24, 25) through graph files, and the
// flatten rule on its own against a plain product for every axis of small
// ranks.
#include <gtest/gtest.h>

#include "ops/flatten_rule.hpp"
#include "ops/registry.hpp"
#include "ops_movement_support.hpp"

namespace reshaper::impl::testing {
namespace {

const std::vector<std::int64_t> all_versions{1, 9, 11, 13, 21, 23, 24, 25};

movement_case flatten(std::int64_t v, dims_t input, std::optional<std::int64_t> axis) {
    return {.kind = "Flatten", .version = v, .input = std::move(input),
            .attrs = axis ? s64_attr("axis", *axis) : "", .output = dims_t{-1, -1}};
}

TEST(OnnxFlatten, WorkedExamples) {
    for (std::int64_t v : all_versions) {
        SCOPED_TRACE("Flatten-" + std::to_string(v));
        EXPECT_EQ(inferred_shape(flatten(v, {2, 3, 4, 5}, std::nullopt)), (dims_t{2, 60}));
        EXPECT_EQ(inferred_shape(flatten(v, {2, 3, 4, 5}, 0)), (dims_t{1, 120}));
        EXPECT_EQ(inferred_shape(flatten(v, {2, 3, 4, 5}, 4)), (dims_t{120, 1}));
        EXPECT_EQ(inferred_shape(flatten(v, {0, 3, 4}, 2)), (dims_t{0, 4}));
        EXPECT_EQ(inferred_shape(flatten(v, {}, 0)), (dims_t{1, 1}));
        expect_case_error(flatten(v, {}, std::nullopt), status::invalid_shape, "axis_range",
                          "axis 1 is outside [0, 0] for input [] of rank 0");
        if (v < 11) {
            expect_case_error(flatten(v, {2, 3}, -1), status::invalid_shape, "axis_range",
                              "axis -1 is outside [0, 2]");
        } else {
            EXPECT_EQ(inferred_shape(flatten(v, {2, 3, 4, 5}, -1)), (dims_t{24, 5}));
            EXPECT_EQ(inferred_shape(flatten(v, {2, 3, 4, 5}, -4)), (dims_t{1, 120}));
            expect_case_error(flatten(v, {2, 3}, -3), status::invalid_shape, "axis_range",
                              "outside [-2, 2]");
        }
        expect_case_error(flatten(v, {2, 3}, 3), status::invalid_shape, "axis_range", "axis 3");
        movement_case given = flatten(v, {2, 3, 4}, 1);
        given.output = dims_t{6, 4};
        expect_case_error(given, status::invalid_shape, "output_shape_match",
                          "given as [6,4] but the flatten gives [2,12]");
        given.output = dims_t{24};
        expect_case_error(given, status::invalid_shape, "output_shape_match", "given as [24]");
        movement_case kind = flatten(v, {2, 3}, std::nullopt);
        kind.attrs = s64s_attr("axis", {1});
        expect_case_error(kind, status::invalid_graph_op, "attribute_kind", "attr axis=[1]");
    }
}

TEST(OnnxFlatten, TypesPerVersion) {
    movement_case ints = flatten(1, {2, 3}, 1);
    ints.dtype = "s32";
    expect_case_error(ints, status::invalid_data_type, "type_constraint",
                      "ai.onnx.Flatten-1: input 0 'input' dtype=s32");
    ints.version = 9;
    EXPECT_EQ(inferred_shape(ints), (dims_t{2, 3}));
    movement_case bf16 = flatten(11, {2, 3}, 1);
    bf16.dtype = "bf16";
    expect_case_error(bf16, status::invalid_data_type, "type_constraint", "Flatten-11");
    bf16.version = 13;
    EXPECT_EQ(inferred_shape(bf16), (dims_t{2, 3}));
}

TEST(OnnxFlatten, UnknownDims) {
    EXPECT_EQ(inferred_shape(flatten(13, {-1, 3, 4}, 1)), (dims_t{-1, 12}));
    EXPECT_EQ(inferred_shape(flatten(13, {-1, 0, 4, -1}, 2)), (dims_t{0, -1}));
    movement_case given = flatten(13, {-1, 3, 4}, 2);
    given.output = dims_t{10, -1};
    EXPECT_EQ(inferred_shape(given), (dims_t{10, 4}));
}

// The rule on its own: every axis in [-r-2, r+1] for ranks 0..4 over dims
// with 0s and unknowns, against products written out here.
TEST(FlattenRule, MatchesAPlainProduct) {
    const std::vector<dims_t> inputs{{}, {5}, {2, 3}, {2, -1, 4}, {3, 0, -1}, {2, 3, 4, 5}, {1, -1, 1, 7}};
    for (const dims_t &input : inputs)
        for (negative_axes neg : {negative_axes::rejected, negative_axes::count_from_back}) {
            const auto r = static_cast<std::int64_t>(input.size());
            for (std::int64_t axis = -r - 2; axis <= r + 1; ++axis) {
                const std::string where = dims_to_string(input) + " axis " + std::to_string(axis);
                const reshape_resolution got = resolve_flatten(input, axis, neg);
                const bool in_range =
                    (axis >= 0 && axis <= r) || (neg == negative_axes::count_from_back && axis < 0 && axis >= -r);
                if (!in_range) {
                    ASSERT_FALSE(got.ok()) << where;
                    EXPECT_EQ(got.diagnostic.rule, rule::axis_range) << where;
                    continue;
                }
                ASSERT_TRUE(got.ok()) << where << ": " << got.diagnostic.message;
                const std::size_t cut = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
                auto product = [&](std::size_t b, std::size_t e) {
                    bool unknown = false;
                    dim_t p = 1;
                    for (std::size_t i = b; i < e; ++i) {
                        if (input[i] == 0) return dim_t{0};
                        if (input[i] < 0) unknown = true;
                        else p *= input[i];
                    }
                    return unknown ? unknown_dim : p;
                };
                EXPECT_EQ(*got.dims, (dims_t{product(0, cut), product(cut, input.size())})) << where;
            }
        }
}

TEST(FlattenRule, OverflowNamesTheDims) {
    const dim_t big = dim_t{1} << 32;
    const reshape_resolution r = resolve_flatten({big, big, -1}, 2, negative_axes::rejected);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.diagnostic.rule, rule::overflow);
    EXPECT_NE(r.diagnostic.message.find("the product of dims [4294967296,4294967296]"), std::string::npos)
        << r.diagnostic.message;
    // A known 0 elsewhere in the group decides it; an unknown one leaves it open.
    EXPECT_TRUE(resolve_flatten({big, big, 0}, 3, negative_axes::rejected).ok());
    EXPECT_EQ(*resolve_flatten({big, big, -1}, 3, negative_axes::rejected).dims, (dims_t{-1, 1}));
}

} // namespace
} // namespace reshaper::impl::testing
