// Every dtype through every lowering that applies, on dense, permuted,
// sliced, padded, size-1, zero-size and scalar layouts and on chains:
// bit-exact against the reference reshape, guards intact, inputs unchanged.
#include "backend_test_support.hpp"

#include <algorithm>

#include "backend/claims.hpp"
#include "backend/dnnl_mapping.hpp"
#include "kernels/cpu_isa.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::impl::testing {
namespace {

struct layout_case {
    std::string name;
    dims_t in_shape, in_strides;     // strides empty: dense
    std::vector<dims_t> targets;     // the chain of StaticReshape targets
    std::optional<dims_t> out_strides; // nothing: layout any
    bool expect_alias;
    std::size_t expect_steps = 0;    // for moves
    dims_t expect_out_strides = {};  // checked when not empty
};

const std::vector<layout_case> &layout_cases() {
    static const std::vector<layout_case> cases{
        {"dense_merge", {2, 3, 4}, {}, {{6, 4}}, std::nullopt, true, 0, {4, 1}},
        {"dense_split", {24}, {}, {{2, 3, 4}}, std::nullopt, true, 0, {12, 4, 1}},
        {"permuted", {4, 6}, {1, 4}, {{24}}, std::nullopt, false, 1, {1}},
        {"sliced_step", {3, 4}, {10, 2}, {{12}}, std::nullopt, false, 1, {1}},
        {"sliced_rows_viewable", {3, 4}, {8, 1}, {{3, 2, 2}}, std::nullopt, true, 0, {8, 2, 1}},
        {"sliced_rows_not_viewable", {3, 4}, {8, 1}, {{2, 6}}, std::nullopt, false, 1, {6, 1}},
        {"padded_output", {24}, {}, {{4, 6}}, dims_t{8, 1}, false, 1, {8, 1}},
        {"view_strides_given", {3, 4}, {8, 1}, {{3, 2, 2}}, dims_t{8, 2, 1}, true, 0, {8, 2, 1}},
        {"both_column_major", {6, 4}, {1, 6}, {{4, 6}}, dims_t{1, 4}, false, 2, {1, 4}},
        {"common_refinement", {4, 6}, {12, 1}, {{2, 12}}, dims_t{24, 1}, false, 1, {24, 1}},
        {"chain_permuted", {4, 6}, {1, 4}, {{24}, {2, 12}, {3, 8}}, std::nullopt, false, 1, {8, 1}},
        {"chain_alias", {2, 3, 4}, {}, {{6, 4}, {24}, {4, 6}}, std::nullopt, true, 0, {6, 1}},
        {"odd_count_permuted", {3, 5}, {1, 3}, {{15}}, std::nullopt, false, 1, {1}},
        {"odd_stride_view", {5}, {3}, {{5, 1}}, std::nullopt, true, 0, {3, 3}},
        {"size_one_dims", {1, 6, 1}, {100, 1, 7}, {{6}}, std::nullopt, true, 0, {1}},
        {"size_one_strides_ignored", {6}, {}, {{1, 6, 1}}, dims_t{99, 1, 5}, true, 0, {99, 1, 5}},
        {"zero_size", {2, 0, 3}, {}, {{0, 6}}, std::nullopt, true, 0, {}},
        {"zero_size_strided_out", {2, 0, 3}, {}, {{0, 6}}, dims_t{1, 1}, true, 0, {1, 1}},
        {"scalar_to_ones", {}, {}, {{1, 1}}, std::nullopt, true, 0, {}},
        {"ones_to_scalar", {1, 1}, {}, {{}}, dims_t{}, true, 0, {}},
    };
    return cases;
}

using param = std::tuple<data_type, std::size_t>;

class backend_lowering : public ::testing::TestWithParam<param> {
protected:
    data_type type() const { return std::get<0>(GetParam()); }
    const layout_case &c() const { return layout_cases()[std::get<1>(GetParam())]; }

