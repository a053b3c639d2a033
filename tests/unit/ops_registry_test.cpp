// The registry: which schema an op resolves to, and how each reshape family
// maps its zero attribute to the zero rule.
#include <gtest/gtest.h>

#include "ops/graph_inference.hpp"
#include "ops/registry.hpp"
#include "ops/reshape_request.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {
namespace {

const op_registry &reg() { return op_registry::instance(); }

int onnx_schema_for_opset(std::int64_t opset) {
    const op_schema *s = reg().find("ai.onnx", "Reshape", opset);
    return s ? s->since_version : -1;
}

TEST(OpRegistry, OnnxOpsetSelectsNewestSchemaNotNewerThanIt) {
    EXPECT_EQ(onnx_schema_for_opset(1), 1);
    EXPECT_EQ(onnx_schema_for_opset(4), 1);
    EXPECT_EQ(onnx_schema_for_opset(7), 5);
    EXPECT_EQ(onnx_schema_for_opset(13), 13);
    EXPECT_EQ(onnx_schema_for_opset(18), 14);
    EXPECT_EQ(onnx_schema_for_opset(20), 19);
    EXPECT_EQ(onnx_schema_for_opset(22), 21);
    EXPECT_EQ(onnx_schema_for_opset(24), 24);
    EXPECT_EQ(onnx_schema_for_opset(25), 25);
    // Opsets 26-28 add no Reshape: the bound is the domain's newest opset.
    EXPECT_EQ(onnx_schema_for_opset(26), 25);
    EXPECT_EQ(onnx_schema_for_opset(28), 25);
    EXPECT_EQ(onnx_schema_for_opset(newest_onnx_opset), 25);
    EXPECT_EQ(onnx_schema_for_opset(0), -1);
    EXPECT_EQ(onnx_schema_for_opset(-3), -1);
    EXPECT_EQ(onnx_schema_for_opset(29), -1);
    ASSERT_NE(reg().find("ai.onnx", "Reshape"), nullptr);
    EXPECT_EQ(reg().find("ai.onnx", "Reshape")->since_version, 25);
}

TEST(OpRegistry, EveryOnnxVersionHasItsOwnSchema) {
    std::vector<int> versions;
    for (const op_schema &s : reg().schemas())
        if (s.domain == "ai.onnx" && s.kind == "Reshape") versions.push_back(s.since_version);
    EXPECT_EQ(versions, (std::vector<int>{1, 5, 13, 14, 19, 21, 23, 24, 25}));
}

TEST(OpRegistry, DefaultDomainVersionIsTheOpsOwn) {
    for (const char *kind : {"StaticReshape", "DynamicReshape", "Reshape"}) {
        ASSERT_NE(reg().find("", kind, 1), nullptr) << kind;
        EXPECT_EQ(reg().find("", kind)->since_version, 1) << kind;
        EXPECT_EQ(reg().find("", kind, 2), nullptr) << kind;
        EXPECT_EQ(reg().find("", kind, 0), nullptr) << kind;
    }
}

op op_of(const std::string &domain, const std::string &kind, std::optional<std::int64_t> version) {
    op o;
    o.id = 5;
    o.name = "r";
    o.kind = kind;
    o.domain = domain;
    o.version = version;
    return o;
}

TEST(OpRegistry, ResolveRejectsVersionsOutsideTheKnownOnes) {
    expect_error([] { reg().resolve(op_of("ai.onnx", "Reshape", 0)); },
                 status::invalid_graph_op, "opset 0 is outside 1..28");
    expect_error([] { reg().resolve(op_of("ai.onnx", "Reshape", 29)); }, status::invalid_graph_op,
                 "op 5 'r' ai.onnx.Reshape (version 29): opset 29 is outside 1..28, the ai.onnx "
                 "opsets this registry knows (ai.onnx.Reshape has schemas 1, 5, 13, 14, 19, 21, "
                 "23, 24, 25) [version]");
    EXPECT_EQ(reg().resolve(op_of("ai.onnx", "Reshape", 27))->versioned_name(), "ai.onnx.Reshape-25");
    expect_error([] { reg().resolve(op_of("", "StaticReshape", 2)); }, status::invalid_graph_op,
                 "op 5 'r' StaticReshape (version 2): version 2 is not defined");
    EXPECT_EQ(reg().resolve(op_of("ai.onnx", "Reshape", 20))->versioned_name(),
              "ai.onnx.Reshape-19");
    EXPECT_EQ(reg().resolve(op_of("", "Reshape", std::nullopt))->versioned_name(), "Reshape-1");
}

TEST(OpRegistry, UnknownKindsAreNotOursAndNoError) {
    EXPECT_EQ(reg().resolve(op_of("", "MatMul", 1)), nullptr);
    EXPECT_EQ(reg().resolve(op_of("ai.onnx", "StaticReshape", 1)), nullptr);
    EXPECT_EQ(reg().resolve(op_of("com.example", "Reshape", 99)), nullptr);
    EXPECT_FALSE(reg().handles_kind("", "MatMul"));
    EXPECT_TRUE(reg().handles_kind("ai.onnx", "Reshape"));
    EXPECT_EQ(reg().handled_kinds(),
              (std::vector<std::string>{"StaticReshape", "DynamicReshape", "Reshape",
                                        "ai.onnx.Reshape", "StaticTranspose", "ai.onnx.Transpose",
                                        "ai.onnx.Squeeze", "ai.onnx.Unsqueeze", "ai.onnx.Flatten"}));
}

TEST(OpRegistry, AttributeOrDefault) {
    const op_schema &v14 = *reg().find("ai.onnx", "Reshape", 14);
    op o = op_of("ai.onnx", "Reshape", 14);
    EXPECT_EQ(attribute_or_default(v14, o, "allowzero"), attribute_value(std::int64_t{0}));
    o.attrs["allowzero"] = std::int64_t{1};
    EXPECT_EQ(attribute_or_default(v14, o, "allowzero"), attribute_value(std::int64_t{1}));
    EXPECT_FALSE(attribute_or_default(v14, o, "special_zero").has_value());
}

// The polarity of each family's zero attribute: special_zero=true means the
// same as allowzero=0, namely copy_from_input.
zero_rule zeros_read(const std::string &label, const std::string &attr,
                     std::optional<attribute_value> value) {
    const reshape_variant &v = variant_named(label);
    graph g = make_reshape_graph(v, {2, 3}, {0, 3}, zero_rule::copy_from_input);
    op &o = g.ops[0];
    o.attrs.erase(attr);
    if (value) o.attrs[attr] = *value;
    return read_reshape_request(*reg().resolve(o), o, g).zeros;
}

TEST(ZeroRulePolarity, SpecialZeroTrueIsAllowzeroZeroIsCopy) {
    EXPECT_EQ(zeros_read("StaticReshape_1", "special_zero", true), zero_rule::copy_from_input);
    EXPECT_EQ(zeros_read("StaticReshape_1", "special_zero", false), zero_rule::literal);
    EXPECT_EQ(zeros_read("DynamicReshape_1", "special_zero", true), zero_rule::copy_from_input);
    EXPECT_EQ(zeros_read("DynamicReshape_1", "special_zero", false), zero_rule::literal);
    EXPECT_EQ(zeros_read("Reshape_1", "special_zero", true), zero_rule::copy_from_input);
    EXPECT_EQ(zeros_read("Reshape_1", "special_zero", false), zero_rule::literal);
    for (const char *v : {"Onnx_Reshape_14", "Onnx_Reshape_19", "Onnx_Reshape_21",
                          "Onnx_Reshape_23", "Onnx_Reshape_24"}) {
        EXPECT_EQ(zeros_read(v, "allowzero", std::int64_t{0}), zero_rule::copy_from_input) << v;
        EXPECT_EQ(zeros_read(v, "allowzero", std::int64_t{1}), zero_rule::literal) << v;
        EXPECT_EQ(zeros_read(v, "allowzero", std::nullopt), zero_rule::copy_from_input) << v;
    }
    for (const char *v : {"Onnx_Reshape_1", "Onnx_Reshape_5", "Onnx_Reshape_13"})
        EXPECT_EQ(zeros_read(v, "allowzero", std::nullopt), zero_rule::copy_from_input) << v;
}

TEST(ZeroRulePolarity, SameGraphSameResultAcrossFamilies) {
    // [2,3] with target [0,3]: copying gives [2,3]; a literal 0 is a volume
    // mismatch.
    for (const char *label : {"StaticReshape_1", "Reshape_1", "Onnx_Reshape_14"}) {
        const reshape_variant &v = variant_named(label);
        graph copy = make_reshape_graph(v, {2, 3}, {0, 3}, zero_rule::copy_from_input);
        infer_graph_shapes(copy);
        EXPECT_EQ(copy.tensor(output_id).shape, (dims_t{2, 3})) << label;
        graph literal = make_reshape_graph(v, {2, 3}, {0, 3}, zero_rule::literal);
        expect_error([&] { infer_graph_shapes(literal); }, status::invalid_shape,
                     "[volume_mismatch]");
    }
}

} // namespace
} // namespace reshaper::impl::testing
