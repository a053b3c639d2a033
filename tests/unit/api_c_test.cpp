// The C API end to end on small graphs: load, infer, partition, compile,
// execute, and every query in between.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "api_test_graphs.hpp"
#include "reshaper/reshaper.h"

using namespace api_test;

namespace {

std::string last_message() {
    const char *message = nullptr;
    reshaper_get_last_error(nullptr, &message);
    return message;
}

// Fails the test with the library's message when a call fails.
#define ASSERT_OK(call) ASSERT_EQ((call), reshaper_success) << last_message()

// A graph, its partition list and an engine, released at the end.
struct loaded {
    reshaper_graph_t graph = nullptr;
    reshaper_partition_list_t list = nullptr;
    reshaper_engine_t engine = nullptr;

    ~loaded() {
        if (list) reshaper_partition_list_destroy(list);
        if (graph) reshaper_graph_destroy(graph);
        if (engine) reshaper_engine_destroy(engine);
    }
};

// `json`'s first partition (fusion policy) compiled on the CPU engine, the
// graph, its list and the engine held by `g`.
void compile_first_partition(const char *json, loaded &g, reshaper_compiled_partition_t *cp) {
    const_reshaper_partition_t p = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(json, &g.graph));
    ASSERT_OK(reshaper_graph_get_partitions(g.graph, reshaper_policy_fusion, reshaper_engine_cpu, &g.list));
    ASSERT_OK(reshaper_partition_list_get(g.list, 0, &p));
    ASSERT_OK(reshaper_engine_create(reshaper_engine_cpu, 0, &g.engine));
    ASSERT_OK(reshaper_partition_compile(p, g.engine, 0, nullptr, 0, nullptr, cp));
}

// The partition whose `supported` flag equals `supported`.
const_reshaper_partition_t find_partition(reshaper_partition_list_t list, bool supported) {
    size_t count = 0;
    reshaper_partition_list_get_count(list, &count);
    for (size_t i = 0; i < count; ++i) {
        const_reshaper_partition_t p = nullptr;
        int s = 0;
        reshaper_partition_list_get(list, i, &p);
        reshaper_partition_is_supported(p, &s);
        if ((s != 0) == supported) return p;
    }
    return nullptr;
}

std::vector<int64_t> dims_of(const reshaper_logical_tensor_t &lt) {
    return std::vector<int64_t>(lt.dims, lt.dims + lt.ndims);
}
std::vector<int64_t> strides_of(const reshaper_logical_tensor_t &lt) {
    return std::vector<int64_t>(lt.strides, lt.strides + lt.ndims);
}

class CApi : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(reshaper_graph_create_from_json(reshape_then_matmul, &g.graph));
        ASSERT_OK(reshaper_graph_get_partitions(g.graph, reshaper_policy_fusion,
                                                reshaper_engine_cpu, &g.list));
        ASSERT_OK(reshaper_engine_create(reshaper_engine_cpu, 0, &g.engine));
        reshape = find_partition(g.list, true);
        ASSERT_NE(reshape, nullptr);
    }

    // Compiles the reshape partition with the given boundary tensors.
    reshaper_compiled_partition_t compile(const std::vector<reshaper_logical_tensor_t> &in,
                                          const std::vector<reshaper_logical_tensor_t> &out) {
        reshaper_compiled_partition_t cp = nullptr;
        EXPECT_EQ(reshaper_partition_compile(reshape, g.engine, in.size(),
                                              in.empty() ? nullptr : in.data(), out.size(),
                                              out.empty() ? nullptr : out.data(), &cp),
                  reshaper_success)
                << last_message();
        return cp;
    }

    loaded g;
    const_reshaper_partition_t reshape = nullptr;
};

} // namespace

