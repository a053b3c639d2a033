// Reading and writing graph files: the oneDNN corpus, the contents of one
// real file, and the extensions (domain, version, values, format).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/element_codec.hpp"
#include "io/graph_json.hpp"
#include "file_text_support.hpp"

using namespace reshaper::impl;
namespace fs = std::filesystem;

namespace {

const fs::path corpus_dir = fs::path(RESHAPER_SHARED_DIR) / "corpus" / "onednn-graph";
const fs::path data_dir = fs::path(RESHAPER_SOURCE_DIR) / "tests" / "data" / "io";

std::vector<fs::path> corpus_files() { return reshaper::test::json_files_below(corpus_dir); }

using reshaper::test::file_text;

float as_float(const attribute_value &v) { return std::get<float>(v); }

double decoded(const tensor_values &v, std::size_t i) {
    return decode_float(v.type, load_bits(v.type, v.bytes.data(), i));
}

} // namespace

TEST(GraphJsonCorpus, EveryFileLoadsAndRoundTrips) {
    const auto files = corpus_files();
    ASSERT_GE(files.size(), 100u) << "corpus not found under " << corpus_dir;
    for (const auto &path : files) {
        SCOPED_TRACE(path.string());
        graph g;
        ASSERT_NO_THROW(g = read_graph_file(path.string()));
        EXPECT_FALSE(g.ops.empty());
        const std::string text = write_graph_json(g);
        const graph again = read_graph_json(text);
        EXPECT_EQ(again, g);
        EXPECT_EQ(write_graph_json(again), text); // writing is a fixed point
    }
}

// Independent of the reader: compare against the raw JSON of each file.
TEST(GraphJsonCorpus, OpsAndTensorsMatchTheRawFiles) {
    for (const auto &path : corpus_files()) {
        SCOPED_TRACE(path.string());
        const auto raw = nlohmann::json::parse(file_text(path));
        const graph g = read_graph_file(path.string());
        ASSERT_EQ(g.ops.size(), raw["graph"].size());
        for (std::size_t i = 0; i < g.ops.size(); ++i) {
            const auto &rop = raw["graph"][i];
            EXPECT_EQ(g.ops[i].id, rop["id"].get<std::int64_t>());
            EXPECT_EQ(g.ops[i].kind, rop["kind"].get<std::string>());
            EXPECT_EQ(g.ops[i].attrs.size(), rop["attrs"].size());
            for (const auto *side : {&rop["inputs"], &rop["outputs"]}) {
                for (const auto &rlt : *side) {
                    const logical_tensor &lt = g.tensors.at(rlt["id"].get<std::int64_t>());
                    EXPECT_EQ(to_string(lt.dtype), rlt["dtype"].get<std::string>());
                    EXPECT_EQ(lt.shape, rlt["shape"].get<dims_t>());
                    const auto strides = effective_strides(lt);
                    if (strides) {
                        EXPECT_EQ(*strides, rlt["stride"].get<dims_t>());
                    }
                }
            }
        }
        EXPECT_EQ(g.input_ports.has_value(), raw.contains("input_ports"));
    }
}

TEST(GraphJsonCorpus, StaticReshapeIsReadCorrectly) {
    const graph g = read_graph_file((corpus_dir / "f32" / "static_reshape.json").string());
    EXPECT_EQ(g.version, "3.3.0");
    EXPECT_EQ(g.engine_kind, "cpu");
    EXPECT_EQ(g.fpmath_mode, "strict");
    EXPECT_TRUE(g.extra_fields.empty());
    EXPECT_EQ(g.input_ports, std::optional<std::vector<tensor_id>>(std::vector<tensor_id>{0}));
    EXPECT_EQ(g.output_ports, std::optional<std::vector<tensor_id>>(std::vector<tensor_id>{1}));
    ASSERT_EQ(g.ops.size(), 1u);
    const op &o = g.ops[0];
    EXPECT_EQ(o.id, 0);
    EXPECT_EQ(o.name, "Reshape_0");
    EXPECT_EQ(o.kind, "StaticReshape");
    EXPECT_EQ(o.domain, "");
    EXPECT_FALSE(o.version.has_value());
    ASSERT_EQ(o.attrs.size(), 2u);
    EXPECT_EQ(o.attrs.at("special_zero"), attribute_value(false));
    EXPECT_EQ(o.attrs.at("shape"), attribute_value(std::vector<std::int64_t>{128, 512, 16, 64}));
    EXPECT_EQ(o.inputs, tensor_ids{0});
    EXPECT_EQ(o.outputs, tensor_ids{1});

    const logical_tensor &in = g.tensors.at(0);
    EXPECT_EQ(in.dtype, data_type::f32);
    EXPECT_EQ(in.shape, (dims_t{65536, 1024}));
    EXPECT_EQ(effective_strides(in), std::optional<dims_t>({1024, 1}));
    EXPECT_EQ(in.layout, layout_type::strided);
    EXPECT_EQ(in.property, property_type::undef);
    EXPECT_FALSE(in.values.has_value());
    const logical_tensor &out = g.tensors.at(1);
    EXPECT_EQ(out.shape, (dims_t{128, 512, 16, 64}));
    EXPECT_EQ(effective_strides(out), std::optional<dims_t>({524288, 1024, 64, 1}));
    EXPECT_EQ(g.tensors.size(), 2u);
}

