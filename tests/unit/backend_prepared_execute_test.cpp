// The execute a compiled partition prepares at compile time
// (prepared_execute, which the C API runs from its handle): where it
// applies its output is the checked execute's, bit for bit; where it does
// not (a buffer missing, overlapping the other, a verbose line asked for)
// it does nothing and says so, and the checked execute reports the error.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "backend_test_support.hpp"
#include "core/verbose_log.hpp"
#include "kernels/movement_program.hpp"

namespace reshaper::impl::testing {
namespace {

// A transpose as a reshape of a column-major [rows, cols] input into a
// row-major one of the same shape.
struct transpose_case {
    data_type type;
    dim_t rows, cols;
};

std::shared_ptr<const compiled_partition> compile_transpose(const transpose_case &c) {
    const logical_tensor in = strided_lt(0, c.type, {c.rows, c.cols}, {1, c.rows});
    const graph g = static_chain(in, {{c.rows, c.cols}});
    return compile_whole(g, in, strided_lt(1, c.type, {c.rows, c.cols}));
}

std::string name_of(const transpose_case &c) {
    return std::string(to_string(c.type)) + " [" + std::to_string(c.rows) + "," + std::to_string(c.cols) + "]";
}

TEST(backend_prepared_execute, matches_the_checked_execute_bit_for_bit) {
    std::mt19937 rng(27);
    // [32,32] f32: the 4 KiB transpose of whole tiles, one kernel call;
    // the others take the partition's own entry (strips, partial tiles).
    const transpose_case cases[] = {{data_type::f32, 32, 32}, {data_type::f32, 64, 16}, {data_type::f32, 33, 31},
                                    {data_type::bf16, 64, 32}, {data_type::s8, 64, 64}, {data_type::f64, 8, 40}};
    int whole_calls = 0;
    for (const transpose_case &c : cases) {
        SCOPED_TRACE(name_of(c));
        const auto cp = compile_transpose(c);
        ASSERT_EQ(cp->lowering(), lowering_kind::kernel) << cp->lowering_details();
        const prepared_execute &prepared = cp->prepared();
        ASSERT_EQ(prepared.what, prepared_execute::form::call);
        ASSERT_NE(prepared.call.entry, nullptr);
        // The whole-tiles kernel is called directly (no context: not the
        // partition's own entry) only where the level has one.
        const bool whole = prepared.call.context == nullptr;
        whole_calls += whole ? 1 : 0;
        if (whole) {
            EXPECT_NE(kernels_for(current_machine().isa).whole_tiles[element_size_class(element_bits(c.type) / 8)], nullptr);
        }

        host_buffer in(cp->inputs()[0]), fast(cp->outputs()[0]), checked(cp->outputs()[0]);
        in.fill_random(rng);
        fast.fill(0x5A);
        checked.fill(0x5A);
        ASSERT_TRUE(cp->execute_prepared(in.data(), fast.data()));
        cp->execute({in.data()}, {checked.data()});
        EXPECT_TRUE(fast == checked);
        EXPECT_TRUE(fast.guards_intact());
    }
    // The 4 KiB f32 transpose is one kernel call where the level has the kernel.
    if (kernels_for(current_machine().isa).whole_tiles[element_size_class(4)]) {
        EXPECT_GE(whole_calls, 1);
    }
}

TEST(backend_prepared_execute, declines_what_the_checked_execute_rejects_or_logs) {
    const auto cp = compile_transpose({data_type::f32, 32, 32});
    ASSERT_EQ(cp->prepared().what, prepared_execute::form::call);
    host_buffer in(cp->inputs()[0]), out(cp->outputs()[0]);
    in.fill(0x11);
    out.fill(0x5A);
    const host_buffer untouched = out;
    EXPECT_FALSE(cp->execute_prepared(nullptr, out.data()));
    EXPECT_FALSE(cp->execute_prepared(in.data(), nullptr));
    // In place, and overlapping by one element: nothing run.
    EXPECT_FALSE(cp->execute_prepared(in.data(), in.data()));
    EXPECT_FALSE(cp->execute_prepared(in.data(), static_cast<float *>(in.data()) + 1));
    EXPECT_TRUE(out == untouched);
    // The checked execute says why.
    const error e = error_of([&] { cp->execute({in.data()}, {static_cast<float *>(in.data()) + 1}); });
    EXPECT_EQ(e.code(), status::invalid_arguments) << e.what();
    // A verbose line asked for: the checked execute writes it.
    const int level = verbose_level();
    set_verbose_level(1);
    const bool ran = cp->execute_prepared(in.data(), out.data());
    set_verbose_level(level);
    EXPECT_FALSE(ran);
    EXPECT_TRUE(out == untouched);
}

TEST(backend_prepared_execute, an_alias_runs_in_place_only) {
    const logical_tensor in = strided_lt(0, data_type::f32, {2, 3});
    const auto cp = compile_whole(static_chain(in, {{6}}), in, any_lt(1, data_type::f32, {6}));
    ASSERT_EQ(cp->lowering(), lowering_kind::alias);
    EXPECT_EQ(cp->prepared().what, prepared_execute::form::alias);
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {};
    EXPECT_TRUE(cp->execute_prepared(a, a));
    EXPECT_FALSE(cp->execute_prepared(a, b)); // a copy: the checked execute's
    EXPECT_FALSE(cp->execute_prepared(nullptr, nullptr));
    EXPECT_EQ(b[0], 0.0f);
}

} // namespace
} // namespace reshaper::impl::testing