TEST(CApiLibrary, VersionAndHandledKinds) {
    reshaper_version_t v;
    ASSERT_OK(reshaper_get_version(&v));
    EXPECT_EQ(std::string(v.string),
              std::to_string(v.major) + "." + std::to_string(v.minor) + "." +
                  std::to_string(v.patch));

    const char *const *kinds = nullptr;
    size_t count = 0;
    ASSERT_OK(reshaper_get_handled_op_kinds(&kinds, &count));
    std::vector<std::string> names(kinds, kinds + count);
    for (const char *expected : {"StaticReshape", "DynamicReshape", "Reshape", "ai.onnx.Reshape"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

TEST(CApiLibrary, StatusNamesAreTheContractSpelling) {
    const std::vector<std::pair<reshaper_status_t, std::string>> expected = {
            {reshaper_success, "success"},
            {reshaper_invalid_arguments, "invalid_arguments"},
            {reshaper_invalid_graph, "invalid_graph"},
            {reshaper_invalid_graph_op, "invalid_graph_op"},
            {reshaper_invalid_shape, "invalid_shape"},
            {reshaper_invalid_data_type, "invalid_data_type"},
            {reshaper_unimplemented, "unimplemented"},
            {reshaper_unavailable, "unavailable"},
            {reshaper_out_of_memory, "out_of_memory"},
            {reshaper_runtime_error, "runtime_error"},
    };
    for (const auto &[status, name] : expected) {
        const char *got = nullptr;
        ASSERT_OK(reshaper_status_name(status, &got));
        EXPECT_EQ(got, name);
    }
    EXPECT_EQ(static_cast<int>(reshaper_runtime_error), 9);
}

// Appended, never renumbered: a host compiled against an older header
// keeps its values.
TEST(CApiLibrary, DtypeValuesAreStable) {
    EXPECT_EQ(static_cast<int>(reshaper_dt_s4), 10);
    EXPECT_EQ(static_cast<int>(reshaper_dt_f4_e2m1), 24);
    EXPECT_EQ(static_cast<int>(reshaper_dt_s2), 25);
    EXPECT_EQ(static_cast<int>(reshaper_dt_u2), 26);
}

TEST(CApiLibrary, EveryContractDtypeIsRepresentable) {
    const std::vector<std::pair<std::string, reshaper_data_type_t>> dtypes = {
            {"f32", reshaper_dt_f32},
            {"f16", reshaper_dt_f16},
            {"bf16", reshaper_dt_bf16},
            {"s8", reshaper_dt_s8},
            {"u8", reshaper_dt_u8},
            {"s32", reshaper_dt_s32},
            {"boolean", reshaper_dt_boolean},
            {"f8_e5m2", reshaper_dt_f8_e5m2},
            {"f8_e4m3", reshaper_dt_f8_e4m3},
            {"s4", reshaper_dt_s4},
            {"u4", reshaper_dt_u4},
            {"f64", reshaper_dt_f64},
            {"s16", reshaper_dt_s16},
            {"u16", reshaper_dt_u16},
            {"u32", reshaper_dt_u32},
            {"s64", reshaper_dt_s64},
            {"u64", reshaper_dt_u64},
            {"c64", reshaper_dt_c64},
            {"c128", reshaper_dt_c128},
            {"string", reshaper_dt_string},
            {"f8_e4m3fnuz", reshaper_dt_f8_e4m3fnuz},
            {"f8_e5m2fnuz", reshaper_dt_f8_e5m2fnuz},
            {"f8_e8m0", reshaper_dt_f8_e8m0},
            {"f4_e2m1", reshaper_dt_f4_e2m1},
            {"s2", reshaper_dt_s2},
            {"u2", reshaper_dt_u2},
    };
    for (const auto &[name, dtype] : dtypes) {
        reshaper_graph_t graph = nullptr;
        ASSERT_OK(reshaper_graph_create_from_json(single_reshape(name).c_str(), &graph)) << name;
        reshaper_logical_tensor_t lt;
        EXPECT_EQ(reshaper_graph_get_tensor(graph, 1, &lt), reshaper_success) << name;
        EXPECT_EQ(lt.data_type, dtype) << name;
        EXPECT_EQ(dims_of(lt), (std::vector<int64_t>{3, 2})) << name;
        reshaper_graph_destroy(graph);
    }
}

TEST_F(CApi, InfersShapesBeforePartitioning) {
    reshaper_logical_tensor_t lt;
    ASSERT_OK(reshaper_graph_get_tensor(g.graph, 1, &lt));
    EXPECT_EQ(dims_of(lt), (std::vector<int64_t>{4, 6}));
    EXPECT_EQ(strides_of(lt), (std::vector<int64_t>{6, 1}));
    EXPECT_EQ(lt.layout_type, reshaper_layout_strided);
    EXPECT_EQ(lt.data_type, reshaper_dt_f32);
}

TEST_F(CApi, PartitionsClaimTheReshapeAndLeaveTheMatMul) {
    size_t count = 0;
    ASSERT_OK(reshaper_partition_list_get_count(g.list, &count));
    EXPECT_EQ(count, 2u);

    int64_t ids[4];
    size_t n = 0;
    ASSERT_OK(reshaper_partition_get_op_ids(reshape, ids, 4, &n));
    EXPECT_EQ(std::vector<int64_t>(ids, ids + n), std::vector<int64_t>{0});

    reshaper_logical_tensor_t in[2], out[2];
    ASSERT_OK(reshaper_partition_get_inputs(reshape, in, 2, &n));
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(in[0].id, 0);
    EXPECT_EQ(dims_of(in[0]), (std::vector<int64_t>{2, 3, 4}));
    ASSERT_OK(reshaper_partition_get_outputs(reshape, out, 2, &n));
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(out[0].id, 1);
    const char *reason = nullptr;
    ASSERT_OK(reshaper_partition_get_reason(reshape, &reason));
    EXPECT_STREQ(reason, "");

    const_reshaper_partition_t matmul = find_partition(g.list, false);
    ASSERT_NE(matmul, nullptr);
    ASSERT_OK(reshaper_partition_get_op_ids(matmul, ids, 4, &n));
    EXPECT_EQ(std::vector<int64_t>(ids, ids + n), std::vector<int64_t>{7});
    ASSERT_OK(reshaper_partition_get_reason(matmul, &reason));
    EXPECT_TRUE(contains(reason, "MatMul")) << reason;

    // Asking for the count first, then the elements.
    ASSERT_OK(reshaper_partition_get_inputs(matmul, nullptr, 0, &n));
    EXPECT_EQ(n, 2u);
}

TEST_F(CApi, DebugPolicyGivesOnePartitionPerOp) {
    reshaper_partition_list_t list = nullptr;
    ASSERT_OK(reshaper_graph_get_partitions(g.graph, reshaper_policy_debug, reshaper_engine_cpu,
                                            &list));
    size_t count = 0;
    ASSERT_OK(reshaper_partition_list_get_count(list, &count));
    EXPECT_EQ(count, 2u);
    reshaper_partition_list_destroy(list);
}

TEST_F(CApi, CompilesDenseReshapeAsAliasAndExecutes) {
    reshaper_compiled_partition_t cp = compile({}, {});
    ASSERT_NE(cp, nullptr);

    reshaper_lowering_kind_t lowering;
    ASSERT_OK(reshaper_compiled_partition_get_lowering(cp, &lowering));
    EXPECT_EQ(lowering, reshaper_lowering_alias);

    reshaper_inplace_pair_t pairs[4];
    size_t n = 0;
    ASSERT_OK(reshaper_compiled_partition_get_inplace_pairs(cp, pairs, 4, &n));
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(pairs[0].input_id, 0);
    EXPECT_EQ(pairs[0].output_id, 1);

    reshaper_logical_tensor_t out;
    ASSERT_OK(reshaper_compiled_partition_get_outputs(cp, &out, 1, &n));
    EXPECT_EQ(dims_of(out), (std::vector<int64_t>{4, 6}));
    size_t bytes = 0;
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&out, &bytes));
    EXPECT_EQ(bytes, 24 * sizeof(float));

    const char *details = nullptr;
    ASSERT_OK(reshaper_compiled_partition_get_lowering_details(cp, &details));
    EXPECT_GT(std::strlen(details), 0u);

    // Into a separate buffer: a dense reshape keeps the row-major order.
    const std::vector<float> src = iota_f32(24);
    std::vector<float> dst(24, -1.0f);
    const void *inputs[] = {src.data()};
    void *outputs[] = {dst.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, inputs, 1, outputs));
    EXPECT_EQ(dst, src);

    // In place: the output is the input's buffer, nothing changes.
    std::vector<float> shared = iota_f32(24);
    const void *in_place_in[] = {shared.data()};
    void *in_place_out[] = {shared.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, in_place_in, 1, in_place_out));
    EXPECT_EQ(shared, src);
    reshaper_compiled_partition_destroy(cp);
}

