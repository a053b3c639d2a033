// The lowering's plan text (describe_plan) names each kernel step's
// movement program, as the planner made it at compile time: fast path,
// tiles, walk, threads and stores.
#include <gtest/gtest.h>

#include <string>

#include "backend_test_support.hpp"
#include "kernels/cpu_isa.hpp"

using namespace reshaper::impl;
using namespace reshaper::impl::testing;

TEST(backend_plan_text, kernel_steps_name_their_fast_path_tiles_and_threads) {
    // [64, 256] s64 read through permuted strides into a dense output: a
    // tiled transpose of 8-byte elements (no oneDNN type: the kernel).
    const logical_tensor in = strided_lt(0, data_type::s64, {64, 256}, {1, 64});
    const logical_tensor out = strided_lt(1, data_type::s64, {64, 256});
    const auto cp = compile_whole(static_chain(in, {{64, 256}}), in, out);
    ASSERT_EQ(cp->lowering(), lowering_kind::kernel) << cp->lowering_details();
    const std::string text = describe_plan(*cp);
    EXPECT_NE(text.find("kernel steps: tiled transpose: 8x8 tiles of 8-byte elements"), std::string::npos) << text;
    EXPECT_NE(text.find("strips of"), std::string::npos) << text;
    EXPECT_NE(text.find("one thread"), std::string::npos) << text; // 128 KiB: under the parallel threshold
    EXPECT_NE(text.find(std::string(to_string(active_cpu_isa()))), std::string::npos) << text;
    // A dense copy into a padded output: the run copy.
    const logical_tensor padded = strided_lt(1, data_type::s64, {64, 256}, {260, 1});
    const auto copy = compile_whole(static_chain(strided_lt(0, data_type::s64, {64, 256}), {{64, 256}}),
                                    strided_lt(0, data_type::s64, {64, 256}), padded);
    ASSERT_EQ(copy->lowering(), lowering_kind::kernel) << copy->lowering_details();
    const std::string copy_text = describe_plan(*copy);
    EXPECT_NE(copy_text.find("kernel steps: run copy: runs of 2 KiB"), std::string::npos) << copy_text;
}

TEST(backend_plan_text, other_lowerings_name_no_kernel_steps) {
    const logical_tensor in = strided_lt(0, data_type::f32, {4, 6});
    const auto alias = compile_whole(static_chain(in, {{24}}), in, any_lt(1, data_type::f32, {24}));
    ASSERT_EQ(alias->lowering(), lowering_kind::alias);
    EXPECT_EQ(describe_plan(*alias).find("kernel steps"), std::string::npos) << describe_plan(*alias);
}
