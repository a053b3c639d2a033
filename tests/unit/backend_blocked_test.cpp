// Blocked (opaque) layouts: nChw16c, nChw8c, ABcd16a16b inputs and outputs,
// with and without padding, for every dtype: bit-exact against the
// reference, which reads and writes blocked buffers through blocked_offset.
#include "backend_test_support.hpp"

#include "backend/dnnl_mapping.hpp"
#include "backend/kernel_movement.hpp"
#include "backend/movement_plan.hpp"
#include "random_formats.hpp"

namespace reshaper::impl::testing {
namespace {

struct blocked_case {
    std::string name;
    std::string format;
    dims_t dims; // 4-D
    bool padded;
};

const std::vector<blocked_case> &blocked_cases() {
    static const std::vector<blocked_case> cases{
        {"nChw16c", "nChw16c", {2, 32, 3, 3}, false},
        {"nChw16c_padded", "nChw16c", {2, 20, 3, 3}, true},
        {"nChw8c", "nChw8c", {2, 24, 3, 3}, false},
        {"nChw8c_padded", "nChw8c", {1, 13, 2, 5}, true},
        {"ABcd16a16b", "ABcd16a16b", {32, 32, 2, 2}, false},
        {"ABcd16a16b_padded", "ABcd16a16b", {20, 40, 2, 1}, true},
    };
    return cases;
}

using param = std::tuple<data_type, std::size_t>;

class backend_blocked : public ::testing::TestWithParam<param> {
protected:
    data_type type() const { return std::get<0>(GetParam()); }
    const blocked_case &c() const { return blocked_cases()[std::get<1>(GetParam())]; }
    // Every dtype moves every layout: oneDNN's reorder or our kernel (padded
    // layouts by the element walk).
    bool movable() const { return true; }
    dim_t volume() const { return *checked_volume(c().dims); }
};

TEST_P(backend_blocked, blocked_input_to_dense_output) {
    const logical_tensor in = opaque_lt(0, type(), c().dims, c().format);
    const dims_t flat{c().dims[0], volume() / c().dims[0]};
    graph g = static_chain(in, {flat});
    if (!movable()) {
        const error e = error_of([&] { compile_whole(g, in, any_lt(1, type(), flat)); });
        EXPECT_EQ(e.code(), status::unimplemented);
        EXPECT_NE(std::string(e.what()).find(std::string(to_string(type()))), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(c().format), std::string::npos) << e.what();
        return;
    }
    const auto cp = compile_whole(g, in, any_lt(1, type(), flat));
    expect_policy_mover(*cp, type());
    EXPECT_EQ(cp->outputs()[0].strides, *dense_strides(flat));
    EXPECT_TRUE(cp->inplace_pairs().empty());
    expect_matches_reference(*cp);
}

// The output in the input's dims is not a view of a permuted output: two
// steps through a dense temporary unless the blocks line up with it.
TEST_P(backend_blocked, blocked_input_to_permuted_output) {
    const logical_tensor in = opaque_lt(0, type(), c().dims, c().format);
    const dims_t target{c().dims[0] * c().dims[1], c().dims[2] * c().dims[3]};
    graph g = static_chain(in, {target});
    const logical_tensor out = strided_lt(1, type(), target, {1, target[0]});
    if (!movable()) {
        EXPECT_EQ(error_of([&] { compile_whole(g, in, out); }).code(), status::unimplemented);
        return;
    }
    const auto cp = compile_whole(g, in, out);
    expect_policy_mover(*cp, type());
    expect_matches_reference(*cp, 3);
}

TEST_P(backend_blocked, dense_input_to_blocked_output) {
    const dims_t flat{c().dims[0], volume() / c().dims[0]};
    const logical_tensor in = strided_lt(0, type(), flat);
    graph g = static_chain(in, {c().dims});
    const logical_tensor out = opaque_lt(1, type(), c().dims, c().format);
    if (!movable()) {
        const error e = error_of([&] { compile_whole(g, in, out); });
        EXPECT_EQ(e.code(), status::unimplemented);
        EXPECT_NE(std::string(e.what()).find(c().format), std::string::npos) << e.what();
        return;
    }
    const auto cp = compile_whole(g, in, out);
    expect_policy_mover(*cp, type());
    EXPECT_EQ(cp->outputs()[0].layout, layout_type::opaque);
    EXPECT_EQ(cp->outputs()[0].format, c().format);
    expect_matches_reference(*cp, 5);
}

// No view of a permuted input in the output's dims: through a temporary
// when the output is padded.
TEST_P(backend_blocked, permuted_input_to_blocked_output) {
    const dims_t flat{volume() / c().dims[0], c().dims[0]};
    const logical_tensor in = strided_lt(0, type(), flat, {1, flat[0]});
    graph g = static_chain(in, {c().dims});
    const logical_tensor out = opaque_lt(1, type(), c().dims, c().format);
    if (!movable()) {
        EXPECT_EQ(error_of([&] { compile_whole(g, in, out); }).code(), status::unimplemented);
        return;
    }
    const auto cp = compile_whole(g, in, out);
    expect_policy_mover(*cp, type());
    expect_matches_reference(*cp, 13);
}

// One blocked format into another over other dims.
TEST_P(backend_blocked, blocked_input_to_other_blocked_output) {
    const logical_tensor in = opaque_lt(0, type(), c().dims, c().format);
    const dims_t target{c().dims[1], c().dims[0], c().dims[2] * c().dims[3], 1};
    graph g = static_chain(in, {target});
    const logical_tensor out = opaque_lt(1, type(), target, "nChw8c");
    const auto cp = compile_whole(g, in, out);
    expect_policy_mover(*cp, type());
    expect_matches_reference(*cp, 17);
}

// Same dims, output any: the blocked buffer itself is the output.
TEST_P(backend_blocked, identity_reshape_aliases_the_blocked_buffer) {
    const logical_tensor in = opaque_lt(0, type(), c().dims, c().format);
    graph g = static_chain(in, {c().dims});
    const auto cp = compile_whole(g, in, any_lt(1, type(), c().dims));
    EXPECT_EQ(cp->lowering(), lowering_kind::alias);
    EXPECT_EQ(cp->outputs()[0].layout, layout_type::opaque);
    EXPECT_EQ(cp->outputs()[0].format, c().format);
    // Into a separate buffer: the elements arrive (padding is copied too).
    host_buffer input(in), output(cp->outputs()[0]);
    std::mt19937 rng(9);
    input.fill_random(rng);
    output.fill(0);
    cp->execute({input.data()}, {output.data()});
    EXPECT_TRUE(same_elements(cp->outputs()[0], input.data(), output.data()));
    EXPECT_TRUE(output.guards_intact());
}

// 2-D padded blocked formats (Ab8a over 20 rows: oneDNN 2.x has no tag for
// it, so even f32 comes to our kernel) both ways, and from one padded format
// to another: bit-exact, the output's padding zeroed.
TEST_P(backend_blocked, padded_two_dim_formats_both_ways) {
    if (std::get<1>(GetParam()) != 0) return; // once per dtype
    const dims_t dims{20, 3};
    const logical_tensor ab8a = opaque_lt(0, type(), dims, "Ab8a");
    {
        graph g = static_chain(ab8a, {{3, 20}});
        const auto cp = compile_whole(g, ab8a, strided_lt(1, type(), {3, 20}));
        EXPECT_NE(cp->lowering(), lowering_kind::alias);
        expect_matches_reference(*cp, 21);
    }
    {
        const logical_tensor in = strided_lt(0, type(), {60});
        graph g = static_chain(in, {dims});
        const auto cp = compile_whole(g, in, opaque_lt(1, type(), dims, "Ab8a"));
        EXPECT_EQ(cp->outputs()[0].format, "Ab8a");
        expect_matches_reference(*cp, 22);
    }
    {
        const logical_tensor in = strided_lt(0, type(), {3, 20}, {1, 3}); // transposed
        graph g = static_chain(in, {dims});
        const auto cp = compile_whole(g, in, opaque_lt(1, type(), dims, "Ab8a"));
        expect_matches_reference(*cp, 23);
    }
    for (const char *to : {"Ab16a", "Ab4a", "aB2b"}) {
        SCOPED_TRACE(to);
        graph g = static_chain(ab8a, {dims});
        const auto cp = compile_whole(g, ab8a, opaque_lt(1, type(), dims, to));
        expect_matches_reference(*cp, 24);
    }
}

std::string param_name(const ::testing::TestParamInfo<param> &info) {
    return std::string(to_string(std::get<0>(info.param))) + "_" +
           blocked_cases()[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(every_dtype, backend_blocked,
                         ::testing::Combine(::testing::ValuesIn(all_data_types()),
                                            ::testing::Range(std::size_t{0}, blocked_cases().size())),
                         param_name);

// Every bit pattern survives the movers (our SIMD kernels, oneDNN's
// reorder kernels) on tensors large enough for their vectorised paths (NaN payloads, denormals, -0, s32
// values an f32 cannot hold): transposes and blocked formats both ways.
TEST(backend_blocked_bits, large_random_tensors_move_bit_exactly) {
    const dims_t dims{2, 64, 32, 32};
    for (data_type t : {data_type::f32, data_type::s32, data_type::bf16, data_type::f16,
                        data_type::s8, data_type::u8}) {
        for (const std::string format : {"nChw8c", "nChw16c", "ABcd16a16b", "nhwc"}) {
            SCOPED_TRACE(std::string(to_string(t)) + " " + format);
            const logical_tensor blocked = opaque_lt(0, t, dims, format);
            const dims_t flat{2, 65536};
            graph to_dense = static_chain(blocked, {flat});
            const auto out_of_blocked = compile_whole(to_dense, blocked, any_lt(1, t, flat));
            expect_policy_mover(*out_of_blocked, t);
            expect_matches_reference(*out_of_blocked, 21);

            const logical_tensor permuted = strided_lt(0, t, {65536, 2}, {1, 65536});
            graph to_blocked = static_chain(permuted, {dims});
            const auto into_blocked = compile_whole(to_blocked, permuted, opaque_lt(1, t, dims, format));
            expect_policy_mover(*into_blocked, t);
            expect_matches_reference(*into_blocked, 23);
        }
    }
}

// A step's boxes are layout/blocked_views.hpp's (its tests are the
// layout's): a step with both sides blocked, or two levels of blocks on a
// padded dim, has none.
TEST(backend_padded_boxes, none_for_steps_the_boxes_do_not_describe) {
    // Both sides blocked, or two levels of blocks on a padded dim: not boxes.
    EXPECT_FALSE(padded_step_as_boxes({{2, 20, 3, 3}, {{}, "nChw16c"}, {{}, "nChw8c"}}).has_value());
    EXPECT_FALSE(padded_step_as_boxes({{20, 20, 1, 2}, {{}, "ABcd4b16a4b"}, {*dense_strides({20, 20, 1, 2}), ""}})
                     .has_value());
}

// Every padded step is planned whole at compile time: a step with boxes gets
// one movement program per box of elements (the 13 valid channels of
// nChw16c: whole blocks of 16 minus the 3 missing ones, so 0 whole blocks
// and the last block's 13 channels, then the 3 padded channels' zeroes);
// a step without boxes gets its two digit layouts and the destination's
// padded buffer size to zero.
TEST(backend_padded_boxes, planned_once_at_compile_time) {
    const machine_facts machine = current_machine();
    const movement_step into_blocked{{2, 13, 3, 3}, {*dense_strides({2, 13, 3, 3}), ""}, {{}, "nChw16c"}};
    const kernel_step_plan boxes = plan_kernel_step(data_type::f32, into_blocked, machine);
    EXPECT_TRUE(boxes.planned);
    ASSERT_TRUE(boxes.boxes.has_value());
    EXPECT_FALSE(boxes.walk.has_value());
    EXPECT_EQ(boxes.box_copies.size(), boxes.boxes->copies.size());
    EXPECT_EQ(boxes.box_padding.size(), boxes.boxes->padding.size());
    EXPECT_FALSE(boxes.box_copies.empty());
    EXPECT_FALSE(boxes.box_padding.empty());

    const movement_step both_blocked{{2, 20, 3, 3}, {{}, "nChw16c"}, {{}, "nChw8c"}};
    const kernel_step_plan walk = plan_kernel_step(data_type::f32, both_blocked, machine);
    EXPECT_TRUE(walk.planned);
    EXPECT_FALSE(walk.boxes.has_value());
    ASSERT_TRUE(walk.walk.has_value());
    EXPECT_EQ(walk.walk->zeroed_elements, std::size_t{2 * 24 * 3 * 3}); // 20 channels padded to 3 blocks of 8
    EXPECT_EQ(walk.walk->dst.dims(), both_blocked.dims);
}

// The kernel's mover of the steps no strided box describes (both sides
// blocked; a padded dim with two levels of blocks) against the reference,
// bit for bit, padding included, over random formats and dims, for every
// dtype (string and the packed types included: they reach this mover, as
// oneDNN's reorder takes none of them).
TEST(backend_element_walk, moves_as_the_reference_over_random_blocked_formats) {
    std::mt19937 rng(2026);
    int both_blocked = 0, one_blocked = 0;
    for (int c = 0; c < 240; ++c) {
        const std::size_t rank = 1 + rng() % 4;
        const dims_t dims = random_dims(rng, rank);
        const bool blocked_src = rng() % 2 == 0;
        movement_step step{dims, {}, {}};
        // Only the steps that have no boxes go to the element walk: one
        // blocked side needs a padded dim with two levels of blocks.
        for (int draw = 0; draw < 100 && (draw == 0 || padded_step_as_boxes(step)); ++draw) {
            step = movement_step{dims, {}, {}};
            (blocked_src ? step.src : step.dst).format = random_format_tag(rng, rank);
            if (c % 2 == 0)
                (blocked_src ? step.dst : step.src).format = random_format_tag(rng, rank);
            else
                (blocked_src ? step.dst : step.src).strides = random_dense_strides(rng, dims);
        }
        if (padded_step_as_boxes(step)) continue; // no such step for these dims
        (c % 2 == 0 ? both_blocked : one_blocked)++;
        // Every dtype on both kinds of step.
        const data_type t = all_data_types()[static_cast<std::size_t>(c / 2) % all_data_types().size()];
        SCOPED_TRACE(std::string(to_string(t)) + " " + dims_to_string(dims) + " " +
                     (step.src.opaque() ? step.src.format : dims_to_string(step.src.strides)) + " -> " +
                     (step.dst.opaque() ? step.dst.format : dims_to_string(step.dst.strides)));
        const auto side_tensor = [&](const step_side &side, tensor_id id) {
            return side.opaque() ? opaque_lt(id, t, dims, side.format) : strided_lt(id, t, dims, side.strides);
        };
        const logical_tensor in = side_tensor(step.src, 0), out = side_tensor(step.dst, 1);
        movement_plan plan;
        plan.output = out;
        plan.steps.push_back(step);
        const auto mover = make_kernel_movement(t, plan);

        host_buffer input(in), actual(out), expected(out);
        input.fill_random(rng);
        actual.fill(0x5A);
        expected.fill(0x5A);
        // A blocked destination is zeroed first, padding included.
        if (out.layout == layout_type::opaque) {
            expected.fill(0);
            expected.clear_strings();
        }
        reference_reshape(in, input.data(), out, expected.data());
        mover->run(input.data(), actual.data());
        EXPECT_TRUE(actual == expected);
        EXPECT_TRUE(actual.guards_intact());
    }
    // Both kinds of step were drawn.
    EXPECT_GT(both_blocked, 100);
    EXPECT_GT(one_blocked, 50);
}

} // namespace
} // namespace reshaper::impl::testing
