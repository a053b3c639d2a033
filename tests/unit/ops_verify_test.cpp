// verify_op through whole-graph validation: port counts, type constraints
// per op and version (in and out), type-variable binding, attributes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "ops/graph_inference.hpp"
#include "ops/registry.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {
namespace {

using dt = data_type;

// ONNX Reshape's type lists as the spec's version history gives them
// (/work/shared/specs/onnx-Reshape.md), in ONNX spelling.
const std::map<std::int64_t, std::string> onnx_spec_types{
    {1, "double float float16"},
    {5, "bool complex128 complex64 double float float16 int16 int32 int64 int8 string uint16 "
        "uint32 uint64 uint8"},
    {13, "bfloat16 bool complex128 complex64 double float float16 int16 int32 int64 int8 "
         "string uint16 uint32 uint64 uint8"},
    {14, "bfloat16 bool complex128 complex64 double float float16 int16 int32 int64 int8 "
         "string uint16 uint32 uint64 uint8"},
    {19, "bfloat16 bool complex128 complex64 double float float16 float8e4m3fn float8e4m3fnuz "
         "float8e5m2 float8e5m2fnuz int16 int32 int64 int8 string uint16 uint32 uint64 uint8"},
    {21, "bfloat16 bool complex128 complex64 double float float16 float8e4m3fn float8e4m3fnuz "
         "float8e5m2 float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 "
         "uint64 uint8"},
    {23, "bfloat16 bool complex128 complex64 double float float16 float4e2m1 float8e4m3fn "
         "float8e4m3fnuz float8e5m2 float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 "
         "uint32 uint4 uint64 uint8"},
    {24, "bfloat16 bool complex128 complex64 double float float16 float4e2m1 float8e4m3fn "
         "float8e4m3fnuz float8e5m2 float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 "
         "string uint16 uint32 uint4 uint64 uint8"},
};

dt from_onnx_name(const std::string &n) {
    static const std::map<std::string, dt> names{
        {"float", dt::f32},         {"float16", dt::f16},          {"bfloat16", dt::bf16},
        {"double", dt::f64},        {"bool", dt::boolean},         {"int4", dt::s4},
        {"uint4", dt::u4},          {"int8", dt::s8},              {"uint8", dt::u8},
        {"int16", dt::s16},         {"uint16", dt::u16},           {"int32", dt::s32},
        {"uint32", dt::u32},        {"int64", dt::s64},            {"uint64", dt::u64},
        {"complex64", dt::c64},     {"complex128", dt::c128},      {"string", dt::string},
        {"float8e4m3fn", dt::f8_e4m3}, {"float8e5m2", dt::f8_e5m2},
        {"float8e4m3fnuz", dt::f8_e4m3fnuz}, {"float8e5m2fnuz", dt::f8_e5m2fnuz},
        {"float8e8m0", dt::f8_e8m0}, {"float4e2m1", dt::f4_e2m1},
    };
    return names.at(n);
}

std::vector<dt> expected_data_types(const reshape_variant &v) {
    if (v.domain == "ai.onnx") {
        std::vector<dt> types;
        std::istringstream names(onnx_spec_types.at(v.version));
        for (std::string n; names >> n;) types.push_back(from_onnx_name(n));
        return types;
    }
    if (v.kind == "Reshape") return all_data_types(); // "any supported type"
    return {dt::f32, dt::f16, dt::bf16};
}

std::vector<dt> expected_shape_types(const reshape_variant &v) {
    if (v.domain == "ai.onnx") return {dt::s64};
    if (v.kind == "DynamicReshape") return {dt::s32};
    return {dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64, dt::u64};
}

bool contains(const std::vector<dt> &types, dt t) {
    return std::find(types.begin(), types.end(), t) != types.end();
}

class TypeConstraints : public ::testing::TestWithParam<reshape_variant> {};

TEST_P(TypeConstraints, DataInputAcceptsExactlyTheSpecTypes) {
    const reshape_variant &v = GetParam();
    const auto allowed = expected_data_types(v);
    for (dt t : all_data_types()) {
        graph g = make_reshape_graph(v, {2, 3}, {6}, zero_rule::copy_from_input,
                                     {.data_dtype = t});
        if (contains(allowed, t)) {
            EXPECT_NO_THROW(validate_graph(g)) << to_string(t);
        } else {
            SCOPED_TRACE(to_string(t));
            expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                         "input 0 'data' dtype=" + std::string(to_string(t)) +
                             " violates type_constraint T");
        }
    }
}

