// Reading hostile or unusual graph files (issue 9): reading is linear,
// resource limits refuse with a clear error (tests lower a limit rather
// than allocate), decimal values round once straight to their dtype, and
// the two benchdnn cases of contract section 1 load with a warning.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/element_codec.hpp"
#include "core/limits.hpp"
#include "io/decimal_text.hpp"
#include "io/graph_json.hpp"
#include "scoped_env.hpp"
#include "io/json_dom.hpp"

using namespace reshaper::impl;
using ojson = nlohmann::ordered_json;

namespace {

using reshaper::impl::testing::scoped_env;

// One StaticReshape [2,3] -> [6] whose input has `values`, as JSON text.
std::string graph_with_values(const std::string &dtype, const std::string &values_text) {
    return R"({"graph": [{"id": 0, "name": "r0", "kind": "StaticReshape",
      "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [-1]}},
      "inputs": [{"id": 0, "dtype": ")" + dtype + R"(", "shape": [)" + "1" + R"(], "stride": [],
                  "layout_type": "strided", "property_type": "undef", "values": [)" + values_text + R"(]}],
      "outputs": [{"id": 1, "dtype": ")" + dtype + R"(", "shape": [-1], "stride": [],
                   "layout_type": "strided", "property_type": "undef"}]}]})";
}

std::uint64_t value_bits(const std::string &dtype, const std::string &text) {
    const graph g = read_graph_json(graph_with_values(dtype, text));
    const tensor_values &v = *g.tensors.at(0).values;
    return load_bits(v.type, v.bytes.data(), 0);
}

// Two ops: r0 makes tensor 1 [6] from tensor 0 [2,3], r1 tensor 2 [3,2] from 1.
ojson two_ops() {
    return ojson::parse(R"({
      "graph": [
        {"id": 0, "name": "r0", "kind": "StaticReshape",
         "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [6]}},
         "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 3], "layout_type": "strided", "property_type": "undef"}],
         "outputs": [{"id": 1, "dtype": "f32", "shape": [6], "layout_type": "strided", "property_type": "undef"}]},
        {"id": 1, "name": "r1", "kind": "StaticReshape",
         "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [3, 2]}},
         "inputs": [{"id": 1, "dtype": "f32", "shape": [6], "layout_type": "strided", "property_type": "undef"}],
         "outputs": [{"id": 2, "dtype": "f32", "shape": [3, 2], "layout_type": "strided", "property_type": "undef"}]}]})");
}