TEST(GraphJsonCorpus, ExtraTopLevelFieldsAreKept) {
    const auto files = corpus_files();
    auto it = std::find_if(files.begin(), files.end(), [](const fs::path &p) {
        return file_text(p).find("fpmath_mode_apply_to_int") != std::string::npos;
    });
    ASSERT_NE(it, files.end());
    const graph g = read_graph_file(it->string());
    ASSERT_EQ(g.extra_fields.count("fpmath_mode_apply_to_int"), 1u);
    const auto written = nlohmann::ordered_json::parse(write_graph_json(g));
    EXPECT_EQ(written["fpmath_mode_apply_to_int"],
              nlohmann::ordered_json::parse(file_text(*it))["fpmath_mode_apply_to_int"]);
}

TEST(GraphJsonExtensions, AreReadFromTheExtensionsFile) {
    const graph g = read_graph_file((data_dir / "extensions.json").string());
    EXPECT_EQ(g.extra_fields, (std::map<std::string, std::string>{{"fpmath_mode_apply_to_int", "false"}}));
    ASSERT_EQ(g.ops.size(), 3u);
    EXPECT_EQ(g.ops[0].domain, "ai.onnx");
    EXPECT_EQ(g.ops[0].version, std::optional<std::int64_t>(14));
    EXPECT_EQ(g.ops[0].attrs.at("allowzero"), attribute_value(std::int64_t{0}));
    EXPECT_EQ(g.ops[1].attrs.at("special_zero"), attribute_value(true));
    EXPECT_EQ(as_float(g.ops[2].attrs.at("scale")), 1e-05f);
    EXPECT_EQ(g.ops[2].attrs.at("scales"), attribute_value(std::vector<float>{0.1f, 2.0f, -0.0f}));
    EXPECT_TRUE(std::signbit(std::get<std::vector<float>>(g.ops[2].attrs.at("scales"))[2]));
    EXPECT_EQ(g.ops[2].attrs.at("mode"), attribute_value(std::string("nearest")));
    EXPECT_EQ(g.ops[2].kind, "Wildcard"); // unknown kinds are kept

    // f16 values, row-major, non-dense strides kept as given.
    const logical_tensor &x = g.tensors.at(0);
    EXPECT_EQ(x.strides, (dims_t{1, 2}));
    ASSERT_TRUE(x.values.has_value());
    EXPECT_EQ(x.values->type, data_type::f16);
    EXPECT_EQ(x.values->count, 6u);
    EXPECT_EQ(x.values->bytes.size(), 12u);
    EXPECT_EQ(decoded(*x.values, 0), 0.5);
    EXPECT_EQ(decoded(*x.values, 1), -1.0);
    EXPECT_EQ(decoded(*x.values, 2), 65504.0);
    EXPECT_EQ(decoded(*x.values, 3), INFINITY);
    EXPECT_EQ(decoded(*x.values, 4), -INFINITY);
    // 0.1 rounds to the nearest f16: 0x2E66 = 1.6 * 2^-4 rounded to 10 bits.
    EXPECT_EQ(load_bits(data_type::f16, x.values->bytes.data(), 5), 0x2E66u);

    const logical_tensor &shape = g.tensors.at(1);
    EXPECT_TRUE(shape.values_known());
    EXPECT_EQ(values_as_int64(*shape.values), (std::vector<std::int64_t>{3, -1}));

    // opaque: format kept, placeholder strides ignored.
    const logical_tensor &blocked = g.tensors.at(3);
    EXPECT_EQ(blocked.layout, layout_type::opaque);
    EXPECT_EQ(blocked.format, "aBcd16b");
    EXPECT_TRUE(blocked.strides.empty());
    EXPECT_EQ(blocked.property, property_type::variable);
    EXPECT_EQ(g.tensors.at(5).layout, layout_type::any);

    const logical_tensor &strings = g.tensors.at(4);
    EXPECT_EQ(strings.values->strings, (std::vector<std::string>{"a", "b\"c"}));
    EXPECT_TRUE(strings.values->bytes.empty());

    // c64: (re, im) pairs of f32, real part first.
    const tensor_values &c = *g.tensors.at(6).values;
    EXPECT_EQ(c.count, 2u);
    ASSERT_EQ(c.bytes.size(), 16u);
    float parts[4];
    std::memcpy(parts, c.bytes.data(), 16);
    EXPECT_EQ(parts[0], 1.0f);
    EXPECT_EQ(parts[1], -2.0f);
    EXPECT_EQ(parts[2], 0.25f);
    EXPECT_TRUE(std::isnan(parts[3]));
    EXPECT_TRUE(g.tensors.at(6).strides.empty()); // no "stride" field: dense
}

