// Every failure of the C API comes back as the right status with a message;
// nothing crashes and nothing throws across it.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "api_test_graphs.hpp"
#include "reshaper/reshaper.h"

using namespace api_test;

namespace {

struct last_error {
    reshaper_status_t status;
    std::string message;
};

last_error last() {
    reshaper_status_t status = reshaper_success;
    const char *message = nullptr;
    EXPECT_EQ(reshaper_get_last_error(&status, &message), reshaper_success);
    return {status, message};
}

#define ASSERT_OK(call) ASSERT_EQ((call), reshaper_success) << last().message

// A graph with partitions, a compiled reshape partition and an engine: real
// handles for the calls whose other arguments are under test.
class CApiErrors : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(reshaper_graph_create_from_json(reshape_then_matmul, &graph));
        ASSERT_OK(reshaper_graph_get_partitions(graph, reshaper_policy_fusion,
                                                reshaper_engine_cpu, &list));
        ASSERT_OK(reshaper_engine_create(reshaper_engine_cpu, 0, &engine));
        size_t count = 0;
        ASSERT_OK(reshaper_partition_list_get_count(list, &count));
        for (size_t i = 0; i < count; ++i) {
            const_reshaper_partition_t p = nullptr;
            int supported = 0;
            ASSERT_OK(reshaper_partition_list_get(list, i, &p));
            ASSERT_OK(reshaper_partition_is_supported(p, &supported));
            (supported ? reshape : matmul) = p;
        }
        ASSERT_NE(reshape, nullptr);
        ASSERT_NE(matmul, nullptr);
        ASSERT_OK(reshaper_partition_compile(reshape, engine, 0, nullptr, 0, nullptr, &compiled));
    }
    void TearDown() override {
        if (compiled) reshaper_compiled_partition_destroy(compiled);
        if (list) reshaper_partition_list_destroy(list);
        if (graph) reshaper_graph_destroy(graph);
        if (engine) reshaper_engine_destroy(engine);
    }

    // Expects `status` and a message containing every one of `parts`.
    static void expect_failure(reshaper_status_t got, reshaper_status_t expected,
                               const std::vector<std::string> &parts) {
        const last_error e = last();
        EXPECT_EQ(got, expected) << e.message;
        EXPECT_EQ(e.status, expected);
        for (const auto &part : parts) EXPECT_TRUE(contains(e.message, part)) << e.message;
    }

    reshaper_graph_t graph = nullptr;
    reshaper_partition_list_t list = nullptr;
    reshaper_engine_t engine = nullptr;
    const_reshaper_partition_t reshape = nullptr, matmul = nullptr;
    reshaper_compiled_partition_t compiled = nullptr;
};

} // namespace

