// Chains of random length and random ops of the family (ONNX Transpose,
// Squeeze, Unsqueeze, Flatten and Reshape, oneDNN's StaticTranspose and
// StaticReshape), built as graphs, inferred, partitioned and compiled as a
// user's graph would be, on random input strides, with an intermediate
// result now and then also a graph output. Every output is checked against
// a brute-force index reference the test keeps itself: only transposes move
// elements, every other op keeps the row-major order. Inputs are dense,
// permuted, or laid out as real tensors are (gaps, broadcast dims, any
// stride in size-1 dims): every chain that is a view step by step as
// PyTorch makes one (stepwise_view_strides) must be an alias with PyTorch's
// strides, every alias must read the reference in place too, and every
// output that is moved must say why it is no alias (issue 25).
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <random>

#include "backend/compiled_partition.hpp"
#include "backend_test_support.hpp"
#include "chain_test_support.hpp"
#include "ops/graph_inference.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;
using namespace reshaper::impl::testing;

namespace {

tensor_values s64_values(const std::vector<std::int64_t> &v) {
    tensor_values t{data_type::s64, v.size(), {}, {}};
    t.bytes.resize(v.size() * 8);
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    return t;
}

struct chain_builder {
    std::mt19937 &rng;
    data_type type;
    graph g;
    tensor_id next_id = 1;
    std::int64_t next_op = 0;
    tensor_id current = 0;
    dims_t dims;
    // Row-major positions of the data input at each element of `current`.
    std::vector<dim_t> positions;
    std::vector<std::string> kinds;

    chain_builder(std::mt19937 &r, data_type t, const logical_tensor &input)
        : rng(r), type(t), dims(input.shape) {
        g.tensors[input.id] = input;
        positions.resize(static_cast<std::size_t>(checked_volume(dims).value()));
        std::iota(positions.begin(), positions.end(), dim_t{0});
    }

    tensor_id constant(const std::vector<std::int64_t> &values) {
        logical_tensor lt = strided_lt(next_id++, data_type::s64, {static_cast<dim_t>(values.size())});
        lt.property = property_type::constant;
        lt.values = s64_values(values);
        g.tensors[lt.id] = lt;
        return lt.id;
    }

    // Adds op `kind` on the current tensor with output dims `out`.
    void add(const std::string &kind, const std::string &domain, const dims_t &out,
             std::vector<tensor_id> extra = {}, attribute_map attrs = {}) {
        op o;
        o.id = next_op++;
        o.name = kind + "_" + std::to_string(o.id);
        o.kind = kind;
        o.domain = domain;
        if (domain == "ai.onnx") o.version = 25;
        o.attrs = std::move(attrs);
        o.inputs = {current};
        o.inputs.insert(o.inputs.end(), extra.begin(), extra.end());
        const tensor_id out_id = next_id++;
        // Unknown dims of the right rank: inference fills them.
        g.tensors[out_id] = strided_lt(out_id, type, dims_t(out.size(), unknown_dim));
        o.outputs = {out_id};
        g.ops.push_back(std::move(o));
        kinds.push_back(kind);
        current = out_id;
        dims = out;
    }

    void transpose(bool onnx) {
        std::vector<std::size_t> perm(dims.size());
        std::iota(perm.begin(), perm.end(), std::size_t{0});
        std::shuffle(perm.begin(), perm.end(), rng);
        const bool reversed_by_default = onnx && rng() % 4 == 0;
        if (reversed_by_default) std::iota(perm.rbegin(), perm.rend(), std::size_t{0});
        dims_t out, strides = dense_strides(dims).value(), pstrides;
        std::vector<std::int64_t> values;
        for (std::size_t a : perm) {
            out.push_back(dims[a]);
            pstrides.push_back(strides[a]);
            // StaticTranspose takes negative axes too; ONNX's perm does not.
            values.push_back(!onnx && rng() % 3 == 0 ? static_cast<std::int64_t>(a) - static_cast<std::int64_t>(dims.size())
                                            : static_cast<std::int64_t>(a));
        }
        std::vector<dim_t> next;
        for (dim_t p : strided_positions(out, pstrides)) next.push_back(positions[p]);
        positions = std::move(next);
        attribute_map attrs;
        if (!onnx) attrs["order"] = values;
        else if (!reversed_by_default) attrs["perm"] = values;
        add(onnx ? "Transpose" : "StaticTranspose", onnx ? "ai.onnx" : "", out, {}, std::move(attrs));
    }