TEST(GraphJsonExtensions, RoundTripAndAreWrittenOnlyWhenUsed) {
    const graph g = read_graph_file((data_dir / "extensions.json").string());
    const std::string text = write_graph_json(g);
    EXPECT_EQ(read_graph_json(text), g);

    const auto j = nlohmann::ordered_json::parse(text);
    const auto &ops = j["graph"];
    EXPECT_EQ(ops[0]["domain"], "ai.onnx");
    EXPECT_EQ(ops[0]["version"], 14);
    EXPECT_FALSE(ops[1].contains("domain"));
    EXPECT_FALSE(ops[1].contains("version"));
    EXPECT_EQ(ops[0]["inputs"][0]["values"],
              nlohmann::ordered_json::parse(R"([0.5, -1.0, 65504.0, "inf", "-inf", 0.0999755859375])"));
    EXPECT_FALSE(ops[0]["outputs"][0].contains("values"));
    EXPECT_EQ(ops[1]["inputs"][0]["format"], "aBcd16b");
    EXPECT_EQ(ops[1]["inputs"][0]["stride"], nlohmann::ordered_json::array());
    EXPECT_FALSE(ops[1]["outputs"][0].contains("format"));
    EXPECT_EQ(ops[1]["attrs"]["special_zero"], nlohmann::ordered_json::parse(R"({"type":"bool","value":1})"));
    EXPECT_EQ(ops[2]["attrs"]["scale"]["value"].get<double>(), 1e-05); // shortest, not 9.99999974e-06
    EXPECT_EQ(ops[2]["inputs"][1]["values"], nlohmann::ordered_json::parse(R"([[1.0, -2.0], [0.25, "nan"]])"));
    EXPECT_EQ(ops[2]["inputs"][1]["stride"], nlohmann::ordered_json::parse("[1]")); // dense written out
    EXPECT_EQ(j["fpmath_mode_apply_to_int"], false);
}

TEST(GraphJsonExtensions, FieldsAreWrittenInOneDnnOrder) {
    const auto j = nlohmann::ordered_json::parse(
        write_graph_json(read_graph_file((data_dir / "extensions.json").string())));
    const auto keys = [](const nlohmann::ordered_json &o) {
        std::vector<std::string> k;
        for (auto it = o.begin(); it != o.end(); ++it) k.push_back(it.key());
        return k;
    };
    using names = std::vector<std::string>;
    EXPECT_EQ(keys(j), (names{"version", "engine_kind", "fpmath_mode", "fpmath_mode_apply_to_int",
                              "input_ports", "output_ports", "graph"}));
    EXPECT_EQ(keys(j["graph"][0]),
              (names{"id", "name", "kind", "domain", "version", "attrs", "inputs", "outputs"}));
    EXPECT_EQ(keys(j["graph"][1]), (names{"id", "name", "kind", "attrs", "inputs", "outputs"}));
    EXPECT_EQ(keys(j["graph"][0]["inputs"][0]),
              (names{"id", "dtype", "shape", "stride", "layout_type", "property_type", "values"}));
    EXPECT_EQ(keys(j["graph"][1]["inputs"][0]),
              (names{"id", "dtype", "shape", "stride", "layout_type", "property_type", "format"}));
}