TEST_F(CApiErrors, NullArgumentsAreInvalidArgumentsNamingFunctionAndArgument) {
    reshaper_logical_tensor_t lt{};
    size_t n = 0;
    int flag = 0;
    const char *text = nullptr;
    const char *const *kinds = nullptr;
    reshaper_graph_t new_graph = nullptr;
    reshaper_partition_list_t new_list = nullptr;
    const_reshaper_partition_t p = nullptr;
    reshaper_compiled_partition_t new_cp = nullptr;
    reshaper_lowering_kind_t lowering;

    struct null_case {
        const char *function;
        const char *argument;
        std::function<reshaper_status_t()> call;
    };
    const std::vector<null_case> cases = {
            {"reshaper_get_version", "version", [] { return reshaper_get_version(nullptr); }},
            {"reshaper_get_handled_op_kinds", "kinds",
             [&] { return reshaper_get_handled_op_kinds(nullptr, &n); }},
            {"reshaper_get_handled_op_kinds", "count",
             [&] { return reshaper_get_handled_op_kinds(&kinds, nullptr); }},
            {"reshaper_status_name", "name",
             [] { return reshaper_status_name(reshaper_success, nullptr); }},
            {"reshaper_logical_tensor_init", "lt",
             [] {
                 return reshaper_logical_tensor_init(nullptr, 0, reshaper_dt_f32, 0, nullptr,
                                                     nullptr, reshaper_layout_strided,
                                                     reshaper_property_undef);
             }},
            {"reshaper_logical_tensor_init", "dims",
             [&] {
                 return reshaper_logical_tensor_init(&lt, 0, reshaper_dt_f32, 2, nullptr, nullptr,
                                                     reshaper_layout_strided,
                                                     reshaper_property_undef);
             }},
            {"reshaper_logical_tensor_get_mem_size", "lt",
             [&] { return reshaper_logical_tensor_get_mem_size(nullptr, &n); }},
            {"reshaper_logical_tensor_get_mem_size", "size",
             [&] { return reshaper_logical_tensor_get_mem_size(&lt, nullptr); }},
            {"reshaper_graph_create_from_json", "json",
             [&] { return reshaper_graph_create_from_json(nullptr, &new_graph); }},
            {"reshaper_graph_create_from_json", "graph",
             [] { return reshaper_graph_create_from_json("{}", nullptr); }},
            {"reshaper_graph_create_from_file", "path",
             [&] { return reshaper_graph_create_from_file(nullptr, &new_graph); }},
            {"reshaper_graph_create_from_file", "graph",
             [] { return reshaper_graph_create_from_file("x.json", nullptr); }},
            {"reshaper_graph_destroy", "graph", [] { return reshaper_graph_destroy(nullptr); }},
            {"reshaper_graph_infer_shapes", "graph",
             [] { return reshaper_graph_infer_shapes(nullptr); }},
            {"reshaper_graph_to_json", "graph",
             [&] { return reshaper_graph_to_json(nullptr, nullptr, 0, &n); }},
            {"reshaper_graph_to_json", "size",
             [&] { return reshaper_graph_to_json(graph, nullptr, 0, nullptr); }},
            {"reshaper_graph_get_tensor", "graph",
             [&] { return reshaper_graph_get_tensor(nullptr, 0, &lt); }},
            {"reshaper_graph_get_tensor", "lt",
             [&] { return reshaper_graph_get_tensor(graph, 0, nullptr); }},
            {"reshaper_graph_get_tensor_values", "graph",
             [&] { return reshaper_graph_get_tensor_values(nullptr, 0, nullptr, 0, &n); }},
            {"reshaper_graph_get_tensor_values", "size",
             [&] { return reshaper_graph_get_tensor_values(graph, 0, nullptr, 0, nullptr); }},
            {"reshaper_graph_get_partitions", "graph",
             [&] {
                 return reshaper_graph_get_partitions(nullptr, reshaper_policy_fusion,
                                                      reshaper_engine_cpu, &new_list);
             }},
            {"reshaper_graph_get_partitions", "list",
             [&] {
                 return reshaper_graph_get_partitions(graph, reshaper_policy_fusion,
                                                      reshaper_engine_cpu, nullptr);
             }},
            {"reshaper_partition_list_destroy", "list",
             [] { return reshaper_partition_list_destroy(nullptr); }},
            {"reshaper_partition_list_get_count", "list",
             [&] { return reshaper_partition_list_get_count(nullptr, &n); }},
            {"reshaper_partition_list_get_count", "count",
             [&] { return reshaper_partition_list_get_count(list, nullptr); }},
            {"reshaper_partition_list_get", "list",
             [&] { return reshaper_partition_list_get(nullptr, 0, &p); }},
            {"reshaper_partition_list_get", "partition",
             [&] { return reshaper_partition_list_get(list, 0, nullptr); }},
            {"reshaper_partition_get_id", "partition",
             [&] { return reshaper_partition_get_id(nullptr, &n); }},
            {"reshaper_partition_get_id", "id",
             [&] { return reshaper_partition_get_id(reshape, nullptr); }},
            {"reshaper_partition_is_supported", "partition",
             [&] { return reshaper_partition_is_supported(nullptr, &flag); }},
            {"reshaper_partition_is_supported", "supported",
             [&] { return reshaper_partition_is_supported(reshape, nullptr); }},
            {"reshaper_partition_get_op_ids", "partition",
             [&] { return reshaper_partition_get_op_ids(nullptr, nullptr, 0, &n); }},
            {"reshaper_partition_get_op_ids", "count",
             [&] { return reshaper_partition_get_op_ids(reshape, nullptr, 0, nullptr); }},
            {"reshaper_partition_get_inputs", "partition",
             [&] { return reshaper_partition_get_inputs(nullptr, nullptr, 0, &n); }},
            {"reshaper_partition_get_inputs", "count",
             [&] { return reshaper_partition_get_inputs(reshape, nullptr, 0, nullptr); }},
            {"reshaper_partition_get_outputs", "partition",
             [&] { return reshaper_partition_get_outputs(nullptr, nullptr, 0, &n); }},
            {"reshaper_partition_get_outputs", "count",
             [&] { return reshaper_partition_get_outputs(reshape, nullptr, 0, nullptr); }},
            {"reshaper_partition_get_reason", "partition",
             [&] { return reshaper_partition_get_reason(nullptr, &text); }},
            {"reshaper_partition_get_reason", "reason",
             [&] { return reshaper_partition_get_reason(reshape, nullptr); }},
            {"reshaper_engine_create", "engine",
             [] { return reshaper_engine_create(reshaper_engine_cpu, 0, nullptr); }},
            {"reshaper_engine_destroy", "engine", [] { return reshaper_engine_destroy(nullptr); }},
            {"reshaper_partition_compile", "partition",
             [&] {
                 return reshaper_partition_compile(nullptr, engine, 0, nullptr, 0, nullptr,
                                                   &new_cp);
             }},
            {"reshaper_partition_compile", "engine",
             [&] {
                 return reshaper_partition_compile(reshape, nullptr, 0, nullptr, 0, nullptr,
                                                   &new_cp);
             }},
            {"reshaper_partition_compile", "compiled",
             [&] {
                 return reshaper_partition_compile(reshape, engine, 0, nullptr, 0, nullptr,
                                                   nullptr);
             }},
            {"reshaper_partition_compile", "inputs",
             [&] {
                 return reshaper_partition_compile(reshape, engine, 1, nullptr, 0, nullptr,
                                                   &new_cp);
             }},
            {"reshaper_partition_compile", "outputs",
             [&] {
                 return reshaper_partition_compile(reshape, engine, 0, nullptr, 1, nullptr,
                                                   &new_cp);
             }},
            {"reshaper_compiled_partition_destroy", "compiled",
             [] { return reshaper_compiled_partition_destroy(nullptr); }},
            {"reshaper_compiled_partition_get_inputs", "compiled",
             [&] { return reshaper_compiled_partition_get_inputs(nullptr, nullptr, 0, &n); }},
            {"reshaper_compiled_partition_get_inputs", "count",
             [&] { return reshaper_compiled_partition_get_inputs(compiled, nullptr, 0, nullptr); }},
            {"reshaper_compiled_partition_get_outputs", "compiled",
             [&] { return reshaper_compiled_partition_get_outputs(nullptr, nullptr, 0, &n); }},
            {"reshaper_compiled_partition_get_outputs", "count",
             [&] {
                 return reshaper_compiled_partition_get_outputs(compiled, nullptr, 0, nullptr);
             }},
            {"reshaper_compiled_partition_get_lowering", "compiled",
             [&] { return reshaper_compiled_partition_get_lowering(nullptr, &lowering); }},
            {"reshaper_compiled_partition_get_lowering", "lowering",
             [&] { return reshaper_compiled_partition_get_lowering(compiled, nullptr); }},
            {"reshaper_compiled_partition_get_lowering_details", "compiled",
             [&] { return reshaper_compiled_partition_get_lowering_details(nullptr, &text); }},
            {"reshaper_compiled_partition_get_lowering_details", "details",
             [&] { return reshaper_compiled_partition_get_lowering_details(compiled, nullptr); }},
            {"reshaper_compiled_partition_get_inplace_pairs", "compiled",
             [&] {
                 return reshaper_compiled_partition_get_inplace_pairs(nullptr, nullptr, 0, &n);
             }},
            {"reshaper_compiled_partition_get_inplace_pairs", "count",
             [&] {
                 return reshaper_compiled_partition_get_inplace_pairs(compiled, nullptr, 0,
                                                                      nullptr);
             }},
            {"reshaper_compiled_partition_execute", "compiled",
             [] { return reshaper_compiled_partition_execute(nullptr, 0, nullptr, 0, nullptr); }},
            {"reshaper_compiled_partition_execute", "inputs",
             [&] { return reshaper_compiled_partition_execute(compiled, 1, nullptr, 0, nullptr); }},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(std::string(c.function) + "(" + c.argument + " = NULL)");
        expect_failure(c.call(), reshaper_invalid_arguments,
                       {c.function, std::string(c.argument) + " is NULL"});
    }
}

