// Shape inference beyond the rule: given output shapes, dtypes, shape inputs
// whose values arrive late, 0-D and malformed shape inputs, and
// resolve_for_op with runtime values.
#include <gtest/gtest.h>

#include "ops/graph_inference.hpp"
#include "ops/registry.hpp"
#include "ops/reshape_request.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {
namespace {

const reshape_variant &static_reshape() { return variant_named("StaticReshape_1"); }

std::vector<reshape_variant> input_variants() {
    std::vector<reshape_variant> out;
    for (const auto &v : all_reshape_variants())
        if (v.target_is_input) out.push_back(v);
    return out;
}

TEST(GivenOutput, MatchingShapeIsKept) {
    graph g = make_reshape_graph(static_reshape(), {3, 4, 5}, {0, -1}, zero_rule::copy_from_input,
                                 {.given_output = dims_t{3, 20}});
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{3, 20}));
}

TEST(GivenOutput, DisagreeingShapeNamesBoth) {
    graph g = make_reshape_graph(static_reshape(), {3, 4, 5}, {0, -1}, zero_rule::copy_from_input,
                                 {.given_output = dims_t{4, 15}});
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape,
                 "op 3 'Reshape_0' StaticReshape-1: output 0 is given as [4,15] but the reshape "
                 "gives [3,20] [output_shape_match]");
    graph partial = make_reshape_graph(static_reshape(), {3, 4, 5}, {0, -1},
                                       zero_rule::copy_from_input,
                                       {.given_output = dims_t{-1, 21}});
    expect_error([&] { infer_graph_shapes(partial); }, status::invalid_shape, "[-1,21]");
}

TEST(GivenOutput, RankMustAgree) {
    graph g = make_reshape_graph(static_reshape(), {3, 4, 5}, {0, -1}, zero_rule::copy_from_input,
                                 {.given_output = dims_t{3, 4, 5}});
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape, "[output_shape_match]");
    graph scalar = make_reshape_graph(static_reshape(), {3, 4, 5}, {0, -1},
                                      zero_rule::copy_from_input, {.given_output = dims_t{}});
    expect_error([&] { infer_graph_shapes(scalar); }, status::invalid_shape,
                 "given as [] but the reshape gives [3,20]");
}

TEST(GivenOutput, UnknownDimsAreFilledBothWays) {
    graph g = make_reshape_graph(static_reshape(), {3, 4, 5}, {0, -1}, zero_rule::copy_from_input,
                                 {.given_output = dims_t{-1, 20}});
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{3, 20}));

    // The rule cannot know the -1 beside an unknown input dim it does not
    // copy; the graph can.
    graph partial = make_reshape_graph(static_reshape(), {-1, -1, 4}, {0, -1},
                                       zero_rule::copy_from_input,
                                       {.given_output = dims_t{-1, 8}});
    infer_graph_shapes(partial);
    EXPECT_EQ(partial.tensor(output_id).shape, (dims_t{-1, 8}));

    // A copied unknown dim cancels: {?,4} with [0,-1] is {?,4}, and a given
    // output that says otherwise contradicts it.
    graph copied = make_reshape_graph(static_reshape(), {-1, 4}, {0, -1},
                                      zero_rule::copy_from_input,
                                      {.given_output = dims_t{-1, 8}});
    expect_error([&] { infer_graph_shapes(copied); }, status::invalid_shape,
                 "output 0 is given as [-1,8] but the reshape gives [-1,4] [output_shape_match]");
}

TEST(GivenOutput, ShapeInputLengthIsCheckedAgainstTheOutputRankBeforeAnythingIsBuilt) {
    // A shape input of 2^40 elements whose values arrive at execute: the
    // output rank it implies contradicts the given rank 2. That is the error,
    // reported without building (or printing) 2^40 unknown dims.
    for (const char *label : {"DynamicReshape_1", "Reshape_1", "Onnx_Reshape_14"}) {
        graph g = make_reshape_graph(variant_named(label), {3, 4, 5}, {0, -1},
                                     zero_rule::copy_from_input,
                                     {.given_output = dims_t{-1, -1},
                                      .shape_values_known = false,
                                      .shape_tensor_shape = dims_t{dim_t{1} << 40}});
        try {
            infer_graph_shapes(g);
            ADD_FAILURE() << label << ": inferred " << dims_to_string(g.tensor(output_id).shape);
        } catch (const error &e) {
            const std::string msg = e.what();
            EXPECT_EQ(e.code(), status::invalid_shape) << msg;
            EXPECT_NE(msg.find("[output_shape_match]"), std::string::npos) << msg;
            EXPECT_NE(msg.find("1099511627776"), std::string::npos) << msg;
            EXPECT_LT(msg.size(), 400u) << msg;
        }
    }
}