TEST(GraphJsonExtensions, PortsAreOptional) {
    const graph g = read_graph_file((corpus_dir / "f32" / "static_reshape.json").string());
    graph without = g;
    without.input_ports.reset();
    without.output_ports.reset();
    const std::string text = write_graph_json(without);
    EXPECT_EQ(text.find("input_ports"), std::string::npos);
    EXPECT_EQ(text.find("output_ports"), std::string::npos);
    EXPECT_EQ(read_graph_json(text), without);
    // An empty list is a given (empty) list, not an absent one.
    without.output_ports = std::vector<tensor_id>{};
    EXPECT_EQ(read_graph_json(write_graph_json(without)), without);
}

namespace {

// One op, input tensor 0 and output tensor 1, with the given tensor JSON.
std::string one_op(const std::string &input, const std::string &output) {
    return R"({"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "r", "kind": "StaticReshape", "inputs": [)" +
           input + R"(], "outputs": [)" + output + "]}]}";
}

const std::string plain_out =
    R"({"id": 1, "dtype": "f32", "shape": [6], "stride": [1], "layout_type": "strided", "property_type": "undef"})";

} // namespace

TEST(GraphJsonStrides, MissingEmptyOrDenseMeanDenseAndOthersAreKept) {
    const auto strides_of = [](const std::string &stride_field) {
        const graph g = read_graph_json(one_op(
            R"({"id": 0, "dtype": "f32", "shape": [2, 3])" + stride_field + "}", plain_out));
        return g.tensors.at(0).strides;
    };
    EXPECT_EQ(strides_of(""), dims_t{});
    EXPECT_EQ(strides_of(R"(, "stride": [])"), dims_t{});
    EXPECT_EQ(strides_of(R"(, "stride": [3, 1])"), dims_t{});
    EXPECT_EQ(strides_of(R"(, "stride": [-1, -1])"), dims_t{});
    EXPECT_EQ(strides_of(R"(, "stride": [1, 2])"), (dims_t{1, 2}));
    EXPECT_EQ(strides_of(R"(, "stride": [0, 1])"), (dims_t{0, 1})); // broadcast
    EXPECT_EQ(strides_of(R"(, "stride": [1, 2], "layout_type": "any")"), dims_t{});
    // A missing attrs object is fine too.
    EXPECT_TRUE(read_graph_json(one_op(R"({"id": 0, "dtype": "f32", "shape": [6]})", plain_out)).ops[0].attrs.empty());
}

TEST(GraphJsonStrides, UnknownShapesWriteEmptyStrides) {
    graph g = read_graph_json(one_op(R"({"id": 0, "dtype": "f32", "shape": [-1, 3]})", plain_out));
    const auto j = nlohmann::json::parse(write_graph_json(g));
    EXPECT_EQ(j["graph"][0]["inputs"][0]["stride"], nlohmann::json::array());
    EXPECT_EQ(j["graph"][0]["outputs"][0]["stride"], nlohmann::json::parse("[1]"));
    EXPECT_EQ(read_graph_json(write_graph_json(g)), g);
}

TEST(GraphJsonTensors, RepeatedTensorsMergeIntoOne) {
    // Tensor 1: produced by op 0 as [-1, 4] strided, consumed by op 1 as
    // [2, -1] with layout any: dims fill each other, the producer's layout wins.
    const std::string text = R"({"graph": [
      {"id": 0, "kind": "A", "inputs": [],
       "outputs": [{"id": 1, "dtype": "s8", "shape": [-1, 4], "stride": [4, 1], "layout_type": "strided",
                    "property_type": "variable"}]},
      {"id": 1, "kind": "B",
       "inputs": [{"id": 1, "dtype": "s8", "shape": [2, -1], "stride": [], "layout_type": "any",
                   "property_type": "undef", "values": [1, 2, 3, 4, 5, 6, 7, 8]}],
       "outputs": []}]})";
    EXPECT_THROW(read_graph_json(text), error); // values need a known shape at their own place
    std::string fixed = text;
    fixed.replace(fixed.find("[2, -1]"), 7, "[2, 4]");
    const graph g = read_graph_json(fixed);
    ASSERT_EQ(g.tensors.size(), 1u);
    const logical_tensor &t = g.tensors.at(1);
    EXPECT_EQ(t.shape, (dims_t{2, 4}));
    EXPECT_EQ(t.layout, layout_type::strided);
    EXPECT_TRUE(t.strides.empty()); // [4, 1] is dense once the shape is known
    EXPECT_EQ(t.property, property_type::variable);
    ASSERT_TRUE(t.values.has_value());
    EXPECT_EQ(values_as_int64(*t.values), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(g.version, "3.3.0"); // defaults for absent top-level fields
    EXPECT_EQ(g.ops[0].name, "");
    EXPECT_EQ(read_graph_json(write_graph_json(g)), g);
}