TEST(CApiLoadErrors, MalformedJsonIsInvalidGraph) {
    for (const char *text : {"", "{\"graph\": [", "[1, 2]", "{\"graph\": 5}", "\xff\xfe"}) {
        reshaper_graph_t graph = nullptr;
        EXPECT_EQ(reshaper_graph_create_from_json(text, &graph), reshaper_invalid_graph) << text;
        EXPECT_EQ(graph, nullptr);
        EXPECT_EQ(last().status, reshaper_invalid_graph);
        EXPECT_FALSE(last().message.empty()) << text;
    }
}

TEST(CApiLoadErrors, MissingFileIsInvalidArgumentsNamingThePath) {
    reshaper_graph_t graph = nullptr;
    const char *path = "/nonexistent/reshaper/graph.json";
    EXPECT_EQ(reshaper_graph_create_from_file(path, &graph), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, path)) << last().message;
}

TEST(CApiLoadErrors, VolumeMismatchIsInvalidShapeNamingTheOp) {
    reshaper_graph_t graph = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(volume_mismatch, &graph));
    EXPECT_EQ(reshaper_graph_infer_shapes(graph), reshaper_invalid_shape);
    EXPECT_TRUE(contains(last().message, "Reshape_0")) << last().message;
    reshaper_partition_list_t list = nullptr;
    EXPECT_EQ(reshaper_graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu,
                                            &list),
              reshaper_invalid_shape);
    EXPECT_EQ(list, nullptr);
    reshaper_graph_destroy(graph);
}

