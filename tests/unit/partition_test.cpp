// The partitioner: coverage, order, chain fusion and its limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>

#include <tbb/global_control.h>

#include "ops/graph_inference.hpp"
#include "partition/partitioner.hpp"
#include "reshape_op_support.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::dynamic_reshape;
using reshaper::impl::testing::static_reshape;

namespace {

// Builds graphs of f32 tensors: reshapes (StaticReshape to a given shape)
// and opaque "other" ops that this backend does not handle.
struct graph_builder {
    graph g;
    tensor_id next_tensor = 0;

    tensor_id tensor(dims_t shape, data_type dt = data_type::f32) {
        logical_tensor lt;
        lt.id = next_tensor++;
        lt.dtype = dt;
        lt.shape = std::move(shape);
        g.tensors[lt.id] = lt;
        return lt.id;
    }
    tensor_id reshape(tensor_id in, dims_t shape) {
        const tensor_id out = tensor(shape, g.tensors[in].dtype);
        g.ops.push_back(static_reshape(static_cast<std::int64_t>(g.ops.size()), in, out,
                                                std::vector<std::int64_t>(shape.begin(), shape.end())));
        return out;
    }
    tensor_id other(std::vector<tensor_id> ins, dims_t shape, const std::string &kind = "ReLU") {
        const tensor_id out = tensor(shape);
        op o;
        o.id = static_cast<std::int64_t>(g.ops.size());
        o.name = kind + "_" + std::to_string(o.id);
        o.kind = kind;
        o.inputs.assign(ins.begin(), ins.end());
        o.outputs = {out};
        g.ops.push_back(o);
        return out;
    }
};

// A backend that claims every op of the family the partitioner offers it.
struct claims_every_op final : backend_support {
    engine_kind engine() const override { return engine_kind::cpu; }
    std::string refusal(const graph &, const op &) const override { return ""; }
};

std::vector<partition> partitions_of(const graph &g, partition_policy policy) {
    static const claims_every_op backend;
    return get_partitions(g, policy, backend);
}

std::vector<std::vector<std::int64_t>> op_ids(const graph &g, const std::vector<partition> &ps) {
    std::vector<std::vector<std::int64_t>> ids;
    for (const auto &p : ps) {
        ids.emplace_back();
        for (std::size_t i : p.op_indices) ids.back().push_back(g.ops[i].id);
    }
    return ids;
}

// Every op exactly once; every partition input produced by an earlier
// partition or by nobody.
void expect_valid_cover(const graph &g, const std::vector<partition> &ps) {
    std::set<std::size_t> seen;
    std::set<tensor_id> produced_so_far;
    std::set<tensor_id> produced_anywhere;
    for (const op &o : g.ops) produced_anywhere.insert(o.outputs.begin(), o.outputs.end());
    for (std::size_t k = 0; k < ps.size(); ++k) {
        EXPECT_EQ(ps[k].id, k);
        for (tensor_id in : ps[k].inputs) {
            if (produced_anywhere.count(in)) {
                EXPECT_TRUE(produced_so_far.count(in)) << "tensor " << in;
            }
        }
        for (std::size_t i : ps[k].op_indices) {
            EXPECT_TRUE(seen.insert(i).second) << "op index " << i << " twice";
            produced_so_far.insert(g.ops[i].outputs.begin(), g.ops[i].outputs.end());
        }
    }
    EXPECT_EQ(seen.size(), g.ops.size());
}

} // namespace

TEST(Partitioner, ChainOfReshapesBecomesOnePartitionBetweenOtherOps) {
    graph_builder b;
    const tensor_id x = b.tensor({2, 3, 4});
    const tensor_id a = b.other({x}, {2, 3, 4});
    const tensor_id r1 = b.reshape(a, {6, 4});
    const tensor_id r2 = b.reshape(r1, {24});
    const tensor_id r3 = b.reshape(r2, {4, 6});
    b.other({r3}, {4, 6});
    const auto ps = partitions_of(b.g, partition_policy::fusion);
    expect_valid_cover(b.g, ps);
    ASSERT_EQ(ps.size(), 3u);
    EXPECT_EQ(op_ids(b.g, ps), (std::vector<std::vector<std::int64_t>>{{0}, {1, 2, 3}, {4}}));
    EXPECT_FALSE(ps[0].supported);
    EXPECT_EQ(ps[0].reason, "op kind ReLU is not handled by this backend");
    EXPECT_TRUE(ps[1].supported);
    EXPECT_EQ(ps[1].inputs, tensor_ids{a});
    EXPECT_EQ(ps[1].outputs, tensor_ids{r3});
}

TEST(Partitioner, DebugPolicyGivesOneOpPerPartition) {
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    b.reshape(b.reshape(x, {3, 2}), {6});
    const auto ps = partitions_of(b.g, partition_policy::debug);
    expect_valid_cover(b.g, ps);
    EXPECT_EQ(op_ids(b.g, ps), (std::vector<std::vector<std::int64_t>>{{0}, {1}}));
}

