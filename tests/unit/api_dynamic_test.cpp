// Dynamic shapes through the C++ API (over the C API): a partition whose
// target shape arrives only at execute compiles with its output dims
// unknown; execute_dynamic resolves, checks and returns them, and one
// compiled partition serves every target shape, from any number of threads.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "reshaper/reshaper.hpp"

namespace {

using reshaper::data_type;
using reshaper::layout_type;

// DynamicReshape of a [2,3,4] f32 tensor (strides given) by an s64[3] shape
// input (s32) known only at execute; the output's dims are left unknown.
reshaper::graph dynamic_graph(std::vector<std::int64_t> input_strides = {}) {
    reshaper::graph g(reshaper::engine_kind::cpu);
    reshaper::logical_tensor shape{1, data_type::s32, {3}};
    shape.property = reshaper::property_type::variable;
    g.add_op(reshaper::op(0, "DynamicReshape", "dyn")
                 .add_input({0, data_type::f32, {2, 3, 4}, layout_type::strided, input_strides})
                 .add_input(shape)
                 .add_output({2, data_type::f32, {-1, -1, -1}})
                 .set_attr("special_zero", true));
    return g;
}

reshaper::compiled_partition compile_only_partition(reshaper::graph &g) {
    auto parts = g.partitions();
    EXPECT_EQ(parts.size(), 1u);
    return parts.at(0).compile(reshaper::engine(reshaper::engine_kind::cpu));
}

// Element (i, j, k) of the [2,3,4] input sits at offset i*s0 + j*s1 + k*s2.
std::vector<float> input_data(std::size_t elements) {
    std::vector<float> in(elements);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    return in;
}

} // namespace

TEST(DynamicShapes, CompilesWithTheOutputUnknownAndResolvesItAtExecute) {
    auto g = dynamic_graph();
    const auto cp = compile_only_partition(g);
    EXPECT_EQ(cp.outputs().at(0).dims, (std::vector<std::int64_t>{-1, -1, -1}));
    EXPECT_EQ(cp.output_mem_size(0), 24 * sizeof(float)); // a reshape keeps the volume

    const auto in = input_data(24);
    for (const auto &[target, want] : std::vector<std::pair<std::vector<std::int32_t>, std::vector<std::int64_t>>>{
             {{4, 3, 2}, {4, 3, 2}}, {{0, -1, 2}, {2, 6, 2}}, {{24, 1, 1}, {24, 1, 1}}}) {
        std::vector<float> out(24, -1.f);
        const auto resolved = cp.execute_dynamic({in.data(), target.data()}, {out.data()});
        ASSERT_EQ(resolved.size(), 1u);
        EXPECT_EQ(resolved[0].dims, want);
        std::vector<std::int64_t> dense(want.size());
        for (std::size_t k = want.size(), s = 1; k-- > 0; s *= want[k]) dense[k] = static_cast<std::int64_t>(s);
        EXPECT_EQ(resolved[0].strides, dense);
        EXPECT_EQ(out, in); // a dense input keeps its row-major order
    }
}