TEST(ZeroDimensionalShapeInput, WithoutValuesStillMeansAScalarOfVolumeOne) {
    // A 0-D shape input can only hold 1 (a scalar output): its values need not
    // be known to see that data of 12 elements cannot become a scalar
    // (OpenVINO rejects it at type inference too).
    for (const char *label : {"DynamicReshape_1", "Reshape_1"}) {
        graph bad = make_reshape_graph(variant_named(label), {3, 4}, {1}, zero_rule::literal,
                                       {.given_output = dims_t{},
                                        .shape_values_known = false,
                                        .shape_tensor_shape = dims_t{}});
        expect_error([&] { infer_graph_shapes(bad); }, status::invalid_shape,
                     "input [3,4] has volume 12 [volume_mismatch]");
        graph good = make_reshape_graph(variant_named(label), {1, 1}, {1}, zero_rule::literal,
                                        {.given_output = dims_t{},
                                         .shape_values_known = false,
                                         .shape_tensor_shape = dims_t{}});
        EXPECT_NO_THROW(infer_graph_shapes(good)) << label;
        EXPECT_EQ(good.tensor(output_id).shape, dims_t{});
    }
}

TEST(InputDtype, UndefThatNoOpInfersIsAnInvalidDataType) {
    // A graph input's dtype cannot be inferred: undef there is an error of the
    // op that reads it, for the data and for a shape input alike.
    graph data = make_reshape_graph(static_reshape(), {2, 3}, {6}, zero_rule::literal,
                                    {.data_dtype = data_type::undef});
    expect_error([&] { infer_graph_shapes(data); }, status::invalid_data_type,
                 "StaticReshape-1: input 0 'data' has dtype undef");
    graph shape = make_reshape_graph(variant_named("Onnx_Reshape_14"), {2, 3}, {6},
                                     zero_rule::copy_from_input, {.shape_values_known = false});
    shape.tensor(shape_id).dtype = data_type::undef;
    expect_error([&] { infer_graph_shapes(shape); }, status::invalid_data_type,
                 "input 1 'shape' has dtype undef");
    // Produced by a reshape, an undef dtype is inferred: no error.
    graph chain = make_reshape_graph(static_reshape(), {2, 3}, {6}, zero_rule::literal);
    EXPECT_NO_THROW(infer_graph_shapes(chain));
    EXPECT_EQ(chain.tensor(output_id).dtype, data_type::f32);
}

TEST(GivenOutput, StridesAreLeftAlone) {
    graph g = make_reshape_graph(static_reshape(), {2, 3}, {3, 2}, zero_rule::copy_from_input);
    g.tensor(output_id).strides = {1, 3};
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).strides, (dims_t{1, 3}));
    graph dense = make_reshape_graph(static_reshape(), {2, 3}, {3, 2}, zero_rule::copy_from_input);
    infer_graph_shapes(dense);
    EXPECT_TRUE(dense.tensor(output_id).strides.empty());
}

TEST(OutputDtype, UndefTakesTheDataTypeGivenMustMatch) {
    graph g = make_reshape_graph(static_reshape(), {2, 3}, {6}, zero_rule::copy_from_input,
                                 {.data_dtype = data_type::bf16});
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).dtype, data_type::bf16);
    graph same = make_reshape_graph(variant_named("Onnx_Reshape_24"), {2, 3}, {6},
                                    zero_rule::copy_from_input,
                                    {.data_dtype = data_type::string,
                                     .output_dtype = data_type::string});
    EXPECT_NO_THROW(infer_graph_shapes(same));
    graph other = make_reshape_graph(variant_named("Onnx_Reshape_24"), {2, 3}, {6},
                                     zero_rule::copy_from_input,
                                     {.data_dtype = data_type::s8,
                                      .output_dtype = data_type::u8});
    expect_error([&] { infer_graph_shapes(other); }, status::invalid_data_type,
                 "dtype=u8 violates type_constraint T (T is s8");
}