TEST_F(CApi, PermutedInputMovesDataInLogicalOrder) {
    // Input [2,3,4] stored column-major: element (i,j,k) at i + 2j + 6k.
    reshaper_logical_tensor_t in, out;
    const int64_t in_dims[] = {2, 3, 4}, in_strides[] = {1, 2, 6};
    ASSERT_OK(reshaper_logical_tensor_init(&in, 0, reshaper_dt_f32, 3, in_dims, in_strides,
                                           reshaper_layout_strided, reshaper_property_undef));
    const int64_t out_dims[] = {4, 6};
    ASSERT_OK(reshaper_logical_tensor_init(&out, 1, reshaper_dt_f32, 2, out_dims, nullptr,
                                           reshaper_layout_any, reshaper_property_undef));
    reshaper_compiled_partition_t cp = compile({in}, {out});
    ASSERT_NE(cp, nullptr);

    reshaper_lowering_kind_t lowering;
    ASSERT_OK(reshaper_compiled_partition_get_lowering(cp, &lowering));
    EXPECT_NE(lowering, reshaper_lowering_alias);
    reshaper_logical_tensor_t chosen;
    size_t n = 0;
    ASSERT_OK(reshaper_compiled_partition_get_outputs(cp, &chosen, 1, &n));
    EXPECT_EQ(chosen.layout_type, reshaper_layout_strided);
    EXPECT_EQ(dims_of(chosen), (std::vector<int64_t>{4, 6}));

    const std::vector<float> src = iota_f32(24);
    size_t bytes = 0;
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&chosen, &bytes));
    std::vector<float> dst(bytes / sizeof(float), -1.0f);
    const void *inputs[] = {src.data()};
    void *outputs[] = {dst.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, inputs, 1, outputs));

    // Logical element f (row-major over [2,3,4]) lands at output (f/6, f%6).
    for (int64_t f = 0; f < 24; ++f) {
        const int64_t i = f / 12, j = f / 4 % 3, k = f % 4;
        const float expected = src[static_cast<size_t>(i + 2 * j + 6 * k)];
        const int64_t at = f / 6 * chosen.strides[0] + f % 6 * chosen.strides[1];
        EXPECT_EQ(dst[static_cast<size_t>(at)], expected) << "element " << f;
    }
    reshaper_compiled_partition_destroy(cp);
}