    void squeeze() {
        std::vector<std::int64_t> axes;
        dims_t out;
        for (std::size_t k = 0; k < dims.size(); ++k)
            if (dims[k] == 1 && rng() % 2 == 0) axes.push_back(static_cast<std::int64_t>(k));
            else out.push_back(dims[k]);
        if (axes.empty()) return unsqueeze();
        add("Squeeze", "ai.onnx", out, {constant(axes)});
    }

    void unsqueeze() {
        // 1 or 2 new axes at distinct random places of the output.
        const std::size_t rank = dims.size() + 1 + rng() % 2;
        std::vector<std::size_t> places(rank);
        std::iota(places.begin(), places.end(), std::size_t{0});
        std::shuffle(places.begin(), places.end(), rng);
        std::vector<std::int64_t> axes;
        for (std::size_t k = 0; k < rank - dims.size(); ++k) axes.push_back(static_cast<std::int64_t>(places[k]));
        dims_t out;
        std::size_t from = 0;
        for (std::size_t k = 0; k < rank; ++k)
            out.push_back(std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(k)) != axes.end()
                              ? 1
                              : dims[from++]);
        add("Unsqueeze", "ai.onnx", out, {constant(axes)});
    }

    void flatten() {
        const std::size_t axis = rng() % (dims.size() + 1);
        dim_t outer = 1, inner = 1;
        for (std::size_t k = 0; k < dims.size(); ++k) (k < axis ? outer : inner) *= dims[k];
        add("Flatten", "ai.onnx", {outer, inner}, {},
            {{"axis", static_cast<std::int64_t>(axis)}});
    }

    void reshape(bool onnx) {
        const dims_t out = random_shape(rng, checked_volume(dims).value());
        std::vector<std::int64_t> target(out.begin(), out.end());
        if (rng() % 3 == 0) target[rng() % target.size()] = -1;
        if (onnx) add("Reshape", "ai.onnx", out, {constant(target)});
        else add("StaticReshape", "", out, {}, {{"shape", target}, {"special_zero", false}});
    }
};

} // namespace

