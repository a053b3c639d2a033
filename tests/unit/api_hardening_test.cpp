// The C API against hostile callers (issue 9): every argument it cannot use
// is invalid_arguments naming the value, never undefined behaviour or a
// silent fallback, and every layout it hands out it accepts back.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "reshaper/reshaper.h"

namespace {

std::string last_message() {
    const char *message = nullptr;
    reshaper_get_last_error(nullptr, &message);
    return message ? message : "";
}

#define ASSERT_OK(call) ASSERT_EQ((call), reshaper_success) << last_message()

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// The integer a C caller may pass where an enum is expected.
template <typename Enum>
Enum from_int(int v) {
    Enum e;
    static_assert(sizeof e == sizeof v);
    std::memcpy(&e, &v, sizeof v);
    return e;
}

// StaticReshape 0:[2,3] -> 1:[3,2]; the input's layout is given by `input_stride`.
std::string reshape_graph(const std::string &input_stride, const std::string &output_layout) {
    return R"({"version": "3.3.0", "engine_kind": "cpu", "graph": [
      {"id": 0, "name": "Reshape_0", "kind": "StaticReshape",
       "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [3, 2]}},
       "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 3], "stride": )" + input_stride + R"(,
                   "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 1, "dtype": "f32", "shape": [3, 2], "stride": [],
                    "layout_type": ")" + output_layout + R"(", "property_type": "undef"}]}]})";
}

struct compiled_setup {
    reshaper_graph_t graph = nullptr;
    reshaper_partition_list_t list = nullptr;
    const_reshaper_partition_t partition = nullptr;
    reshaper_engine_t engine = nullptr;

    explicit compiled_setup(const std::string &json) {
        EXPECT_EQ(reshaper_graph_create_from_json(json.c_str(), &graph), reshaper_success) << last_message();
        EXPECT_EQ(reshaper_graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu, &list),
                  reshaper_success)
            << last_message();
        EXPECT_EQ(reshaper_partition_list_get(list, 0, &partition), reshaper_success);
        EXPECT_EQ(reshaper_engine_create(reshaper_engine_cpu, 0, &engine), reshaper_success);
    }
    ~compiled_setup() {
        reshaper_engine_destroy(engine);
        reshaper_partition_list_destroy(list);
        reshaper_graph_destroy(graph);
    }
};

} // namespace

TEST(CApiArguments, DimsBelowMinusOneAreRefusedByInit) {
    reshaper_logical_tensor_t lt;
    const int64_t dims[] = {2, -5};
    // invalid_shape: the status the rule table gives dims_at_least_minus_one
    // (the graph file reader's and the builder's too).
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 3, reshaper_dt_f32, 2, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef),
              reshaper_invalid_shape);
    EXPECT_TRUE(contains(last_message(), "dims[1] = -5 is below -1")) << last_message();
    const int64_t unknown[] = {2, -1};
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 3, reshaper_dt_f32, 2, unknown, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef),
              reshaper_success);
}

TEST(CApiArguments, OutOfRangeEnumsAreRefusedBeforeUse) {
    reshaper_logical_tensor_t lt;
    const int64_t dims[] = {2};
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, from_int<reshaper_data_type_t>(99), 1, dims, nullptr,
                                           reshaper_layout_strided, reshaper_property_undef),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "data_type 99 is out of range")) << last_message();
    // The first value past the last dtype (u2).
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, from_int<reshaper_data_type_t>(reshaper_dt_u2 + 1), 1, dims,
                                           nullptr, reshaper_layout_strided, reshaper_property_undef),
              reshaper_invalid_arguments);
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, reshaper_dt_u2, 1, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef),
              reshaper_success);
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, reshaper_dt_f32, 1, dims, nullptr,
                                           from_int<reshaper_layout_type_t>(-3), reshaper_property_undef),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "layout_type -3")) << last_message();
    EXPECT_EQ(reshaper_logical_tensor_init(&lt, 0, reshaper_dt_f32, 1, dims, nullptr, reshaper_layout_strided,
                                           from_int<reshaper_property_type_t>(1000)),
              reshaper_invalid_arguments);

    reshaper_engine_t engine = nullptr;
    EXPECT_EQ(reshaper_engine_create(from_int<reshaper_engine_kind_t>(7), 0, &engine), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "engine_kind 7 is out of range")) << last_message();
    EXPECT_EQ(engine, nullptr);

    compiled_setup s(reshape_graph("[3, 1]", "strided"));
    reshaper_partition_list_t list = nullptr;
    EXPECT_EQ(reshaper_graph_get_partitions(s.graph, from_int<reshaper_partition_policy_t>(5),
                                            reshaper_engine_cpu, &list),
              reshaper_invalid_arguments);
    EXPECT_EQ(list, nullptr);
}