TEST_F(CApi, BoundaryTensorsNotGivenAreThePartitionsOwn) {
    // Only the output, with layout any: the input comes from the graph.
    reshaper_logical_tensor_t out;
    const int64_t dims[] = {4, 6};
    ASSERT_OK(reshaper_logical_tensor_init(&out, 1, reshaper_dt_f32, 2, dims, nullptr,
                                           reshaper_layout_any, reshaper_property_undef));
    reshaper_compiled_partition_t cp = compile({}, {out});
    ASSERT_NE(cp, nullptr);
    reshaper_logical_tensor_t in, chosen;
    size_t n = 0;
    ASSERT_OK(reshaper_compiled_partition_get_inputs(cp, &in, 1, &n));
    EXPECT_EQ(strides_of(in), (std::vector<int64_t>{12, 4, 1}));
    ASSERT_OK(reshaper_compiled_partition_get_outputs(cp, &chosen, 1, &n));
    EXPECT_EQ(chosen.layout_type, reshaper_layout_strided);
    EXPECT_EQ(strides_of(chosen), (std::vector<int64_t>{6, 1})); // the view of the input
    reshaper_compiled_partition_destroy(cp);
}

// A partition handle remembers its last compile request and goes to the
// cache entry that served it when the next request is the same: the same
// request gets the same compiled partition, and any other one (another
// stride, another count, a bad tensor) is read the whole way.
TEST_F(CApi, RepeatedCompileOfOneHandleIsServedOnlyByAnEqualRequest) {
    reshaper_logical_tensor_t row_major, col_major, out;
    const int64_t in_dims[] = {2, 3, 4}, col_strides[] = {1, 2, 6};
    ASSERT_OK(reshaper_logical_tensor_init(&row_major, 0, reshaper_dt_f32, 3, in_dims, nullptr,
                                           reshaper_layout_strided, reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_init(&col_major, 0, reshaper_dt_f32, 3, in_dims, col_strides,
                                           reshaper_layout_strided, reshaper_property_undef));
    const int64_t out_dims[] = {4, 6};
    ASSERT_OK(reshaper_logical_tensor_init(&out, 1, reshaper_dt_f32, 2, out_dims, nullptr,
                                           reshaper_layout_any, reshaper_property_undef));
    const auto lowering_of = [](reshaper_compiled_partition_t cp) {
        reshaper_lowering_kind_t k = reshaper_lowering_alias;
        EXPECT_EQ(reshaper_compiled_partition_get_lowering(cp, &k), reshaper_success);
        return k;
    };
    for (int round = 0; round < 2; ++round) {
        reshaper_compiled_partition_t a = compile({row_major}, {out});
        reshaper_compiled_partition_t b = compile({col_major}, {out});
        reshaper_compiled_partition_t c = compile({col_major}, {out}); // the same request again
        reshaper_compiled_partition_t d = compile({}, {out});          // another count
        ASSERT_TRUE(a && b && c && d);
        EXPECT_EQ(lowering_of(a), reshaper_lowering_alias);
        EXPECT_NE(lowering_of(b), reshaper_lowering_alias);
        EXPECT_NE(lowering_of(c), reshaper_lowering_alias);
        EXPECT_EQ(lowering_of(d), reshaper_lowering_alias);
        for (auto *cp : {a, b, c, d}) reshaper_compiled_partition_destroy(cp);
    }
    // A bad tensor after a good request is refused, not served.
    reshaper_logical_tensor_t bad = col_major;
    reshaper_compiled_partition_destroy(compile({bad}, {out}));
    bad.dims[1] = -5;
    reshaper_compiled_partition_t cp = nullptr;
    EXPECT_NE(reshaper_partition_compile(reshape, g.engine, 1, &bad, 1, &out, &cp), reshaper_success);
    EXPECT_NE(last_message().find("[dims_at_least_minus_one]"), std::string::npos) << last_message();
    EXPECT_EQ(cp, nullptr);
}

TEST_F(CApi, CompiledPartitionOutlivesListGraphAndEngine) {
    reshaper_compiled_partition_t cp = compile({}, {});
    ASSERT_NE(cp, nullptr);
    reshaper_partition_list_destroy(g.list);
    reshaper_graph_destroy(g.graph);
    reshaper_engine_destroy(g.engine);
    g.list = nullptr;
    g.graph = nullptr;
    g.engine = nullptr;
    reshape = nullptr;

    const std::vector<float> src = iota_f32(24);
    std::vector<float> dst(24);
    const void *inputs[] = {src.data()};
    void *outputs[] = {dst.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, inputs, 1, outputs));
    EXPECT_EQ(dst, src);
    reshaper_compiled_partition_destroy(cp);
}

