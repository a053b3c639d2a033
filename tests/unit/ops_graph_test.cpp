// Whole graphs: topology, structural validation, ops of unknown kinds, and
// inference in topological order across several reshapes.
#include <algorithm>
#include <limits>
#include <utility>
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "ops/graph_inference.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {
namespace {

op make_op(std::int64_t id, const std::string &kind, tensor_ids inputs,
           tensor_ids outputs) {
    op o;
    o.id = id;
    o.name = kind + "_" + std::to_string(id);
    o.kind = kind;
    o.inputs = std::move(inputs);
    o.outputs = std::move(outputs);
    return o;
}

op static_reshape(std::int64_t id, tensor_id in, tensor_id out, std::vector<std::int64_t> shape) {
    op o = make_op(id, "StaticReshape", {in}, {out});
    o.attrs["shape"] = std::move(shape);
    o.attrs["special_zero"] = true;
    return o;
}

// Tensors 0..n-1, f32, unknown 1-D shape unless set later.
graph with_tensors(int n) {
    graph g;
    for (tensor_id id = 0; id < n; ++id) g.tensors[id] = tensor(id, data_type::f32, {-1});
    return g;
}

TEST(GraphTensor, MissingIdIsInvalidGraph) {
    graph g = with_tensors(1);
    EXPECT_EQ(g.tensor(0).id, 0);
    expect_error([&] { g.tensor(9); }, status::invalid_graph,
                 "tensor 9 is not in the graph [tensor_exists]");
    const graph &cg = g;
    expect_error([&] { cg.tensor(9); }, status::invalid_graph, "tensor 9");
}

// Ids far apart (looked up in the sorted list, not by offset), at both
// ends of int64 (their span overflows): the same answers as dense ids.
TEST(GraphTopology, SparseAndExtremeIdsGiveTheSameAnswers) {
    const tensor_id lowest = std::numeric_limits<tensor_id>::min(), highest = std::numeric_limits<tensor_id>::max();
    for (const std::vector<tensor_id> &ids : {std::vector<tensor_id>{0, 1, 2, 3},
                                              std::vector<tensor_id>{5, 1000000, 7, 123456789012},
                                              std::vector<tensor_id>{lowest, highest, -1, 0}}) {
        graph g;
        for (tensor_id id : ids) g.tensors[id].id = id;
        // ids[0] -> op 0 -> ids[1] -> op 1 -> ids[2]; op 2 reads ids[1] and ids[3].
        g.ops = {make_op(10, "Abs", {ids[0]}, {ids[1]}), make_op(11, "Abs", {ids[1]}, {ids[2]}),
                 make_op(12, "Add", {ids[1], ids[3]}, {})};
        const graph_topology t = graph_topology::build(g);
        EXPECT_EQ(t.producer(ids[0]), graph_topology::none);
        EXPECT_EQ(t.producer(ids[1]), 0u);
        EXPECT_EQ(t.producer(ids[2]), 1u);
        EXPECT_EQ(t.producer(ids[3]), graph_topology::none);
        EXPECT_EQ(t.producer(ids[3] == 0 ? 42 : 0), graph_topology::none) << "an id no op names";
        const auto c = t.consumers(ids[1]);
        EXPECT_EQ(std::vector<std::size_t>(c.begin(), c.end()), (std::vector<std::size_t>{1, 2}));
        EXPECT_TRUE(t.consumers(ids[2]).empty());
        EXPECT_EQ(t.topological_order.front(), 0u);
    }
}

TEST(GraphTopology, ProducersConsumersAndOrder) {
    graph g = with_tensors(4);
    // File order is consumer first.
    g.ops = {make_op(10, "Add", {1, 1}, {2}), make_op(11, "Abs", {0}, {1}),
             make_op(12, "Abs", {1}, {3})};
    const graph_topology t = graph_topology::build(g);
    EXPECT_EQ(t.producer(1), 1u);
    EXPECT_EQ(t.producer(0), graph_topology::none);
    const auto c = t.consumers(1);
    EXPECT_EQ(std::vector<std::size_t>(c.begin(), c.end()), (std::vector<std::size_t>{0, 0, 2}));
    ASSERT_EQ(t.topological_order.size(), 3u);
    EXPECT_EQ(t.topological_order[0], 1u);
    auto pos = [&](std::size_t op_index) {
        return std::find(t.topological_order.begin(), t.topological_order.end(), op_index) -
               t.topological_order.begin();
    };
    EXPECT_LT(pos(1), pos(0));
    EXPECT_LT(pos(1), pos(2));
}

TEST(GraphTopology, TensorProducedTwice) {
    graph g = with_tensors(3);
    g.ops = {make_op(1, "Abs", {0}, {2}), make_op(2, "Abs", {1}, {2})};
    expect_error([&] { graph_topology::build(g); }, status::invalid_graph,
                 "tensor 2 is produced by op 1 'Abs_1' (Abs) and op 2 'Abs_2' (Abs) "
                 "[single_producer]");
    graph twice = with_tensors(2);
    twice.ops = {make_op(1, "Split", {0}, {1, 1})};
    expect_error([&] { validate_graph(twice); }, status::invalid_graph, "[single_producer]");
}

TEST(GraphTopology, CycleNamesAnOpOnTheCycle) {
    graph g = with_tensors(4);
    // Op 7 hangs below the cycle 8 <-> 9 and comes first in file order: the
    // message must still name an op of the cycle.
    g.ops = {make_op(7, "Abs", {2}, {3}), make_op(8, "Abs", {1}, {2}),
             make_op(9, "Abs", {2}, {1})};
    try {
        graph_topology::build(g);
        FAIL() << "cycle not detected";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_graph);
        const std::string msg = e.what();
        EXPECT_NE(msg.find("[acyclic]"), std::string::npos) << msg;
        EXPECT_TRUE(msg.find("op 8 ") != std::string::npos ||
                    msg.find("op 9 ") != std::string::npos)
            << msg;
        ASSERT_TRUE(e.op().has_value());
        EXPECT_NE(e.op()->id, 7);
    }
}