TEST(DynamicShapes, BadValuesAtExecuteNameTheRuleAndWriteNothing) {
    auto g = dynamic_graph();
    const auto cp = compile_only_partition(g);
    const auto in = input_data(24);
    std::vector<float> out(24, -1.f);
    const std::vector<std::int32_t> bad = {5, 5, 1};
    try {
        cp.execute_dynamic({in.data(), bad.data()}, {out.data()});
        FAIL() << "[5,5,1] was accepted for 24 elements";
    } catch (const reshaper::error &e) {
        EXPECT_EQ(e.code(), reshaper::status::invalid_shape);
        EXPECT_EQ(e.rule(), "volume_mismatch") << e.what();
        EXPECT_NE(std::string(e.what()).find("op 0 'dyn'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(out, std::vector<float>(24, -1.f));
}

TEST(DynamicShapes, AStridedInputIsCopiedDenseForAnyTarget) {
    // [2,3,4] with strides [1,2,6] (a transposed buffer): no view for most
    // targets, so the output is the dense copy.
    auto g = dynamic_graph({1, 2, 6});
    const auto cp = compile_only_partition(g);
    EXPECT_NE(cp.lowering(), reshaper::lowering_kind::alias);
    const auto buffer = input_data(24);
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) want.push_back(buffer[i * 1 + j * 2 + k * 6]);
    const std::vector<std::int32_t> target = {6, -1, 1};
    std::vector<float> out(24, -1.f);
    const auto resolved = cp.execute_dynamic({buffer.data(), target.data()}, {out.data()});
    EXPECT_EQ(resolved.at(0).dims, (std::vector<std::int64_t>{6, 4, 1}));
    EXPECT_EQ(out, want);
}

TEST(DynamicShapes, OneCompiledPartitionServesEveryShapeFromEightThreads) {
    auto g = dynamic_graph();
    const auto cp = compile_only_partition(g);
    const auto in = input_data(24);
    const std::vector<std::vector<std::int32_t>> targets = {
        {2, 3, 4}, {4, 3, 2}, {1, 1, 24}, {6, 2, 2}, {3, 8, 1}, {12, 2, 1}, {2, 12, 1}, {24, 1, 1}};
    std::vector<std::string> failures(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int rep = 0; rep < 50; ++rep) {
                std::vector<float> out(24, -1.f);
                try {
                    const auto r = cp.execute_dynamic({in.data(), targets[t].data()}, {out.data()});
                    if (r.at(0).dims != std::vector<std::int64_t>(targets[t].begin(), targets[t].end()))
                        failures[t] = "wrong dims";
                    if (out != in) failures[t] = "wrong data";
                } catch (const std::exception &e) {
                    failures[t] = e.what();
                }
            }
        });
    for (auto &th : threads) th.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST(DynamicShapes, GivenOutputDimsAreCheckedAtExecute) {
    auto g = dynamic_graph();
    auto parts = g.partitions();
    auto out = parts.at(0).outputs().at(0);
    out.dims = {4, 6, 1};
    const auto cp = parts.at(0).compile(reshaper::engine(reshaper::engine_kind::cpu), {}, {out});
    EXPECT_EQ(cp.outputs().at(0).dims, (std::vector<std::int64_t>{4, 6, 1}));
    const auto in = input_data(24);
    std::vector<float> buf(24);
    const std::vector<std::int32_t> ok = {4, 6, 1}, other = {6, 4, 1};
    EXPECT_EQ(cp.execute_dynamic({in.data(), ok.data()}, {buf.data()}).at(0).dims,
              (std::vector<std::int64_t>{4, 6, 1}));
    try {
        cp.execute_dynamic({in.data(), other.data()}, {buf.data()});
        FAIL() << "other dims than compiled were accepted";
    } catch (const reshaper::error &e) {
        EXPECT_EQ(e.rule(), "runtime_shape_match") << e.what();
    }
}

TEST(DynamicShapes, AnUnknownOutputWithFixedStridesIsRefused) {
    auto g = dynamic_graph();
    auto parts = g.partitions();
    auto out = parts.at(0).outputs().at(0);
    out.strides = {1, 1, 1};
    try {
        parts.at(0).compile(reshaper::engine(reshaper::engine_kind::cpu), {}, {out});
        FAIL() << "fixed strides for unknown dims were accepted";
    } catch (const reshaper::error &e) {
        EXPECT_EQ(e.code(), reshaper::status::unimplemented);
        EXPECT_EQ(e.rule(), "dynamic_output_layout") << e.what();
    }
}

// The driver and the C API agree on a graph whose shape values arrive only
// at execute: the API compiles it with the output unknown and resolves it at
// execute; the driver (which has the file's values) reports the same shape.
TEST(DynamicShapes, TheDriverAndTheApiAgreeOnTheSameFile) {
    const std::string path = std::string(RESHAPER_SOURCE_DIR) + "/tests/data/driver/dynamic_values.json";
    auto g = reshaper::graph::from_file(path);
    auto parts = g.partitions();
    ASSERT_EQ(parts.size(), 1u);
    const auto cp = parts[0].compile(reshaper::engine(reshaper::engine_kind::cpu));
    EXPECT_EQ(cp.outputs().at(0).dims, (std::vector<std::int64_t>{-1, -1, -1}));
    std::vector<std::uint16_t> in(12, 0x3c00), out(12, 0); // f16 ones
    const std::vector<std::int32_t> values = {0, 3, -1};   // the file's "values"
    const auto resolved = cp.execute_dynamic({in.data(), values.data()}, {out.data()});
    EXPECT_EQ(resolved.at(0).dims, (std::vector<std::int64_t>{2, 3, 2}));
    EXPECT_EQ(out, in);

    FILE *pipe = popen((std::string(RESHAPER_RUN_PATH) + " --report=json " + path + " 2>/dev/null").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
    EXPECT_EQ(pclose(pipe), 0) << text;
    EXPECT_NE(text.find(R"({"dtype":"f16","id":2,"layout_type":"strided","property_type":"undef","shape":[2,3,2])"),
              std::string::npos) << text;
    EXPECT_NE(text.find(R"("check":{"failed":0,"passed":1})"), std::string::npos) << text;
}
