// ONNX models in (contract 5.3), through the C and C++ APIs, on models built
// here with ONNX's protobuf classes: the numbering of ops and tensors,
// constant values, the folding of torch.onnx.export's shape arithmetic,
// free dims, tensors of unknown rank, and bytes that are no model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"
#include "reshaper/plugin.h"
#include "reshaper/reshaper.h"
#include "reshaper/reshaper.hpp"

namespace {

using onnx_test::model_builder;
using onnx_test::channel_shuffle_model;

std::vector<std::int64_t> int64_values(const reshaper::graph &g, std::int64_t id) {
    const auto bytes = g.tensor_values(id);
    std::vector<std::int64_t> out(bytes.size() / sizeof(std::int64_t));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(std::int64_t));
    return out;
}

std::vector<std::int64_t> op_ids_of_kind(const reshaper::graph &g, const std::vector<reshaper::partition> &parts,
                                         bool supported) {
    (void)g;
    std::vector<std::int64_t> ids;
    for (const auto &p : parts)
        if (p.is_supported() == supported)
            for (auto id : p.op_ids()) ids.push_back(id);
    return ids;
}

} // namespace

TEST(OnnxModel, NumbersOpsByNodeAndTensorsByFirstAppearanceWithConstantValues) {
    model_builder b;
    b.input("x", onnx::TensorProto::FLOAT, {2, 3, 4});
    b.initializer("target", {6, 4});
    b.constant("axes", {0});
    b.node("Reshape", {"x", "target"}, {"y"});
    b.node("Unsqueeze", {"y", "axes"}, {"z"});
    b.node("Relu", {"z"}, {"w"});
    b.output("w");
    auto g = reshaper::graph::from_onnx_bytes(b.bytes());
    const auto parts = g.partitions();
    // x 0, target 1 (initializer), axes 2, y 3, z 4, w 5 (node outputs).
    EXPECT_EQ(g.tensor(1).property, reshaper::property_type::constant);
    EXPECT_EQ(int64_values(g, 1), (std::vector<std::int64_t>{6, 4}));
    EXPECT_EQ(g.tensor(2).property, reshaper::property_type::constant);
    EXPECT_EQ(int64_values(g, 2), (std::vector<std::int64_t>{0}));
    EXPECT_EQ(g.tensor(3).dims, (std::vector<std::int64_t>{6, 4}));
    EXPECT_EQ(g.tensor(4).dims, (std::vector<std::int64_t>{1, 6, 4}));
    EXPECT_EQ(g.tensor(5).dims, (std::vector<std::int64_t>{1, 6, 4}));
    // Ops 0 (Constant) and 3 (Relu) are left to others; 1 and 2 are one chain.
    EXPECT_EQ(op_ids_of_kind(g, parts, true), (std::vector<std::int64_t>{1, 2}));
    auto unclaimed = op_ids_of_kind(g, parts, false);
    std::sort(unclaimed.begin(), unclaimed.end());
    EXPECT_EQ(unclaimed, (std::vector<std::int64_t>{0, 3}));
    // Ops of domain ai.onnx at the model's opset, as the graph file says.
    const std::string json = g.to_json();
    EXPECT_NE(json.find("\"domain\": \"ai.onnx\""), std::string::npos);
    EXPECT_NE(json.find("\"version\": 13"), std::string::npos);
    EXPECT_NE(json.find("\"kind\": \"Constant\""), std::string::npos);
}

// Nodes (op ids): 0 Shape, 3-4 Gather, 6 Div, 7 Cast, 9-10 Unsqueeze, 13 Concat,
// 14 Reshape, 15 Transpose, 17 Concat, 18 Reshape (the rest Constants).
// Tensors: x 0, then node outputs: shape5 14, shape4 18, y 19.
const reshaper::partition *partition_of(const std::vector<reshaper::partition> &parts, std::int64_t op) {
    for (const auto &p : parts) {
        const auto ops = p.op_ids();
        if (std::find(ops.begin(), ops.end(), op) != ops.end()) return &p;
    }
    return nullptr;
}