TEST(GraphTopology, SelfLoopIsACycle) {
    graph g = with_tensors(2);
    g.ops = {make_op(4, "Add", {0, 1}, {1})};
    expect_error([&] { validate_graph(g); }, status::invalid_graph,
                 "the graph has a cycle through op 4 'Add_4' (Add) [acyclic]");
}

TEST(GraphPorts, DerivedInOrderOfFirstAppearance) {
    graph g = with_tensors(6);
    g.ops = {make_op(1, "Add", {3, 0, 3}, {4}), make_op(2, "Add", {4, 1}, {5}),
             make_op(3, "Abs", {0}, {2})};
    EXPECT_EQ(graph_inputs(g), (std::vector<tensor_id>{3, 0, 1}));
    EXPECT_EQ(graph_outputs(g), (std::vector<tensor_id>{5, 2}));
    g.input_ports = std::vector<tensor_id>{1};
    g.output_ports = std::vector<tensor_id>{};
    EXPECT_EQ(graph_inputs(g), (std::vector<tensor_id>{1}));
    EXPECT_EQ(graph_outputs(g), (std::vector<tensor_id>{}));
}

TEST(GraphValidation, DuplicateOpId) {
    graph g = with_tensors(3);
    g.ops = {make_op(5, "Abs", {0}, {1}), make_op(5, "Abs", {1}, {2})};
    expect_error([&] { validate_graph(g); }, status::invalid_graph,
                 "op id 5 is used by both op 5 'Abs_5' (Abs) and op 5 'Abs_5' (Abs) "
                 "[unique_op_id]");
}

TEST(GraphValidation, OpRefersToAMissingTensor) {
    graph g = with_tensors(2);
    g.ops = {make_op(1, "Abs", {0}, {1}), make_op(2, "Abs", {1}, {42})};
    expect_error([&] { validate_graph(g); }, status::invalid_graph,
                 "op 2 'Abs_2' (Abs): output 0 refers to tensor 42, which is not in the graph "
                 "[tensor_exists]");
}

TEST(GraphValidation, DanglingPorts) {
    graph g = with_tensors(2);
    g.ops = {make_op(1, "Abs", {0}, {1})};
    g.input_ports = std::vector<tensor_id>{0, 99};
    expect_error([&] { validate_graph(g); }, status::invalid_graph,
                 "input_ports lists tensor 99, which is not in the graph [port_tensor_exists]");
    g.input_ports = std::vector<tensor_id>{0};
    g.output_ports = std::vector<tensor_id>{7};
    expect_error([&] { validate_graph(g); }, status::invalid_graph,
                 "output_ports lists tensor 7");
}

TEST(GraphValidation, UnknownKindsAreKeptAndLeftAlone) {
    graph g = with_tensors(4);
    g.tensors[0].shape = {2, 3};
    g.tensors[1].dtype = data_type::undef;
    g.tensors[1].shape = {-1, -1};
    g.tensors[2].dtype = data_type::undef;
    g.tensors[2].shape = {-1, -1};
    op matmul = make_op(1, "MatMul", {1}, {2});
    matmul.attrs["whatever"] = std::string("kept");
    op onnx_other = make_op(2, "Gather", {2}, {3}); // an ONNX op this backend leaves alone
    onnx_other.domain = "ai.onnx";
    onnx_other.version = 999;
    g.ops = {static_reshape(0, 0, 1, {3, 2}), matmul, onnx_other};
    const graph before = g;
    EXPECT_NO_THROW(validate_graph(g));
    infer_graph_shapes(g);
    EXPECT_EQ(g.ops, before.ops);
    EXPECT_EQ(g.tensor(1).shape, (dims_t{3, 2}));
    EXPECT_EQ(g.tensor(1).dtype, data_type::f32);
    EXPECT_EQ(g.tensor(2), before.tensor(2)); // MatMul's output untouched
    EXPECT_EQ(g.tensor(3), before.tensor(3));
}

