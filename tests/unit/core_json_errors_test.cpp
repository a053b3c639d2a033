// Bad graph files: every structural problem is an impl::error with the
// right status and a message naming the op, the field and the value; no
// input crashes the reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/graph_json.hpp"
#include "file_text_support.hpp"

using namespace reshaper::impl;
using ojson = nlohmann::ordered_json;

namespace {

// Two ops: r0 (id 0) makes tensor 1 from tensor 0, r1 (id 1) tensor 2 from 1.
ojson base_graph() {
    return ojson::parse(R"({
      "version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict",
      "graph": [
        {"id": 0, "name": "r0", "kind": "StaticReshape",
         "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [6]}},
         "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 3], "stride": [3, 1],
                     "layout_type": "strided", "property_type": "undef"}],
         "outputs": [{"id": 1, "dtype": "f32", "shape": [6], "stride": [1],
                      "layout_type": "strided", "property_type": "undef"}]},
        {"id": 1, "name": "r1", "kind": "StaticReshape",
         "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [3, 2]}},
         "inputs": [{"id": 1, "dtype": "f32", "shape": [6], "stride": [1],
                     "layout_type": "strided", "property_type": "undef"}],
         "outputs": [{"id": 2, "dtype": "f32", "shape": [3, 2], "stride": [2, 1],
                      "layout_type": "strided", "property_type": "undef"}]}]})");
}

struct bad_case {
    const char *name;
    std::function<void(ojson &)> mutate;
    status code;
    std::vector<std::string> substrings;
};

ojson &op0(ojson &g) { return g["graph"][0]; }
ojson &in0(ojson &g) { return g["graph"][0]["inputs"][0]; }

void expect_error(const std::string &text, status code, const std::vector<std::string> &substrings) {
    try {
        read_graph_json(text);
        ADD_FAILURE() << "no error for " << text.substr(0, 200);
    } catch (const error &e) {
        EXPECT_EQ(e.code(), code) << e.what();
        for (const auto &s : substrings)
            EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << "'" << s << "' not in: " << e.what();
    }
}

} // namespace

TEST(GraphJsonErrors, TheBaseGraphIsValid) {
    const graph g = read_graph_json(base_graph().dump());
    EXPECT_EQ(g.ops.size(), 2u);
    EXPECT_EQ(g.tensors.size(), 3u);
}

