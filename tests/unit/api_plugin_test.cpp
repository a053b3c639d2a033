// libreshaper.so as a plugin: dlopen() it, find reshaper_plugin_entry, and
// run a graph file end to end through the function table only. Also checks
// that the library exports nothing but reshaper_* symbols.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "api_test_graphs.hpp"
#include "reshaper/plugin.h"

using namespace api_test;

namespace {

const char *const library_path = RESHAPER_LIBRARY_PATH;

class Plugin : public ::testing::Test {
protected:
    void SetUp() override {
        handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(handle, nullptr) << dlerror();
        entry = reinterpret_cast<reshaper_plugin_entry_fn>(
                dlsym(handle, RESHAPER_PLUGIN_ENTRY_NAME));
        ASSERT_NE(entry, nullptr) << dlerror();
        api = entry(RESHAPER_PLUGIN_ABI_VERSION);
        ASSERT_NE(api, nullptr);
    }
    void TearDown() override {
        if (handle) dlclose(handle);
    }

    std::string message() const {
        const char *m = nullptr;
        api->get_last_error(nullptr, &m);
        return m;
    }

    void *handle = nullptr;
    reshaper_plugin_entry_fn entry = nullptr;
    const reshaper_plugin_api *api = nullptr;
};

#define ASSERT_OK(call) ASSERT_EQ((call), reshaper_success) << message()

// A buffer of `bytes` bytes filled with a pattern that differs per byte.
std::vector<unsigned char> patterned(size_t bytes, unsigned seed) {
    std::vector<unsigned char> b(bytes);
    for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(i * 7 + seed);
    return b;
}

} // namespace

TEST_F(Plugin, EntryPointGivesVersionOneOnly) {
    EXPECT_EQ(api->abi_version, 1u);
    EXPECT_STREQ(api->name, "reshaper");
    EXPECT_GT(std::strlen(api->version), 0u);
    EXPECT_EQ(entry(2), nullptr);
    EXPECT_EQ(entry(0), nullptr);
    EXPECT_EQ(entry(RESHAPER_PLUGIN_ABI_VERSION), api); // one static table

    const char *const *kinds = nullptr;
    size_t count = 0;
    ASSERT_OK(api->get_handled_op_kinds(&kinds, &count));
    EXPECT_GE(count, 4u);
}