TEST(Partitioner, BranchStopsFusion) {
    // r1 feeds two reshapes: neither may swallow it, so the result with two
    // consumers ends the chain.
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id r1 = b.reshape(x, {3, 2});
    b.reshape(r1, {6});
    b.reshape(r1, {1, 6});
    const auto ps = partitions_of(b.g, partition_policy::fusion);
    expect_valid_cover(b.g, ps);
    EXPECT_EQ(op_ids(b.g, ps), (std::vector<std::vector<std::int64_t>>{{0}, {1}, {2}}));
    EXPECT_EQ(ps[0].outputs, tensor_ids{r1});
}

TEST(Partitioner, GraphOutputInTheMiddleOfAChainIsAnOutputOfTheFusedPartition) {
    // Issue 10: an intermediate result that is also a graph output stays in
    // the chain; the partition produces it as well as the chain's end.
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id r1 = b.reshape(x, {3, 2});
    const tensor_id r2 = b.reshape(r1, {6});
    b.g.output_ports = std::vector<tensor_id>{r1, r2};
    const auto ps = partitions_of(b.g, partition_policy::fusion);
    EXPECT_EQ(op_ids(b.g, ps), (std::vector<std::vector<std::int64_t>>{{0, 1}}));
    EXPECT_EQ(ps[0].inputs, (tensor_ids{x}));
    EXPECT_EQ(ps[0].outputs, (tensor_ids{r1, r2}));
}

TEST(Partitioner, ChainThroughAnUnsupportedOpIsTwoPartitions) {
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id r1 = b.reshape(x, {6});
    const tensor_id y = b.other({r1}, {6});
    b.reshape(y, {3, 2});
    const auto ps = partitions_of(b.g, partition_policy::fusion);
    expect_valid_cover(b.g, ps);
    EXPECT_EQ(op_ids(b.g, ps), (std::vector<std::vector<std::int64_t>>{{0}, {1}, {2}}));
}

TEST(Partitioner, ProducersComeBeforeConsumersWhateverTheFileOrder) {
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id r1 = b.reshape(x, {6});
    b.other({r1}, {6}, "Abs");
    // Put the consumer first in file order.
    std::swap(b.g.ops[0], b.g.ops[1]);
    const auto ps = partitions_of(b.g, partition_policy::fusion);
    expect_valid_cover(b.g, ps);
    ASSERT_EQ(ps.size(), 2u);
    EXPECT_TRUE(ps[0].supported);
    EXPECT_EQ(b.g.ops[ps[1].op_indices[0]].kind, "Abs");
}

TEST(Partitioner, SideInputsOfAChainAreBoundaryInputs) {
    // A DynamicReshape in a chain takes its shape tensor from outside.
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id r1 = b.reshape(x, {6});
    const tensor_id shape = b.tensor({2}, data_type::s32);
    const tensor_id out = b.tensor({3, 2});
    b.g.ops.push_back(dynamic_reshape(1, "dyn", r1, shape, out));
    const auto ps = partitions_of(b.g, partition_policy::fusion);
    ASSERT_EQ(ps.size(), 1u);
    EXPECT_EQ(ps[0].inputs, (tensor_ids{x, shape}));
    EXPECT_EQ(ps[0].outputs, tensor_ids{out});
}

TEST(Partitioner, DataInputIsTheFirstOpsFirstInputWhereverItIsListed) {
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id shape = b.tensor({1}, data_type::s32);
    const tensor_id out = b.tensor({6});
    b.g.ops.push_back(dynamic_reshape(0, "dyn", x, shape, out));
    partition p = partitions_of(b.g, partition_policy::fusion).at(0);
    EXPECT_EQ(data_input_position(b.g, p), std::optional<std::size_t>(0));
    p.inputs = {shape, x};
    EXPECT_EQ(data_input_position(b.g, p), std::optional<std::size_t>(1));
    p.inputs = {shape}; // the data tensor produced inside, say
    EXPECT_EQ(data_input_position(b.g, p), std::nullopt);
    EXPECT_EQ(data_input_position(b.g, partition{}), std::nullopt);
}

// The partitioner leaves to the backend what its engine moves: it asks
// about every op of the family (only those), an op the backend refuses is
// unsupported with the backend's reason, and a chain breaks there.
TEST(Partitioner, AsksTheBackendWhatItClaims) {
    struct refuses_s64 final : backend_support {
        mutable std::vector<std::int64_t> asked;
        engine_kind engine() const override { return engine_kind::gpu; }
        std::string refusal(const graph &g, const op &o) const override {
            asked.push_back(o.id);
            if (g.tensor(o.inputs[0]).dtype != data_type::s64) return "";
            return "s64 stays on the host";
        }
    } backend;
    graph_builder b;
    const tensor_id x = b.tensor({2, 3});
    const tensor_id a = b.reshape(x, {6});
    const tensor_id r = b.other({a}, {6});
    const tensor_id wide = b.tensor({6}, data_type::s64);
    const tensor_id w1 = b.reshape(wide, {3, 2});
    b.reshape(w1, {2, 3});
    b.reshape(r, {3, 2});
    const auto ps = get_partitions(b.g, partition_policy::fusion, backend);
    expect_valid_cover(b.g, ps);
    std::sort(backend.asked.begin(), backend.asked.end());
    EXPECT_EQ(backend.asked, (std::vector<std::int64_t>{0, 2, 3, 4})); // each once, not the ReLU
    for (const partition &p : ps) {
        const op &first = b.g.ops[p.op_indices[0]];
        if (first.kind == "ReLU") {
            EXPECT_EQ(p.reason, "op kind ReLU is not handled by this backend");
        } else if (b.g.tensor(first.inputs[0]).dtype == data_type::s64) {
            EXPECT_FALSE(p.supported);
            EXPECT_EQ(p.reason, "s64 stays on the host");
            EXPECT_EQ(p.op_indices.size(), 1u); // refused ops do not fuse
        } else {
            EXPECT_TRUE(p.supported) << p.reason;
        }
    }
    EXPECT_EQ(ps.size(), 5u);
}