TEST_P(TypeConstraints, OutputAloneIsCheckedAgainstTheSameTypes) {
    const reshape_variant &v = GetParam();
    const auto allowed = expected_data_types(v);
    for (dt t : all_data_types()) {
        graph g = make_reshape_graph(v, {2, 3}, {6}, zero_rule::copy_from_input,
                                     {.data_dtype = dt::undef, .output_dtype = t});
        if (contains(allowed, t)) {
            EXPECT_NO_THROW(validate_graph(g)) << to_string(t);
        } else {
            SCOPED_TRACE(to_string(t));
            expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                         "output 0 '");
        }
    }
}

TEST_P(TypeConstraints, OutputMustHaveTheDataType) {
    const reshape_variant &v = GetParam();
    for (dt t : expected_data_types(v)) {
        if (t == dt::f32) continue;
        graph g = make_reshape_graph(v, {2, 3}, {6}, zero_rule::copy_from_input,
                                     {.data_dtype = dt::f32, .output_dtype = t});
        SCOPED_TRACE(to_string(t));
        expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                     "dtype=" + std::string(to_string(t)) + " violates type_constraint");
        expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                     "is f32, bound by input 0 'data'");
    }
}

class ShapeInputTypes : public ::testing::TestWithParam<reshape_variant> {};

TEST_P(ShapeInputTypes, AcceptsExactlyTheSpecTypes) {
    const reshape_variant &v = GetParam();
    const auto allowed = expected_shape_types(v);
    for (dt t : all_data_types()) {
        graph g = make_reshape_graph(v, {2, 3}, {6}, zero_rule::copy_from_input);
        g.tensor(shape_id).dtype = t;
        g.tensor(shape_id).values.reset();
        g.tensor(shape_id).property = property_type::variable;
        if (contains(allowed, t)) {
            EXPECT_NO_THROW(validate_graph(g)) << to_string(t);
        } else {
            SCOPED_TRACE(to_string(t));
            expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                         "input 1 'shape' dtype=" + std::string(to_string(t)));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Variants, TypeConstraints, ::testing::ValuesIn(all_reshape_variants()),
                         [](const auto &info) { return info.param.label; });

std::vector<reshape_variant> input_variants() {
    std::vector<reshape_variant> out;
    for (const auto &v : all_reshape_variants())
        if (v.target_is_input) out.push_back(v);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Variants, ShapeInputTypes, ::testing::ValuesIn(input_variants()),
                         [](const auto &info) { return info.param.label; });

bool data_type_accepted(const char *label, dt t) {
    graph g = make_reshape_graph(variant_named(label), {2, 3}, {6}, zero_rule::copy_from_input,
                                 {.data_dtype = t});
    try {
        validate_graph(g);
        return true;
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_data_type) << e.what();
        return false;
    }
}

TEST(TypeConstraintVersions, TypesArriveInTheRightOnnxVersion) {
    EXPECT_FALSE(data_type_accepted("Onnx_Reshape_5", dt::bf16));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_13", dt::bf16));
    EXPECT_FALSE(data_type_accepted("Onnx_Reshape_1", dt::s64));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_5", dt::string));
    EXPECT_FALSE(data_type_accepted("Onnx_Reshape_14", dt::f8_e4m3));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_19", dt::f8_e5m2fnuz));
    EXPECT_FALSE(data_type_accepted("Onnx_Reshape_19", dt::s4));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_21", dt::s4));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_21", dt::u4));
    EXPECT_FALSE(data_type_accepted("Onnx_Reshape_21", dt::f4_e2m1));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_23", dt::f4_e2m1));
    EXPECT_FALSE(data_type_accepted("Onnx_Reshape_23", dt::f8_e8m0));
    EXPECT_TRUE(data_type_accepted("Onnx_Reshape_24", dt::f8_e8m0));
    EXPECT_FALSE(data_type_accepted("StaticReshape_1", dt::s8));
    EXPECT_TRUE(data_type_accepted("Reshape_1", dt::c128));
}

