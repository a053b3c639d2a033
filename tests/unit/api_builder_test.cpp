// The builder (contract, section 4): graphs built in code are the graphs
// their files describe. Over every example, test graph and corpus file, a
// converter written here (JSON -> builder calls, independent of the
// library's reader) builds the graph; it must give the same partitions, or
// the same error (status and rule), as the file, and its to_json must read
// back to an equal graph. Plus misuse, the C++ API and 8 threads sharing one
// finalized graph.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "api_test_graphs.hpp"
#include "reshaper/reshaper.h"
#include "reshaper/reshaper.hpp"
#include "file_text_support.hpp"

using nlohmann::json;

namespace {

std::string last_message() {
    const char *message = nullptr;
    reshaper_get_last_error(nullptr, &message);
    return message ? message : "";
}
std::string last_rule() {
    const char *rule = nullptr;
    reshaper_get_last_error_rule(&rule);
    return rule ? rule : "";
}

#define ASSERT_OK(call) ASSERT_EQ((call), reshaper_success) << last_message()

const char *const dtype_names[] = {
    "undef", "f32", "f16", "bf16", "s8", "u8", "s32", "boolean", "f8_e5m2", "f8_e4m3", "s4", "u4",
    "f64", "s16", "u16", "u32", "s64", "u64", "c64", "c128", "string", "f8_e4m3fnuz",
    "f8_e5m2fnuz", "f8_e8m0", "f4_e2m1", "s2", "u2"};

std::optional<reshaper_data_type_t> dtype_of(const std::string &name) {
    for (std::size_t i = 0; i < std::size(dtype_names); ++i)
        if (name == dtype_names[i]) return static_cast<reshaper_data_type_t>(i);
    return std::nullopt;
}

// A graph file's logical tensor as the C struct; nothing when the C struct
// cannot say it (an unknown name, too many dims): such files are skipped.
std::optional<reshaper_logical_tensor_t> lt_of(const json &j) {
    reshaper_logical_tensor_t lt{};
    if (!j.is_object() || !j.contains("id") || !j["id"].is_number_integer()) return std::nullopt;
    lt.id = j["id"].get<std::int64_t>();
    const auto dt = j.contains("dtype") && j["dtype"].is_string() ? dtype_of(j["dtype"]) : std::nullopt;
    if (!dt) return std::nullopt;
    lt.data_type = *dt;
    if (!j.contains("shape") || !j["shape"].is_array() || j["shape"].size() > RESHAPER_MAX_NDIMS)
        return std::nullopt;
    lt.ndims = static_cast<int32_t>(j["shape"].size());
    for (int i = 0; i < lt.ndims; ++i) {
        if (!j["shape"][i].is_number_integer()) return std::nullopt;
        lt.dims[i] = j["shape"][i].get<std::int64_t>();
    }
    std::fill(lt.strides, lt.strides + RESHAPER_MAX_NDIMS, RESHAPER_UNKNOWN_DIM);
    const std::string layout = j.value("layout_type", "strided");
    lt.layout_type = layout == "strided" ? reshaper_layout_strided
                     : layout == "any"   ? reshaper_layout_any
                     : layout == "undef" ? reshaper_layout_undef
                     : layout == "opaque" ? reshaper_layout_opaque
                                          : static_cast<reshaper_layout_type_t>(-1);
    if (lt.layout_type == static_cast<reshaper_layout_type_t>(-1)) return std::nullopt;
    const std::string property = j.value("property_type", "undef");
    lt.property_type = property == "undef"      ? reshaper_property_undef
                       : property == "variable" ? reshaper_property_variable
                       : property == "constant" ? reshaper_property_constant
                                                : static_cast<reshaper_property_type_t>(-1);
    if (lt.property_type == static_cast<reshaper_property_type_t>(-1)) return std::nullopt;
    if (lt.layout_type == reshaper_layout_strided && j.contains("stride") && j["stride"].is_array() &&
        !j["stride"].empty()) {
        if (j["stride"].size() != static_cast<std::size_t>(lt.ndims)) return std::nullopt;
        for (int i = 0; i < lt.ndims; ++i) lt.strides[i] = j["stride"][i].get<std::int64_t>();
    }
    if (lt.layout_type == reshaper_layout_opaque && j.contains("format")) {
        const std::string f = j["format"];
        if (f.size() >= RESHAPER_MAX_FORMAT_LEN) return std::nullopt;
        std::memcpy(lt.format, f.c_str(), f.size() + 1);
    }
    return lt;
}

struct built_graph {
    reshaper_status_t status = reshaper_success; // of the first failing builder call
    std::string rule, message;
    reshaper_graph_t graph = nullptr;
    bool expressible = true; // false: the C structs cannot say what the file says
    std::string why;
};

// Builds the graph a file describes through the C builder. `file_graph`
// (loaded from the same file) lends the values' bytes.
built_graph build_from_json_unchecked(const json &root, reshaper_graph_t file_graph, built_graph &b);

built_graph build_from_json(const json &root, reshaper_graph_t file_graph) {
    built_graph b;
    try {
        return build_from_json_unchecked(root, file_graph, b);
    } catch (const json::exception &e) {
        b.why = e.what();
        b.expressible = false; // a field of another JSON type than the format's
        return b;
    }
}

built_graph build_from_json_unchecked(const json &root, reshaper_graph_t file_graph, built_graph &b) {
    auto failed = [&](reshaper_status_t s) {
        if (s == reshaper_success) return false;
        b.status = s;
        b.rule = last_rule();
        b.message = last_message();
        return true;
    };
    const std::string engine = root.value("engine_kind", "cpu");
    if (engine != "cpu" && engine != "gpu") return b.why = "r1", b.expressible = false, b;
    if (failed(reshaper_graph_create(engine == "gpu" ? reshaper_engine_gpu : reshaper_engine_cpu,
                                     &b.graph)))
        return b;
    if (!root.contains("graph") || !root["graph"].is_array()) return b.why = "r3", b.expressible = false, b;
    std::vector<std::int64_t> with_values;
    for (const json &o : root["graph"]) {
        if (!o.is_object() || !o.contains("id") || !o["id"].is_number_integer() || !o.contains("kind"))
            return b.why = "r4", b.expressible = false, b;
        reshaper_op_t op = nullptr;
        if (failed(reshaper_op_create(&op, o["id"].get<std::int64_t>(),
                                      o["kind"].get<std::string>().c_str(),
                                      o.value("name", "").c_str())))
            return b;
        std::unique_ptr<reshaper_op, decltype(&reshaper_op_destroy)> owner(op, reshaper_op_destroy);
        if (o.contains("domain") || o.contains("version"))
            if (failed(reshaper_op_set_domain(op, o.value("domain", "").c_str(),
                                              o.value("version", std::int64_t{0}))))
                return b;
        const json attrs = o.value("attrs", json::object());
        for (const auto &[name, attr] : attrs.items()) {
            const std::string type = attr.at("type");
            const json &v = attr.at("value");
            reshaper_status_t s = reshaper_success;
            if (type == "bool" && (v.is_boolean() || v.is_number_integer()))
                s = reshaper_op_set_attr_bool(op, name.c_str(), v.is_boolean() ? v.get<bool>() : v.get<int>());
            else if (type == "s64" && v.is_number_integer())
                s = reshaper_op_set_attr_s64(op, name.c_str(), v.get<std::int64_t>());
            else if (type == "s64[]" && v.is_array()) {
                std::vector<std::int64_t> values;
                for (const json &x : v) {
                    if (!x.is_number_integer()) return b.why = "r5", b.expressible = false, b;
                    values.push_back(x.get<std::int64_t>());
                }
                s = reshaper_op_set_attr_s64s(op, name.c_str(), values.data(), values.size());
            } else if (type == "f32" && v.is_number())
                s = reshaper_op_set_attr_f32(op, name.c_str(), v.get<float>());
            else if (type == "f32[]" && v.is_array()) {
                std::vector<float> values;
                for (const json &x : v) {
                    if (!x.is_number()) return b.why = "r6", b.expressible = false, b;
                    values.push_back(x.get<float>());
                }
                s = reshaper_op_set_attr_f32s(op, name.c_str(), values.data(), values.size());
            } else if (type == "string" && v.is_string())
                s = reshaper_op_set_attr_str(op, name.c_str(), v.get<std::string>().c_str());
            else
                return b.why = "r7", b.expressible = false, b; // a type the C API has no setter for
            if (failed(s)) return b;
        }
        for (const char *side : {"inputs", "outputs"}) {
            const json tensors = o.value(side, json::array());
            for (const json &t : tensors) {
                const auto lt = lt_of(t);
                if (!lt) return b.why = "r8", b.expressible = false, b;
                if (t.contains("values")) with_values.push_back(lt->id);
                if (failed(std::strcmp(side, "inputs") == 0 ? reshaper_op_add_input(op, &*lt)
                                                            : reshaper_op_add_output(op, &*lt)))
                    return b;
            }
        }
        if (failed(reshaper_graph_add_op(b.graph, op))) return b;
    }
    for (std::int64_t id : with_values) {
        if (!file_graph) return b.why = "r9", b.expressible = false, b;
        std::size_t size = 0;
        if (reshaper_graph_get_tensor_values(file_graph, id, nullptr, 0, &size) != reshaper_success)
            return b.why = "r10", b.expressible = false, b; // string values
        std::vector<std::uint8_t> bytes(size);
        if (size > 0) reshaper_graph_get_tensor_values(file_graph, id, bytes.data(), size, &size);
        if (failed(reshaper_graph_set_tensor_values(b.graph, id, bytes.data(), size))) return b;
    }
    return b;
}

// Partitions as comparable text: id, supported, op ids, boundary tensors, reason.
std::string partitions_text(reshaper_graph_t g, reshaper_status_t *status) {
    reshaper_partition_list_t list = nullptr;
    *status = reshaper_graph_get_partitions(g, reshaper_policy_fusion, reshaper_engine_cpu, &list);
    if (*status != reshaper_success) return last_rule() + ": " + last_message();
    std::ostringstream out;
    std::size_t count = 0;
    reshaper_partition_list_get_count(list, &count);
    for (std::size_t i = 0; i < count; ++i) {
        const_reshaper_partition_t p = nullptr;
        reshaper_partition_list_get(list, i, &p);
        std::size_t id = 0, n = 0;
        int supported = 0;
        const char *reason = nullptr;
        reshaper_partition_get_id(p, &id);
        reshaper_partition_is_supported(p, &supported);
        reshaper_partition_get_reason(p, &reason);
        out << "partition " << id << " supported " << supported << " reason '" << reason << "' ops";
        reshaper_partition_get_op_ids(p, nullptr, 0, &n);
        std::vector<int64_t> ids(n);
        reshaper_partition_get_op_ids(p, ids.data(), n, &n);
        for (auto x : ids) out << " " << x;
        for (int side = 0; side < 2; ++side) {
            auto query = side == 0 ? reshaper_partition_get_inputs : reshaper_partition_get_outputs;
            query(p, nullptr, 0, &n);
            std::vector<reshaper_logical_tensor_t> lts(n);
            query(p, lts.data(), n, &n);
            out << (side == 0 ? " in" : " out");
            for (const auto &lt : lts) {
                out << " {" << lt.id << " dt" << lt.data_type << " l" << lt.layout_type << " p"
                    << lt.property_type << " " << lt.format << " [";
                for (int k = 0; k < lt.ndims; ++k) out << lt.dims[k] << ":" << lt.strides[k] << ",";
                out << "]}";
            }
        }
        out << "\n";
    }
    reshaper_partition_list_destroy(list);
    return out.str();
}

std::string to_json_text(reshaper_graph_t g) {
    std::size_t size = 0;
    if (reshaper_graph_to_json(g, nullptr, 0, &size) != reshaper_success) return "error: " + last_message();
    std::string text(size, '\0');
    reshaper_graph_to_json(g, text.data(), size, &size);
    text.resize(size - 1);
    return text;
}

std::vector<std::filesystem::path> corpus_files() {
    std::vector<std::filesystem::path> files;
    const std::filesystem::path roots[] = {
        std::filesystem::path(RESHAPER_SOURCE_DIR) / "examples",
        std::filesystem::path(RESHAPER_SOURCE_DIR) / "tests" / "data",
        std::filesystem::path(RESHAPER_SHARED_DIR) / "corpus"};
    const std::filesystem::path bad_inputs = std::filesystem::path(RESHAPER_SOURCE_DIR) / "tests" / "data" / "driver" / "bad";
    for (const auto &root : roots) {
        if (!std::filesystem::exists(root)) continue;
        for (const auto &e : std::filesystem::recursive_directory_iterator(root))
            // tests/data/driver/bad: files that break a rule on purpose, some
            // not even a graph object (driver_rules_test reads them).
            if (e.is_regular_file() && e.path().extension() == ".json" &&
                e.path().parent_path() != bad_inputs)
                files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

struct comparison_counts {
    std::size_t compared = 0, errors_compared = 0, skipped = 0, stricter = 0;
};

// Builds `root` in code and compares it with the same graph read from JSON
// text (ports dropped: the builder derives them, as most files do).
void compare_built_with_file(json root, comparison_counts &counts) {
    root.erase("input_ports");
    root.erase("output_ports");
    reshaper_graph_t file_graph = nullptr;
    const reshaper_status_t load = reshaper_graph_create_from_json(root.dump().c_str(), &file_graph);
    const std::string load_rule = last_rule();
    const std::string load_message = last_message();
    built_graph built = build_from_json(root, load == reshaper_success ? file_graph : nullptr);
    if (!built.expressible) {
        ++counts.skipped;
        std::printf("skipped: %s\n", built.why.c_str());
    } else if (load == reshaper_success && built.status == reshaper_invalid_graph &&
               built.rule == "tensor_agreement") {
        // A file may describe a tensor with two shapes (benchdnn's files do:
        // the producer's stands, with a warning); the builder, given both
        // descriptions by its caller, refuses the second one.
        EXPECT_NE(built.message.find("describes tensor"), std::string::npos) << built.message;
        ++counts.stricter;
    } else if (load != reshaper_success && built.status == reshaper_success) {
        // The file failed while being read; the built graph fails at finalize.
        EXPECT_EQ(reshaper_graph_finalize(built.graph), load) << last_message();
        EXPECT_EQ(last_rule(), load_rule) << last_message();
        EXPECT_EQ(last_message(), load_message);
        ++counts.errors_compared;
    } else if (load != reshaper_success || built.status != reshaper_success) {
        // Rejected while reading or building: the same status and rule.
        EXPECT_EQ(built.status, load) << built.message;
        EXPECT_EQ(built.rule, load_rule) << built.message;
        ++counts.errors_compared;
    } else {
        reshaper_status_t from_file = reshaper_success, from_code = reshaper_success;
        const std::string want = partitions_text(file_graph, &from_file);
        const std::string file_rule = last_rule();
        const std::string got = partitions_text(built.graph, &from_code);
        EXPECT_EQ(from_code, from_file);
        EXPECT_EQ(got, want); // partitions, or rule and message of the error
        if (from_code == reshaper_success) {
            // to_json of the built graph reads back to an equal graph.
            const std::string json_text = to_json_text(built.graph);
            reshaper_graph_t again = nullptr;
            EXPECT_EQ(reshaper_graph_create_from_json(json_text.c_str(), &again), reshaper_success);
            reshaper_status_t s = reshaper_success;
            EXPECT_EQ(partitions_text(again, &s), got);
            EXPECT_EQ(to_json_text(again), json_text);
            reshaper_graph_destroy(again);
            ++counts.compared;
        } else {
            EXPECT_EQ(last_rule(), file_rule);
            ++counts.errors_compared;
        }
    }
    if (built.graph) reshaper_graph_destroy(built.graph);
    if (file_graph) reshaper_graph_destroy(file_graph);
}

TEST(Builder, EveryCorpusGraphBuiltInCodeMatchesItsFile) {
    comparison_counts counts;
    for (const auto &path : corpus_files()) {
        const json root = json::parse(reshaper::test::file_text(path), nullptr, false);
        if (root.is_discarded()) { ++counts.skipped; continue; } // not JSON: nothing to build
        SCOPED_TRACE(path.string());
        compare_built_with_file(root, counts);
    }
    EXPECT_GT(counts.compared, 100u);
    std::printf("builder: %zu graphs equal, %zu errors equal, %zu refused as tensors described twice, "
                "%zu files skipped\n", counts.compared, counts.errors_compared, counts.stricter, counts.skipped);
}

// Invalid graphs: the builder gives the status, rule and message of the file.
TEST(Builder, InvalidGraphsFailAsTheirFilesDo) {
    const json good = json::parse(api_test::reshape_then_matmul);
    std::vector<std::pair<std::string, json>> cases;
    auto with = [&](const std::string &name, auto change) {
        json g = good;
        change(g["graph"][0]);
        cases.emplace_back(name, g);
    };
    with("two_minus_one", [](json &op) { op["attrs"]["shape"]["value"] = {-1, -1}; });
    with("below_minus_one", [](json &op) { op["attrs"]["shape"]["value"] = {-2, 12}; });
    with("volume", [](json &op) { op["attrs"]["shape"]["value"] = {5, 5}; });
    with("missing_attr", [](json &op) { op["attrs"].erase("special_zero"); });
    with("unknown_attr", [](json &op) { op["attrs"]["axis"] = {{"type", "s64"}, {"value", 1}}; });
    with("attr_kind", [](json &op) { op["attrs"]["special_zero"] = {{"type", "s64"}, {"value", 1}}; });
    with("dtype", [](json &op) { op["inputs"][0]["dtype"] = "s8"; op["outputs"][0]["dtype"] = "f32"; });
    with("no_output", [](json &op) { op["outputs"] = json::array(); });
    with("output_shape", [](json &op) { op["outputs"][0]["shape"] = {3, 8}; });
    with("bad_version", [](json &op) { op["version"] = 7; });
    with("onnx_opset", [](json &op) {
        op["kind"] = "Reshape"; op["domain"] = "ai.onnx"; op["version"] = 99; });
    with("cycle", [](json &op) { op["inputs"][0]["id"] = 3; });
    comparison_counts counts;
    for (const auto &[name, g] : cases) {
        SCOPED_TRACE(name);
        compare_built_with_file(g, counts);
    }
    EXPECT_EQ(counts.skipped, 0u);
    EXPECT_EQ(counts.errors_compared + counts.stricter, cases.size());
}

// A dim below -1 never reaches the builder: reshaper_logical_tensor_init
// refuses it (invalid_shape, naming the value and the file's rule).
TEST(Builder, DimsBelowMinusOneStopAtTheLogicalTensor) {
    reshaper_logical_tensor_t lt;
    const int64_t dims[] = {2, -3, 4};
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, reshaper_dt_f32, 3, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef),
              reshaper_invalid_shape);
    EXPECT_EQ(last_rule(), "dims_at_least_minus_one");
    EXPECT_NE(last_message().find("-3"), std::string::npos) << last_message();
}

class BuilderMisuse : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(reshaper_graph_create(reshaper_engine_cpu, &graph));
        ASSERT_OK(reshaper_op_create(&op, 0, "StaticReshape", "r0"));
        const int64_t in_dims[] = {2, 3, 4}, out_dims[] = {6, 4}, shape[] = {6, 4};
        ASSERT_OK(reshaper_logical_tensor_init(&in, 0, reshaper_dt_f32, 3, in_dims, nullptr,
                                               reshaper_layout_strided, reshaper_property_undef));
        ASSERT_OK(reshaper_logical_tensor_init(&out, 1, reshaper_dt_f32, 2, out_dims, nullptr,
                                               reshaper_layout_strided, reshaper_property_undef));
        ASSERT_OK(reshaper_op_add_input(op, &in));
        ASSERT_OK(reshaper_op_add_output(op, &out));
        ASSERT_OK(reshaper_op_set_attr_s64s(op, "shape", shape, 2));
        ASSERT_OK(reshaper_op_set_attr_bool(op, "special_zero", 0));
    }
    void TearDown() override {
        if (op) reshaper_op_destroy(op);
        if (graph) reshaper_graph_destroy(graph);
    }
    void expect_failure(reshaper_status_t got, reshaper_status_t want, const std::string &rule) {
        EXPECT_EQ(got, want) << last_message();
        EXPECT_EQ(last_rule(), rule) << last_message();
    }
    reshaper_graph_t graph = nullptr;
    reshaper_op_t op = nullptr;
    reshaper_logical_tensor_t in{}, out{};
};