TEST(FamilyChains, RandomChainsOfEveryOpMatchTheIndexReference) {
    std::mt19937 rng(2026);
    // StaticTranspose and StaticReshape take f32/bf16/f16 only.
    const data_type types[] = {data_type::f32, data_type::bf16, data_type::s8, data_type::u4,
                               data_type::s2, data_type::c128, data_type::boolean, data_type::string};
    const dim_t volumes[] = {1, 6, 12, 24, 60, 96, 128, 210};
    int multi_output = 0, aliases = 0, movements = 0, stepwise_views = 0, broadcast_inputs = 0;
    for (int trial = 0; trial < 1500; ++trial) {
        const data_type t = types[rng() % std::size(types)];
        const bool onednn_ok = t == data_type::f32 || t == data_type::bf16;
        const dims_t in_dims = random_shape(rng, volumes[rng() % std::size(volumes)]);
        const logical_tensor input = strided_lt(0, t, in_dims);
        chain_builder b(rng, t, input);
        std::vector<std::pair<tensor_id, std::vector<dim_t>>> expected;
        const int length = 1 + static_cast<int>(rng() % 6);
        for (int i = 0; i < length; ++i) {
            switch (rng() % (onednn_ok ? 7 : 5)) {
            case 0: b.transpose(true); break;
            case 1: b.squeeze(); break;
            case 2: b.unsqueeze(); break;
            case 3: b.flatten(); break;
            case 4: b.reshape(true); break;
            case 5: b.transpose(false); break;
            default: b.reshape(false); break;
            }
            if (i + 1 < length && rng() % 5 == 0) expected.emplace_back(b.current, b.positions);
        }
        expected.emplace_back(b.current, b.positions);
        std::vector<tensor_id> outs;
        for (const auto &e : expected) outs.push_back(e.first);
        b.g.output_ports = outs;
        SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(to_string(t)) + " " +
                     dims_to_string(in_dims) + " through " + std::to_string(b.kinds.size()) + " ops");
        infer_graph_shapes(b.g);
        const auto parts = get_partitions(b.g, partition_policy::fusion, backend_claims(engine_kind::cpu));
        ASSERT_EQ(parts.size(), 1u);
        ASSERT_TRUE(parts[0].supported) << parts[0].reason;
        ASSERT_EQ(std::vector<tensor_id>(parts[0].outputs.begin(), parts[0].outputs.end()), outs);
        if (outs.size() > 1) ++multi_output;

        // Input: dense, strided in a random axis order, or laid out as real
        // tensors are; outputs: any or dense.
        logical_tensor in = input;
        const unsigned layout_kind = rng() % 3;
        if (layout_kind == 2) {
            in.strides = random_layout_strides(rng, in_dims);
            if (std::count(in.strides.begin(), in.strides.end(), 0) > 0) ++broadcast_inputs;
        } else if (layout_kind == 1) {
            std::vector<std::size_t> order(in_dims.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            std::shuffle(order.begin(), order.end(), rng);
            dims_t &strides = in.strides.set();
            strides.assign(in_dims.size(), 0);
            dim_t next = 1;
            for (std::size_t k = order.size(); k-- > 0;) {
                strides[order[k]] = next;
                next *= in_dims[order[k]];
            }
        }
        std::vector<logical_tensor> out_lts;
        for (tensor_id id : outs) {
            logical_tensor lt = b.g.tensor(id);
            if (rng() % 2 == 0) lt.layout = layout_type::any;
            out_lts.push_back(lt);
        }
        const auto cp = compile(b.g, parts[0], {in}, out_lts, cpu_engine());
        (cp->lowering() == lowering_kind::alias ? aliases : movements) += 1;
        const dims_t in_strides = effective_strides(in).value();
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const auto &pairs = cp->inplace_pairs();
            const bool aliased =
                std::find(pairs.begin(), pairs.end(), std::pair<tensor_id, tensor_id>{0, outs[k]}) != pairs.end();
            const auto stepwise = stepwise_view_strides(in_dims, in_strides, cp->output_steps()[k]);
            if (!stepwise) continue;
            ++stepwise_views;
            if (out_lts[k].layout == layout_type::any) {
                EXPECT_TRUE(aliased) << "output " << outs[k] << ": " << cp->why_not_alias();
                EXPECT_EQ(cp->outputs()[k].strides, *stepwise) << "output " << outs[k];
            }
        }
        if (cp->lowering() != lowering_kind::alias) {
            EXPECT_FALSE(cp->why_not_alias().empty());
        }

        host_buffer input_buffer(in);
        input_buffer.fill_random(rng);
        const logical_tensor dense_in = strided_lt(0, t, in_dims);
        host_buffer row_major_in(dense_in);
        reference_reshape(in, input_buffer.data(), dense_in, row_major_in.data());
        std::vector<host_buffer> out_buffers;
        std::vector<void *> out_ptrs;
        for (const logical_tensor &lt : cp->outputs()) {
            out_buffers.emplace_back(lt);
            out_buffers.back().fill(0x5A);
        }
        for (auto &ob : out_buffers) out_ptrs.push_back(ob.data());
        // The constant shape and axes inputs get their values.
        std::vector<const void *> in_ptrs;
        for (const logical_tensor &lt : cp->inputs())
            in_ptrs.push_back(lt.id == 0 ? input_buffer.data() : b.g.tensor(lt.id).values->bytes.data());
        cp->execute(in_ptrs, out_ptrs);
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const logical_tensor &lt = cp->outputs()[k];
            EXPECT_EQ(lt.shape, b.g.tensor(outs[k]).shape);
            // The reference: element j of the output is element positions[j]
            // of the input in row-major order.
            const logical_tensor dense_out = strided_lt(-1, t, lt.shape);
            host_buffer got(dense_out), want(dense_out);
            got.fill(0);
            want.fill(0);
            reference_reshape(lt, out_buffers[k].data(), dense_out, got.data());
            const auto &pos = expected[k].second;
            for (std::size_t j = 0; j < pos.size(); ++j) {
                const logical_tensor one = strided_lt(-1, t, {1}, {1});
                reference_reshape(one, row_major_in.data(), pos[j], one, want.data(), static_cast<dim_t>(j));
            }
            EXPECT_TRUE(got == want) << "output " << outs[k] << " " << cp->lowering_details();
            EXPECT_TRUE(out_buffers[k].guards_intact());
            // An alias also reads the reference in place, through its strides.
            if (cp->lowering() == lowering_kind::alias) {
                host_buffer in_place(dense_out);
                in_place.fill(0);
                reference_reshape(lt, input_buffer.data(), dense_out, in_place.data());
                EXPECT_TRUE(in_place == want) << "output " << outs[k] << " in place " << cp->lowering_details();
            }
        }
        if (cp->lowering() == lowering_kind::alias) {
            // Executed in place, nothing moves and nothing is written.
            const host_buffer before = input_buffer;
            std::vector<void *> in_place(outs.size(), input_buffer.data());
            cp->execute(in_ptrs, in_place);
            EXPECT_TRUE(input_buffer == before);
        }
    }
    std::printf("%d aliases, %d moved, %d outputs views step by step, %d broadcast inputs\n", aliases, movements,
                stepwise_views, broadcast_inputs);
    EXPECT_GT(stepwise_views, 300);
    EXPECT_GT(broadcast_inputs, 50);
    EXPECT_GT(multi_output, 100);
    EXPECT_GT(aliases, 200);
    EXPECT_GT(movements, 200);
}