TEST(GraphValidation, ReshapeOpsAreVerifiedInsideABiggerGraph) {
    graph g = with_tensors(3);
    op bad = static_reshape(1, 1, 2, {-1});
    bad.attrs.erase("special_zero");
    g.ops = {make_op(0, "Abs", {0}, {1}), bad};
    expect_error([&] { validate_graph(g); }, status::invalid_graph_op,
                 "op 1 'StaticReshape_1' StaticReshape-1: attr special_zero=<absent>");
}

TEST(GraphInference, ChainInTopologicalOrder) {
    graph g;
    g.tensors[0] = tensor(0, data_type::f32, {2, 3, 4});
    g.tensors[1] = tensor(1, data_type::undef, {-1, -1});
    g.tensors[2] = tensor(2, data_type::s64, {1});
    g.tensors[2].property = property_type::constant;
    g.tensors[2].values = int_values(data_type::s64, {-1});
    g.tensors[3] = tensor(3, data_type::undef, {-1});
    op onnx = make_op(8, "Reshape", {1, 2}, {3});
    onnx.domain = "ai.onnx";
    onnx.version = 20;
    g.ops = {onnx, static_reshape(9, 0, 1, {0, -1})}; // consumer first in file order
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(1).shape, (dims_t{2, 12}));
    EXPECT_EQ(g.tensor(1).dtype, data_type::f32);
    EXPECT_EQ(g.tensor(3).shape, (dims_t{24}));
    EXPECT_EQ(g.tensor(3).dtype, data_type::f32);
}

TEST(GraphInference, DtypeRevealedByInferenceIsVerifiedDownstream) {
    graph g;
    g.tensors[0] = tensor(0, data_type::s8, {6});
    g.tensors[1] = tensor(1, data_type::s64, {1});
    g.tensors[1].property = property_type::constant;
    g.tensors[1].values = int_values(data_type::s64, {6});
    g.tensors[2] = tensor(2, data_type::undef, {-1});
    g.tensors[3] = tensor(3, data_type::undef, {-1, -1});
    op any_type = make_op(1, "Reshape", {0, 1}, {2});
    any_type.attrs["special_zero"] = false;
    g.ops = {any_type, static_reshape(2, 2, 3, {2, 3})};
    EXPECT_NO_THROW(validate_graph(g)); // tensor 2's dtype is not known yet
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_data_type,
                 "op 2 'StaticReshape_2' StaticReshape-1: input 0 'data' dtype=s8");
}

TEST(GraphInference, ErrorInAChainNamesTheOp) {
    graph g;
    g.tensors[0] = tensor(0, data_type::f32, {2, 3});
    g.tensors[1] = tensor(1, data_type::f32, {-1});
    g.tensors[2] = tensor(2, data_type::f32, {-1, -1});
    g.ops = {static_reshape(4, 0, 1, {-1}), static_reshape(5, 1, 2, {4, -1})};
    expect_error([&] { infer_graph_shapes(g); }, status::invalid_shape,
                 "op 5 'StaticReshape_5' StaticReshape-1: shape [4,-1] cannot hold input [6]");
}

TEST(GraphInference, LongChainIsValidatedAndInferred) {
    // 100,000 reshapes alternating [2,3] -> [6] -> [2,3]. Its run time is
    // reported by the test runner; the timing goal lives in benchmarks.
    constexpr int n = 100000;
    graph g;
    g.tensors[0] = tensor(0, data_type::f32, {2, 3});
    g.ops.reserve(n);
    for (int i = 0; i < n; ++i) {
        const bool flat = i % 2 == 0;
        g.tensors[i + 1] = tensor(i + 1, data_type::undef, dims_t(flat ? 1 : 2, unknown_dim));
        g.ops.push_back(static_reshape(i, i, i + 1,
                                       flat ? std::vector<std::int64_t>{-1}
                                            : std::vector<std::int64_t>{2, -1}));
    }
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(n).shape, (dims_t{2, 3}));
    EXPECT_EQ(g.tensor(n - 1).shape, (dims_t{6}));
    EXPECT_EQ(g.tensor(n).dtype, data_type::f32);
}