TEST_F(BuilderMisuse, AnOpIdTwiceIsInvalidGraph) {
    ASSERT_OK(reshaper_graph_add_op(graph, op));
    expect_failure(reshaper_graph_add_op(graph, op), reshaper_invalid_graph, "unique_op_id");
    EXPECT_NE(last_message().find("op id 0 is used by both"), std::string::npos) << last_message();
}

TEST_F(BuilderMisuse, AddingToAFinalizedGraphIsInvalidGraph) {
    ASSERT_OK(reshaper_graph_add_op(graph, op));
    ASSERT_OK(reshaper_graph_finalize(graph));
    int finalized = 0;
    ASSERT_OK(reshaper_graph_is_finalized(graph, &finalized));
    EXPECT_EQ(finalized, 1);
    reshaper_op_t second = nullptr;
    ASSERT_OK(reshaper_op_create(&second, 1, "StaticReshape", "r1"));
    expect_failure(reshaper_graph_add_op(graph, second), reshaper_invalid_graph, "graph_not_finalized");
    const float v = 1;
    expect_failure(reshaper_graph_set_tensor_values(graph, 0, &v, sizeof v), reshaper_invalid_graph,
                   "graph_not_finalized");
    reshaper_op_destroy(second);
    ASSERT_OK(reshaper_graph_finalize(graph)); // again: nothing to do
}

