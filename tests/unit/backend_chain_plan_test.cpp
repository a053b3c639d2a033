// plan_chain_movement on random chains of reshapes and permutations, random
// input and output layouts and every dtype class: the planned movers (our
// kernel and, where it takes the dtype, oneDNN's reorder) must produce what
// the reference chain (element by element, one op after another) produces,
// and an alias must be planned exactly when the output's addresses in the
// input buffer form a strided view (the address oracle), always when the
// chain is a view step by step as PyTorch makes one (then an output of
// layout any gets PyTorch's strides), and a plan that moves data says why.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "backend/alias_copy.hpp"
#include "backend/dnnl_mapping.hpp"
#include "backend/kernel_movement.hpp"
#include "backend/movement_plan.hpp"
#include "backend/reorder_movement.hpp"
#include "backend_test_support.hpp"
#include "chain_test_support.hpp"
#include "layout/reference.hpp"

using namespace reshaper::impl;
using namespace reshaper::impl::testing;

namespace {

// The row-major elements of `lt` held in `buffer`.
tensor_values row_major(const logical_tensor &lt, const void *buffer) {
    const logical_tensor dense = strided_lt(-1, lt.dtype, lt.shape);
    tensor_values v;
    v.type = lt.dtype;
    v.count = static_cast<std::size_t>(checked_volume(lt.shape).value());
    if (lt.dtype == data_type::string) {
        v.strings.resize(v.count);
        reference_reshape(lt, buffer, dense, v.strings.data());
    } else {
        v.bytes.assign(dense_bytes(lt.dtype, v.count), 0);
        reference_reshape(lt, buffer, dense, v.bytes.data());
    }
    return v;
}

// Strides of `dims` laid out in a random axis order with random gaps.
dims_t random_strides(std::mt19937 &rng, const dims_t &dims) {
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    dims_t strides(dims.size());
    dim_t next = 1 + static_cast<dim_t>(rng() % 2);
    for (std::size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = next;
        next *= dims[order[k]] + static_cast<dim_t>(rng() % 2);
    }
    return strides;
}

// The strides through which the output views the input, when its addresses
// are a strided view (offset 0: element 0 of every chain is element 0).
std::optional<dims_t> oracle_view(const logical_tensor &in, const std::vector<chain_step> &steps,
                                  const dims_t &out_dims) {
    const std::vector<dim_t> addresses = strided_positions(in.shape, effective_strides(in).value());
    tensor_values as_values{data_type::s64, addresses.size(), {}, {}};
    as_values.bytes.resize(addresses.size() * 8);
    std::memcpy(as_values.bytes.data(), addresses.data(), as_values.bytes.size());
    const tensor_values moved = reference_chain(as_values, in.shape, steps);
    std::vector<dim_t> out(addresses.size());
    std::memcpy(out.data(), moved.bytes.data(), moved.bytes.size());
    // Candidate strides from unit steps, then every address checked.
    const dims_t dense = dense_strides(out_dims).value();
    dims_t strides(out_dims.size(), 0);
    for (std::size_t k = 0; k < out_dims.size(); ++k)
        if (out_dims[k] > 1) strides[k] = out[static_cast<std::size_t>(dense[k])] - out[0];
    if (out[0] != 0) return std::nullopt;
    if (strided_positions(out_dims, strides) != out) return std::nullopt;
    return strides;
}

// Equal strides but in size-1 dims (the oracle's own, independent of
// same_strided_layout).
bool equal_ignoring_unit_dims(const dims_t &dims, const dims_t &a, const dims_t &b) {
    for (std::size_t k = 0; k < dims.size(); ++k)
        if (dims[k] != 1 && a[k] != b[k]) return false;
    return true;
}

} // namespace