TEST(GraphJsonErrors, StructuralProblemsNameTheOpAndTheField) {
    const bad_case cases[] = {
        {"graph missing", [](ojson &g) { g.erase("graph"); }, status::invalid_graph,
         {"missing field \"graph\"", "[required_field]"}},
        {"graph not an array", [](ojson &g) { g["graph"] = ojson::object(); }, status::invalid_graph,
         {"field \"graph\" must be an array, got {}"}},
        {"version not a string", [](ojson &g) { g["version"] = 3; }, status::invalid_graph,
         {"field \"version\" must be a string, got 3"}},
        {"op not an object", [](ojson &g) { g["graph"][1] = "op"; }, status::invalid_graph,
         {"op at index 1 of \"graph\"", "must be an object, got \"op\""}},
        {"op id missing", [](ojson &g) { op0(g).erase("id"); }, status::invalid_graph,
         {"op at index 0", "missing field \"id\""}},
        {"op id a string", [](ojson &g) { op0(g)["id"] = "0"; }, status::invalid_graph,
         {"field \"id\" must be a non-negative integer, got \"0\""}},
        {"op id a fraction", [](ojson &g) { op0(g)["id"] = 0.5; }, status::invalid_graph,
         {"got 0.5"}},
        {"op id negative", [](ojson &g) { op0(g)["id"] = -3; }, status::invalid_graph,
         {"non-negative integer, got -3"}},
        {"op id beyond int64", [](ojson &g) { op0(g)["id"] = std::uint64_t{1} << 63; },
         status::invalid_graph, {"got 9223372036854775808"}},
        {"kind missing", [](ojson &g) { op0(g).erase("kind"); }, status::invalid_graph,
         {"op 0", "missing field \"kind\""}},
        {"name not a string", [](ojson &g) { op0(g)["name"] = ojson::array(); }, status::invalid_graph,
         {"op 0", "field \"name\" must be a string"}},
        {"inputs missing", [](ojson &g) { op0(g).erase("inputs"); }, status::invalid_graph,
         {"op 0 'r0' (StaticReshape)", "missing field \"inputs\""}},
        {"outputs missing", [](ojson &g) { g["graph"][1].erase("outputs"); }, status::invalid_graph,
         {"op 1 'r1' (StaticReshape)", "missing field \"outputs\""}},
        {"outputs not an array", [](ojson &g) { op0(g)["outputs"] = 1; }, status::invalid_graph,
         {"op 0 'r0'", "field \"outputs\" must be an array, got 1"}},
        {"version not an integer", [](ojson &g) { op0(g)["version"] = "14"; }, status::invalid_graph,
         {"op 0 'r0'", "field \"version\" must be an integer"}},
        {"domain not a string", [](ojson &g) { op0(g)["domain"] = 1; }, status::invalid_graph,
         {"field \"domain\" must be a string"}},
        {"attrs not an object", [](ojson &g) { op0(g)["attrs"] = ojson::array(); }, status::invalid_graph,
         {"op 0 'r0'", "field \"attrs\" must be an object"}},
        {"attr not an object", [](ojson &g) { op0(g)["attrs"]["shape"] = 6; }, status::invalid_graph,
         {"op 0 'r0' (StaticReshape): attr shape", "must be an object"}},
        {"attr without value", [](ojson &g) { op0(g)["attrs"]["shape"].erase("value"); },
         status::invalid_graph, {"attr shape", "missing field \"value\""}},
        {"tensor not an object", [](ojson &g) { op0(g)["inputs"][0] = 0; }, status::invalid_graph,
         {"input 0 of op 0 'r0'", "a logical tensor must be an object, got 0"}},
        {"tensor id missing", [](ojson &g) { in0(g).erase("id"); }, status::invalid_graph,
         {"input 0 of op 0 'r0'", "missing field \"id\""}},
        {"tensor id a float", [](ojson &g) { in0(g)["id"] = 1e30; }, status::invalid_graph,
         {"field \"id\" must be a non-negative integer"}},
        {"dtype missing", [](ojson &g) { in0(g).erase("dtype"); }, status::invalid_graph,
         {"tensor 0 at input 0 of op 0 'r0'", "missing field \"dtype\""}},
        {"shape a string", [](ojson &g) { in0(g)["shape"] = "[2,3]"; }, status::invalid_graph,
         {"tensor 0", "field \"shape\" must be an array"}},
        {"shape element a string", [](ojson &g) { in0(g)["shape"][1] = "3"; }, status::invalid_graph,
         {"field \"shape[1]\" must be an integer within int64, got \"3\""}},
        {"stride element null", [](ojson &g) { in0(g)["stride"][0] = nullptr; }, status::invalid_graph,
         {"field \"stride[0]\" must be an integer"}},
        {"unknown layout", [](ojson &g) { in0(g)["layout_type"] = "blocked"; }, status::invalid_graph,
         {"tensor 0", "unknown layout_type \"blocked\"", "[known_layout]"}},
        {"unknown property", [](ojson &g) { in0(g)["property_type"] = "const"; }, status::invalid_graph,
         {"unknown property_type \"const\""}},
        {"format not a string", [](ojson &g) {
             in0(g)["layout_type"] = "opaque";
             in0(g)["format"] = 16;
         }, status::invalid_graph, {"field \"format\" must be a string"}},
        {"duplicate outputs", [](ojson &g) { op0(g)["outputs"].push_back(op0(g)["outputs"][0]); },
         status::invalid_graph, {"output 1 of op 0 'r0'", "tensor 1 is listed twice", "[unique_outputs]"}},
        {"duplicate op ids", [](ojson &g) { g["graph"][1]["id"] = 0; }, status::invalid_graph,
         {"op id 0 is used twice", "[unique_op_id]"}},
        {"port not a list", [](ojson &g) { g["input_ports"] = 0; }, status::invalid_graph,
         {"field \"input_ports\" must be an array"}},
        {"dtype disagreement", [](ojson &g) { g["graph"][1]["inputs"][0]["dtype"] = "f16"; },
         status::invalid_graph,
         {"tensor 1 has dtype f32 at output 0 of op 0 'r0' (StaticReshape) but f16 at input 0 of op 1 'r1'",
          "[tensor_agreement]"}},
        // Contract section 1: only the shape is forgiven; layout and
        // property conflicts stay invalid_graph like dtype ones.
        {"layout disagreement", [](ojson &g) {
             g["graph"][1]["inputs"][0]["layout_type"] = "opaque";
             g["graph"][1]["inputs"][0]["format"] = "a";
         }, status::invalid_graph,
         {"tensor 1 has layout_type strided at output 0 of op 0 'r0' (StaticReshape) but opaque at input 0 of op 1 'r1'",
          "[tensor_agreement]"}},
        {"layout disagreement, consumer first", [](ojson &g) {
             g["graph"][1]["inputs"][0]["layout_type"] = "opaque";
             g["graph"][1]["inputs"][0]["format"] = "a";
             std::swap(g["graph"][0], g["graph"][1]);
         }, status::invalid_graph,
         {"tensor 1 has layout_type opaque at input 0 of op 1 'r1'", "but strided at output 0 of op 0 'r0'",
          "[tensor_agreement]"}},
        {"property disagreement", [](ojson &g) {
             op0(g)["outputs"][0]["property_type"] = "variable";
             g["graph"][1]["inputs"][0]["property_type"] = "constant";
         }, status::invalid_graph,
         {"tensor 1 has property_type variable at output 0 of op 0 'r0' (StaticReshape) but constant at input 0",
          "[tensor_agreement]"}},
        {"format disagreement", [](ojson &g) {
             for (ojson *lt : {&op0(g)["outputs"][0], &g["graph"][1]["inputs"][0]}) {
                 (*lt)["shape"] = {1, 16, 1, 1};
                 (*lt)["layout_type"] = "opaque";
                 (*lt)["format"] = "nChw16c";
             }
             g["graph"][1]["inputs"][0]["format"] = "nChw8c";
             op0(g)["inputs"][0]["shape"] = {2, 8};
             op0(g)["inputs"][0]["stride"] = {8, 1};
         }, status::invalid_graph,
         {"tensor 1 has format \"nChw16c\" at output 0 of op 0 'r0'", "but \"nChw8c\" at input 0 of op 1",
          "[tensor_agreement]"}},
        {"stride disagreement", [](ojson &g) {
             op0(g)["outputs"][0]["shape"] = {2, 3};
             op0(g)["outputs"][0]["stride"] = {1, 2};
             g["graph"][1]["inputs"][0]["shape"] = {2, 3};
             g["graph"][1]["inputs"][0]["stride"] = {3, 1};
         }, status::invalid_graph,
         {"tensor 1 has stride [1,2] for shape [2,3] at output 0 of op 0 'r0'", "but [3,1] at input 0 of op 1",
          "[tensor_agreement]"}},
        {"stride disagreement with dense", [](ojson &g) { g["graph"][1]["inputs"][0]["stride"] = {2}; },
         status::invalid_graph, {"tensor 1 has stride [1] for shape [6]", "but [2] at input 0", "[tensor_agreement]"}},
        {"values disagreement", [](ojson &g) {
             op0(g)["outputs"][0]["values"] = {1, 2, 3, 4, 5, 6};
             g["graph"][1]["inputs"][0]["values"] = {1, 2, 3, 4, 5, 7};
         }, status::invalid_graph, {"tensor 1 has values"}},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        ojson g = base_graph();
        c.mutate(g);
        expect_error(g.dump(), c.code, c.substrings);
    }
}