class ShapeInput : public ::testing::TestWithParam<reshape_variant> {};

TEST_P(ShapeInput, UnknownValuesGiveKnownRankUnknownDims) {
    graph g = make_reshape_graph(GetParam(), {2, 3, 4}, {4, 3, 2}, zero_rule::copy_from_input,
                                 {.shape_values_known = false});
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{-1, -1, -1}));
    EXPECT_EQ(g.tensor(output_id).dtype, data_type::f32);
}

TEST_P(ShapeInput, ValuesOfAVariableTensorAreNotKnownAtCompileTime) {
    graph g = make_reshape_graph(GetParam(), {2, 3, 4}, {4, 3, 2}, zero_rule::copy_from_input);
    g.tensor(shape_id).property = property_type::variable; // values stay, as execute data
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{-1, -1, -1}));
}

TEST_P(ShapeInput, UnknownValuesKeepAGivenOutput) {
    graph g = make_reshape_graph(GetParam(), {2, 3, 4}, {4, 3, 2}, zero_rule::copy_from_input,
                                 {.given_output = dims_t{4, -1, 2}, .shape_values_known = false});
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{4, -1, 2}));
}

TEST_P(ShapeInput, UnknownLengthLeavesTheOutputShapeAlone) {
    graph g = make_reshape_graph(GetParam(), {2, 3, 4}, {4, 3, 2}, zero_rule::copy_from_input,
                                 {.given_output = dims_t{-1, -1},
                                  .shape_values_known = false,
                                  .shape_tensor_shape = dims_t{-1}});
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{-1, -1}));
    EXPECT_EQ(g.tensor(output_id).dtype, data_type::f32);
}

TEST_P(ShapeInput, TwoDimensionalShapeInputIsRejected) {
    graph g = make_reshape_graph(GetParam(), {2, 3}, {3, 2}, zero_rule::copy_from_input,
                                 {.shape_tensor_shape = dims_t{1, 2}});
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape,
                 "input 1 'shape' has shape [1,2]; it must be 1-D");
}

TEST_P(ShapeInput, ValueCountMustMatchTheShapeTensor) {
    graph g = make_reshape_graph(GetParam(), {2, 3}, {3, 2}, zero_rule::copy_from_input,
                                 {.shape_tensor_shape = dims_t{3}});
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape,
                 "has shape [3] but 2 values [shape_input_values]");
}

TEST_P(ShapeInput, ZeroDimensionalShapeInput) {
    const reshape_variant &v = GetParam();
    graph one = make_reshape_graph(v, {1, 1}, {1}, zero_rule::copy_from_input,
                                   {.given_output = dims_t{}, .shape_tensor_shape = dims_t{}});
    graph two = make_reshape_graph(v, {2}, {2}, zero_rule::copy_from_input,
                                   {.given_output = dims_t{}, .shape_tensor_shape = dims_t{}});
    if (!v.allows_0d_shape_input) {
        expect_error([&] { infer_graph_shapes(one); }, status::invalid_shape,
                     "has shape []; it must be 1-D [shape_input_rank]");
        return;
    }
    infer_graph_shapes(one);
    EXPECT_EQ(one.tensor(output_id).shape, dims_t{});
    expect_error([&] { infer_graph_shapes(two); }, status::invalid_shape,
                 "0-D shape input holds [2]; only the single value 1 (a scalar output) is "
                 "allowed [scalar_shape_input]");
    graph late = make_reshape_graph(v, {1, 1}, {1}, zero_rule::copy_from_input,
                                    {.given_output = dims_t{}, .shape_values_known = false,
                                     .shape_tensor_shape = dims_t{}});
    EXPECT_NO_THROW(infer_graph_shapes(late));
    EXPECT_EQ(late.tensor(output_id).shape, dims_t{});
}

TEST_P(ShapeInput, EmptyShapeInputMeansScalar) {
    graph g = make_reshape_graph(GetParam(), {1, 1, 1}, {}, zero_rule::copy_from_input);
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(output_id).shape, dims_t{});
}

INSTANTIATE_TEST_SUITE_P(Variants, ShapeInput, ::testing::ValuesIn(input_variants()),
                         [](const auto &info) { return info.param.label; });