TEST_F(CApi, OneCompiledPartitionExecutesOnSeveralThreads) {
    reshaper_compiled_partition_t cp = compile({}, {});
    ASSERT_NE(cp, nullptr);
    std::vector<int> failures(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            std::vector<float> src = iota_f32(24), dst(24);
            for (float &v : src) v += static_cast<float>(100 * t);
            const void *inputs[] = {src.data()};
            void *outputs[] = {dst.data()};
            for (int rep = 0; rep < 50; ++rep) {
                std::fill(dst.begin(), dst.end(), -1.0f);
                if (reshaper_compiled_partition_execute(cp, 1, inputs, 1, outputs) !=
                            reshaper_success ||
                    dst != src)
                    ++failures[t];
            }
        });
    for (auto &th : threads) th.join();
    EXPECT_EQ(failures, std::vector<int>(4, 0));
    reshaper_compiled_partition_destroy(cp);
}

TEST_F(CApi, JsonRoundTripKeepsTheGraph) {
    size_t size = 0;
    ASSERT_OK(reshaper_graph_to_json(g.graph, nullptr, 0, &size));
    std::vector<char> text(size);
    ASSERT_OK(reshaper_graph_to_json(g.graph, text.data(), text.size(), &size));
    EXPECT_EQ(text.back(), '\0');
    EXPECT_TRUE(contains(text.data(), "StaticReshape"));

    reshaper_graph_t again = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(text.data(), &again));
    reshaper_logical_tensor_t a, b;
    ASSERT_OK(reshaper_graph_get_tensor(g.graph, 1, &a));
    ASSERT_OK(reshaper_graph_get_tensor(again, 1, &b));
    EXPECT_EQ(dims_of(a), dims_of(b));
    EXPECT_EQ(strides_of(a), strides_of(b));
    reshaper_graph_destroy(again);
}