TEST(GraphJsonErrors, TypesShapesAndAttributes) {
    const bad_case cases[] = {
        {"unknown dtype", [](ojson &g) { in0(g)["dtype"] = "float32"; }, status::invalid_data_type,
         {"tensor 0 at input 0 of op 0 'r0' (StaticReshape)", "unknown dtype \"float32\""}},
        {"dim below -1", [](ojson &g) { in0(g)["shape"] = {2, -2}; }, status::invalid_shape,
         {"tensor 0", "shape [2,-2] has -2 at index 1", "[dims_at_least_minus_one]"}},
        {"volume overflow", [](ojson &g) { in0(g)["shape"] = {std::int64_t{1} << 40, std::int64_t{1} << 30}; },
         status::invalid_shape, {"overflows int64", "[volume_fits]"}},
        {"stride rank", [](ojson &g) { in0(g)["stride"] = {1}; }, status::invalid_shape,
         {"stride [1] has 1 entries for shape [2,3] of rank 2", "[stride_rank]"}},
        {"stride below -1", [](ojson &g) { in0(g)["stride"] = {-3, 1}; }, status::invalid_shape,
         {"stride [-3,1] has -3"}},
        {"values count", [](ojson &g) { in0(g)["values"] = {1, 2, 3}; }, status::invalid_shape,
         {"tensor 0 at input 0 of op 0 'r0'", "values hold 3 elements, the shape has 6", "[values_count]"}},
        {"values for unknown dims", [](ojson &g) {
             in0(g)["shape"] = {-1, 3};
             in0(g)["values"] = {1, 2, 3};
         }, status::invalid_shape, {"unknown dims", "[values_need_known_shape]"}},
        {"values not a list", [](ojson &g) { in0(g)["values"] = "1,2"; }, status::invalid_graph,
         {"tensor 0", "values must be an array"}},
        {"value not a number", [](ojson &g) { in0(g)["values"] = {1, 2, 3, 4, 5, "six"}; },
         status::invalid_data_type, {"tensor 0", "values[5] = \"six\" cannot be held by dtype f32: not a number"}},
        {"value out of range", [](ojson &g) {
             in0(g)["dtype"] = "u8";
             op0(g)["outputs"][0]["dtype"] = "u8";
             g["graph"][1]["inputs"][0]["dtype"] = "u8";
             g["graph"][1]["outputs"][0]["dtype"] = "u8";
             in0(g)["values"] = {1, 2, 3, 4, 5, 256};
         }, status::invalid_data_type, {"values[5] = 256 cannot be held by dtype u8: out of range"}},
        {"2-bit value out of range", [](ojson &g) {
             in0(g)["dtype"] = "s2";
             op0(g)["outputs"][0]["dtype"] = "s2";
             g["graph"][1]["inputs"][0]["dtype"] = "s2";
             g["graph"][1]["outputs"][0]["dtype"] = "s2";
             in0(g)["values"] = {1, 0, -1, -2, 2, 1};
         }, status::invalid_data_type,
         {"tensor 0 at input 0 of op 0 'r0'", "values[4] = 2 cannot be held by dtype s2: out of range",
          "[value_fits_dtype]"}},
        {"unknown attr type", [](ojson &g) { op0(g)["attrs"]["shape"]["type"] = "s32[]"; },
         status::invalid_graph_op,
         {"op 0 'r0' (StaticReshape): attr shape", "unknown type \"s32[]\"", "[known_attr_type]"}},
        {"s64[] holding a string", [](ojson &g) { op0(g)["attrs"]["shape"]["value"] = {6, "x"}; },
         status::invalid_graph_op,
         {"op 0 'r0' (StaticReshape): attr shape: type s64[] cannot hold value [6,\"x\"]", "[attr_value_type]"}},
        {"s64[] holding a fraction", [](ojson &g) { op0(g)["attrs"]["shape"]["value"] = {6.5}; },
         status::invalid_graph_op, {"attr shape", "s64[]", "[6.5]"}},
        {"s64 holding a list", [](ojson &g) { op0(g)["attrs"]["axis"] = {{"type", "s64"}, {"value", {1}}}; },
         status::invalid_graph_op, {"attr axis: type s64 cannot hold value [1]"}},
        {"s64 beyond int64", [](ojson &g) {
             op0(g)["attrs"]["axis"] = {{"type", "s64"}, {"value", std::uint64_t{1} << 63}};
         }, status::invalid_graph_op, {"attr axis", "9223372036854775808"}},
        {"bool holding 2", [](ojson &g) { op0(g)["attrs"]["special_zero"]["value"] = 2; },
         status::invalid_graph_op, {"attr special_zero: type bool cannot hold value 2"}},
        {"bool holding a string", [](ojson &g) { op0(g)["attrs"]["special_zero"]["value"] = "true"; },
         status::invalid_graph_op, {"attr special_zero", "\"true\""}},
        {"f32 beyond its range", [](ojson &g) {
             op0(g)["attrs"]["eps"] = {{"type", "f32"}, {"value", 1e39}};
         }, status::invalid_graph_op, {"attr eps: type f32 cannot hold value 1e+39"}},
        {"f32[] holding null", [](ojson &g) {
             op0(g)["attrs"]["scales"] = {{"type", "f32[]"}, {"value", {1.0, nullptr}}};
         }, status::invalid_graph_op, {"attr scales: type f32[] cannot hold value [1.0,null]"}},
        {"string holding a number", [](ojson &g) {
             op0(g)["attrs"]["mode"] = {{"type", "string"}, {"value", 5}};
         }, status::invalid_graph_op, {"attr mode: type string cannot hold value 5"}},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        ojson g = base_graph();
        c.mutate(g);
        expect_error(g.dump(), c.code, c.substrings);
    }
}