    std::shared_ptr<const compiled_partition> compile_case() const {
        const logical_tensor in = strided_lt(0, type(), c().in_shape, c().in_strides);
        graph g = static_chain(in, c().targets);
        const tensor_id out_id = static_cast<tensor_id>(c().targets.size());
        logical_tensor out = c().out_strides ? strided_lt(out_id, type(), c().targets.back(), *c().out_strides)
                                             : any_lt(out_id, type(), c().targets.back());
        return compile_whole(g, in, out);
    }
};

TEST_P(backend_lowering, matches_reference_with_planned_lowering) {
    const auto cp = compile_case();
    EXPECT_EQ(cp->lowering() == lowering_kind::alias, c().expect_alias) << cp->lowering_details();
    expect_policy_mover(*cp, type());
    const logical_tensor &out = cp->outputs().at(0);
    EXPECT_EQ(out.layout, layout_type::strided);
    EXPECT_EQ(out.shape, c().targets.back());
    if (!c().expect_out_strides.empty()) {
        EXPECT_EQ(out.strides, c().expect_out_strides);
    }
    if (c().expect_alias) {
        ASSERT_EQ(cp->inplace_pairs().size(), 1u);
        EXPECT_EQ(cp->inplace_pairs()[0], std::make_pair(tensor_id{0}, out.id));
    } else {
        EXPECT_TRUE(cp->inplace_pairs().empty());
        const std::string details = cp->lowering_details();
        const bool via_temporary = details.find("via dense temporary") != std::string::npos;
        EXPECT_EQ(via_temporary, c().expect_steps == 2) << details;
    }
    expect_matches_reference(*cp);
}

class backend_alias : public backend_lowering {};

// An alias run in place moves nothing: the input buffer is unchanged and,
// read through the output's strides, holds the reshaped tensor.
TEST_P(backend_alias, in_place_moves_nothing) {
    const auto cp = compile_case();
    ASSERT_EQ(cp->lowering(), lowering_kind::alias);
    const logical_tensor &in = cp->inputs()[0];
    const logical_tensor &out = cp->outputs()[0];
    host_buffer buffer(in);
    std::mt19937 rng(7);
    buffer.fill_random(rng);
    const host_buffer before = buffer;
    cp->execute({buffer.data()}, {buffer.data()});
    EXPECT_TRUE(buffer == before);

    // The same elements in row-major order, read through either description.
    const logical_tensor dense_out = strided_lt(99, type(), out.shape);
    host_buffer via_reshape(dense_out), via_view(dense_out);
    via_reshape.fill(0);
    via_view.fill(0);
    reference_reshape(in, buffer.data(), dense_out, via_reshape.data());
    reference_reshape(out, buffer.data(), dense_out, via_view.data());
    EXPECT_TRUE(via_reshape == via_view) << "the output strides are not a view of the input";
}

std::string param_name(const ::testing::TestParamInfo<param> &info) {
    return std::string(to_string(std::get<0>(info.param))) + "_" +
           layout_cases()[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(every_dtype, backend_lowering,
                         ::testing::Combine(::testing::ValuesIn(all_data_types()),
                                            ::testing::Range(std::size_t{0}, layout_cases().size())),
                         param_name);

std::vector<std::size_t> alias_cases() {
    std::vector<std::size_t> indices;
    for (std::size_t k = 0; k < layout_cases().size(); ++k)
        if (layout_cases()[k].expect_alias) indices.push_back(k);
    return indices;
}

INSTANTIATE_TEST_SUITE_P(every_dtype, backend_alias,
                         ::testing::Combine(::testing::ValuesIn(all_data_types()),
                                            ::testing::ValuesIn(alias_cases())),
                         param_name);

// A slice (rows 1.., every second column from 1) of a larger buffer: the
// caller passes a pointer to its first element, 10 elements in.
TEST(backend_lowering_offset, slice_inside_larger_buffer) {
    for (data_type t : all_data_types()) {
        SCOPED_TRACE(std::string(to_string(t)));
        const logical_tensor whole = strided_lt(50, t, {5, 9});
        const logical_tensor in = strided_lt(0, t, {4, 3}, {9, 2});
        graph g = static_chain(in, {{2, 6}});
        const auto cp = compile_whole(g, in, any_lt(1, t, {2, 6}));
        ASSERT_NE(cp->lowering(), lowering_kind::alias);

        host_buffer base(whole);
        std::mt19937 rng(11);
        base.fill_random(rng);
        const host_buffer base_before = base;
        const std::size_t offset_bytes = 10 * element_bits(t) / 8;
        const void *first = static_cast<const std::uint8_t *>(base.data()) + offset_bytes;
        const logical_tensor &out = cp->outputs()[0];
        host_buffer actual(out), expected(out);
        actual.fill(output_sentinel(out));
        expected.fill(output_sentinel(out));
        reference_reshape(in, first, out, expected.data());
        cp->execute({first}, {actual.data()});
        EXPECT_TRUE(actual == expected) << cp->lowering_details();
        EXPECT_TRUE(actual.guards_intact());
        EXPECT_TRUE(base == base_before);
    }
}

// Layout undef: an input reads as strided (dense without strides), an
// output is the backend's to choose, like any.
TEST(backend_lowering_special, undef_layouts) {
    logical_tensor in = strided_lt(0, data_type::f32, {3, 4}, {8, 1});
    in.layout = layout_type::undef;
    graph g = static_chain(in, {{3, 2, 2}});
    logical_tensor out = strided_lt(1, data_type::f32, {3, 2, 2});
    out.layout = layout_type::undef;
    const auto cp = compile_whole(g, in, out);
    EXPECT_EQ(cp->lowering(), lowering_kind::alias);
    EXPECT_EQ(cp->outputs()[0].layout, layout_type::strided);
    EXPECT_EQ(cp->outputs()[0].strides, (dims_t{8, 2, 1}));
}

// A padded blocked format oneDNN 2.x has no tag for (Ab8a over 20 rows),
// into every other element (no fast path): our kernel's element walk moves
// it, and the details give the real reason the reorder does not (f32
// reorders fine otherwise).
TEST(backend_lowering_special, padded_format_without_a_oneDNN_tag_is_moved_by_the_kernel) {
    const logical_tensor in = opaque_lt(0, data_type::f32, {20, 3}, "Ab8a");
    graph g = static_chain(in, {{20, 3}});
    const auto cp = compile_whole(g, in, strided_lt(1, data_type::f32, {20, 3}, {7, 2}));
    if (cp->lowering() == lowering_kind::reorder) return; // a oneDNN with the tag reorders it
    EXPECT_EQ(cp->lowering(), lowering_kind::kernel);
    const std::string details = cp->lowering_details();
    EXPECT_NE(details.find("Ab8a"), std::string::npos) << details;
    EXPECT_EQ(details.find("does not take this dtype"), std::string::npos) << details;
    EXPECT_NE(details.find("oneDNN declined"), std::string::npos) << details;
    expect_matches_reference(*cp);
}

// Transposes of at most 4 KiB with a side of 2 or 3 take the kernel's
// partial tiles (or another fast path), not oneDNN's reorder, which costs
// more per execute there, for 2-byte and wider elements at AVX-512 (the
// other levels and sizes keep the walk or the reorder); all match the oracle.
TEST(backend_lowering_special, small_transposes_with_sides_of_2_or_3_take_the_kernels_tiles) {
    struct view {
        dims_t dims, strides; // the output's dims, read from the input with these strides
    };
    const view views[] = {
        {{32, 16, 2}, {1, 32, 512}}, // [2,16,32] permuted (2,1,0)
        {{8, 2, 16}, {32, 1, 2}},    // [8,16,2] permuted (0,2,1)
        {{3, 40}, {1, 3}},           // [40,3] transposed
        {{2, 2, 2, 2}, {1, 2, 4, 8}} // [2,2,2,2] reversed
    };
    int checked = 0;
    for (data_type t : {data_type::s8, data_type::bf16, data_type::f32, data_type::f64, data_type::c128}) {
        for (const view &v : views) {
            dim_t volume = 1;
            for (dim_t d : v.dims) volume *= d;
            if (static_cast<std::size_t>(volume) * element_bits(t) / 8 > 4096) continue;
            SCOPED_TRACE(std::string(to_string(t)) + " " + std::to_string(volume) + " elements");
            const logical_tensor in = strided_lt(0, t, v.dims, v.strides);
            graph g = static_chain(in, {v.dims});
            const auto cp = compile_whole(g, in, strided_lt(1, t, v.dims));
            if (active_cpu_isa() == cpu_isa::avx512 && element_bits(t) >= 16) {
                EXPECT_EQ(cp->lowering(), lowering_kind::kernel) << cp->lowering_details();
                EXPECT_EQ(cp->lowering_details().find("element walk"), std::string::npos)
                    << cp->lowering_details();
            }
            expect_matches_reference(*cp);
            ++checked;
        }
    }
    EXPECT_EQ(checked, 18);
}

// Data of an unknown type has no buffer size: the dtype is what is wrong.
TEST(backend_lowering_special, undef_dtype_is_an_invalid_data_type) {
    logical_tensor in = strided_lt(0, data_type::undef, {3, 4});
    graph g = static_chain(in, {{12}});
    logical_tensor out = strided_lt(1, data_type::undef, {12});
    const error e = error_of([&] { compile_whole(g, in, out); });
    EXPECT_EQ(e.code(), status::invalid_data_type) << e.what();
    EXPECT_NE(std::string(e.what()).find("dtype undef"), std::string::npos) << e.what();
}

// The GPU engine has only oneDNN's reorder to move data: the partitioner
// claims a reshape for it exactly when compile would lower to a reorder.
TEST(backend_lowering_special, gpu_partitions_claim_exactly_the_reorder_dtypes) {
    for (data_type t : all_data_types()) {
        const graph g = static_chain(strided_lt(0, t, {2, 3}), {{6}});
        const partition p = get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::gpu)).at(0);
        EXPECT_EQ(p.supported, dnnl_reorder_type(t).has_value()) << to_string(t) << ": " << p.reason;
        EXPECT_TRUE(get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::cpu)).at(0).supported)
            << to_string(t);
    }
    // Our own kernels move the 2-bit types (oneDNN's reorder does not).
    for (data_type t : {data_type::s2, data_type::u2}) EXPECT_FALSE(dnnl_reorder_type(t).has_value());
}