TEST(OnnxModel, FoldsTheShapeArithmeticOfABoundDynamicBatchIntoConstantReshapes) {
    const auto b = channel_shuffle_model();
    auto g = reshaper::graph::from_onnx_bytes(b.bytes(), {{"batch", 3}});
    const auto parts = g.partitions();
    // Reshape, Transpose, Reshape: one claimed chain with constant shapes.
    const reshaper::partition *shuffle = partition_of(parts, 14);
    ASSERT_NE(shuffle, nullptr);
    EXPECT_TRUE(shuffle->is_supported()) << shuffle->reason();
    EXPECT_EQ(shuffle->op_ids(), (std::vector<std::int64_t>{14, 15, 18}));
    EXPECT_EQ(g.tensor(14).property, reshaper::property_type::constant);
    EXPECT_EQ(int64_values(g, 14), (std::vector<std::int64_t>{3, 2, 4, 4, 4}));
    EXPECT_EQ(int64_values(g, 18), (std::vector<std::int64_t>{3, -1, 4, 4}));
    EXPECT_EQ(g.tensor(19).dims, (std::vector<std::int64_t>{3, 8, 4, 4}));
    // The arithmetic's own nodes stay ops of their kinds, unclaimed.
    for (std::int64_t op : {0, 3, 6, 7, 13, 17}) EXPECT_FALSE(partition_of(parts, op)->is_supported()) << op;
    const auto cp = shuffle->compile(reshaper::engine(reshaper::engine_kind::cpu));
    EXPECT_EQ(cp.outputs().at(0).dims, (std::vector<std::int64_t>{3, 8, 4, 4}));
    // The shuffle moves data: output channel c is input channel (c % 2) * 4 + c / 2.
    std::vector<float> in(3 * 8 * 16), out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    std::vector<const void *> inputs;
    for (const auto &lt : cp.inputs()) inputs.push_back(lt.id == 0 ? static_cast<const void *>(in.data()) : nullptr);
    std::vector<std::vector<std::int64_t>> shapes;
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (!inputs[i]) {
            shapes.push_back(int64_values(g, cp.inputs()[i].id));
            inputs[i] = shapes.back().data();
        }
    cp.execute(inputs, {out.data()});
    for (std::size_t n = 0; n < 3; ++n)
        for (std::size_t c = 0; c < 8; ++c)
            EXPECT_EQ(out[(n * 8 + c) * 16 + 5], in[(n * 8 + (c % 2) * 4 + c / 2) * 16 + 5]) << n << " " << c;
}

TEST(OnnxModel, AnUnboundDynamicBatchLeavesTheChainUnclaimedWithTheReasonNeverAnError) {
    const auto b = channel_shuffle_model();
    auto g = reshaper::graph::from_onnx_bytes(b.bytes());
    const auto parts = g.partitions();
    // [batch, 2, 4, 4, 4]: the batch is symbolic, so the first Reshape's
    // output has no rank in ONNX's inference; its ops say so.
    for (std::int64_t op : {14, 15, 18}) {
        const reshaper::partition *p = partition_of(parts, op);
        ASSERT_NE(p, nullptr);
        EXPECT_FALSE(p->is_supported());
        EXPECT_NE(p->reason().find("unknown rank"), std::string::npos) << p->reason();
    }
    EXPECT_EQ(g.tensor(0).dims, (std::vector<std::int64_t>{-1, 8, 4, 4}));
}

TEST(OnnxModel, ATensorOfUnknownRankLeavesItsOpsUnclaimedWithTheReason) {
    model_builder b;
    auto *custom = b.m.add_opset_import();
    custom->set_domain("example.custom");
    custom->set_version(1);
    b.input("x", onnx::TensorProto::FLOAT, {2, 3});
    b.node("Mystery", {"x"}, {"u"}).set_domain("example.custom");
    b.initializer("target", {-1});
    b.node("Reshape", {"u", "target"}, {"y"});
    b.output("y");
    auto g = reshaper::graph::from_onnx_bytes(b.bytes());
    const auto parts = g.partitions();
    ASSERT_EQ(parts.size(), 2u);
    for (const auto &p : parts) {
        EXPECT_FALSE(p.is_supported());
        if (p.op_ids() == std::vector<std::int64_t>{1}) {
            EXPECT_NE(p.reason().find("unknown rank"), std::string::npos) << p.reason();
        }
    }
    // u (tensor 2) is no scalar: its rank is unknown, as oneDNN says it.
    reshaper_logical_tensor_t u;
    ASSERT_EQ(reshaper_graph_get_tensor(g.get(), 2, &u), reshaper_success);
    EXPECT_EQ(u.ndims, -1);
    // An op of another domain keeps it in its kind: never taken for ONNX's.
    EXPECT_NE(g.to_json().find("example.custom.Mystery"), std::string::npos);
}

TEST(OnnxModel, BytesThatAreNoModelAreInvalidGraphWithTheRule) {
    for (const std::string &bytes : {std::string("hello, this is no model {}"), std::string()}) {
        reshaper_graph_t g = nullptr;
        EXPECT_EQ(reshaper_graph_create_from_onnx_bytes(reshaper_engine_cpu, bytes.data(), bytes.size(), 0, nullptr,
                                                        nullptr, &g),
                  reshaper_invalid_graph);
        const char *rule = nullptr;
        reshaper_get_last_error_rule(&rule);
        EXPECT_STREQ(rule, "onnx_model");
    }
    reshaper_graph_t g = nullptr;
    EXPECT_EQ(reshaper_graph_create_from_onnx(reshaper_engine_cpu, "/nonexistent/model.onnx", 0, nullptr, nullptr, &g),
              reshaper_invalid_arguments);
}