TEST(CApiEngineErrors, GpuIsUnavailableHere) {
    reshaper_engine_t engine = nullptr;
    EXPECT_EQ(reshaper_engine_create(reshaper_engine_gpu, 0, &engine), reshaper_unavailable);
    EXPECT_EQ(engine, nullptr);
    EXPECT_TRUE(contains(last().message, "gpu")) << last().message;

    EXPECT_EQ(reshaper_engine_create(reshaper_engine_cpu, 1000, &engine), reshaper_unavailable);
    EXPECT_TRUE(contains(last().message, "1000")) << last().message;
}

TEST(CApiEnumErrors, OutOfRangeEnumsAreInvalidArguments) {
    reshaper_engine_t engine = nullptr;
    EXPECT_EQ(reshaper_engine_create(static_cast<reshaper_engine_kind_t>(7), 0, &engine),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "engine_kind 7")) << last().message;

    const char *name = nullptr;
    EXPECT_EQ(reshaper_status_name(static_cast<reshaper_status_t>(42), &name),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "42")) << last().message;

    reshaper_logical_tensor_t lt;
    const int64_t dims[] = {2};
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, static_cast<reshaper_data_type_t>(99), 1, dims,
                                           nullptr, reshaper_layout_strided,
                                           reshaper_property_undef),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "data_type 99")) << last().message;
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, reshaper_dt_f32, 1, dims, nullptr,
                                           static_cast<reshaper_layout_type_t>(-3),
                                           reshaper_property_undef),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "layout_type -3")) << last().message;

    reshaper_graph_t graph = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(reshape_then_matmul, &graph));
    reshaper_partition_list_t list = nullptr;
    EXPECT_EQ(reshaper_graph_get_partitions(graph, static_cast<reshaper_partition_policy_t>(5),
                                            reshaper_engine_cpu, &list),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "policy 5")) << last().message;
    reshaper_graph_destroy(graph);
}