TEST(CApiValues, ConstantShapeInputValuesAreReadable) {
    const char *json = R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
      { "id": 0, "name": "R", "kind": "Reshape", "domain": "ai.onnx", "version": 14,
        "attrs": { "allowzero": {"type": "s64", "value": 0} },
        "inputs": [ {"id": 0, "dtype": "f32", "shape": [2, 6], "stride": [6, 1],
                     "layout_type": "strided", "property_type": "undef"},
                    {"id": 5, "dtype": "s64", "shape": [2], "stride": [1],
                     "layout_type": "strided", "property_type": "constant", "values": [3, -1]} ],
        "outputs": [ {"id": 1, "dtype": "f32", "shape": [-1, -1], "stride": [],
                      "layout_type": "strided", "property_type": "undef"} ] } ] })";
    reshaper_graph_t graph = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(json, &graph));
    size_t size = 0;
    ASSERT_OK(reshaper_graph_get_tensor_values(graph, 5, nullptr, 0, &size));
    ASSERT_EQ(size, 2 * sizeof(int64_t));
    int64_t values[2] = {0, 0};
    ASSERT_OK(reshaper_graph_get_tensor_values(graph, 5, values, sizeof values, &size));
    EXPECT_EQ(values[0], 3);
    EXPECT_EQ(values[1], -1);
    ASSERT_OK(reshaper_graph_get_tensor_values(graph, 0, nullptr, 0, &size));
    EXPECT_EQ(size, 0u);

    // Inference resolves the -1 from the constant: 12 / 3.
    ASSERT_OK(reshaper_graph_infer_shapes(graph));
    reshaper_logical_tensor_t out;
    ASSERT_OK(reshaper_graph_get_tensor(graph, 1, &out));
    EXPECT_EQ(dims_of(out), (std::vector<int64_t>{3, 4}));
    reshaper_graph_destroy(graph);
}

TEST(CApiLogicalTensor, InitFillsDenseMarkersAndMemSizeCountsBytes) {
    reshaper_logical_tensor_t lt;
    const int64_t dims[] = {3, 5};
    ASSERT_OK(reshaper_logical_tensor_init(&lt, 4, reshaper_dt_s4, 2, dims, nullptr,
                                           reshaper_layout_strided, reshaper_property_variable));
    EXPECT_EQ(lt.strides[0], RESHAPER_UNKNOWN_DIM);
    EXPECT_EQ(lt.strides[1], RESHAPER_UNKNOWN_DIM);
    EXPECT_STREQ(lt.format, "");
    size_t bytes = 0;
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&lt, &bytes));
    EXPECT_EQ(bytes, 8u); // 15 nibbles round up to 8 bytes
    ASSERT_OK(reshaper_logical_tensor_init(&lt, 4, reshaper_dt_u2, 2, dims, nullptr,
                                           reshaper_layout_strided, reshaper_property_variable));
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&lt, &bytes));
    EXPECT_EQ(bytes, 4u); // 15 bit pairs round up to 4 bytes
    const int64_t s2_strides[] = {7, 1};
    ASSERT_OK(reshaper_logical_tensor_init(&lt, 4, reshaper_dt_s2, 2, dims, s2_strides,
                                           reshaper_layout_strided, reshaper_property_variable));
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&lt, &bytes));
    EXPECT_EQ(bytes, 5u); // last element at 2 * 7 + 4: 19 bit pairs

    const int64_t padded[] = {2, 3};
    const int64_t strides[] = {10, 1};
    ASSERT_OK(reshaper_logical_tensor_init(&lt, 4, reshaper_dt_f64, 2, padded, strides,
                                           reshaper_layout_strided, reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&lt, &bytes));
    EXPECT_EQ(bytes, 13 * sizeof(double)); // last element at offset 12
}