TEST(ChainPlan, RandomChainsAndLayoutsMatchTheReferenceAndTheAddressOracle) {
    std::mt19937 rng(11);
    const data_type types[] = {data_type::f32, data_type::bf16, data_type::s8, data_type::u4,
                               data_type::u2, data_type::f64, data_type::c128, data_type::string};
    const dim_t volumes[] = {2, 6, 12, 24, 36, 60, 96, 120, 256};
    int aliases = 0, moved = 0, through_temporaries = 0, reorders = 0, stepwise_views = 0, broadcast_aliases = 0;
    for (int trial = 0; trial < 1500; ++trial) {
        const data_type t = types[rng() % std::size(types)];
        const dim_t volume = volumes[rng() % std::size(volumes)];
        const dims_t dims = random_shape(rng, volume);
        const std::vector<chain_step> steps = trial % 2 ? random_chain(rng, dims) : random_framework_chain(rng, dims);
        const dims_t &out_dims = steps.back().output_dims;
        logical_tensor in = strided_lt(0, t, dims,
                                       rng() % 3 == 0   ? dims_t{}
                                       : rng() % 2 == 0 ? random_strides(rng, dims)
                                                        : random_layout_strides(rng, dims));
        logical_tensor out = rng() % 3 == 0   ? any_lt(1, t, out_dims)
                             : rng() % 2 == 0 ? strided_lt(1, t, out_dims)
                                              : strided_lt(1, t, out_dims, random_strides(rng, out_dims));
        SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::string(to_string(t)) + " " +
                     dims_to_string(dims) + " strides " + dims_to_string(in.strides) + " -> " +
                     dims_to_string(out_dims) + " strides " + dims_to_string(out.strides));
        const movement_plan plan = plan_chain_movement(in, steps, out);
        const dims_t in_strides = effective_strides(in).value();
        const auto segments = compose_chain(dims, dims, in_strides, steps);
        const auto view = oracle_view(in, steps, out_dims);
        const bool any = out.layout == layout_type::any;
        const bool oracle_alias =
            view && (any || equal_ignoring_unit_dims(out_dims, *view, effective_strides(out).value()));
        if (segments.size() == 1) EXPECT_EQ(plan.alias, oracle_alias) << describe(plan);
        else EXPECT_FALSE(plan.alias && !oracle_alias);
        // A chain that is a view step by step (each reshape by the view rule
        // on the view reached so far, as torch.Tensor.view) is an alias; an
        // output of layout any gets exactly the strides of that view.
        if (const auto stepwise = stepwise_view_strides(dims, in_strides, steps)) {
            ++stepwise_views;
            if (any) {
                EXPECT_TRUE(plan.alias) << plan.why_not_alias;
                EXPECT_EQ(plan.output.strides, *stepwise);
            } else if (equal_ignoring_unit_dims(out_dims, *stepwise, effective_strides(out).value())) {
                EXPECT_TRUE(plan.alias) << plan.why_not_alias;
                EXPECT_EQ(plan.output.strides, effective_strides(out).value()); // as given
            }
        }
        if (plan.alias && std::count(in_strides.begin(), in_strides.end(), 0) > 0) ++broadcast_aliases;
        host_buffer input(in);
        input.fill_random(rng);
        const tensor_values want = reference_chain(row_major(in, input.data()), dims, steps);
        if (plan.alias) {
            ++aliases;
            // Read in place through the view's strides, and copied.
            EXPECT_TRUE(row_major(plan.output, input.data()) == want) << describe(plan);
            host_buffer copy(plan.output);
            make_alias_copy(in)->run(input.data(), copy.data());
            EXPECT_TRUE(row_major(plan.output, copy.data()) == want);
            continue;
        }
        ++moved;
        if (plan.temporaries > 0) ++through_temporaries;
        EXPECT_FALSE(plan.why_not_alias.empty());
        std::vector<std::unique_ptr<data_mover>> movers;
        movers.push_back(make_kernel_movement(t, plan));
        if (auto reorder_type = dnnl_reorder_type(t)) {
            movers.push_back(make_reorder_movement(cpu_engine(), *reorder_type, plan,
                                                   buffer_bytes(in).value(),
                                                   buffer_bytes(plan.output).value()));
            ++reorders;
        }
        for (const auto &mover : movers) {
            host_buffer output(plan.output);
            output.fill(0x5A);
            mover->run(input.data(), output.data());
            EXPECT_TRUE(row_major(plan.output, output.data()) == want) << describe(plan);
            EXPECT_TRUE(output.guards_intact());
        }
    }
    std::printf("%d aliases (%d of broadcast inputs), %d moved (%d through temporaries), %d views step by step\n",
                aliases, broadcast_aliases, moved, through_temporaries, stepwise_views);
    // Every branch was taken often.
    EXPECT_GT(aliases, 100);
    EXPECT_GT(moved, 300);
    EXPECT_GT(through_temporaries, 20);
    EXPECT_GT(reorders, 100);
    EXPECT_GT(stepwise_views, 300);
    EXPECT_GT(broadcast_aliases, 20);
}

