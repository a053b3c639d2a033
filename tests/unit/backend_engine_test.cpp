// Engines (the GPU path skips, saying why, where oneDNN finds no GPU),
// buffer sizes, execute's argument checks and RESHAPER_VERBOSE lines.
#include "backend_test_support.hpp"

#include "backend/verbose.hpp"

namespace reshaper::impl::testing {
namespace {

TEST(backend_engine, gpu_partition_runs_or_skips_with_the_unavailable_message) {
    std::shared_ptr<const engine> gpu;
    try {
        gpu = engine::create(engine_kind::gpu);
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::unavailable);
        EXPECT_NE(std::string(e.what()).find("gpu"), std::string::npos) << e.what();
        GTEST_SKIP() << e.what();
    }
    // A device exists: the same plans, run through device memory.
    for (const auto &[strides, expected] :
         std::vector<std::pair<dims_t, lowering_kind>>{{{}, lowering_kind::alias},
                                                       {{1, 4}, lowering_kind::reorder}}) {
        const logical_tensor in = strided_lt(0, data_type::f32, {4, 6}, strides);
        const graph g = static_chain(in, {{24}});
        const auto cp = compile(g, whole_graph(g), {in}, {any_lt(1, data_type::f32, {24})}, gpu);
        EXPECT_EQ(cp->lowering(), expected);
        EXPECT_EQ(cp->target_engine().kind(), engine_kind::gpu);
        expect_matches_reference(*cp);
    }
}

TEST(backend_engine, compiled_partition_keeps_its_engine) {
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3});
    const graph g = static_chain(in, {{6}});
    const auto cp = compile_whole(g, in, any_lt(1, data_type::f32, {6}));
    EXPECT_EQ(&cp->target_engine(), cpu_engine().get());
}

TEST(backend_buffer_bytes, spans_of_strided_and_blocked_tensors) {
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f32, {2, 3, 4})), 96u);
    // last element at 2*10 + 3*2 = 26: 27 elements
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f32, {3, 4}, {10, 2})), 108u);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f32, {3, 0, 4})), 0u);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f64, {})), 8u);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::s4, {3})), 2u);       // 3 nibbles
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::u4, {5}, {3})), 7u);  // 13 nibbles
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::string, {2})), 2 * sizeof(std::string));
    EXPECT_EQ(buffer_bytes(opaque_lt(0, data_type::f32, {2, 20, 3, 3}, "nChw16c")), 2u * 32 * 9 * 4);
    EXPECT_EQ(buffer_bytes(any_lt(0, data_type::f32, {2, 3})), std::nullopt);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f32, {-1, 3})), std::nullopt);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f32, {2, 3}, {-1, 1})), std::nullopt);
    const dim_t big = dim_t{1} << 40;
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::f32, {big, big})), std::nullopt);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::c128, {big})), std::size_t{16} << 40);
    EXPECT_EQ(buffer_bytes(strided_lt(0, data_type::c128, {dim_t{1} << 58})), std::nullopt);
}

TEST(backend_execute_checks, buffers_must_match_the_partition) {
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3});
    const graph g = static_chain(in, {{6}});
    const auto cp = compile_whole(g, in, any_lt(1, data_type::f32, {6}));
    float a[6] = {}, b[6] = {};
    const error e = error_of([&] { cp->execute({a, a}, {b}); });
    EXPECT_EQ(e.code(), status::invalid_arguments);
    EXPECT_NE(std::string(e.what()).find("takes 1 input"), std::string::npos) << e.what();
    EXPECT_EQ(error_of([&] { cp->execute({a}, {nullptr}); }).code(), status::invalid_arguments);
}