TEST(TypeConstraintMessages, GiveTheDtypeAndTheAllowedSet) {
    graph g = make_reshape_graph(variant_named("StaticReshape_1"), {2, 3}, {6},
                                 zero_rule::copy_from_input, {.data_dtype = dt::s8});
    expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                 "op 3 'Reshape_0' StaticReshape-1: input 0 'data' dtype=s8 violates "
                 "type_constraint T (allowed: f32, f16, bf16)");
}

TEST(TypeConstraintMessages, DynamicReshapeBindsT1AndT2Separately) {
    graph g = make_reshape_graph(variant_named("DynamicReshape_1"), {2, 3}, {6},
                                 zero_rule::copy_from_input,
                                 {.data_dtype = dt::bf16, .output_dtype = dt::f16});
    expect_error([&] { validate_graph(g); }, status::invalid_data_type,
                 "output 0 'output' dtype=f16 violates type_constraint T1 (T1 is bf16");
}

// Attributes.

graph valid_graph(const char *label) {
    return make_reshape_graph(variant_named(label), {2, 3}, {3, 2}, zero_rule::copy_from_input);
}

// A shape value below -1 is the reshape rule's to report, for an attribute as
// for a shape input: invalid_shape, as oneDNN's StaticReshape shape inference
// returns for {4, -6, 16}. The schema's range check must not pre-empt it
// with another status.
TEST(Attributes, ShapeValueBelowMinusOneIsTheRulesInvalidShape) {
    for (const char *label : {"StaticReshape_1", "Onnx_Reshape_1"}) {
        graph g = make_reshape_graph(variant_named(label), {2, 3, 4}, {2, 3, -7},
                                     zero_rule::copy_from_input);
        EXPECT_NO_THROW(validate_graph(g)) << label;
        expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape,
                     "shape [2,3,-7] has -7 at index 2; values must be >= -1 [value_range]");
    }
}

TEST(Attributes, AllowzeroAcceptsZeroAndOneOnly) {
    for (std::int64_t bad : {std::int64_t{2}, std::int64_t{-1}}) {
        graph g = valid_graph("Onnx_Reshape_14");
        g.ops[0].attrs["allowzero"] = bad;
        expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                     "attr allowzero=" + std::to_string(bad) +
                         " violates attr_value_range (values 0..1)");
    }
}

TEST(Attributes, MissingRequiredAttribute) {
    for (const char *label : {"StaticReshape_1", "DynamicReshape_1", "Reshape_1"}) {
        graph g = valid_graph(label);
        g.ops[0].attrs.erase("special_zero");
        expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                     "attr special_zero=<absent> violates required_attribute (a bool value");
    }
    for (const char *label : {"StaticReshape_1", "Onnx_Reshape_1"}) {
        graph g = valid_graph(label);
        g.ops[0].attrs.erase("shape");
        expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                     "attr shape=<absent> violates required_attribute (a s64[] value");
    }
}

TEST(Attributes, WrongKind) {
    graph g = valid_graph("StaticReshape_1");
    g.ops[0].attrs["special_zero"] = std::int64_t{1};
    expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                 "attr special_zero=1 violates attribute_kind (expects bool, got s64)");
    graph onnx = valid_graph("Onnx_Reshape_14");
    onnx.ops[0].attrs["allowzero"] = true;
    expect_error([&] { validate_graph(onnx); }, status::invalid_graph_op,
                 "attr allowzero=true violates attribute_kind (expects s64, got bool)");
    graph shape = valid_graph("StaticReshape_1");
    shape.ops[0].attrs["shape"] = std::vector<float>{3.f, 2.f};
    expect_error([&] { validate_graph(shape); }, status::invalid_graph_op,
                 "attr shape=[3,2] violates attribute_kind (expects s64[], got f32[])");
}