TEST(CApiLayouts, OpaqueBlockedInputIsReorderedIntoLogicalOrder) {
    const char *json = R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
      { "id": 0, "name": "Flatten", "kind": "StaticReshape",
        "attrs": { "special_zero": {"type": "bool", "value": 0},
                   "shape": {"type": "s64[]", "value": [1, 512]} },
        "inputs":  [ {"id": 0, "dtype": "f32", "shape": [1, 32, 4, 4], "stride": [],
                      "layout_type": "opaque", "format": "nChw16c", "property_type": "undef"} ],
        "outputs": [ {"id": 1, "dtype": "f32", "shape": [1, 512], "stride": [512, 1],
                      "layout_type": "strided", "property_type": "undef"} ] } ] })";
    loaded g;
    const_reshaper_partition_t p = nullptr;
    ASSERT_OK(reshaper_graph_create_from_json(json, &g.graph));
    ASSERT_OK(reshaper_graph_get_partitions(g.graph, reshaper_policy_fusion, reshaper_engine_cpu,
                                            &g.list));
    ASSERT_OK(reshaper_partition_list_get(g.list, 0, &p));
    reshaper_logical_tensor_t in;
    size_t n = 0;
    ASSERT_OK(reshaper_partition_get_inputs(p, &in, 1, &n));
    EXPECT_EQ(in.layout_type, reshaper_layout_opaque);
    EXPECT_STREQ(in.format, "nChw16c");
    size_t bytes = 0;
    ASSERT_OK(reshaper_logical_tensor_get_mem_size(&in, &bytes));
    EXPECT_EQ(bytes, 512 * sizeof(float));

    ASSERT_OK(reshaper_engine_create(reshaper_engine_cpu, 0, &g.engine));
    reshaper_compiled_partition_t cp = nullptr;
    ASSERT_OK(reshaper_partition_compile(p, g.engine, 0, nullptr, 0, nullptr, &cp));
    reshaper_lowering_kind_t lowering;
    ASSERT_OK(reshaper_compiled_partition_get_lowering(cp, &lowering));
    EXPECT_NE(lowering, reshaper_lowering_alias);

    // Blocked storage: (c / 16, h, w, c % 16), outermost first.
    const std::vector<float> logical = iota_f32(512);
    std::vector<float> blocked(512), dst(512, -1.0f);
    for (int c = 0; c < 32; ++c)
        for (int h = 0; h < 4; ++h)
            for (int w = 0; w < 4; ++w)
                blocked[static_cast<size_t>(((c / 16 * 4 + h) * 4 + w) * 16 + c % 16)] =
                        logical[static_cast<size_t>((c * 4 + h) * 4 + w)];
    const void *inputs[] = {blocked.data()};
    void *outputs[] = {dst.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, inputs, 1, outputs));
    EXPECT_EQ(dst, logical);
    reshaper_compiled_partition_destroy(cp);
}

// The 4 KiB f32 transpose (issue 27's fixed cost): the execute runs the
// call prepared at compile time from the handle; its output is the checked
// path's (execute_dynamic: every buffer checked), bit for bit, and bad
// buffers still get the checked path's errors.
TEST(CApiExecute, PreparedTransposeMatchesTheCheckedPathAndRejectsBadBuffers) {
    const char *json = R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
      { "id": 0, "name": "Transpose", "kind": "StaticTranspose",
        "attrs": { "order": {"type": "s64[]", "value": [1, 0]} },
        "inputs":  [ {"id": 0, "dtype": "f32", "shape": [32, 32], "stride": [32, 1],
                      "layout_type": "strided", "property_type": "undef"} ],
        "outputs": [ {"id": 1, "dtype": "f32", "shape": [32, 32], "stride": [32, 1],
                      "layout_type": "strided", "property_type": "undef"} ] } ] })";
    loaded g;
    reshaper_compiled_partition_t cp = nullptr;
    ASSERT_NO_FATAL_FAILURE(compile_first_partition(json, g, &cp));

    std::vector<float> src(1024);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.5f - 7.25f;
    src[3] = -0.0f; // bits, not values: a signed zero stays one
    std::vector<float> fast(1024, -1.0f), checked(1024, -1.0f);
    const void *inputs[] = {src.data()};
    void *fast_out[] = {fast.data()}, *checked_out[] = {checked.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, inputs, 1, fast_out));
    ASSERT_OK(reshaper_compiled_partition_execute_dynamic(cp, 1, inputs, 1, checked_out, nullptr));
    EXPECT_EQ(0, std::memcmp(fast.data(), checked.data(), 4096));
    for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c) ASSERT_EQ(fast[static_cast<size_t>(r * 32 + c)], src[static_cast<size_t>(c * 32 + r)]);

    // An output overlapping the input, a NULL output, no outputs: errors
    // naming the problem, nothing written.
    std::vector<float> before = src;
    void *overlapping[] = {src.data() + 1};
    EXPECT_EQ(reshaper_compiled_partition_execute(cp, 1, inputs, 1, overlapping), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "overlaps the input")) << last_message();
    EXPECT_EQ(src, before);
    void *missing[] = {nullptr};
    EXPECT_EQ(reshaper_compiled_partition_execute(cp, 1, inputs, 1, missing), reshaper_invalid_arguments);
    EXPECT_FALSE(last_message().empty());
    EXPECT_EQ(reshaper_compiled_partition_execute(cp, 1, inputs, 0, nullptr), reshaper_invalid_arguments);
    EXPECT_EQ(reshaper_compiled_partition_execute(nullptr, 1, inputs, 1, fast_out), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "compiled is NULL")) << last_message();
    reshaper_compiled_partition_destroy(cp);
}