TEST_F(Plugin, RunsAGraphFileEndToEndThroughTheTable) {
    const std::string path = std::string(RESHAPER_SOURCE_DIR) + "/examples/attention_reshapes.json";
    reshaper_graph_t graph = nullptr;
    ASSERT_OK(api->graph_create_from_file(path.c_str(), &graph));
    reshaper_partition_list_t list = nullptr;
    ASSERT_OK(api->graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu, &list));
    reshaper_engine_t engine = nullptr;
    ASSERT_OK(api->engine_create(reshaper_engine_cpu, 0, &engine));

    size_t count = 0;
    ASSERT_OK(api->partition_list_get_count(list, &count));
    std::set<int64_t> reshape_ops_run;
    for (size_t i = 0; i < count; ++i) {
        const_reshaper_partition_t p = nullptr;
        int supported = 0;
        ASSERT_OK(api->partition_list_get(list, i, &p));
        ASSERT_OK(api->partition_is_supported(p, &supported));
        if (!supported) continue;

        reshaper_compiled_partition_t cp = nullptr;
        ASSERT_OK(api->partition_compile(p, engine, 0, nullptr, 0, nullptr, &cp));
        size_t n_in = 0, n_out = 0;
        ASSERT_OK(api->compiled_partition_get_inputs(cp, nullptr, 0, &n_in));
        ASSERT_OK(api->compiled_partition_get_outputs(cp, nullptr, 0, &n_out));
        std::vector<reshaper_logical_tensor_t> in(n_in), out(n_out);
        ASSERT_OK(api->compiled_partition_get_inputs(cp, in.data(), n_in, &n_in));
        ASSERT_OK(api->compiled_partition_get_outputs(cp, out.data(), n_out, &n_out));
        ASSERT_EQ(n_out, 1u);

        // Inputs: the file's values where it gives them, else a pattern.
        std::vector<std::vector<unsigned char>> in_buffers;
        std::vector<const void *> in_pointers;
        for (const auto &lt : in) {
            size_t bytes = 0, value_bytes = 0;
            ASSERT_OK(api->logical_tensor_get_mem_size(&lt, &bytes));
            ASSERT_OK(api->graph_get_tensor_values(graph, lt.id, nullptr, 0, &value_bytes));
            auto buffer = patterned(bytes, static_cast<unsigned>(lt.id));
            if (value_bytes > 0) {
                ASSERT_EQ(value_bytes, bytes);
                ASSERT_OK(api->graph_get_tensor_values(graph, lt.id, buffer.data(), bytes,
                                                       &value_bytes));
            }
            in_buffers.push_back(std::move(buffer));
            in_pointers.push_back(in_buffers.back().data());
        }
        size_t out_bytes = 0;
        ASSERT_OK(api->logical_tensor_get_mem_size(&out[0], &out_bytes));
        std::vector<unsigned char> result(out_bytes, 0xAB);
        void *out_pointers[] = {result.data()};
        ASSERT_OK(api->compiled_partition_execute(cp, in_pointers.size(), in_pointers.data(), 1,
                                                  out_pointers));
        reshaper_lowering_kind_t lowering;
        ASSERT_OK(api->compiled_partition_get_lowering(cp, &lowering));
        if (lowering == reshaper_lowering_alias) {
            // Split heads: the output views the input, so a copy of the view
            // holds the input's bytes.
            EXPECT_EQ(result, in_buffers[0]) << "partition " << i;
        } else {
            // Merge heads: [2,12,128,64] (b,h,s,d) moved to [256,768] (b,s,h,d).
            ASSERT_EQ(result.size(), in_buffers[0].size());
            const float *from = reinterpret_cast<const float *>(in_buffers[0].data());
            const float *to = reinterpret_cast<const float *>(result.data());
            for (int b = 0; b < 2; ++b)
                for (int h = 0; h < 12; ++h)
                    for (int s = 0; s < 128; ++s)
                        for (int d = 0; d < 64; ++d)
                            ASSERT_EQ(std::memcmp(&to[((b * 128 + s) * 12 + h) * 64 + d],
                                                  &from[((b * 12 + h) * 128 + s) * 64 + d], 4), 0);
        }

        int64_t ids[8];
        size_t n_ops = 0;
        ASSERT_OK(api->partition_get_op_ids(p, ids, 8, &n_ops));
        reshape_ops_run.insert(ids, ids + n_ops);
        ASSERT_OK(api->compiled_partition_destroy(cp));
    }
    // The file's five reshapes and four transposes, each run once.
    EXPECT_EQ(reshape_ops_run, (std::set<int64_t>{1, 2, 4, 5, 7, 8, 12, 13, 14}));

    ASSERT_OK(api->engine_destroy(engine));
    ASSERT_OK(api->partition_list_destroy(list));
    ASSERT_OK(api->graph_destroy(graph));
}

TEST_F(Plugin, EveryCorpusFileLoadsPartitionsAndCompilesThroughTheTable) {
    const std::filesystem::path corpus = std::filesystem::path(RESHAPER_SHARED_DIR) / "corpus";
    if (!std::filesystem::exists(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
    reshaper_engine_t engine = nullptr;
    ASSERT_OK(api->engine_create(reshaper_engine_cpu, 0, &engine));
    size_t files = 0, compiled_partitions = 0;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(corpus)) {
        if (entry.path().extension() != ".json") continue;
        SCOPED_TRACE(entry.path().string());
        ++files;
        reshaper_graph_t graph = nullptr;
        reshaper_partition_list_t list = nullptr;
        ASSERT_OK(api->graph_create_from_file(entry.path().c_str(), &graph));
        ASSERT_OK(api->graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu,
                                            &list));
        size_t count = 0;
        ASSERT_OK(api->partition_list_get_count(list, &count));
        EXPECT_GT(count, 0u);
        for (size_t i = 0; i < count; ++i) {
            const_reshaper_partition_t p = nullptr;
            int supported = 0;
            ASSERT_OK(api->partition_list_get(list, i, &p));
            ASSERT_OK(api->partition_is_supported(p, &supported));
            if (!supported) continue;
            reshaper_compiled_partition_t cp = nullptr;
            ASSERT_OK(api->partition_compile(p, engine, 0, nullptr, 0, nullptr, &cp));
            ++compiled_partitions;
            api->compiled_partition_destroy(cp);
        }
        api->partition_list_destroy(list);
        api->graph_destroy(graph);
    }
    EXPECT_GT(files, 100u);
    EXPECT_GE(compiled_partitions, 1u); // f32/static_reshape.json at least
    api->engine_destroy(engine);
}