TEST(Attributes, AttributeTheVersionDoesNotDefine) {
    for (const char *label : {"Onnx_Reshape_5", "Onnx_Reshape_13"}) {
        graph g = valid_graph(label);
        g.ops[0].attrs["allowzero"] = std::int64_t{0};
        expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                     "attr allowzero=0 violates unknown_attribute");
    }
    graph dyn = valid_graph("DynamicReshape_1");
    dyn.ops[0].attrs["shape"] = std::vector<std::int64_t>{3, 2};
    expect_error([&] { validate_graph(dyn); }, status::invalid_graph_op,
                 "attr shape=[3,2] violates unknown_attribute (DynamicReshape-1 defines only "
                 "special_zero)");
    graph onnx5 = valid_graph("Onnx_Reshape_5");
    onnx5.ops[0].attrs["consumed_inputs"] = std::vector<std::int64_t>{0};
    expect_error([&] { validate_graph(onnx5); }, status::invalid_graph_op,
                 "ai.onnx.Reshape-5 defines no attributes");
    graph onnx14 = valid_graph("Onnx_Reshape_14");
    onnx14.ops[0].attrs["special_zero"] = true;
    expect_error([&] { validate_graph(onnx14); }, status::invalid_graph_op,
                 "violates unknown_attribute");
}

TEST(Attributes, OpsetSevenMeansReshapeFiveSoAllowzeroIsUnknown) {
    graph g = valid_graph("Onnx_Reshape_14");
    g.ops[0].version = 7;
    expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                 "ai.onnx.Reshape-5: attr allowzero=0 violates unknown_attribute");
    g.ops[0].version = 20;
    EXPECT_NO_THROW(validate_graph(g));
}

TEST(Attributes, LegacyConsumedInputsIsAcceptedAndIgnored) {
    graph g = valid_graph("Onnx_Reshape_1");
    g.ops[0].attrs["consumed_inputs"] = std::vector<std::int64_t>{0, 1};
    EXPECT_NO_THROW(infer_graph_shapes(g));
    EXPECT_EQ(g.tensor(output_id).shape, (dims_t{3, 2}));
}

// Port counts.

TEST(PortCounts, InputsAndOutputs) {
    graph g = valid_graph("Onnx_Reshape_5");
    g.ops[0].inputs.pop_back();
    expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                 "ai.onnx.Reshape-5: input count=1 violates input_count (expects 2: data, "
                 "shape)");
    graph s = valid_graph("StaticReshape_1");
    s.tensors[7] = tensor(7, dt::s64, {2});
    s.ops[0].inputs.push_back(7);
    expect_error([&] { validate_graph(s); }, status::invalid_graph_op,
                 "input count=2 violates input_count (expects 1: data)");
    graph outs = valid_graph("Reshape_1");
    outs.tensors[7] = tensor(7, dt::f32, {3, 2});
    outs.ops[0].outputs.push_back(7);
    expect_error([&] { validate_graph(outs); }, status::invalid_graph_op,
                 "output count=2 violates output_count (expects 1: output)");
    graph none = valid_graph("DynamicReshape_1");
    none.ops[0].outputs.clear();
    expect_error([&] { validate_graph(none); }, status::invalid_graph_op,
                 "output count=0 violates output_count");
}

TEST(AttributeText, KindsRoundTripAndValuesPrint) {
    for (attr_kind k : {attr_kind::boolean, attr_kind::s64, attr_kind::s64_list, attr_kind::f32,
                        attr_kind::f32_list, attr_kind::string})
        EXPECT_EQ(attr_kind_from_string(to_string(k)), k) << to_string(k);
    EXPECT_FALSE(attr_kind_from_string("int").has_value());
    EXPECT_EQ(to_string(attr_kind::s64_list), "s64[]");
    EXPECT_EQ(attribute_to_string(true), "true");
    EXPECT_EQ(attribute_to_string(std::int64_t{-7}), "-7");
    EXPECT_EQ(attribute_to_string(std::vector<std::int64_t>{1, -1, 0}), "[1,-1,0]");
    EXPECT_EQ(attribute_to_string(std::vector<std::int64_t>{}), "[]");
    EXPECT_EQ(attribute_to_string(0.5f), "0.5");
    EXPECT_EQ(attribute_to_string(std::vector<float>{0.25f, 2.f}), "[0.25,2]");
    EXPECT_EQ(attribute_to_string(std::string("a\"b")), "\"a\\\"b\"");
}

} // namespace
} // namespace reshaper::impl::testing
