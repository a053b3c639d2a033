// The execute a compiled partition prepares at compile time
// (prepared_execute, which the C API runs from its handle): where it
// applies its output is the checked execute's, bit for bit; where it does
// not (a buffer missing, overlapping the other, a verbose line asked for)
// it does nothing and says so, and the checked execute reports the error.
// Partitions taking a shape input beside the data prepare it too (the
// compile fixed the values), and a renamed partition takes its shared
// partition's.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "backend/renamed_partition.hpp"
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
    // [64,16] f32 one call of 8 x 8 blocks where the level has them
    // (whole_blocks_4); the others take the partition's own entry (strips,
    // partial tiles).
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
        const isa_kernels &k = kernels_for(current_machine().isa);
        const std::size_t size_class = element_size_class(element_bits(c.type) / 8);
        if (whole) {
            EXPECT_TRUE(k.whole_tiles[size_class] != nullptr || (c.type == data_type::f32 && k.whole_blocks_4));
        }
        if (c.type == data_type::f32 && c.rows == 64 && k.whole_blocks_4) {
            EXPECT_EQ(prepared.call.entry, k.whole_blocks_4);
        }

        host_buffer in(cp->inputs()[0]), fast(cp->outputs()[0]), checked(cp->outputs()[0]);
        in.fill_random(rng);
        fast.fill(0x5A);
        checked.fill(0x5A);
        ASSERT_TRUE(cp->execute_prepared(in.data(), fast.data()));
        cp->execute_checked(std::vector<const void *>{in.data()}, std::vector<void *>{checked.data()});
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
    // The checked execute says why (execute falls back to it).
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

// The bytes of `values` as a shape input of dtype `t` (s32 or s64) holds them.
std::vector<std::uint8_t> shape_bytes(data_type t, const std::vector<std::int64_t> &values) {
    std::vector<std::uint8_t> bytes;
    for (const std::int64_t v : values) {
        const auto narrow = static_cast<std::int32_t>(v);
        const auto *at = t == data_type::s64 ? reinterpret_cast<const std::uint8_t *>(&v)
                                             : reinterpret_cast<const std::uint8_t *>(&narrow);
        bytes.insert(bytes.end(), at, at + element_bits(t) / 8);
    }
    return bytes;
}

// A transpose taking its target shape as an input tensor: data [32,32] f32
// column-major (tensor 0) to row-major [32,32] (tensor 2), the shape
// (tensor 1, [2] of `shape_type`) through ai.onnx Reshape-14 (s64) or
// DynamicReshape-1 (s32): a constant with the values [32,32] in the graph
// (as the driver's perf cases have it), or values that arrive at execute.
struct shaped_case {
    data_type shape_type;
    bool constant;
};

std::string name_of(const shaped_case &c) {
    return std::string(to_string(c.shape_type)) + (c.constant ? " constant" : " at execute");
}

std::shared_ptr<const compiled_partition> compile_shaped(const shaped_case &c) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {32, 32}, {1, 32});
    logical_tensor shape = strided_lt(1, c.shape_type, {2});
    shape.property = c.constant ? property_type::constant : property_type::variable;
    if (c.constant) shape.values = tensor_values{c.shape_type, 2, shape_bytes(c.shape_type, {32, 32}), {}};
    g.tensors[1] = shape;
    g.tensors[2] = strided_lt(2, data_type::f32, {32, 32});
    op o;
    o.id = 0;
    o.name = "shaped";
    o.inputs = {0, 1};
    o.outputs = {2};
    if (c.shape_type == data_type::s64) {
        o.kind = "Reshape";
        o.domain = "ai.onnx";
        o.version = 14;
    } else {
        o.kind = "DynamicReshape";
        o.attrs["special_zero"] = false;
    }
    g.ops.push_back(o);
    return compile(g, whole_graph(g), {g.tensor(0), g.tensor(1)}, {g.tensor(2)}, cpu_engine());
}

const shaped_case shaped_cases[] = {
    {data_type::s64, true}, {data_type::s32, true}, {data_type::s64, false}, {data_type::s32, false}};

TEST(backend_prepared_execute, a_shape_input_fixed_by_the_compile_is_prepared) {
    std::mt19937 rng(28);
    for (const shaped_case &c : shaped_cases) {
        SCOPED_TRACE(name_of(c));
        const auto cp = compile_shaped(c);
        ASSERT_EQ(cp->inputs().size(), 2u);
        ASSERT_EQ(cp->lowering(), lowering_kind::kernel) << cp->lowering_details();
        ASSERT_EQ(cp->prepared().what, prepared_execute::form::call);
        EXPECT_EQ(cp->prepared().shape_count, c.constant ? 0u : 1u);
        const std::size_t data_at = cp->data_input_position();
        host_buffer in(cp->inputs()[data_at]), fast(cp->outputs()[0]), checked(cp->outputs()[0]);
        in.fill_random(rng);
        fast.fill(0x5A);
        checked.fill(0x5A);
        const std::vector<std::uint8_t> shape = shape_bytes(c.shape_type, {32, 32});
        std::vector<const void *> inputs(2, shape.data());
        inputs[data_at] = in.data();
        ASSERT_TRUE(cp->execute_prepared(inputs, fast.data()));
        cp->execute_checked(inputs, std::vector<void *>{checked.data()});
        EXPECT_TRUE(fast == checked);
        EXPECT_TRUE(fast.guards_intact());
        // One input short, or the shape's buffer missing: the checked
        // execute's (which says why, or for a constant, reads no values).
        EXPECT_FALSE(cp->execute_prepared(in.data(), fast.data()));
        inputs[1 - data_at] = nullptr;
        EXPECT_FALSE(cp->execute_prepared(inputs, fast.data()));
    }
}