TEST(CApiArguments, CompileRefusesATensorThatIsNoBoundaryTensorOfThePartition) {
    compiled_setup s(reshape_graph("[3, 1]", "strided"));
    reshaper_logical_tensor_t in, typo;
    const int64_t dims[] = {2, 3};
    ASSERT_OK(reshaper_logical_tensor_init(&in, 0, reshaper_dt_f32, 2, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef));
    ASSERT_OK(reshaper_logical_tensor_init(&typo, 10, reshaper_dt_f32, 2, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef));
    reshaper_compiled_partition_t cp = nullptr;
    EXPECT_EQ(reshaper_partition_compile(s.partition, s.engine, 1, &typo, 0, nullptr, &cp),
              reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "input tensor 10 given to compile is not an input of partition"))
        << last_message();
    EXPECT_EQ(reshaper_partition_compile(s.partition, s.engine, 0, nullptr, 1, &in, &cp), reshaper_invalid_arguments);
    EXPECT_TRUE(contains(last_message(), "output tensor 0")) << last_message();
    EXPECT_EQ(cp, nullptr);
    ASSERT_OK(reshaper_partition_compile(s.partition, s.engine, 1, &in, 0, nullptr, &cp));
    reshaper_compiled_partition_destroy(cp);
}

TEST(CApiArguments, AnAnyOutputOverABroadcastInputGetsALayoutTheLibraryTakesBack) {
    // The input's rows share memory (stride 0): a view of it would give the
    // output elements one address each several times over, which no output
    // may have. The output is a dense copy instead.
    compiled_setup s(reshape_graph("[0, 1]", "any"));
    reshaper_compiled_partition_t cp = nullptr;
    ASSERT_OK(reshaper_partition_compile(s.partition, s.engine, 0, nullptr, 0, nullptr, &cp));
    reshaper_logical_tensor_t out;
    size_t n = 0;
    ASSERT_OK(reshaper_compiled_partition_get_outputs(cp, &out, 1, &n));
    EXPECT_EQ(std::vector<int64_t>(out.strides, out.strides + out.ndims), (std::vector<int64_t>{2, 1}));
    reshaper_lowering_kind_t lowering;
    ASSERT_OK(reshaper_compiled_partition_get_lowering(cp, &lowering));
    EXPECT_NE(lowering, reshaper_lowering_alias);

    const std::vector<float> src = {1, 2, 3}; // one row, read twice
    std::vector<float> dst(6, -1);
    const void *inputs[] = {src.data()};
    void *outputs[] = {dst.data()};
    ASSERT_OK(reshaper_compiled_partition_execute(cp, 1, inputs, 1, outputs));
    EXPECT_EQ(dst, (std::vector<float>{1, 2, 3, 1, 2, 3}));

    // Handed back as the output's layout, it compiles.
    reshaper_compiled_partition_t again = nullptr;
    ASSERT_OK(reshaper_partition_compile(s.partition, s.engine, 0, nullptr, 1, &out, &again));
    reshaper_compiled_partition_destroy(again);
    reshaper_compiled_partition_destroy(cp);
}