TEST_F(BuilderMisuse, AGraphReadFromJsonTakesNoOps) {
    reshaper_graph_t loaded = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(api_test::reshape_then_matmul, &loaded));
    expect_failure(reshaper_graph_add_op(loaded, op), reshaper_invalid_graph, "graph_not_finalized");
    reshaper_graph_destroy(loaded);
}

TEST_F(BuilderMisuse, ATensorDescribedTwoWaysIsInvalidGraph) {
    ASSERT_OK(reshaper_graph_add_op(graph, op));
    reshaper_op_t next = nullptr;
    ASSERT_OK(reshaper_op_create(&next, 1, "StaticReshape", "r1"));
    reshaper_logical_tensor_t other = out;
    other.data_type = reshaper_dt_f16; // tensor 1 was f32
    ASSERT_OK(reshaper_op_add_input(next, &other));
    expect_failure(reshaper_graph_add_op(graph, next), reshaper_invalid_graph,
                   "tensor_agreement");
    EXPECT_NE(last_message().find("tensor 1 as f16 [6,4]"), std::string::npos) << last_message();
    reshaper_op_destroy(next);
    // The rejected op left nothing behind: the graph still finalizes.
    ASSERT_OK(reshaper_graph_finalize(graph));
}

TEST_F(BuilderMisuse, NullHandlesArePointedOut) {
    expect_failure(reshaper_graph_add_op(nullptr, op), reshaper_invalid_arguments, "api_argument");
    expect_failure(reshaper_graph_add_op(graph, nullptr), reshaper_invalid_arguments, "api_argument");
    expect_failure(reshaper_op_create(nullptr, 0, "StaticReshape", ""), reshaper_invalid_arguments,
                   "api_argument");
    expect_failure(reshaper_op_set_attr_s64(op, nullptr, 1), reshaper_invalid_arguments, "api_argument");
    expect_failure(reshaper_op_add_input(op, nullptr), reshaper_invalid_arguments, "api_argument");
    expect_failure(reshaper_graph_finalize(nullptr), reshaper_invalid_arguments, "api_argument");
    expect_failure(reshaper_graph_create(reshaper_engine_cpu, nullptr), reshaper_invalid_arguments,
                   "api_argument");
}

