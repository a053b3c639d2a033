// Engines (the GPU path skips, saying why, where oneDNN finds no GPU),
// buffer sizes, execute's argument checks and RESHAPER_VERBOSE lines.
#include "backend_test_support.hpp"

#include "backend/verbose.hpp"
#include "backend/compiled_partition_cache.hpp"
#include "partition/partitioner.hpp"
#include "file_text_support.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

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
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3}, {7, 2});
    const graph g = static_chain(in, {{6}});
    const auto cp = compile_whole(g, in, any_lt(1, data_type::f32, {6}));
    ASSERT_EQ(cp->lowering(), lowering_kind::reorder); // a gather: no contiguous source dim
    float buffer[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
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
    // compile, execute, execute (plus the info line when these are the process's first).
    std::size_t lines = 0;
    std::istringstream in_lines(text);
    for (std::string line; std::getline(in_lines, line);) lines += line.find(",info,") == std::string::npos;
    EXPECT_EQ(lines, 3u) << text;
}

// A verbose line's fields: split at commas outside [...] (docs/verbose.md).
std::vector<std::string> verbose_fields(const std::string &line) {
    std::vector<std::string> fields(1);
    int depth = 0;
    for (char c : line) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (c == ',' && depth == 0) fields.emplace_back();
        else fields.back() += c;
    }
    return fields;
}

using reshaper::test::file_text;

TEST(backend_verbose, levels_two_and_three_explain_every_decision_in_parseable_lines) {
    const std::string path = ::testing::TempDir() + "/reshaper_verbose_levels.txt";
    std::remove(path.c_str());
    set_verbose_file(path);
    set_verbose_level(3);
    // [4,3,5] strides [1,20,4] -> [4,15] dense: a view exists, with other strides.
    const logical_tensor in = strided_lt(0, data_type::f32, {4, 3, 5}, {1, 20, 4});
    const graph g = static_chain(in, {{4, 15}});
    compiled_partition_cache cache(1);
    cache.get_or_compile(g, whole_graph(g), {in}, {g.tensor(1)}, cpu_engine());
    cache.get_or_compile(g, whole_graph(g), {in}, {g.tensor(1)}, cpu_engine());
    const logical_tensor other = strided_lt(0, data_type::f32, {4, 3, 5});
    cache.get_or_compile(g, whole_graph(g), {other}, {g.tensor(1)}, cpu_engine()); // evicts
    get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::cpu));
    set_verbose_level(0);
    set_verbose_file("");

    // Fields after the event, per event (docs/verbose.md).
    const std::map<std::string, std::size_t> field_count = {
        {"info", 3}, {"compile", 7}, {"execute", 8}, {"partition", 5},
        {"cache", 5}, {"lowering", 4}, {"stage", 4}};
    std::map<std::string, std::vector<std::vector<std::string>>> events;
    std::istringstream lines(file_text(path));
    for (std::string line; std::getline(lines, line);) {
        auto f = verbose_fields(line);
        ASSERT_EQ(f.at(0), "reshaper_verbose") << line;
        ASSERT_TRUE(field_count.count(f.at(1))) << line;
        const std::size_t extra = f[1] == "cache" && f[2] == "evict" ? 1 : 0;
        EXPECT_EQ(f.size() - 2, field_count.at(f[1]) + extra) << line;
        events[f[1]].push_back(f);
    }
    ASSERT_EQ(events["cache"].size(), 4u); // miss, hit, miss, evict
    EXPECT_EQ(events["cache"][0][2], "miss");
    EXPECT_EQ(events["cache"][1][2], "hit");
    EXPECT_EQ(events["cache"][1][4], "partition 0");
    EXPECT_EQ(events["cache"][2][2], "miss");
    EXPECT_EQ(events["cache"][3][2], "evict");
    ASSERT_EQ(events["lowering"].size(), 2u);
    EXPECT_EQ(events["lowering"][0][4], "kernel");
    EXPECT_EQ(events["lowering"][0][5],
              "no alias: the output's strides [15,1] are not the view's strides [1,4]; kernel: "
              "tiled transpose; measured faster than oneDNN's reorder (dtype f32)");
    EXPECT_EQ(events["lowering"][1][4], "alias");
    ASSERT_EQ(events["stage"].size(), 6u);
    EXPECT_EQ(events["stage"][0][4], "resolve_shapes");
    EXPECT_EQ(events["stage"][1][4], "plan_movement");
    EXPECT_EQ(events["stage"][2][4], "build_mover");
    ASSERT_EQ(events["partition"].size(), 1u);
    EXPECT_EQ(events["partition"][0][5], "claimed");
}

TEST(backend_verbose, free_text_never_adds_a_field) {
    EXPECT_EQ(verbose_text("a, b [1,2], c"), "a; b [1,2]; c");
}

} // namespace
} // namespace reshaper::impl::testing