// Chains of reshapes of 1-6 ops over [2,3], [6], [3,2] side by side, listed
// in the file with each chain backwards (consumers before producers, so
// the topological order is not the file's), op ids in decreasing order.
// `bad`: ops whose reshape target holds no input ([4,-1] of 6 elements).
graph reshape_chains(int chains, const std::vector<int> &bad = {}) {
    graph g;
    tensor_id next = 0;
    std::int64_t op_id = 1000000;
    int made = 0;
    for (int c = 0; c < chains; ++c) {
        const tensor_id first = next++;
        g.tensors[first] = tensor(first, data_type::f32, {2, 3});
        std::vector<op> chain;
        tensor_id in = first;
        for (int k = 0; k < 1 + c % 6; ++k, ++made) {
            const tensor_id out = next++;
            g.tensors[out] = tensor(out, data_type::undef, {-1});
            const bool is_bad = std::find(bad.begin(), bad.end(), made) != bad.end();
            g.tensors[out].shape = dims_t(is_bad || k % 2 == 1 ? 2 : 1, unknown_dim);
            chain.push_back(static_reshape(op_id--, in, out,
                                           is_bad ? std::vector<std::int64_t>{4, -1}
                                                  : k % 2 == 0 ? std::vector<std::int64_t>{-1}
                                                               : std::vector<std::int64_t>{3, -1}));
            in = out;
        }
        g.ops.insert(g.ops.end(), chain.rbegin(), chain.rend());
    }
    return g;
}

// What inferring op by op (in turn) leaves in the graph, and its error.
std::pair<graph, std::string> inferred_in_turn(graph g) {
    std::string what;
    try {
        const graph_topology t = graph_topology::build(g);
        detail::infer_in_stretches(g, t, 1); // a stretch of one op: in turn
    } catch (const error &e) {
        what = e.what();
    }
    return {std::move(g), what};
}

TEST(GraphInference, SideBySideInStretchesAsInTurn) {
    const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
    const graph g = reshape_chains(200);
    const auto [want, none] = inferred_in_turn(g);
    ASSERT_EQ(none, "");
    EXPECT_EQ(want.tensor(1).shape, (dims_t{6}));
    EXPECT_EQ(want.tensor(4).shape, (dims_t{3, 2})); // chain 1: tensors 2, 3, 4
    for (std::size_t stretch : {2, 3, 7, 64, 4096}) {
        graph got = g;
        detail::infer_in_stretches(got, graph_topology::build(got), stretch);
        EXPECT_TRUE(got.tensors == want.tensors) << "stretch " << stretch;
    }
    // Large enough for infer_graph_shapes to take the threads itself.
    const graph large = reshape_chains(1500);
    ASSERT_GE(large.ops.size(), 4096u);
    graph got = large;
    infer_graph_shapes(got);
    EXPECT_TRUE(got.tensors == inferred_in_turn(large).first.tensors);
}

// The first op to fail in the order fails, and the ops after it leave
// their outputs as they were, though ops after it ran beside it (in its
// stretch, at lower levels) and a later one failed too.
TEST(GraphInference, SideBySideFailsAsInTurn) {
    const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
    for (const std::vector<int> &bad : {std::vector<int>{350}, std::vector<int>{351, 20}, std::vector<int>{40, 41, 700}}) {
        const graph g = reshape_chains(200, bad);
        const auto [want, what] = inferred_in_turn(g);
        ASSERT_NE(what, "");
        for (std::size_t stretch : {2, 5, 64, 4096}) {
            graph got = g;
            std::string got_what;
            try {
                detail::infer_in_stretches(got, graph_topology::build(got), stretch);
            } catch (const error &e) {
                got_what = e.what();
            }
            EXPECT_EQ(got_what, what) << "stretch " << stretch;
            EXPECT_TRUE(got.tensors == want.tensors) << "stretch " << stretch;
        }
    }
    graph large = reshape_chains(1500, {3000, 100});
    const auto [want, what] = inferred_in_turn(large);
    expect_error([&] { infer_graph_shapes(large); }, status::invalid_shape, what);
    EXPECT_TRUE(large.tensors == want.tensors);
}

// Checked beside the topology's build on a large graph: the checks' error
// before the build's, as in turn; ids out of order still checked.
TEST(GraphValidation, LargeGraphsStructureErrorsInTheirOrder) {
    const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
    graph g = reshape_chains(1500);
    ASSERT_GE(g.ops.size(), 4096u);
    EXPECT_NO_THROW(validate_graph(g)); // ids decreasing: none repeats
    g.ops[4000].outputs = g.ops[10].outputs; // a tensor produced twice
    expect_error([&] { validate_graph(g); }, status::invalid_graph, "[single_producer]");
    g.ops[3000].id = g.ops[5].id; // and an op id twice: named first
    expect_error([&] { validate_graph(g); }, status::invalid_graph, "[unique_op_id]");
    for (bool parallel : {false, true}) {
        const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, parallel ? 2 : 1);
        expect_error([&] { infer_graph_shapes(g); }, status::invalid_graph, "is used by both");
    }
}

} // namespace
} // namespace reshaper::impl::testing