TEST_F(BuilderMisuse, ValuesOfTheWrongSizeAreRefused) {
    ASSERT_OK(reshaper_graph_add_op(graph, op));
    const float v[23] = {};
    expect_failure(reshaper_graph_set_tensor_values(graph, 0, v, sizeof v), reshaper_invalid_arguments,
                   "tensor_values_size");
    expect_failure(reshaper_graph_set_tensor_values(graph, 42, v, sizeof v), reshaper_invalid_graph,
                   "tensor_exists");
}

// An invalid op fails at finalize with what its graph file gives.
TEST_F(BuilderMisuse, AnInvalidOpFailsAtFinalizeLikeItsFile) {
    const int64_t bad[] = {5, 5};
    ASSERT_OK(reshaper_op_set_attr_s64s(op, "shape", bad, 2));
    ASSERT_OK(reshaper_graph_add_op(graph, op));
    expect_failure(reshaper_graph_finalize(graph), reshaper_invalid_shape, "volume_mismatch");
    const std::string built_message = last_message();
    reshaper_graph_t from_file = nullptr;
    const std::string text = to_json_text(graph); // fails the same way
    EXPECT_EQ(text, "error: " + built_message);
    EXPECT_NE(built_message.find("op 0 'r0'"), std::string::npos) << built_message;
    (void)from_file;
}