// Graphs of 4096 ops and more are partitioned side by side when oneTBB may
// use more than one thread (each op's verdict, each partition's boundary):
// the partitions are those of one thread, field by field, and the order's
// sort is skipped only where the parts are in order already. The graph mixes
// chains (some over 16 ops), branches, graph outputs inside chains, ops the
// backend does not handle, ops it refuses, and ops listed out of order.
TEST(Partitioner, LargeGraphsPartitionSideBySideAsOnOneThread) {
    struct refuses_s64 final : backend_support {
        engine_kind engine() const override { return engine_kind::gpu; }
        std::string refusal(const graph &g, const op &o) const override {
            if (g.tensor(o.inputs[0]).dtype != data_type::s64) return "";
            return "s64 stays on the host, op " + std::to_string(o.id);
        }
    } backend;
    graph_builder b;
    std::mt19937 random(7);
    std::vector<tensor_id> outputs;
    while (b.g.ops.size() < 6000) {
        // Two chains at a time, their ops listed in turn: a chain's last op
        // comes after the other's first, so the parts need their sort.
        std::array<tensor_id, 2> t;
        for (tensor_id &each : t) each = b.tensor({2, 3}, random() % 7 == 0 ? data_type::s64 : data_type::f32);
        const std::size_t length = random() % 9 == 0 ? 20 : 1 + random() % 4;
        for (std::size_t k = 0; k < length; ++k)
            for (tensor_id &each : t) {
                each = b.reshape(each, k % 2 ? dims_t{2, 3} : dims_t{6});
                if (random() % 11 == 0) outputs.push_back(each); // a graph output inside a chain
                if (random() % 13 == 0) b.reshape(each, {3, 2}); // a branch
                if (random() % 10 == 0) each = b.other({each}, k % 2 ? dims_t{2, 3} : dims_t{6});
            }
    }
    b.g.output_ports = outputs;
    std::shuffle(b.g.ops.begin() + 100, b.g.ops.begin() + 400, random); // out of order there
    for (const partition_policy policy : {partition_policy::fusion, partition_policy::debug}) {
        std::vector<partition> one, two;
        {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
            one = get_partitions(b.g, policy, backend);
        }
        {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
            two = get_partitions(b.g, policy, backend);
        }
        expect_valid_cover(b.g, one);
        // In the order of their last ops, which the ops' listing is not.
        const graph_topology topology = graph_topology::build(b.g);
        std::vector<std::size_t> position(b.g.ops.size());
        for (std::size_t pos = 0; pos < topology.topological_order.size(); ++pos)
            position[topology.topological_order[pos]] = pos;
        std::size_t moved = 0; // parts whose first op comes before the previous part's first
        for (std::size_t k = 1; k < one.size(); ++k) {
            EXPECT_LT(position[one[k - 1].op_indices.back()], position[one[k].op_indices.back()]) << k;
            moved += position[one[k - 1].op_indices.front()] > position[one[k].op_indices.front()];
        }
        if (policy == partition_policy::fusion) {
            EXPECT_GT(moved, 0u); // the sort had parts to move
        }
        ASSERT_EQ(one.size(), two.size());
        std::size_t refused = 0, fused = 0;
        for (std::size_t k = 0; k < one.size(); ++k) {
            EXPECT_EQ(one[k].id, two[k].id);
            EXPECT_EQ(one[k].supported, two[k].supported);
            EXPECT_EQ(one[k].reason, two[k].reason);
            EXPECT_TRUE(std::equal(one[k].op_indices.begin(), one[k].op_indices.end(), two[k].op_indices.begin(),
                                   two[k].op_indices.end())) << "partition " << k;
            EXPECT_TRUE(std::equal(one[k].inputs.begin(), one[k].inputs.end(), two[k].inputs.begin(),
                                   two[k].inputs.end())) << "partition " << k;
            EXPECT_TRUE(std::equal(one[k].outputs.begin(), one[k].outputs.end(), two[k].outputs.begin(),
                                   two[k].outputs.end())) << "partition " << k;
            refused += one[k].reason.rfind("s64", 0) == 0;
            fused += one[k].op_indices.size() > 16;
        }
        EXPECT_GT(refused, 0u);
        if (policy == partition_policy::fusion) {
            EXPECT_GT(fused, 0u);
        }
    }
}