TEST(ChainPlan, MergeHeadsIsOneTransposeAndSplitHeadsAView) {
    // [B,H,S,D] -> transpose to [B,S,H,D] -> reshape [B*S, H*D]: one strided
    // step that the tiled transpose takes.
    const dims_t bhsd{2, 4, 8, 16};
    const std::vector<chain_step> merge{{{2, 8, 4, 16}, {0, 2, 1, 3}}, {{16, 64}, {}}};
    movement_plan plan = plan_chain_movement(strided_lt(0, data_type::bf16, bhsd), merge,
                                             any_lt(1, data_type::bf16, {16, 64}));
    ASSERT_FALSE(plan.alias);
    ASSERT_EQ(plan.steps.size(), 1u) << describe(plan);
    EXPECT_EQ(plan.temporaries, 0u);
    EXPECT_EQ(plan.output.strides, (dims_t{64, 1}));
    EXPECT_NE(plan.why_not_alias.find("the chain reads the input as [2,8,4,16]"), std::string::npos)
        << plan.why_not_alias;
    // Split heads: [B*S, H*D] -> [B,S,H,D] -> [B,H,S,D], output any: a view.
    const std::vector<chain_step> split{{{2, 8, 4, 16}, {}}, {{2, 4, 8, 16}, {0, 2, 1, 3}}};
    plan = plan_chain_movement(strided_lt(0, data_type::bf16, {16, 64}), split,
                               any_lt(1, data_type::bf16, bhsd));
    ASSERT_TRUE(plan.alias) << plan.why_not_alias;
    EXPECT_EQ(plan.output.strides, (dims_t{512, 16, 64, 1}));
}

TEST(ChainPlan, BlockedInputsTranspose) {
    // nChw16c read through a transpose: unpadded as strided fine dims (one
    // step), padded (C = 20) through a dense temporary after a reorder.
    for (const dim_t c : {32, 20}) {
        const logical_tensor in = opaque_lt(0, data_type::f32, {2, c, 3, 5}, "nChw16c");
        const std::vector<chain_step> steps{{{2, 3, 5, c}, {0, 2, 3, 1}}};
        const movement_plan plan = plan_chain_movement(in, steps, strided_lt(1, data_type::f32, {2, 3, 5, c}));
        EXPECT_FALSE(plan.alias);
        EXPECT_EQ(plan.steps.size(), c == 32 ? 1u : 2u) << describe(plan);
        host_buffer input(in), output(plan.output);
        std::mt19937 rng(3);
        input.fill_random(rng);
        make_reorder_movement(cpu_engine(), dnnl::memory::data_type::f32, plan,
                              buffer_bytes(in).value(), buffer_bytes(plan.output).value())
            ->run(input.data(), output.data());
        EXPECT_TRUE(row_major(plan.output, output.data()) ==
                    reference_chain(row_major(in, input.data()), in.shape, steps))
            << describe(plan);
    }
}

TEST(ChainPlan, DimsThatDoNotNestPassThroughTwoTemporaries) {
    // [2,3] -> T [3,2] -> R [2,3] -> T [3,2] -> R [2,3] -> T [3,2]: three segments.
    const std::vector<chain_step> steps{{{3, 2}, {1, 0}}, {{2, 3}, {}}, {{3, 2}, {1, 0}},
                                        {{2, 3}, {}}, {{3, 2}, {1, 0}}};
    const logical_tensor in = strided_lt(0, data_type::s32, {2, 3});
    const movement_plan plan = plan_chain_movement(in, steps, any_lt(1, data_type::s32, {3, 2}));
    EXPECT_EQ(plan.temporaries, 2u) << describe(plan);
    EXPECT_NE(plan.why_not_alias.find("do not nest"), std::string::npos) << plan.why_not_alias;
    EXPECT_NE(describe(plan).find("temporary 2"), std::string::npos) << describe(plan);
    host_buffer input(in), output(plan.output);
    std::mt19937 rng(5);
    input.fill_random(rng);
    make_kernel_movement(data_type::s32, plan)->run(input.data(), output.data());
    EXPECT_TRUE(row_major(plan.output, output.data()) ==
                reference_chain(row_major(in, input.data()), in.shape, steps));
}