// One finalized graph, 8 threads partitioning, compiling and executing it.
TEST(Builder, EightThreadsShareOneFinalizedGraph) {
    reshaper::graph g(reshaper::engine_kind::cpu);
    g.add_op(reshaper::op(0, "StaticReshape", "flatten")
                 .add_input({0, reshaper::data_type::f32, {4, 3, 5}, reshaper::layout_type::strided, {1, 20, 4}})
                 .add_output({1, reshaper::data_type::f32, {4, 15}})
                 .set_attr("shape", std::vector<std::int64_t>{0, -1})
                 .set_attr("special_zero", true));
    g.finalize();
    ASSERT_TRUE(g.is_finalized());
    std::vector<float> in(60);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    std::vector<std::string> failures(8);
    std::vector<std::vector<float>> results(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            try {
                for (int rep = 0; rep < 20; ++rep) {
                    auto parts = g.partitions();
                    reshaper::engine eng(reshaper::engine_kind::cpu);
                    auto cp = parts.at(0).compile(eng);
                    std::vector<float> out(60, -1.f);
                    cp.execute({in.data()}, {out.data()});
                    results[t] = out;
                }
            } catch (const std::exception &e) {
                failures[t] = e.what();
            }
        });
    for (auto &th : threads) th.join();
    // The reference: element (i, j, k) of the [4,3,5] view sits at i + 20j + 4k.
    std::vector<float> want;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 5; ++k) want.push_back(static_cast<float>(i + 20 * j + 4 * k));
    for (int t = 0; t < 8; ++t) {
        EXPECT_EQ(failures[t], "") << "thread " << t;
        EXPECT_EQ(results[t], want) << "thread " << t;
    }
}