namespace {

// Four independent reshapes [4,6] -> [24] of column-major inputs (a copy,
// not a view), tensors 2k -> 2k+1.
std::string four_reshapes() {
    std::string ops;
    for (int k = 0; k < 4; ++k) {
        if (k) ops += ",";
        ops += R"({"id": )" + std::to_string(k) + R"(, "name": "r)" + std::to_string(k) + R"(", "kind": "StaticReshape",
          "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [24]}},
          "inputs": [{"id": )" + std::to_string(2 * k) + R"(, "dtype": "f32", "shape": [4, 6], "stride": [1, 4],
                      "layout_type": "strided", "property_type": "undef"}],
          "outputs": [{"id": )" + std::to_string(2 * k + 1) + R"(, "dtype": "f32", "shape": [24], "stride": [1],
                       "layout_type": "strided", "property_type": "undef"}]})";
    }
    return R"({"version": "3.3.0", "engine_kind": "cpu", "graph": [)" + ops + "]}";
}

} // namespace

// Eight threads share one finalized graph, its partition list and an
// engine; each compiles (through the process's compiled-partition cache,
// the same partitions as other threads at once) and executes, and checks
// the result. Run under ThreadSanitizer by scripts/sanitize.sh thread.
// Found by fuzz_builder: values for a tensor added with dtype undef divided
// by its element size (0) and killed the process with SIGFPE. Now the
// status and rule a graph file with such values gets.
TEST(CApiArguments, ValuesForAnUndefTensorAreInvalidDataTypeNotADivisionByZero) {
    reshaper_graph_t graph = nullptr;
    ASSERT_OK(reshaper_graph_create(reshaper_engine_cpu, &graph));
    reshaper_op_t op = nullptr;
    ASSERT_OK(reshaper_op_create(&op, 0, "MatMul", "m"));
    const std::int64_t dims[] = {2, 3};
    reshaper_logical_tensor_t in{}, out{};
    ASSERT_OK(reshaper_logical_tensor_init(&in, 0, reshaper_dt_undef, 2, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_constant));
    ASSERT_OK(reshaper_logical_tensor_init(&out, 1, reshaper_dt_f32, 2, dims, nullptr, reshaper_layout_strided,
                                           reshaper_property_undef));
    ASSERT_OK(reshaper_op_add_input(op, &in));
    ASSERT_OK(reshaper_op_add_output(op, &out));
    ASSERT_OK(reshaper_graph_add_op(graph, op));
    const std::uint8_t bytes[8] = {};
    for (std::size_t size : {std::size_t{0}, std::size_t{6}, sizeof bytes}) {
        EXPECT_EQ(reshaper_graph_set_tensor_values(graph, 0, bytes, size), reshaper_invalid_data_type) << size;
        const std::string message = last_message();
        EXPECT_TRUE(contains(message, "tensor 0 [2,3]: values need a defined dtype, got undef")) << message;
        const char *rule = nullptr;
        reshaper_get_last_error_rule(&rule);
        EXPECT_STREQ(rule, "value_fits_dtype");
    }
    reshaper_op_destroy(op);
    reshaper_graph_destroy(graph);
}

TEST(CApiThreads, EightThreadsCompileAndExecuteOverlappingPartitionsOfOneSharedGraph) {
    compiled_setup s(four_reshapes());
    size_t count = 0;
    ASSERT_OK(reshaper_partition_list_get_count(s.list, &count));
    ASSERT_EQ(count, 4u); // independent ops: one partition each

    std::vector<float> input(24);
    for (int i = 0; i < 24; ++i) input[static_cast<std::size_t>(i)] = static_cast<float>(i) + 0.5f;
    std::vector<float> expected(24); // row-major order of a column-major [4,6]
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 6; ++j) expected[static_cast<std::size_t>(i * 6 + j)] = input[static_cast<std::size_t>(i + 4 * j)];

    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 25; ++round) {
                const_reshaper_partition_t p = nullptr;
                reshaper_compiled_partition_t cp = nullptr;
                if (reshaper_partition_list_get(s.list, static_cast<size_t>((t + round) % 4), &p) != reshaper_success ||
                    reshaper_partition_compile(p, s.engine, 0, nullptr, 0, nullptr, &cp) != reshaper_success) {
                    ++failures;
                    continue;
                }
                std::vector<float> out(24, -1);
                const void *ins[] = {input.data()};
                void *outs[] = {out.data()};
                if (reshaper_compiled_partition_execute(cp, 1, ins, 1, outs) != reshaper_success || out != expected)
                    ++failures;
                reshaper_compiled_partition_destroy(cp);
            }
        });
    for (auto &th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
}