TEST(CApiLogicalTensorErrors, BadStructsAreRejected) {
    reshaper_logical_tensor_t lt;
    const int64_t dims[13] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, reshaper_dt_f32, 13, dims, nullptr,
                                           reshaper_layout_strided, reshaper_property_undef),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "ndims 13")) << last().message;

    size_t bytes = 0;
    ASSERT_OK(reshaper_logical_tensor_init(&lt, 3, reshaper_dt_f32, 2, dims, nullptr,
                                           reshaper_layout_opaque, reshaper_property_undef));
    std::memset(lt.format, 'x', sizeof lt.format); // no terminating NUL
    EXPECT_EQ(reshaper_logical_tensor_get_mem_size(&lt, &bytes), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "NUL")) << last().message;

    const int64_t unknown[] = {2, RESHAPER_UNKNOWN_DIM};
    ASSERT_OK(reshaper_logical_tensor_init(&lt, 3, reshaper_dt_f32, 2, unknown, nullptr,
                                           reshaper_layout_strided, reshaper_property_undef));
    EXPECT_EQ(reshaper_logical_tensor_get_mem_size(&lt, &bytes), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "unknown dims")) << last().message;

    ASSERT_OK(reshaper_logical_tensor_init(&lt, 3, reshaper_dt_f32, 2, dims, nullptr,
                                           reshaper_layout_any, reshaper_property_undef));
    EXPECT_EQ(reshaper_logical_tensor_get_mem_size(&lt, &bytes), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "any")) << last().message;
}

TEST_F(CApiErrors, ListIndexOutOfRange) {
    const_reshaper_partition_t p = nullptr;
    EXPECT_EQ(reshaper_partition_list_get(list, 2, &p), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "index 2")) << last().message;
}

TEST_F(CApiErrors, CapacityTooSmallIsInvalidArgumentsAndReportsTheCount) {
    int64_t ids[1];
    size_t n = 0;
    reshaper_logical_tensor_t lts[1];
    EXPECT_EQ(reshaper_partition_get_inputs(matmul, lts, 1, &n), reshaper_invalid_arguments);
    EXPECT_EQ(n, 2u);
    EXPECT_TRUE(contains(last().message, "2 are needed")) << last().message;
    EXPECT_EQ(reshaper_partition_get_op_ids(matmul, ids, 0, &n), reshaper_invalid_arguments);

    size_t size = 0;
    char small[4];
    EXPECT_EQ(reshaper_graph_to_json(graph, small, sizeof small, &size),
              reshaper_invalid_arguments);
    EXPECT_GT(size, sizeof small);
}

TEST_F(CApiErrors, CompilingAnUnsupportedPartitionIsInvalidArguments) {
    reshaper_compiled_partition_t cp = nullptr;
    EXPECT_EQ(reshaper_partition_compile(matmul, engine, 0, nullptr, 0, nullptr, &cp),
              reshaper_invalid_arguments);
    EXPECT_EQ(cp, nullptr);
    EXPECT_TRUE(contains(last().message, "not supported")) << last().message;
}

TEST_F(CApiErrors, ExecuteChecksBufferCountsAndPointers) {
    std::vector<float> src = iota_f32(24), dst(24);
    const void *inputs[] = {src.data(), src.data()};
    void *outputs[] = {dst.data()};
    EXPECT_EQ(reshaper_compiled_partition_execute(compiled, 2, inputs, 1, outputs),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "1 inputs, 2 buffers")) << last().message;
    EXPECT_EQ(reshaper_compiled_partition_execute(compiled, 1, inputs, 0, outputs),
              reshaper_invalid_arguments);

    const void *null_input[] = {nullptr};
    EXPECT_EQ(reshaper_compiled_partition_execute(compiled, 1, null_input, 1, outputs),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last().message, "inputs[0] (logical tensor 0) is NULL"))
            << last().message;
    void *null_output[] = {nullptr};
    EXPECT_EQ(reshaper_compiled_partition_execute(compiled, 1, inputs, 1, null_output),
              reshaper_invalid_arguments);
}