// The driver's NHWC-as-NCHW graph (f32 [1,16,8,8] stored NHWC, 4 KiB), its
// shape a constant input tensor: the execute runs the call prepared at
// compile time (the shape's values fixed by it) with the output of the
// checked path, bit for bit; other shape values get the checked path's
// result as before (a constant's buffer is not read), a NULL shape buffer
// or a missing input its error.
TEST(CApiExecute, ConstantShapeInputRunsPreparedWithTheCheckedPathsResults) {
    const char *json = R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
      { "id": 0, "name": "nhwc_as_nchw", "kind": "Reshape", "domain": "ai.onnx", "version": 21,
        "attrs": { "allowzero": {"type": "s64", "value": 0} },
        "inputs":  [ {"id": 0, "dtype": "f32", "shape": [1, 16, 8, 8], "stride": [1024, 1, 128, 16],
                      "layout_type": "strided", "property_type": "undef"},
                     {"id": 2, "dtype": "s64", "shape": [2], "stride": [1],
                      "layout_type": "strided", "property_type": "constant", "values": [1, 1024]} ],
        "outputs": [ {"id": 1, "dtype": "f32", "shape": [1, 1024], "stride": [1024, 1],
                      "layout_type": "strided", "property_type": "undef"} ] } ] })";
    loaded g;
    reshaper_compiled_partition_t cp = nullptr;
    ASSERT_NO_FATAL_FAILURE(compile_first_partition(json, g, &cp));
    reshaper_logical_tensor_t lts[2];
    size_t count = 0;
    ASSERT_OK(reshaper_compiled_partition_get_inputs(cp, lts, 2, &count));
    ASSERT_EQ(count, 2u);
    const size_t data_at = lts[0].id == 0 ? 0 : 1;

    std::vector<float> src(1024); // element (c, hw) at hw * 16 + c
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.25f - 3.5f;
    const int64_t as_compiled[] = {1, 1024}, other[] = {32, 32};
    std::vector<float> fast(1024, -1.0f), checked(1024, -1.0f), other_values(1024, -1.0f);
    const void *inputs[2];
    inputs[data_at] = src.data();
    inputs[1 - data_at] = as_compiled;
    void *fast_out[] = {fast.data()}, *checked_out[] = {checked.data()}, *other_out[] = {other_values.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 2, inputs, 1, fast_out));
    ASSERT_OK(reshaper_compiled_partition_execute_dynamic(cp, 2, inputs, 1, checked_out, nullptr));
    EXPECT_EQ(0, std::memcmp(fast.data(), checked.data(), 4096));
    for (size_t c = 0; c < 16; ++c)
        for (size_t hw = 0; hw < 64; ++hw) ASSERT_EQ(fast[c * 64 + hw], src[hw * 16 + c]);

    inputs[1 - data_at] = other;
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 2, inputs, 1, other_out));
    EXPECT_EQ(other_values, fast);
    inputs[1 - data_at] = nullptr;
    EXPECT_EQ(reshaper_compiled_partition_execute(cp, 2, inputs, 1, fast_out), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "is NULL")) << last_message();
    EXPECT_EQ(reshaper_compiled_partition_execute(cp, 1, inputs + data_at, 1, fast_out), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "the partition has 2 inputs")) << last_message();
    reshaper_compiled_partition_destroy(cp);
}