// An ONNX Reshape of s64 data: the CPU claims it, the GPU leaves it, saying
// why (moved here from the partitioner's tests with the GPU's knowledge).
TEST(backend_lowering_special, gpu_leaves_types_only_our_cpu_kernels_move) {
    graph g;
    for (tensor_id id : {0, 1, 2}) {
        logical_tensor lt;
        lt.id = id;
        lt.dtype = data_type::s64;
        lt.shape = id == 0 ? dims_t{2, 3} : id == 1 ? dims_t{1} : dims_t{6};
        g.tensors[id] = lt;
    }
    op o;
    o.id = 0;
    o.name = "onnx_reshape";
    o.kind = "Reshape";
    o.domain = "ai.onnx";
    o.version = 14;
    o.inputs = {0, 1};
    o.outputs = {2};
    g.ops.push_back(o);
    EXPECT_TRUE(get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::cpu))[0].supported);
    const auto gpu = get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::gpu));
    EXPECT_FALSE(gpu[0].supported);
    EXPECT_EQ(gpu[0].reason, "dtype s64 is not supported on the gpu engine");
}

// A broadcast input (stride 0): no view merges it with its neighbour.
TEST(backend_lowering_special, broadcast_input) {
    for (data_type t : {data_type::f32, data_type::bf16, data_type::u8, data_type::s64, data_type::u4}) {
        SCOPED_TRACE(std::string(to_string(t)));
        const logical_tensor in = strided_lt(0, t, {3, 4}, {0, 1});
        graph g = static_chain(in, {{12}});
        const auto cp = compile_whole(g, in, any_lt(1, t, {12}));
        EXPECT_NE(cp->lowering(), lowering_kind::alias);
        expect_matches_reference(*cp);
        // Splitting the other dim is a view, stride 0 kept, as PyTorch's
        // view is ([0,2,1], issue 25). Its elements share addresses, which
        // an alias may have (it writes none of them), and handed back as
        // the output's layout it compiles to the same alias (issue 9).
        graph split = static_chain(in, {{3, 2, 2}});
        const auto view = compile_whole(split, in, any_lt(1, t, {3, 2, 2}));
        EXPECT_EQ(view->lowering(), lowering_kind::alias);
        EXPECT_EQ(view->outputs()[0].strides, (dims_t{0, 2, 1}));
        expect_matches_reference(*view);
        const auto again = compile_whole(split, in, view->outputs()[0]);
        EXPECT_EQ(again->lowering(), lowering_kind::alias);
        expect_matches_reference(*again);
        // A dense output is written: a copy, which says why.
        const auto dense = compile_whole(split, in, strided_lt(1, t, {3, 2, 2}));
        EXPECT_NE(dense->lowering(), lowering_kind::alias);
        EXPECT_NE(dense->why_not_alias().find("are not the view's strides [0,2,1]"), std::string::npos)
            << dense->why_not_alias();
        expect_matches_reference(*dense);
        // Strides that share addresses where the plan writes stay an error.
        const error shared = error_of([&] { compile_whole(split, in, strided_lt(1, t, {3, 2, 2}, {4, 0, 1})); });
        EXPECT_EQ(shared.code(), status::invalid_arguments);
        EXPECT_NE(std::string(shared.what()).find("share an address"), std::string::npos) << shared.what();
    }
}

// More dims than oneDNN takes (12) and none to coalesce: our kernel moves
// them, and the details say why.
TEST(backend_lowering_special, more_dims_than_oneDNN_takes_fall_back_to_the_kernel) {
    const dims_t dims(14, 2);
    dims_t reversed(14);
    for (std::size_t k = 0; k < 14; ++k) reversed[k] = dim_t{1} << k; // column-major
    const logical_tensor in = strided_lt(0, data_type::f32, dims, reversed);
    graph g = static_chain(in, {{16384}});
    const auto cp = compile_whole(g, in, any_lt(1, data_type::f32, {16384}));
    EXPECT_EQ(cp->lowering(), lowering_kind::kernel);
    EXPECT_NE(cp->lowering_details().find("oneDNN declined"), std::string::npos) << cp->lowering_details();
    expect_matches_reference(*cp);
}

} // namespace
} // namespace reshaper::impl::testing