template <typename F>
std::string error_of(F &&f, status expected) {
    try {
        f();
    } catch (const error &e) {
        EXPECT_EQ(e.code(), expected) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return {};
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

} // namespace

// ---- reading is linear --------------------------------------------------------

TEST(JsonReading, HalfAMillionEmptyObjectsInAnExtraKeyLoad) {
    // Reading was quadratic in the length of any array (nlohmann's callback
    // parser walked the parent at every closing brace): this did not finish
    // in 60 s. Kept verbatim as an extra field.
    std::string text = two_ops().dump();
    text.pop_back();
    text += ", \"extra\": [";
    for (int i = 0; i < 500000; ++i) text += i == 0 ? "{}" : ",{}";
    text += "]}";
    const graph g = read_graph_json(text);
    EXPECT_EQ(g.ops.size(), 2u);
    ASSERT_EQ(g.extra_fields.count("extra"), 1u);
    EXPECT_EQ(g.extra_fields.at("extra").size(), 500000u * 3 + 1);
}

TEST(JsonReading, AnObjectOfTwoHundredThousandKeysLoads) {
    // nlohmann's ordered objects scan every key at each insertion: reading
    // (and copying for the extra field) such an object was quadratic.
    std::string text = two_ops().dump();
    text.pop_back();
    text += ", \"extra\": {";
    for (int i = 0; i < 200000; ++i) text += (i == 0 ? "\"k" : ",\"k") + std::to_string(i) + "\":" + std::to_string(i);
    text += ", \"k7\": -7}}"; // a repeated key keeps its place and takes the last value
    const graph g = read_graph_json(text);
    // Read back with our reader (nlohmann's own is the quadratic one).
    const ojson extra = parse_json(g.extra_fields.at("extra"), 4);
    ASSERT_EQ(extra.size(), 200000u);
    EXPECT_EQ(extra.begin().key(), "k0");
    EXPECT_EQ(extra.at("k7"), -7);
    EXPECT_EQ(std::next(extra.begin(), 7).key(), "k7");
    EXPECT_EQ(read_graph_json(write_graph_json(g)), g); // writing it is linear too
}

// ---- resource limits ------------------------------------------------------------

TEST(ResourceLimits, NestingDeeperThanTheLimitIsRefused) {
    const scoped_env depth("RESHAPER_MAX_JSON_DEPTH", "8");
    std::string deep = two_ops().dump();
    deep.pop_back();
    deep += ", \"extra\": [[[[[[[[1]]]]]]]]}"; // 9 levels with the top object
    const std::string what = error_of([&] { read_graph_json(deep); }, status::invalid_graph);
    EXPECT_TRUE(contains(what, "nesting deeper than 8 levels (RESHAPER_MAX_JSON_DEPTH)")) << what;
    deep.replace(deep.find("[[[[[[[[1]]]]]]]]"), 17, "[[[[[[[1]]]]]]]");
    EXPECT_NO_THROW(read_graph_json(deep));
}

TEST(ResourceLimits, GraphTextAndFilesLargerThanTheLimitAreRefused) {
    const std::string text = two_ops().dump();
    const scoped_env bytes("RESHAPER_MAX_GRAPH_BYTES", std::to_string(text.size() - 1));
    std::string what = error_of([&] { read_graph_json(text); }, status::invalid_graph);
    EXPECT_TRUE(contains(what, "is larger than the limit of")) << what;
    EXPECT_TRUE(contains(what, "(RESHAPER_MAX_GRAPH_BYTES)")) << what;

    const auto path = std::filesystem::temp_directory_path() / "reshaper_hardening_big_graph.json";
    std::ofstream(path) << text;
    what = error_of([&] { read_graph_file(path.string()); }, status::invalid_graph);
    EXPECT_TRUE(contains(what, path.string())) << what;
    EXPECT_TRUE(contains(what, "RESHAPER_MAX_GRAPH_BYTES")) << what;
    {
        const scoped_env enough("RESHAPER_MAX_GRAPH_BYTES", std::to_string(text.size()));
        EXPECT_NO_THROW(read_graph_file(path.string()));
    }
    std::filesystem::remove(path);
    EXPECT_EQ(current_limits().max_graph_bytes, text.size() - 1);
}

TEST(ResourceLimits, DefaultsAndIgnoredSettings) {
    const scoped_env bytes("RESHAPER_MAX_GRAPH_BYTES", "lots");
    const resource_limits l = current_limits();
    EXPECT_EQ(l.max_graph_bytes, std::uint64_t{1} << 30);
    EXPECT_EQ(l.max_json_depth, 256u);
    EXPECT_EQ(format_bytes(std::uint64_t{1} << 30), "1 GiB (1073741824 bytes)");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB (1536 bytes)");
    EXPECT_EQ(format_bytes(12), "12 bytes");
}

TEST(ResourceLimits, MoreOpsThanTheLimitAreRefused) {
    const scoped_env ops("RESHAPER_MAX_OPS", "1");
    const std::string what = error_of([] { read_graph_json(two_ops().dump()); }, status::invalid_graph);
    EXPECT_TRUE(contains(what, "holds 2 ops, more than the limit of 1 (RESHAPER_MAX_OPS)")) << what;
    EXPECT_TRUE(contains(what, "[max_ops]")) << what;
}

// ---- decimal values round once ---------------------------------------------------

TEST(DecimalValues, RoundOnceStraightToF32) {
    // 1 + 2^-24 is halfway between the f32 values 1 and 1 + 2^-23: a decimal
    // just above it rounds up, one just below or on it (ties to even) down,
    // although all three are the same double.
    EXPECT_EQ(value_bits("f32", "1.00000005960464477539062500000001"), 0x3F800001u);
    EXPECT_EQ(value_bits("f32", "1.00000005960464477539062499999999"), 0x3F800000u);
    EXPECT_EQ(value_bits("f32", "1.000000059604644775390625"), 0x3F800000u);
    EXPECT_EQ(value_bits("f32", "-1.00000005960464477539062500000001"), 0xBF800001u);
    EXPECT_EQ(value_bits("f32", "1.0000001788139343261718749999e0"), 0x3F800001u); // 1 + 3*2^-24, below
    EXPECT_EQ(value_bits("f32", "100000005960464477539062500000001e-32"), 0x3F800001u);
    // The deciding digit far beyond what is kept as digits.
    EXPECT_EQ(value_bits("f32", "1.000000059604644775390625" + std::string(2000, '0') + "1"), 0x3F800001u);
    EXPECT_EQ(value_bits("f32", "0.1"), 0x3DCCCCCDu);
}

TEST(DecimalValues, RoundOnceStraightToNarrowFormats) {
    EXPECT_EQ(value_bits("f16", "1.00048828125"), 0x3C00u); // 1 + 2^-11: a tie, to even
    EXPECT_EQ(value_bits("f16", "1.00048828125000000001"), 0x3C01u);
    EXPECT_EQ(value_bits("f16", "1.00146484375"), 0x3C02u); // 1 + 3*2^-11: a tie, to even (up)
    EXPECT_EQ(value_bits("f16", "1.00146484374999999999"), 0x3C01u);
    EXPECT_EQ(value_bits("bf16", "1.00390625"), 0x3F80u); // 1 + 2^-8
    EXPECT_EQ(value_bits("bf16", "1.0039062500000000001"), 0x3F81u);
    EXPECT_EQ(value_bits("f8_e4m3", "1.0625"), 0x38u); // 1 + 2^-4
    EXPECT_EQ(value_bits("f8_e4m3", "1.06250000000000000001"), 0x39u);
    EXPECT_EQ(value_bits("f8_e5m2", "1.125000000000000000001"), 0x3Du);
    EXPECT_EQ(value_bits("f64", "1.00000005960464477539062500000001"), 0x3FF0000010000000u);
}

TEST(DecimalValues, NegativeZeroKeepsItsSign) {
    EXPECT_EQ(value_bits("f32", "-0"), 0x80000000u);
    EXPECT_EQ(value_bits("f32", "0"), 0x0u);
    EXPECT_EQ(value_bits("f16", "-0"), 0x8000u);
    EXPECT_EQ(value_bits("bf16", "-0"), 0x8000u);
    EXPECT_EQ(value_bits("f64", "-0"), 0x8000000000000000u);
    EXPECT_EQ(value_bits("f8_e5m2", "-0"), 0x80u);
    EXPECT_EQ(value_bits("s32", "-0"), 0u);
}

TEST(DecimalValues, TextJustOffAnIntegerIsNoInteger) {
    const std::string what = error_of([] { value_bits("s32", "3.0000000000000000001"); }, status::invalid_data_type);
    EXPECT_TRUE(contains(what, "not an integer")) << what;
    EXPECT_TRUE(contains(what, "values[0] = 3.0")) << what; // the double, not a NaN box
    EXPECT_EQ(value_bits("s32", "3.0"), 3u);
}

TEST(DecimalValues, CompareDecimalIsExact) {
    EXPECT_EQ(compare_decimal("0.5", 0.5), 0);
    EXPECT_EQ(compare_decimal("-0.5", -0.5), 0);
    EXPECT_EQ(compare_decimal("5e-1", 0.5), 0);
    EXPECT_EQ(compare_decimal("0.50000000000000000000001", 0.5), 1);
    EXPECT_EQ(compare_decimal("-0.50000000000000000000001", -0.5), -1);
    EXPECT_EQ(compare_decimal("0.1", 0.1), -1); // the double 0.1 is 0.1000000000000000055...
    EXPECT_EQ(compare_decimal("1e-400", 0.0), 1);
    EXPECT_EQ(compare_decimal("-0", 0.0), 0);
    EXPECT_EQ(compare_decimal("0.000", -0.0), 0);
    EXPECT_EQ(compare_decimal("4.9406564584124654e-324", 4.9406564584124654e-324), -1);
    EXPECT_EQ(compare_decimal("1e308", 1e308), -1); // the double 1e308 is a little above the decimal
    EXPECT_TRUE(may_be_narrow_tie(1.0 + 0x1p-24));
    EXPECT_FALSE(may_be_narrow_tie(0.1));
}

// ---- contract section 1: benchdnn files that load with a warning -----------------

TEST(BenchdnnFiles, AConsumersOtherShapeGivesWayToTheProducerWithAWarning) {
    ojson j = two_ops();
    j["graph"][1]["inputs"][0]["shape"] = {2, 3};
    const graph g = read_graph_json(j.dump());
    EXPECT_EQ(g.tensors.at(1).shape, (dims_t{6}));
    ASSERT_EQ(g.warnings.size(), 1u);
    EXPECT_TRUE(contains(g.warnings[0], "tensor 1 has shape [6] at output 0 of op 0")) << g.warnings[0];
    EXPECT_TRUE(contains(g.warnings[0], "but [2,3] at input 0 of op 1")) << g.warnings[0];
    EXPECT_TRUE(contains(g.warnings[0], "the producer's shape [6] stands")) << g.warnings[0];

    // The consumer first in the file: the producer still decides.
    ojson swapped = j;
    std::swap(swapped["graph"][0], swapped["graph"][1]);
    const graph h = read_graph_json(swapped.dump());
    EXPECT_EQ(h.tensors.at(1).shape, (dims_t{6}));
    EXPECT_EQ(h.warnings.size(), 1u);

    // A dtype conflict stays an error.
    j["graph"][1]["inputs"][0]["dtype"] = "f16";
    error_of([&] { read_graph_json(j.dump()); }, status::invalid_graph);
}

TEST(BenchdnnFiles, ALayoutOrPropertyConflictStaysAnErrorAlsoBesideAnotherShape) {
    // Only the shape is forgiven (contract section 1): with the consumer's
    // other shape, another layout_type, format or property_type is still
    // invalid_graph, whichever description comes first in the file.
    struct conflict {
        const char *field, *producer, *consumer;
    };
    for (const conflict &c : {conflict{"layout_type", "strided", "opaque"}, conflict{"format", "abc", "acb"},
                              conflict{"property_type", "variable", "constant"},
                              conflict{"property_type", "constant", "variable"}}) {
        SCOPED_TRACE(std::string(c.field) + " " + c.producer + " / " + c.consumer);
        ojson j = two_ops();
        ojson &produced = j["graph"][0]["outputs"][0], &consumed = j["graph"][1]["inputs"][0];
        consumed["shape"] = {2, 3};
        if (std::string(c.field) == "format") {
            produced["layout_type"] = consumed["layout_type"] = "opaque";
            produced["shape"] = {1, 6, 1};
        }
        if (std::string(c.field) == "layout_type") consumed["format"] = "ab";
        produced[c.field] = c.producer;
        consumed[c.field] = c.consumer;
        for (int order = 0; order < 2; ++order) {
            const std::string what = error_of([&] { read_graph_json(j.dump()); }, status::invalid_graph);
            EXPECT_TRUE(contains(what, "tensor 1 has " + std::string(c.field))) << what;
            EXPECT_TRUE(contains(what, c.producer) && contains(what, c.consumer)) << what;
            EXPECT_TRUE(contains(what, "[tensor_agreement]")) << what;
            std::swap(j["graph"][0], j["graph"][1]);
        }
    }
}

TEST(BenchdnnFiles, LayoutAnyOrUndefAndPropertyUndefStateNothingAndConflictWithNothing) {
    // A consumer that says any, undef or property undef takes the
    // producer's description (and the other way round).
    for (auto [field, value] : {std::pair{"layout_type", "any"}, std::pair{"layout_type", "undef"}}) {
        ojson j = two_ops();
        j["graph"][0]["outputs"][0]["stride"] = {1};
        j["graph"][0]["outputs"][0]["property_type"] = "constant";
        j["graph"][1]["inputs"][0][field] = value;
        for (int order = 0; order < 2; ++order) {
            SCOPED_TRACE(std::string(value) + (order ? ", consumer first" : ""));
            const graph g = read_graph_json(j.dump());
            EXPECT_EQ(g.tensors.at(1).layout, layout_type::strided);
            EXPECT_EQ(g.tensors.at(1).property, property_type::constant);
            std::swap(j["graph"][0], j["graph"][1]);
        }
    }
}

TEST(BenchdnnFiles, DenseStridesGivenOrLeftOutAgree) {
    // "stride": [] and the dense strides written out are one layout; so are
    // strides that fit a shape only one side knows in full.
    ojson j = two_ops();
    j["graph"][0]["outputs"][0]["stride"] = {1};
    const graph g = read_graph_json(j.dump());
    EXPECT_TRUE(g.tensors.at(1).strides.empty());
    EXPECT_TRUE(g.warnings.empty());

    j["graph"][1]["inputs"][0]["shape"] = {-1};
    j["graph"][1]["inputs"][0]["stride"] = {1};
    EXPECT_EQ(read_graph_json(j.dump()).tensors.at(1).shape, (dims_t{6}));

    // Other strides for the same shape are another layout.
    j["graph"][1]["inputs"][0]["stride"] = {2};
    const std::string what = error_of([&] { read_graph_json(j.dump()); }, status::invalid_graph);
    EXPECT_TRUE(contains(what, "tensor 1 has stride [1] for shape [6]")) << what;
}

TEST(BenchdnnFiles, ConsumersOfAGraphInputThatDisagreeStayAnError) {
    ojson j = two_ops();
    j["graph"][1]["inputs"][0] = j["graph"][0]["inputs"][0];
    j["graph"][1]["inputs"][0]["shape"] = {3, 2};
    const std::string what = error_of([&] { read_graph_json(j.dump()); }, status::invalid_graph);
    EXPECT_TRUE(contains(what, "no op produces it")) << what;
    EXPECT_TRUE(contains(what, "[tensor_agreement]")) << what;
}

TEST(BenchdnnFiles, APortNamingATensorNoOpUsesIsIgnoredWithAWarning) {
    ojson j = two_ops();
    j["input_ports"] = {0, 7};
    j["output_ports"] = {2};
    const graph g = read_graph_json(j.dump());
    EXPECT_EQ(g.input_ports, (std::vector<tensor_id>{0}));
    ASSERT_EQ(g.warnings.size(), 1u);
    EXPECT_TRUE(contains(g.warnings[0], "input_ports[1] names tensor 7, which no op uses: ignored")) << g.warnings[0];
    // Warnings are notes about a load: the written graph reads back equal.
    EXPECT_EQ(read_graph_json(write_graph_json(g)), g);
}