TEST(GraphJsonTensors, TheProducersLayoutWinsAlsoWhenItComesLater) {
    const graph g = read_graph_json(R"({"graph": [
      {"id": 5, "kind": "Consumer",
       "inputs": [{"id": 1, "dtype": "f32", "shape": [2, 3], "layout_type": "any", "property_type": "undef"}],
       "outputs": []},
      {"id": 6, "kind": "Producer", "inputs": [],
       "outputs": [{"id": 1, "dtype": "f32", "shape": [2, 3], "stride": [1, 2], "layout_type": "strided",
                    "property_type": "constant"}]}]})");
    const logical_tensor &t = g.tensors.at(1);
    EXPECT_EQ(t.layout, layout_type::strided);
    EXPECT_EQ(t.strides, (dims_t{1, 2}));
    EXPECT_EQ(t.property, property_type::constant);
    EXPECT_EQ(read_graph_json(write_graph_json(g)), g);
}

TEST(GraphJsonValues, EveryDtypeRoundTripsThroughJson) {
    struct sample {
        data_type type;
        const char *json;
    };
    const sample samples[] = {
        {data_type::f32, R"([0.1, -2.5, 3.4028235e+38, 1e-45, "nan", "-inf", -0.0])"},
        {data_type::f64, R"([0.1, -1e300, 5e-324])"},
        {data_type::f16, R"([1.0, -2.5, 65504.0, 5.960464477539063e-08])"},
        {data_type::bf16, R"([1.0, -2.5, 3.3895313892515355e+38])"},
        {data_type::f8_e5m2, R"([1.0, -2.5, 57344.0, "inf"])"},
        {data_type::f8_e4m3, R"([1.0, -2.5, 448.0, "nan"])"},
        {data_type::f8_e4m3fnuz, R"([1.0, -2.5, 240.0])"},
        {data_type::f8_e5m2fnuz, R"([1.0, -2.5, 57344.0])"},
        {data_type::f8_e8m0, R"([1.0, 0.25, 1.7014118346046923e+38])"},
        {data_type::f4_e2m1, R"([0.5, -1.5, 6.0, 0.0])"},
        {data_type::s4, R"([-8, 7, 3])"},
        {data_type::u4, R"([15, 0, 9])"},
        {data_type::s2, R"([-2, 1, 0, -1, 1])"},
        {data_type::u2, R"([3, 0, 2, 1, 3])"},
        {data_type::s8, R"([-128, 127])"},
        {data_type::u8, R"([0, 255])"},
        {data_type::s16, R"([-32768, 32767])"},
        {data_type::u16, R"([65535])"},
        {data_type::s32, R"([-2147483648, 2147483647])"},
        {data_type::u32, R"([4294967295])"},
        {data_type::s64, R"([-9223372036854775808, 9223372036854775807])"},
        {data_type::u64, R"([18446744073709551615, 0])"},
        {data_type::boolean, R"([1, 0, 1])"},
        {data_type::c64, R"([[1.0, -0.5], ["inf", 0.1]])"},
        {data_type::c128, R"([[0.1, -1e300]])"},
        {data_type::string, R"(["", "x", "\u00e9"])"},
    };
    for (const auto &s : samples) {
        SCOPED_TRACE(std::string(to_string(s.type)));
        const auto list = nlohmann::json::parse(s.json);
        const tensor_values v = values_from_json(list.dump(), s.type, list.size());
        EXPECT_EQ(v.count, list.size());
        const nlohmann::json written = values_to_json(v);
        EXPECT_EQ(written.dump(), list.dump()); // the exact same numbers come back
        EXPECT_EQ(values_from_json(written.dump(), s.type, v.count), v);
    }
}