TEST_F(Plugin, ErrorsComeBackThroughTheTable) {
    reshaper_graph_t graph = nullptr;
    EXPECT_EQ(api->graph_create_from_json("{\"graph\": [", &graph), reshaper_invalid_graph);
    reshaper_status_t status = reshaper_success;
    const char *m = nullptr;
    ASSERT_OK(api->get_last_error(&status, &m));
    EXPECT_EQ(status, reshaper_invalid_graph);
    EXPECT_GT(std::strlen(m), 0u);
    const char *name = nullptr;
    ASSERT_OK(api->status_name(status, &name));
    EXPECT_STREQ(name, "invalid_graph");

    reshaper_engine_t engine = nullptr;
    EXPECT_EQ(api->engine_create(reshaper_engine_gpu, 0, &engine), reshaper_unavailable);
    EXPECT_EQ(api->graph_destroy(nullptr), reshaper_invalid_arguments);
}

TEST(ExportedSymbols, OnlyTheCApiAndThePluginEntry) {
    const std::string command = std::string("nm -D --defined-only ") + library_path + " 2>&1";
    FILE *pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::set<std::string> symbols;
    char line[1024];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        // "<address> <type> <name>\n"
        std::string text(line);
        if (!text.empty() && text.back() == '\n') text.pop_back();
        const auto space = text.rfind(' ');
        if (space != std::string::npos) symbols.insert(text.substr(space + 1));
    }
    const int rc = pclose(pipe);
    if (rc != 0 && symbols.empty()) GTEST_SKIP() << "nm is not available";
    ASSERT_EQ(rc, 0);

    for (const auto &s : symbols) EXPECT_EQ(s.rfind("reshaper_", 0), 0u) << s;
    for (const char *required :
         {"reshaper_plugin_entry", "reshaper_graph_create_from_json", "reshaper_partition_compile",
          "reshaper_compiled_partition_execute", "reshaper_get_last_error"})
        EXPECT_EQ(symbols.count(required), 1u) << required;
}

// The builder, the rule of the last error and dynamic execution, through the
// table only.
TEST_F(Plugin, BuildsAGraphThroughTheTable) {
    reshaper_graph_t g = nullptr;
    reshaper_op_t op = nullptr;
    ASSERT_EQ(api->graph_create(reshaper_engine_cpu, &g), reshaper_success);
    ASSERT_EQ(api->op_create(&op, 0, "StaticReshape", "r"), reshaper_success);
    reshaper_logical_tensor_t in{}, out{};
    const int64_t in_dims[] = {2, 3}, out_dims[] = {-1}, shape[] = {6};
    in.id = 0; in.data_type = reshaper_dt_f32; in.ndims = 2; in.layout_type = reshaper_layout_strided;
    std::copy(in_dims, in_dims + 2, in.dims);
    std::fill(in.strides, in.strides + RESHAPER_MAX_NDIMS, RESHAPER_UNKNOWN_DIM);
    out = in;
    out.id = 1; out.ndims = 1; out.dims[0] = out_dims[0];
    ASSERT_EQ(api->op_add_input(op, &in), reshaper_success);
    ASSERT_EQ(api->op_add_output(op, &out), reshaper_success);
    ASSERT_EQ(api->op_set_attr_s64s(op, "shape", shape, 1), reshaper_success);
    ASSERT_EQ(api->op_set_attr_bool(op, "special_zero", 0), reshaper_success);
    ASSERT_EQ(api->graph_add_op(g, op), reshaper_success);
    EXPECT_EQ(api->graph_add_op(g, op), reshaper_invalid_graph);
    const char *rule = nullptr;
    ASSERT_EQ(api->get_last_error_rule(&rule), reshaper_success);
    EXPECT_STREQ(rule, "unique_op_id");
    ASSERT_EQ(api->op_destroy(op), reshaper_success);
    ASSERT_EQ(api->graph_finalize(g), reshaper_success);
    reshaper_logical_tensor_t inferred{};
    ASSERT_EQ(api->graph_get_tensor(g, 1, &inferred), reshaper_success);
    EXPECT_EQ(inferred.dims[0], 6);
    ASSERT_NE(api->compiled_partition_execute_dynamic, nullptr);
    ASSERT_NE(api->compiled_partition_get_output_mem_size, nullptr);
    ASSERT_NE(api->compiled_partition_get_why_not_alias, nullptr);
    ASSERT_NE(api->op_set_domain, nullptr);
    ASSERT_NE(api->graph_set_tensor_values, nullptr);
    ASSERT_EQ(api->graph_destroy(g), reshaper_success);
}