TEST(backend_execute_checks, only_an_alias_runs_in_place) {
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3}, {1, 2});
    const graph g = static_chain(in, {{6}});
    const auto cp = compile_whole(g, in, any_lt(1, data_type::f32, {6}));
    ASSERT_EQ(cp->lowering(), lowering_kind::reorder); // too narrow to tile
    float buffer[6] = {1, 2, 3, 4, 5, 6};
    const error e = error_of([&] { cp->execute({buffer}, {buffer}); });
    EXPECT_EQ(e.code(), status::invalid_arguments);
    EXPECT_NE(std::string(e.what()).find("only an alias lowering runs in place"), std::string::npos)
        << e.what();
    EXPECT_EQ(buffer[1], 2.0f);

    // An alias into a buffer that overlaps the input without being it.
    const logical_tensor dense = strided_lt(0, data_type::f32, {2, 3});
    const graph g2 = static_chain(dense, {{6}});
    const auto alias = compile_whole(g2, dense, any_lt(1, data_type::f32, {6}));
    float wide[8] = {};
    EXPECT_EQ(error_of([&] { alias->execute({wide}, {wide + 1}); }).code(), status::invalid_arguments);
}

TEST(backend_compile_checks, bad_partitions_and_tensors_are_reported) {
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3});
    const graph g = static_chain(in, {{6}});
    partition unsupported = whole_graph(g);
    unsupported.supported = false;
    unsupported.reason = "op kind MatMul is not handled";
    EXPECT_EQ(error_of([&] { compile(g, unsupported, {in}, {g.tensor(1)}, cpu_engine()); }).code(),
              status::unimplemented);

    logical_tensor any_input = in;
    any_input.layout = layout_type::any;
    EXPECT_EQ(error_of([&] { compile_whole(g, any_input, g.tensor(1)); }).code(),
              status::invalid_arguments);

    const error dtype = error_of([&] { compile_whole(g, strided_lt(0, data_type::s8, {2, 3}), g.tensor(1)); });
    EXPECT_EQ(dtype.code(), status::invalid_data_type);
    EXPECT_NE(std::string(dtype.what()).find("s8"), std::string::npos) << dtype.what();

    const error rank = error_of([&] { compile_whole(g, in, strided_lt(1, data_type::f32, {3, 2})); });
    EXPECT_EQ(rank.code(), status::invalid_shape);
    EXPECT_NE(std::string(rank.what()).find("given as [3,2]"), std::string::npos) << rank.what();
    const error given = error_of([&] { compile_whole(g, in, strided_lt(1, data_type::f32, {5})); });
    EXPECT_EQ(given.code(), status::invalid_shape);
    EXPECT_NE(std::string(given.what()).find("given as [5]"), std::string::npos) << given.what();
    // An unknown given dim takes the graph's, which the reshape contradicts.
    graph wrong = g;
    wrong.tensors[1].shape = {5};
    const error shape = error_of([&] { compile_whole(wrong, in, strided_lt(1, data_type::f32, {-1})); });
    EXPECT_EQ(shape.code(), status::invalid_shape);
    EXPECT_NE(std::string(shape.what()).find("output_shape_match"), std::string::npos) << shape.what();

    const error overlap = error_of([&] { compile_whole(g, in, strided_lt(1, data_type::f32, {6}, {0})); });
    EXPECT_EQ(overlap.code(), status::invalid_arguments);
    EXPECT_NE(std::string(overlap.what()).find("share an address"), std::string::npos) << overlap.what();
}

TEST(backend_verbose, one_line_per_compile_and_execute) {
    set_verbose_level(1);
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3});
    const graph g = static_chain(in, {{6}});
    float a[6] = {}, b[6] = {};
    ::testing::internal::CaptureStderr();
    const auto cp = compile_whole(g, in, any_lt(1, data_type::f32, {6}));
    cp->execute({a}, {b});
    cp->execute({a}, {a});
    const std::string text = ::testing::internal::GetCapturedStderr();
    set_verbose_level(0);
    EXPECT_NE(text.find("reshaper_verbose,compile,cpu,partition 0,StaticReshape-1,alias,"
                        "f32:[2,3]:[3,1]->f32:[6]:[1]"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("reshaper_verbose,execute,cpu,partition 0"), std::string::npos) << text;
    EXPECT_NE(text.find(",in place,"), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
}

} // namespace
} // namespace reshaper::impl::testing