TEST(GraphJsonValues, PackedAndBooleanInputs) {
    const tensor_values s4 = values_from_json("[-8, 7, 3]", data_type::s4, 3);
    EXPECT_EQ(s4.bytes, (std::vector<std::uint8_t>{0x78, 0x03})); // low nibble first
    const tensor_values s2 = values_from_json("[-2, 1, 0, -1, 1]", data_type::s2, 5);
    EXPECT_EQ(s2.bytes, (std::vector<std::uint8_t>{0xC6, 0x01})); // lowest bit pair first: 11'00'01'10
    const tensor_values u2 = values_from_json("[3, 0, 2, 1, 2.0]", data_type::u2, 5);
    EXPECT_EQ(u2.bytes, (std::vector<std::uint8_t>{0x63, 0x02}));
    EXPECT_EQ(values_to_json(u2).dump(), "[3,0,2,1,2]");
    const tensor_values b = values_from_json("[true, 0, 1.0]", data_type::boolean, 3);
    EXPECT_EQ(b.bytes, (std::vector<std::uint8_t>{1, 0, 1}));
    // Integral floats are integers; saturating formats saturate.
    const tensor_values i = values_from_json("[2.0, -3e0]", data_type::s32, 2);
    EXPECT_EQ(values_as_int64(i), (std::vector<std::int64_t>{2, -3}));
    const tensor_values e4 = values_from_json("[1000]", data_type::f8_e4m3, 1);
    EXPECT_EQ(e4.bytes, std::vector<std::uint8_t>{0x7E});
}

TEST(GraphJsonValues, ErrorsNameTheValueAndTheDtype) {
    struct bad {
        const char *json;
        data_type type;
        std::size_t count;
        status code;
        const char *substring;
    };
    const bad cases[] = {
        {"[1, 2, 3]", data_type::f32, 4, status::invalid_shape, "values hold 3 elements, the shape has 4"},
        {"[200]", data_type::s8, 1, status::invalid_data_type, "values[0] = 200 cannot be held by dtype s8: out of range"},
        {"[-1]", data_type::u64, 1, status::invalid_data_type, "out of range"},
        {"[8]", data_type::s4, 1, status::invalid_data_type, "out of range"},
        {"[1, 2]", data_type::s2, 2, status::invalid_data_type, "values[1] = 2 cannot be held by dtype s2: out of range"},
        {"[-3]", data_type::s2, 1, status::invalid_data_type, "out of range"},
        {"[0, 4]", data_type::u2, 2, status::invalid_data_type, "values[1] = 4 cannot be held by dtype u2: out of range"},
        {"[-1]", data_type::u2, 1, status::invalid_data_type, "out of range"},
        {"[0.5]", data_type::u2, 1, status::invalid_data_type, "not an integer"},
        {"[18446744073709551615]", data_type::s64, 1, status::invalid_data_type, "out of range"},
        {"[1e30]", data_type::u64, 1, status::invalid_data_type, "out of range"},
        {"[0, 1.5]", data_type::s32, 2, status::invalid_data_type, "values[1] = 1.5 cannot be held by dtype s32: not an integer"},
        {"[true]", data_type::s32, 1, status::invalid_data_type, "not an integer"},
        {"[2]", data_type::boolean, 1, status::invalid_data_type, "out of range"},
        {"[\"abc\"]", data_type::f32, 1, status::invalid_data_type, "\"abc\" cannot be held by dtype f32: not a number"},
        {"[null]", data_type::f16, 1, status::invalid_data_type, "not a number"},
        {"[0]", data_type::f8_e8m0, 1, status::invalid_data_type, "the format has no such value"},
        {"[\"nan\"]", data_type::f4_e2m1, 1, status::invalid_data_type, "the format has no such value"},
        {"[1]", data_type::c64, 1, status::invalid_data_type, "not a [re, im] pair"},
        {"[[1, 2, 3]]", data_type::c128, 1, status::invalid_data_type, "not a [re, im] pair"},
        {"[1]", data_type::string, 1, status::invalid_data_type, "not a string"},
        {"[1]", data_type::undef, 1, status::invalid_data_type, "undef"},
        {"{\"a\": 1}", data_type::f32, 1, status::invalid_graph, "values must be an array"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.json);
        try {
            values_from_json(c.json, c.type, c.count);
            ADD_FAILURE() << "no error";
        } catch (const error &e) {
            EXPECT_EQ(e.code(), c.code) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.substring), std::string::npos) << e.what();
        }
    }
}

TEST(GraphJsonValues, LogicalTensorJsonMatchesTheFileForm) {
    logical_tensor lt;
    lt.id = 4;
    lt.dtype = data_type::u8;
    lt.shape = {2, 2};
    lt.values = values_from_json("[1, 2, 3, 4]", data_type::u8, 4);
    const nlohmann::json j = logical_tensor_to_json(lt);
    EXPECT_EQ(j, nlohmann::json::parse(R"({"id": 4, "dtype": "u8", "shape": [2, 2], "stride": [2, 1],
        "layout_type": "strided", "property_type": "undef", "values": [1, 2, 3, 4]})"));
}