TEST(Builder, CppBuilderErrorsCarryStatusAndRule) {
    reshaper::graph g(reshaper::engine_kind::cpu);
    g.add_op(reshaper::op(3, "StaticReshape", "Reshape_3")
                 .add_input({0, reshaper::data_type::f32, {2, 3}})
                 .add_output({1, reshaper::data_type::f32, {-1}})
                 .set_attr("shape", std::vector<std::int64_t>{-1, -1})
                 .set_attr("special_zero", false));
    try {
        g.partitions();
        FAIL() << "two -1 were accepted";
    } catch (const reshaper::error &e) {
        EXPECT_EQ(e.code(), reshaper::status::invalid_shape);
        EXPECT_EQ(e.rule(), "single_minus_one");
        EXPECT_NE(std::string(e.what()).find("op 3 'Reshape_3'"), std::string::npos) << e.what();
    }
}

// Issue 25: the stride of a size-1 dim addresses nothing, so descriptions
// that differ only there (benchdnn's matmul_select.json has one) are one
// tensor; the first description's strides stand. A stride that differs in
// a dim of size > 1 is still a conflict.
TEST(Builder, StridesOfSizeOneDimsMayDifferBetweenDescriptions) {
    reshaper_graph_t graph = nullptr;
    ASSERT_OK(reshaper_graph_create(reshaper_engine_cpu, &graph));
    const int64_t in_dims[] = {6, 4}, mid_dims[] = {1, 6, 4}, out_dims[] = {24}, mid_shape[] = {1, 6, 4},
                  out_shape[] = {24};
    const int64_t made[] = {24, 4, 1}, read[] = {7, 4, 1}, conflicting[] = {24, 5, 1};
    reshaper_logical_tensor_t in{}, mid_made{}, mid_read{}, mid_bad{}, out{};
    ASSERT_OK(reshaper_logical_tensor_init(&in, 0, reshaper_dt_f32, 2, in_dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_init(&mid_made, 1, reshaper_dt_f32, 3, mid_dims, made,
                                           reshaper_layout_strided, reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_init(&mid_read, 1, reshaper_dt_f32, 3, mid_dims, read,
                                           reshaper_layout_strided, reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_init(&mid_bad, 1, reshaper_dt_f32, 3, mid_dims, conflicting,
                                           reshaper_layout_strided, reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_init(&out, 2, reshaper_dt_f32, 1, out_dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef));
    const auto reshape = [](int64_t id, const reshaper_logical_tensor_t &from, const reshaper_logical_tensor_t &to,
                            const int64_t *shape, size_t rank) {
        reshaper_op_t op = nullptr;
        EXPECT_EQ(reshaper_op_create(&op, id, "StaticReshape", "r"), reshaper_success);
        EXPECT_EQ(reshaper_op_add_input(op, &from), reshaper_success);
        EXPECT_EQ(reshaper_op_add_output(op, &to), reshaper_success);
        EXPECT_EQ(reshaper_op_set_attr_s64s(op, "shape", shape, rank), reshaper_success);
        EXPECT_EQ(reshaper_op_set_attr_bool(op, "special_zero", 0), reshaper_success);
        return op;
    };
    reshaper_op_t first = reshape(0, in, mid_made, mid_shape, 3);
    reshaper_op_t bad = reshape(1, mid_bad, out, out_shape, 1);
    reshaper_op_t second = reshape(1, mid_read, out, out_shape, 1);
    ASSERT_OK(reshaper_graph_add_op(graph, first));
    EXPECT_EQ(reshaper_graph_add_op(graph, bad), reshaper_invalid_graph);
    EXPECT_EQ(last_rule(), "tensor_agreement") << last_message();
    ASSERT_OK(reshaper_graph_add_op(graph, second)) << last_message();
    ASSERT_OK(reshaper_graph_finalize(graph));
    // The tensor keeps the first description's strides.
    reshaper_logical_tensor_t kept{};
    ASSERT_OK(reshaper_graph_get_tensor(graph, 1, &kept));
    EXPECT_EQ(std::vector<int64_t>(kept.strides, kept.strides + kept.ndims), (std::vector<int64_t>{24, 4, 1}));
    for (reshaper_op_t op : {first, bad, second}) reshaper_op_destroy(op);
    reshaper_graph_destroy(graph);
}