// Issue 25: [5,4] strides [2,10] -> transpose -> [10,2] -> transpose is a
// view in numpy and PyTorch: transposed, the dims' strides nest (10 = 5*2),
// so [10,2] views them. The output gets the strides PyTorch's rule gives
// step by step (stepwise_view_strides; PyTorch 1.13 gave [2,4] too, see
// layout_chain_view_test), and the alias reads the reference's elements.
TEST(ChainPlan, PermutedDimsWhoseStridesNestAreAView) {
    const std::vector<chain_step> steps{{{4, 5}, {1, 0}}, {{10, 2}, {}}, {{2, 10}, {1, 0}}};
    const logical_tensor in = strided_lt(0, data_type::f32, {5, 4}, {2, 10});
    const dims_t torch_like = stepwise_view_strides({5, 4}, {2, 10}, steps).value();
    movement_plan plan = plan_chain_movement(in, steps, any_lt(1, data_type::f32, {2, 10}));
    ASSERT_TRUE(plan.alias) << plan.why_not_alias;
    EXPECT_EQ(plan.output.strides, torch_like);
    host_buffer input(in);
    std::mt19937 rng(25);
    input.fill_random(rng);
    EXPECT_TRUE(row_major(plan.output, input.data()) == reference_chain(row_major(in, input.data()), in.shape, steps));
    // A dense output is written by one strided step, and says why.
    plan = plan_chain_movement(in, steps, strided_lt(1, data_type::f32, {2, 10}));
    EXPECT_FALSE(plan.alias);
    EXPECT_EQ(plan.steps.size(), 1u) << describe(plan);
    EXPECT_NE(plan.why_not_alias.find("are not the view's strides [2,4]"), std::string::npos) << plan.why_not_alias;
    // The same chain of a dense input is no view: copied, with the reason.
    plan = plan_chain_movement(strided_lt(0, data_type::f32, {5, 4}), steps, any_lt(1, data_type::f32, {2, 10}));
    EXPECT_FALSE(plan.alias);
    EXPECT_NE(plan.why_not_alias.find("do not nest in memory"), std::string::npos) << plan.why_not_alias;
}

// Issue 25: a broadcast input ([8,96] strides [0,1], as PyTorch's
// positional encodings are) unsqueezed to [8,1,96] is a view in PyTorch
// (strides [0,96,1]), both when the output's layout is any and when it
// gives those strides (in any size-1 dim's stride).
TEST(ChainPlan, ABroadcastInputUnsqueezedIsAView) {
    const logical_tensor in = strided_lt(0, data_type::f32, {8, 96}, {0, 1});
    const std::vector<chain_step> unsqueeze{{{8, 1, 96}, {}}};
    const dims_t torch_like = stepwise_view_strides({8, 96}, {0, 1}, unsqueeze).value();
    movement_plan plan = plan_chain_movement(in, unsqueeze, any_lt(1, data_type::f32, {8, 1, 96}));
    ASSERT_TRUE(plan.alias) << plan.why_not_alias;
    EXPECT_EQ(plan.output.strides, torch_like);
    for (const dims_t &given : {torch_like, dims_t{0, 5, 1}}) {
        plan = plan_chain_movement(in, unsqueeze, strided_lt(1, data_type::f32, {8, 1, 96}, given));
        EXPECT_TRUE(plan.alias) << plan.why_not_alias;
        EXPECT_EQ(plan.output.strides, given); // as given
    }
    // Followed by a transpose, still one.
    const std::vector<chain_step> then_transposed{{{8, 1, 96}, {}}, {{1, 8, 96}, {1, 0, 2}}};
    plan = plan_chain_movement(in, then_transposed, any_lt(1, data_type::f32, {1, 8, 96}));
    ASSERT_TRUE(plan.alias) << plan.why_not_alias;
    EXPECT_EQ(plan.output.strides, stepwise_view_strides({8, 96}, {0, 1}, then_transposed).value());
    // Into a dense output: a copy that says why.
    plan = plan_chain_movement(in, unsqueeze, strided_lt(1, data_type::f32, {8, 1, 96}));
    EXPECT_FALSE(plan.alias);
    EXPECT_FALSE(plan.why_not_alias.empty());
    host_buffer input(in), output(plan.output);
    std::mt19937 rng(26);
    input.fill_random(rng);
    make_kernel_movement(data_type::f32, plan)->run(input.data(), output.data());
    EXPECT_TRUE(row_major(plan.output, output.data()) == reference_chain(row_major(in, input.data()), in.shape, unsqueeze));
}