TEST(FamilyChains, AxesThatArriveAtExecuteAreCheckedBeforeAnythingIsWritten) {
    // Squeeze-13 whose axes are a variable input: compiled for the output the
    // graph gives ([3,5]); at execute the axes must give that output.
    std::mt19937 rng(1);
    const logical_tensor input = strided_lt(0, data_type::f32, {1, 3, 1, 5});
    chain_builder b(rng, data_type::f32, input);
    logical_tensor axes = strided_lt(1, data_type::s64, {2});
    axes.property = property_type::variable;
    b.g.tensors[1] = axes;
    b.next_id = 2;
    b.add("Squeeze", "ai.onnx", {3, 5}, {1});
    b.g.tensors[b.current].shape = {3, 5};
    infer_graph_shapes(b.g);
    const auto parts = get_partitions(b.g, partition_policy::fusion, backend_claims(engine_kind::cpu));
    ASSERT_EQ(parts.size(), 1u);
    const auto cp = compile(b.g, parts[0], {}, {}, cpu_engine());
    ASSERT_EQ(cp->inputs().size(), 2u);
    std::vector<float> in(15), out(15, -1.0f);
    std::iota(in.begin(), in.end(), 0.0f);
    const std::int64_t right[] = {0, -2}, wrong[] = {0, 1};
    cp->execute({in.data(), right}, {out.data()});
    EXPECT_EQ(out, in);
    std::fill(out.begin(), out.end(), -1.0f);
    const error e = error_of([&] { cp->execute({in.data(), wrong}, {out.data()}); });
    EXPECT_EQ(e.code(), status::invalid_shape) << e.what();
    EXPECT_NE(std::string(e.what()).find("Squeeze"), std::string::npos) << e.what();
    EXPECT_EQ(out, std::vector<float>(15, -1.0f));
}