TEST(GraphJsonErrors, ErrorsCarryTheOpToBlame) {
    ojson g = base_graph();
    g["graph"][1]["attrs"]["shape"]["type"] = "int";
    try {
        read_graph_json(g.dump());
        FAIL() << "no error";
    } catch (const error &e) {
        ASSERT_TRUE(e.op().has_value());
        EXPECT_EQ(e.op()->id, 1);
        EXPECT_EQ(e.op()->name, "r1");
        EXPECT_EQ(e.op()->kind, "StaticReshape");
    }
}

TEST(GraphJsonErrors, MalformedTextGivesTheParserPosition) {
    struct text_case {
        std::string text;
        std::vector<std::string> substrings;
    };
    const text_case cases[] = {
        {"", {"malformed JSON", "line 1, column 1", "[json_syntax]"}},
        {"   \n", {"malformed JSON", "line 2"}},
        {"{\"graph\": [}", {"line 1, column 12"}},
        {"{\"graph\": []}\n{}", {"malformed JSON", "line 2"}},
        {"{\"graph\": [NaN]}", {"malformed JSON"}},
        {"{\"graph\": [1e400]}", {"malformed JSON", "1e400"}},
        {"{\"graph\": [\"\xff\"]}", {"malformed JSON"}},
        {std::string(100000, '[') + std::string(100000, ']'), {"nesting deeper than"}},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.text.substr(0, 40));
        expect_error(c.text, status::invalid_graph, c.substrings);
    }
    expect_error("[]", status::invalid_graph, {"must hold a JSON object, got array", "[top_level_object]"});
    expect_error("null", status::invalid_graph, {"got null"});
    expect_error("\"graph\"", status::invalid_graph, {"got string"});
}