TEST(OnnxModel, ANegativeFreeDimIsInvalidArguments) {
    const auto b = channel_shuffle_model();
    const std::string bytes = b.bytes();
    const char *names[] = {"batch"};
    const std::int64_t values[] = {-2};
    reshaper_graph_t g = nullptr;
    EXPECT_EQ(reshaper_graph_create_from_onnx_bytes(reshaper_engine_cpu, bytes.data(), bytes.size(), 1, names, values,
                                                    &g),
              reshaper_invalid_arguments);
    const char *rule = nullptr;
    reshaper_get_last_error_rule(&rule);
    EXPECT_STREQ(rule, "free_dim_value");
}

TEST(OnnxModel, ThePluginTableCarriesTheOnnxEntryPoints) {
    const reshaper_plugin_api *api = reshaper_plugin_entry(RESHAPER_PLUGIN_ABI_VERSION);
    ASSERT_NE(api, nullptr);
    const auto b = channel_shuffle_model();
    const std::string bytes = b.bytes();
    reshaper_graph_t g = nullptr;
    ASSERT_EQ(api->graph_create_from_onnx_bytes(reshaper_engine_cpu, bytes.data(), bytes.size(), 0, nullptr, nullptr, &g),
              reshaper_success);
    EXPECT_EQ(api->graph_destroy(g), reshaper_success);
    EXPECT_EQ(api->graph_create_from_onnx, &reshaper_graph_create_from_onnx);
}

TEST(OnnxModel, AnEinsumsOutputShapeIsCompletedSoTheMovementAfterItCompiles) {
    // ONNX 1.12 infers only the rank of an Einsum (MaxViT's attention).
    model_builder b;
    b.input("q", onnx::TensorProto::FLOAT, {2, 3, 5, 4});
    b.input("k", onnx::TensorProto::FLOAT, {2, 3, 6, 4});
    auto &einsum = b.node("Einsum", {"q", "k"}, {"scores"});
    auto *eq = einsum.add_attribute();
    eq->set_name("equation");
    eq->set_type(onnx::AttributeProto::STRING);
    eq->set_s("B H I D, B H J D -> B H I J");
    model_builder::ints(b.node("Transpose", {"scores"}, {"t"}), "perm", {0, 2, 1, 3});
    b.output("t");
    auto g = reshaper::graph::from_onnx_bytes(b.bytes());
    EXPECT_EQ(g.tensor(2).dims, (std::vector<std::int64_t>{2, 3, 5, 6}));
    EXPECT_EQ(g.tensor(3).dims, (std::vector<std::int64_t>{2, 5, 3, 6}));
    const auto parts = g.partitions();
    const reshaper::partition *transpose = partition_of(parts, 1);
    ASSERT_NE(transpose, nullptr);
    ASSERT_TRUE(transpose->is_supported());
    EXPECT_EQ(transpose->compile(reshaper::engine(reshaper::engine_kind::cpu)).outputs().at(0).dims,
              (std::vector<std::int64_t>{2, 5, 3, 6}));
}

TEST(OnnxModel, AModelOfOtherDomainsOnlyNeedsNoDefaultOpset) {
    // As ONNX's training ops (ai.onnx.preview.training) come.
    onnx::ModelProto m;
    m.set_ir_version(8);
    auto *o = m.add_opset_import();
    o->set_domain("example.custom");
    o->set_version(1);
    auto *g = m.mutable_graph();
    auto *in = g->add_input();
    in->set_name("x");
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    auto *n = g->add_node();
    n->set_op_type("Reshape"); // of its own domain: never taken for ONNX's
    n->set_domain("example.custom");
    n->add_input("x");
    n->add_output("y");
    auto graph = reshaper::graph::from_onnx_bytes(m.SerializeAsString());
    const auto parts = graph.partitions();
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_FALSE(parts[0].is_supported());
    EXPECT_NE(parts[0].reason().find("example.custom.Reshape"), std::string::npos) << parts[0].reason();
    // A default-domain node without the default opset is no valid model.
    n->set_domain("");
    reshaper_graph_t h = nullptr;
    const std::string bytes = m.SerializeAsString();
    EXPECT_EQ(reshaper_graph_create_from_onnx_bytes(reshaper_engine_cpu, bytes.data(), bytes.size(), 0, nullptr,
                                                    nullptr, &h),
              reshaper_invalid_graph);
}