TEST(CApiExecuteErrors, RunTimeShapeValuesThatDisagreeAreInvalidShapeAndWriteNothing) {
    const char *json = R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
      { "id": 0, "name": "R", "kind": "Reshape", "domain": "ai.onnx", "version": 14,
        "inputs": [ {"id": 0, "dtype": "f32", "shape": [2, 6], "stride": [6, 1],
                     "layout_type": "strided", "property_type": "undef"},
                    {"id": 5, "dtype": "s64", "shape": [2], "stride": [1],
                     "layout_type": "strided", "property_type": "variable"} ],
        "outputs": [ {"id": 1, "dtype": "f32", "shape": [3, 4], "stride": [4, 1],
                      "layout_type": "strided", "property_type": "undef"} ] } ] })";
    reshaper_graph_t graph = nullptr;
    reshaper_partition_list_t list = nullptr;
    reshaper_engine_t engine = nullptr;
    reshaper_compiled_partition_t cp = nullptr;
    const_reshaper_partition_t p = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(json, &graph));
    ASSERT_OK(reshaper_graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu,
                                            &list));
    ASSERT_OK(reshaper_partition_list_get(list, 0, &p));
    ASSERT_OK(reshaper_engine_create(reshaper_engine_cpu, 0, &engine));
    ASSERT_OK(reshaper_partition_compile(p, engine, 0, nullptr, 0, nullptr, &cp));

    const std::vector<float> src = iota_f32(12);
    std::vector<float> dst(12, -1.0f);
    const int64_t wrong_shape[] = {4, 3};
    const void *inputs[] = {src.data(), wrong_shape};
    void *outputs[] = {dst.data()};
    EXPECT_EQ(reshaper_compiled_partition_execute(cp, 2, inputs, 1, outputs),
              reshaper_invalid_shape);
    EXPECT_FALSE(last().message.empty());
    EXPECT_EQ(dst, std::vector<float>(12, -1.0f));

    const int64_t right_shape[] = {3, 4};
    const void *good_inputs[] = {src.data(), right_shape};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 2, good_inputs, 1, outputs));
    EXPECT_EQ(dst, src);

    reshaper_compiled_partition_destroy(cp);
    reshaper_engine_destroy(engine);
    reshaper_partition_list_destroy(list);
    reshaper_graph_destroy(graph);
}

TEST(CApiLastError, SuccessLeavesItAndOtherThreadsDoNotTouchIt) {
    reshaper_engine_t engine = nullptr;
    ASSERT_EQ(reshaper_engine_create(reshaper_engine_gpu, 0, &engine), reshaper_unavailable);
    const last_error before = last();

    reshaper_version_t v;
    ASSERT_OK(reshaper_get_version(&v));
    EXPECT_EQ(last().status, reshaper_unavailable);
    EXPECT_EQ(last().message, before.message);

    last_error seen_by_other{};
    std::thread([&] {
        seen_by_other = last();
        reshaper_graph_destroy(nullptr);
    }).join();
    EXPECT_EQ(seen_by_other.status, reshaper_success);
    EXPECT_EQ(seen_by_other.message, "");
    EXPECT_EQ(last().status, reshaper_unavailable);
    EXPECT_EQ(last().message, before.message);

    // Both pointers may be NULL.
    EXPECT_EQ(reshaper_get_last_error(nullptr, nullptr), reshaper_success);
}

// The rule id of the last failure, as listed in docs/rules.md.
TEST(CApiErrorRule, NamesTheRuleThatFailed) {
    reshaper_graph_t g = nullptr;
    const char *rule = nullptr;
    EXPECT_EQ(reshaper_graph_create_from_json("{ \"graph\": [", &g), reshaper_invalid_graph);
    ASSERT_EQ(reshaper_get_last_error_rule(&rule), reshaper_success);
    EXPECT_STREQ(rule, "json_syntax");

    EXPECT_EQ(reshaper_graph_destroy(nullptr), reshaper_invalid_arguments);
    ASSERT_EQ(reshaper_get_last_error_rule(&rule), reshaper_success);
    EXPECT_STREQ(rule, "api_argument");

    const std::string bad_volume = R"({"graph": [{"id": 0, "name": "r", "kind": "StaticReshape",
        "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [5, 5]}},
        "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 3], "layout_type": "strided"}],
        "outputs": [{"id": 1, "dtype": "f32", "shape": [-1, -1], "layout_type": "strided"}]}]})";
    ASSERT_EQ(reshaper_graph_create_from_json(bad_volume.c_str(), &g), reshaper_success);
    EXPECT_EQ(reshaper_graph_infer_shapes(g), reshaper_invalid_shape);
    ASSERT_EQ(reshaper_get_last_error_rule(&rule), reshaper_success);
    EXPECT_STREQ(rule, "volume_mismatch");
    EXPECT_EQ(reshaper_get_last_error_rule(nullptr), reshaper_success);
    reshaper_graph_destroy(g);
}