TEST(GraphJsonErrors, UnreadableFilesNameThePath) {
    const std::string missing = "/nonexistent/dir/graph.json";
    try {
        read_graph_file(missing);
        FAIL() << "no error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_arguments);
        EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    }
    const std::string dir = std::filesystem::temp_directory_path().string();
    try {
        read_graph_file(dir);
        FAIL() << "no error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_arguments);
        EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
    }
    // An empty file is readable but malformed.
    const auto empty = std::filesystem::temp_directory_path() / "reshaper_io_empty_graph.json";
    std::ofstream(empty).close();
    expect_error(std::string(), status::invalid_graph, {"malformed JSON"});
    EXPECT_THROW(read_graph_file(empty.string()), error);
    std::filesystem::remove(empty);
}

TEST(GraphJsonErrors, EndlessStreamsStopAtTheirFirstBytes) {
    // /dev/zero never ends: reading it whole would exhaust memory. No JSON
    // text holds a NUL byte, so the first one is already the error.
    if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero here";
    try {
        read_graph_file("/dev/zero");
        FAIL() << "no error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_graph) << e.what();
        EXPECT_NE(std::string(e.what()).find("NUL byte at offset 0"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("[json_syntax]"), std::string::npos) << e.what();
    }
}

namespace {

std::string extensions_file() {
    return reshaper::test::file_text(std::filesystem::path(RESHAPER_SOURCE_DIR) / "tests" / "data" / "io" /
                                     "extensions.json");
}

// Reads `text`; an impl::error is fine, anything else fails the test.
void read_must_not_escape(const std::string &text, const std::string &what) {
    try {
        read_graph_json(text);
    } catch (const error &) {
    } catch (const std::exception &e) {
        ADD_FAILURE() << what << ": " << e.what();
    }
}

} // namespace

TEST(GraphJsonFuzz, EveryTruncationIsAnError) {
    const std::string text = extensions_file();
    ASSERT_GT(text.size(), 1000u);
    ASSERT_NO_THROW(read_graph_json(text));
    const std::size_t complete = text.rfind('}') + 1; // any shorter prefix is incomplete JSON
    for (std::size_t n = 0; n < complete; ++n) {
        try {
            read_graph_json(std::string_view(text).substr(0, n));
            ADD_FAILURE() << "no error at length " << n;
        } catch (const error &e) {
            EXPECT_EQ(e.code(), status::invalid_graph) << n << ": " << e.what();
        } catch (const std::exception &e) {
            ADD_FAILURE() << "length " << n << ": " << e.what();
        }
    }
}

TEST(GraphJsonFuzz, EverySingleByteChangeIsReadOrAnError) {
    const std::string text = extensions_file();
    const char replacements[] = {'0', '9', '-', '"', '[', ']', '{', '}', ',', ':', 'x', ' ', '\0', '\xc3'};
    for (std::size_t i = 0; i < text.size(); ++i) {
        for (char r : replacements) {
            if (text[i] == r) continue;
            std::string mutated = text;
            mutated[i] = r;
            read_must_not_escape(mutated, "byte " + std::to_string(i) + " -> " + std::to_string(int(r)));
        }
    }
}

TEST(GraphJsonFuzz, HostileValuesInEveryNumericField) {
    const char *hostile[] = {"-1",   "-9223372036854775808", "9223372036854775807", "18446744073709551615",
                             "1e308", "-1e308", "0.5", "true", "null", "\"\"", "[]", "{}", "[[[[1]]]]",
                             "4611686018427387904"};
    const auto paths = {"/graph/0/id", "/graph/0/inputs/0/id", "/graph/0/inputs/0/shape/0",
                        "/graph/0/inputs/0/shape", "/graph/0/inputs/0/stride/1", "/graph/0/inputs/0/values/0",
                        "/graph/0/attrs/allowzero/value", "/graph/0/version", "/graph/1/attrs/shape/value/1",
                        "/graph/2/attrs/scale/value", "/graph/2/inputs/1/values/1/0", "/input_ports/0"};
    const ojson base = ojson::parse(extensions_file());
    for (const char *path : paths) {
        for (const char *value : hostile) {
            ojson g = base;
            g[ojson::json_pointer(path)] = ojson::parse(value);
            read_must_not_escape(g.dump(), std::string(path) + " = " + value);
        }
    }
}
