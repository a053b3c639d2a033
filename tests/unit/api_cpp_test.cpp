// The header-only C++ API: RAII handles, vector queries, reshaper::error.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api_test_graphs.hpp"
#include "reshaper/reshaper.hpp"

using namespace api_test;

namespace {

reshaper::partition supported_partition(reshaper::graph &g) {
    for (auto &p : g.partitions())
        if (p.is_supported()) return p;
    throw std::runtime_error("no supported partition");
}

// Runs `body` and returns the reshaper::error it throws.
template <typename Body>
reshaper::error thrown_by(Body &&body) {
    try {
        body();
    } catch (const reshaper::error &e) {
        return e;
    }
    ADD_FAILURE() << "no reshaper::error thrown";
    return reshaper::error(reshaper::status::success, "");
}

} // namespace

TEST(CppApi, RunsAReshapeEndToEnd) {
    auto g = reshaper::graph::from_json(reshape_then_matmul);
    g.infer_shapes();
    EXPECT_EQ(g.tensor(1).dims, (std::vector<int64_t>{4, 6}));

    const auto parts = g.partitions(reshaper::partition_policy::fusion);
    ASSERT_EQ(parts.size(), 2u);
    const auto reshape = supported_partition(g);
    EXPECT_EQ(reshape.op_ids(), std::vector<int64_t>{0});
    ASSERT_EQ(reshape.inputs().size(), 1u);
    EXPECT_EQ(reshape.inputs()[0].dtype, reshaper::data_type::f32);

    reshaper::engine cpu(reshaper::engine_kind::cpu);
    reshaper::logical_tensor out(1, reshaper::data_type::f32, {4, 6}, reshaper::layout_type::any);
    const auto cp = reshape.compile(cpu, reshape.inputs(), {out});
    EXPECT_EQ(cp.lowering(), reshaper::lowering_kind::alias);
    const auto compiled_out = cp.outputs().at(0);
    EXPECT_EQ(compiled_out.layout, reshaper::layout_type::strided);
    EXPECT_EQ(compiled_out.strides, (std::vector<int64_t>{6, 1}));
    EXPECT_EQ(compiled_out.mem_size(), 24 * sizeof(float));
    EXPECT_EQ(cp.inplace_pairs(), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}}));
    EXPECT_FALSE(cp.lowering_details().empty());

    const std::vector<float> src = iota_f32(24);
    std::vector<float> dst(24);
    cp.execute({src.data()}, {dst.data()});
    EXPECT_EQ(dst, src);
}

TEST(CppApi, PartitionsKeepTheirListAlive) {
    std::vector<reshaper::partition> parts;
    {
        auto g = reshaper::graph::from_json(reshape_then_matmul);
        parts = g.partitions(reshaper::partition_policy::debug);
    } // graph gone; the partitions hold their list and its graph snapshot
    ASSERT_EQ(parts.size(), 2u);
    const auto unsupported = std::find_if(parts.begin(), parts.end(),
                                          [](const auto &p) { return !p.is_supported(); });
    ASSERT_NE(unsupported, parts.end());
    EXPECT_TRUE(contains(unsupported->reason(), "MatMul")) << unsupported->reason();
}

TEST(CppApi, JsonRoundTripsThroughStrings) {
    auto g = reshaper::graph::from_json(reshape_then_matmul);
    const std::string text = g.to_json();
    EXPECT_EQ(text.find('\0'), std::string::npos);
    auto again = reshaper::graph::from_json(text);
    EXPECT_EQ(again.tensor(2).dims, (std::vector<int64_t>{6, 5}));
}

TEST(CppApi, FailuresThrowErrorWithStatusAndMessage) {
    auto malformed = thrown_by([] { reshaper::graph::from_json("{\"graph\": ["); });
    EXPECT_EQ(malformed.code(), reshaper::status::invalid_graph);
    EXPECT_STRNE(malformed.what(), "");

    auto gpu = thrown_by([] { reshaper::engine e(reshaper::engine_kind::gpu); });
    EXPECT_EQ(gpu.code(), reshaper::status::unavailable);
    EXPECT_TRUE(contains(gpu.what(), "gpu")) << gpu.what();

    auto shape = thrown_by([] {
        auto g = reshaper::graph::from_json(volume_mismatch);
        g.partitions();
    });
    EXPECT_EQ(shape.code(), reshaper::status::invalid_shape);
    EXPECT_TRUE(contains(shape.what(), "Reshape_0")) << shape.what();

    auto unknown_size = thrown_by([] {
        reshaper::logical_tensor lt(0, reshaper::data_type::f32, {2, -1});
        lt.mem_size();
    });
    EXPECT_EQ(unknown_size.code(), reshaper::status::invalid_arguments);

    auto execute = thrown_by([] {
        auto g = reshaper::graph::from_json(reshape_then_matmul);
        reshaper::engine cpu(reshaper::engine_kind::cpu);
        supported_partition(g).compile(cpu).execute({}, {});
    });
    EXPECT_EQ(execute.code(), reshaper::status::invalid_arguments);
    EXPECT_TRUE(contains(execute.what(), "1 inputs")) << execute.what();
}

TEST(CppApi, StatusNamesAndCapabilities) {
    EXPECT_EQ(reshaper::to_string(reshaper::status::invalid_graph_op), "invalid_graph_op");
    EXPECT_EQ(reshaper::to_string(reshaper::status::unavailable), "unavailable");
    const auto kinds = reshaper::handled_op_kinds();
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "StaticReshape"), kinds.end());
    EXPECT_FALSE(reshaper::version().empty());
}

TEST(CppApi, LogicalTensorRoundTripsThroughTheCStruct) {
    reshaper::logical_tensor blocked(9, reshaper::data_type::bf16, {1, 32, 4, 4},
                                     reshaper::layout_type::opaque);
    blocked.format = "nChw16c";
    blocked.property = reshaper::property_type::constant;
    const reshaper::logical_tensor back(blocked.to_c());
    EXPECT_EQ(back.id, 9);
    EXPECT_EQ(back.dtype, reshaper::data_type::bf16);
    EXPECT_EQ(back.dims, blocked.dims);
    EXPECT_TRUE(back.strides.empty());
    EXPECT_EQ(back.format, "nChw16c");
    EXPECT_EQ(back.property, reshaper::property_type::constant);
    EXPECT_EQ(blocked.mem_size(), 512 * 2u);

    const reshaper::logical_tensor strided(1, reshaper::data_type::u8, {2, 3},
                                           reshaper::layout_type::strided, {8, 2});
    EXPECT_EQ(reshaper::logical_tensor(strided.to_c()).strides, (std::vector<int64_t>{8, 2}));
    EXPECT_EQ(strided.mem_size(), 13u); // last element at 8 + 2 * 2

    auto mismatched = thrown_by([] {
        reshaper::logical_tensor lt(1, reshaper::data_type::f32, {2, 3},
                                    reshaper::layout_type::strided, {1});
        lt.to_c();
    });
    EXPECT_EQ(mismatched.code(), reshaper::status::invalid_arguments);
    EXPECT_TRUE(contains(mismatched.what(), "2 dims but 1 strides")) << mismatched.what();
}