TEST(ShapeInputValues, U64AboveInt64MaxIsAnErrorNotAWrap) {
    graph g = make_reshape_graph(variant_named("Reshape_1"), {2}, {2}, zero_rule::copy_from_input);
    logical_tensor &s = g.tensor(shape_id);
    s.dtype = data_type::u64;
    s.values = int_values(data_type::u64, {-1}); // 2^64 - 1
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape,
                 "op 3 'Reshape_0' Reshape-1: input 1 'shape': u64 shape value");
}

// resolve_for_op: the compile / execute path with values that arrive late.

struct late_op {
    graph g;
    reshape_request request;
};

late_op dynamic_op_without_values(const dims_t &shape_tensor_shape, zero_rule zeros) {
    late_op l{make_reshape_graph(variant_named("DynamicReshape_1"), {3, 4, 5}, {0, -1}, zeros,
                                 {.shape_values_known = false,
                                  .shape_tensor_shape = shape_tensor_shape}),
              {}};
    const op &o = l.g.ops[0];
    l.request = read_reshape_request(*op_registry::instance().resolve(o), o, l.g);
    return l;
}

TEST(ResolveForOp, RequestDescribesWhereTheTargetComesFrom) {
    const late_op l = dynamic_op_without_values({2}, zero_rule::copy_from_input);
    EXPECT_EQ(l.request.shape_input, std::optional<std::size_t>(1));
    EXPECT_FALSE(l.request.target.has_value());
    EXPECT_EQ(l.request.target_rank, std::optional<std::size_t>(2));
    EXPECT_FALSE(l.request.target_is_0d);

    graph s = make_reshape_graph(variant_named("StaticReshape_1"), {3, 4, 5}, {0, -1},
                                 zero_rule::literal);
    const reshape_request r = read_reshape_request(*op_registry::instance().resolve(s.ops[0]),
                                                   s.ops[0], s);
    EXPECT_FALSE(r.shape_input.has_value());
    EXPECT_EQ(r.target, (std::vector<std::int64_t>{0, -1}));
    EXPECT_EQ(r.zeros, zero_rule::literal);
}

TEST(ResolveForOp, RuntimeValuesGoThroughTheSameRule) {
    const late_op l = dynamic_op_without_values({2}, zero_rule::copy_from_input);
    const std::vector<std::int64_t> seed{0, -1};
    EXPECT_EQ(resolve_for_op(l.g.ops[0], {3, 4, 5}, l.request, &seed), (dims_t{3, 20}));
    const std::vector<std::int64_t> twice{-1, -1};
    expect_error([&] { resolve_for_op(l.g.ops[0], {3, 4, 5}, l.request, &twice); },
                 status::invalid_shape,
                 "op 3 'Reshape_0' DynamicReshape-1: shape [-1,-1] has more than one -1");
    const std::vector<std::int64_t> three{60, 1, 1};
    expect_error([&] { resolve_for_op(l.g.ops[0], {3, 4, 5}, l.request, &three); },
                 status::invalid_shape, "do not have the 2 elements");
    expect_error([&] { resolve_for_op(l.g.ops[0], {3, 4, 5}, l.request); },
                 status::invalid_arguments, "no values were given");
}

TEST(ResolveForOp, RuntimeValuesOfAZeroDimensionalShapeInput) {
    const late_op l = dynamic_op_without_values({}, zero_rule::copy_from_input);
    EXPECT_TRUE(l.request.target_is_0d);
    const std::vector<std::int64_t> one{1};
    EXPECT_EQ(resolve_for_op(l.g.ops[0], {1, 1}, l.request, &one), dims_t{});
    const std::vector<std::int64_t> five{5};
    expect_error([&] { resolve_for_op(l.g.ops[0], {5}, l.request, &five); },
                 status::invalid_shape, "[scalar_shape_input]");
}

TEST(ResolveForOp, ConcreteDimsResolveUnknownsOfCompileTime) {
    graph g = make_reshape_graph(static_reshape(), {-1, -1, 4}, {0, -1},
                                 zero_rule::copy_from_input);
    const op &o = g.ops[0];
    const reshape_request r = read_reshape_request(*op_registry::instance().resolve(o), o, g);
    EXPECT_EQ(resolve_for_op(o, {-1, -1, 4}, r), (dims_t{-1, -1}));
    EXPECT_EQ(resolve_for_op(o, {6, 2, 4}, r), (dims_t{6, 8}));
}

} // namespace
} // namespace reshaper::impl::testing