// Shape values other than the compiled ones get today's result: values
// that arrive at execute take the checked execute, which resolves them (a
// -1 gives the compiled shape; others are invalid_shape, nothing written);
// a constant's buffer is read by neither (its values were resolved at
// compile), so the prepared execute runs.
TEST(backend_prepared_execute, other_shape_values_get_todays_result) {
    std::mt19937 rng(29);
    for (const shaped_case &c : shaped_cases) {
        SCOPED_TRACE(name_of(c));
        const auto cp = compile_shaped(c);
        const std::size_t data_at = cp->data_input_position();
        host_buffer in(cp->inputs()[data_at]), expected(cp->outputs()[0]);
        in.fill_random(rng);
        expected.fill(0x5A);
        const std::vector<std::uint8_t> as_compiled = shape_bytes(c.shape_type, {32, 32});
        std::vector<const void *> inputs(2, as_compiled.data());
        inputs[data_at] = in.data();
        cp->execute(inputs, {expected.data()});

        const std::vector<std::uint8_t> minus_one = shape_bytes(c.shape_type, {32, -1}),
                                        other_shape = shape_bytes(c.shape_type, {16, 64});
        for (const auto *values : {&minus_one, &other_shape}) {
            inputs[1 - data_at] = values->data();
            host_buffer out(cp->outputs()[0]);
            out.fill(0x5A);
            const host_buffer untouched = out;
            // A constant's buffer is not read: prepared all the same.
            EXPECT_EQ(cp->execute_prepared(inputs, out.data()), c.constant);
            EXPECT_TRUE(out == (c.constant ? expected : untouched));
            out.fill(0x5A);
            if (c.constant || values == &minus_one) {
                cp->execute(inputs, {out.data()});
                EXPECT_TRUE(out == expected);
            } else {
                const error e = error_of([&] { cp->execute(inputs, {out.data()}); });
                EXPECT_EQ(e.code(), status::invalid_shape) << e.what();
                EXPECT_NE(std::string(e.what()).find("[16,64]"), std::string::npos) << e.what();
                EXPECT_TRUE(out == untouched);
            }
        }
    }
}

// A 0 under special_zero copies an input dim: values equal to the compiled
// dims would not give them, so nothing is prepared for such a shape input.
TEST(backend_prepared_execute, values_that_do_not_give_the_compiled_dims_prepare_nothing) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {0, 4});
    logical_tensor shape = strided_lt(1, data_type::s32, {2});
    shape.property = property_type::variable;
    g.tensors[1] = shape;
    g.tensors[2] = strided_lt(2, data_type::f32, {4, 0});
    op o;
    o.id = 0;
    o.name = "zero";
    o.kind = "DynamicReshape";
    o.attrs["special_zero"] = true;
    o.inputs = {0, 1};
    o.outputs = {2};
    g.ops.push_back(o);
    const auto cp = compile(g, whole_graph(g), {g.tensor(0), g.tensor(1)}, {g.tensor(2)}, cpu_engine());
    EXPECT_EQ(cp->prepared().shape_count, 0u);
    EXPECT_EQ(cp->prepared().what, prepared_execute::form::none);
}

// A renamed partition (the driver's: a shared compile under other ids)
// runs the shared partition's prepared execute, bit for bit the checked
// one's; where that is the shared partition's own entry, through its own
// (whose failure this partition's compile says).
TEST(backend_prepared_execute, a_renamed_partition_is_prepared) {
    std::mt19937 rng(30);
    for (const transpose_case &c : {transpose_case{data_type::f32, 32, 32}, transpose_case{data_type::f32, 33, 31}}) {
        SCOPED_TRACE(name_of(c));
        const auto shared = compile_transpose(c);
        const auto own = [&] {
            const logical_tensor in = strided_lt(10, c.type, {c.rows, c.cols}, {1, c.rows});
            graph g = static_chain(in, {{c.rows, c.cols}});
            return compile_whole(g, in, strided_lt(11, c.type, {c.rows, c.cols}));
        };
        const renamed_partition renamed(shared, {0, 1}, {10, 11}, own);
        EXPECT_EQ(renamed.inputs()[0].id, 10);
        const prepared_execute &prepared = renamed.prepared();
        ASSERT_EQ(prepared.what, prepared_execute::form::call);
        const bool own_entry = shared->prepared().call.context != nullptr;
        EXPECT_EQ(prepared.call.context, own_entry ? static_cast<const void *>(&renamed) : nullptr);
        host_buffer in(renamed.inputs()[0]), fast(renamed.outputs()[0]), checked(renamed.outputs()[0]);
        in.fill_random(rng);
        fast.fill(0x5A);
        checked.fill(0x5A);
        ASSERT_TRUE(renamed.execute_prepared(in.data(), fast.data()));
        renamed.execute_checked(std::vector<const void *>{in.data()}, std::vector<void *>{checked.data()});
        EXPECT_TRUE(fast == checked);
        EXPECT_TRUE(fast.guards_intact());
    }
}

} // namespace
} // namespace reshaper::impl::testing
