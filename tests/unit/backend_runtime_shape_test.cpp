// Shape values that arrive only at execute (DynamicReshape-1, Reshape-1,
// ONNX Reshape >= 5): checked against the compiled output shape through the
// one reshape rule; a disagreement is invalid_shape and nothing is written.
#include "backend_test_support.hpp"

#include "backend/verbose.hpp"

#include <cstring>

namespace reshaper::impl::testing {
namespace {

// ai.onnx Reshape-14 taking data 0 and shape 1 to output 2.
op onnx_reshape_0_1_to_2() {
    op o;
    o.id = 0;
    o.name = "onnx";
    o.kind = "Reshape";
    o.domain = "ai.onnx";
    o.version = 14;
    o.inputs = {0, 1};
    o.outputs = {2};
    return o;
}

struct shape_op_case {
    std::string name;
    std::string domain, kind;
    std::optional<std::int64_t> version;
    data_type shape_type;
    const char *zero_attr; // nullptr: none
};

const std::vector<shape_op_case> &shape_op_cases() {
    static const std::vector<shape_op_case> cases{
        {"DynamicReshape_1", "", "DynamicReshape", std::nullopt, data_type::s32, "special_zero"},
        {"Reshape_1_s64", "", "Reshape", std::nullopt, data_type::s64, "special_zero"},
        {"Reshape_1_u8", "", "Reshape", std::nullopt, data_type::u8, "special_zero"},
        {"Onnx_Reshape_5", "ai.onnx", "Reshape", 5, data_type::s64, nullptr},
        {"Onnx_Reshape_14", "ai.onnx", "Reshape", 14, data_type::s64, "allowzero"},
    };
    return cases;
}

class backend_runtime_shape : public ::testing::TestWithParam<shape_op_case> {
protected:
    // data [4,6] f32 (tensor 0), shape [2] (tensor 1, values at execute),
    // output [6,4] (tensor 2).
    graph make_graph() const {
        const auto &c = GetParam();
        graph g;
        g.tensors[0] = strided_lt(0, data_type::f32, {4, 6});
        logical_tensor shape = strided_lt(1, c.shape_type, {2});
        shape.property = property_type::variable;
        g.tensors[1] = shape;
        g.tensors[2] = strided_lt(2, data_type::f32, {6, 4});
        op o;
        o.id = 7;
        o.name = "reshape_at_run_time";
        o.kind = c.kind;
        o.domain = c.domain;
        o.version = c.version;
        if (c.zero_attr && std::string(c.zero_attr) == "special_zero") o.attrs["special_zero"] = true;
        if (c.zero_attr && std::string(c.zero_attr) == "allowzero") o.attrs["allowzero"] = std::int64_t{0};
        o.inputs = {0, 1};
        o.outputs = {2};
        g.ops.push_back(o);
        return g;
    }

    std::vector<std::uint8_t> shape_buffer(const std::vector<std::int64_t> &values) const {
        const data_type t = GetParam().shape_type;
        std::vector<std::uint8_t> bytes(values.size() * element_bits(t) / 8);
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (t == data_type::s32) {
                const auto v = static_cast<std::int32_t>(values[i]);
                std::memcpy(bytes.data() + 4 * i, &v, 4);
            } else if (t == data_type::u8) {
                bytes[i] = static_cast<std::uint8_t>(values[i]);
            } else {
                std::memcpy(bytes.data() + 8 * i, &values[i], 8);
            }
        }
        return bytes;
    }

    std::shared_ptr<const compiled_partition> compile_it(const graph &g) const {
        return compile(g, whole_graph(g), {g.tensor(0), g.tensor(1)}, {g.tensor(2)}, cpu_engine());
    }
};

TEST_P(backend_runtime_shape, values_matching_the_compiled_shape_run) {
    const graph g = make_graph();
    const auto cp = compile_it(g);
    EXPECT_EQ(cp->lowering(), lowering_kind::alias);
    std::vector<std::vector<std::int64_t>> accepted{{6, 4}};
    if (GetParam().shape_type != data_type::u8) accepted.push_back({6, -1});
    for (const auto &values : accepted) {
        host_buffer data(g.tensor(0)), out(g.tensor(2)), expected(g.tensor(2));
        std::mt19937 rng(3);
        data.fill_random(rng);
        out.fill(0x5A);
        expected.fill(0x5A);
        reference_reshape(g.tensor(0), data.data(), g.tensor(2), expected.data());
        const auto shape = shape_buffer(values);
        cp->execute({data.data(), shape.data()}, {out.data()});
        EXPECT_TRUE(out == expected);
    }
}

TEST_P(backend_runtime_shape, disagreeing_values_are_invalid_shape_and_write_nothing) {
    const graph g = make_graph();
    const auto cp = compile_it(g);
    host_buffer data(g.tensor(0)), out(g.tensor(2));
    std::mt19937 rng(4);
    data.fill_random(rng);
    out.fill(0x5A);
    const host_buffer untouched = out;

    const auto swapped = shape_buffer({4, 6});
    const error e = error_of([&] { cp->execute({data.data(), swapped.data()}, {out.data()}); });
    EXPECT_EQ(e.code(), status::invalid_shape);
    EXPECT_NE(std::string(e.what()).find("runtime_shape_match"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4,6]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[6,4]"), std::string::npos) << e.what();
    EXPECT_TRUE(out == untouched);

    // A value the reshape rule itself rejects: named by its rule.
    const auto wrong_volume = shape_buffer({5, 5});
    const error v = error_of([&] { cp->execute({data.data(), wrong_volume.data()}, {out.data()}); });
    EXPECT_EQ(v.code(), status::invalid_shape);
    EXPECT_NE(std::string(v.what()).find("volume"), std::string::npos) << v.what();
    EXPECT_TRUE(out == untouched);

    // Also in place: the input buffer stays as it was.
    const host_buffer data_before = data;
    EXPECT_EQ(error_of([&] { cp->execute({data.data(), swapped.data()}, {data.data()}); }).code(),
              status::invalid_shape);
    EXPECT_TRUE(data == data_before);
}

INSTANTIATE_TEST_SUITE_P(shape_input_ops, backend_runtime_shape, ::testing::ValuesIn(shape_op_cases()),
                         [](const auto &info) { return info.param.name; });

// Without values, the output's shape must be known at compile.
// Output dims left unknown at compile are resolved at execute: one compiled
// partition for every target shape (a reshape keeps the byte size).
TEST(backend_runtime_shape_compile, unknown_output_shape_is_resolved_at_execute) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {4, 6});
    g.tensors[1] = strided_lt(1, data_type::s32, {2});
    g.tensors[2] = strided_lt(2, data_type::f32, {-1, -1});
    g.ops.push_back(dynamic_reshape(3, "dyn", 0, 1, 2));
    const auto cp = compile(g, whole_graph(g), {g.tensor(0), g.tensor(1)}, {g.tensor(2)}, cpu_engine());
    EXPECT_EQ(cp->outputs()[0].shape, (dims_t{-1, -1}));
    EXPECT_EQ(cp->output_buffer_bytes(), std::vector<std::size_t>{24 * sizeof(float)});
    std::vector<float> in(24), out(24);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    const std::int32_t target[] = {3, -1};
    const auto resolved = cp->execute_resolving({in.data(), target}, {out.data()});
    EXPECT_EQ(resolved[0].shape, (dims_t{3, 8}));
    EXPECT_EQ(resolved[0].strides, (dims_t{8, 1}));
    EXPECT_EQ(out, in);
    const std::int32_t bad[] = {5, 5};
    const error e = error_of([&] { cp->execute_resolving({in.data(), bad}, {out.data()}); });
    EXPECT_EQ(e.code(), status::invalid_shape);
    EXPECT_EQ(e.rule(), "volume_mismatch") << e.what();
    EXPECT_NE(std::string(e.what()).find("'dyn'"), std::string::npos) << e.what();
}

// A shape input of unknown length has one value per output dim.
TEST(backend_runtime_shape_compile, unknown_shape_input_length_is_the_output_rank) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {4, 6});
    g.tensors[1] = strided_lt(1, data_type::s64, {-1});
    g.tensors[2] = strided_lt(2, data_type::f32, {2, 3, 4});
    g.ops.push_back(onnx_reshape_0_1_to_2());
    const auto cp = compile(g, whole_graph(g), {g.tensor(0), g.tensor(1)}, {g.tensor(2)}, cpu_engine());
    EXPECT_EQ(cp->inputs()[1].shape, (dims_t{3}));
    EXPECT_EQ(buffer_bytes(cp->inputs()[1]), 24u);
    float data[24] = {}, out[24] = {};
    const std::int64_t good[3] = {2, 3, -1}, bad[3] = {3, 2, -1};
    cp->execute({data, good}, {out});
    EXPECT_EQ(error_of([&] { cp->execute({data, bad}, {out}); }).code(), status::invalid_shape);
}

// A run-time shape in the middle of a chain: checked against the dims the
// chain has there; the chain still moves its data once.
TEST(backend_runtime_shape_compile, shape_input_inside_a_chain) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {4, 6}, {1, 4}); // permuted
    g.tensors[1] = strided_lt(1, data_type::f32, {24});
    g.tensors[2] = strided_lt(2, data_type::s32, {3});
    g.tensors[3] = strided_lt(3, data_type::f32, {2, 3, 4});
    g.tensors[4] = strided_lt(4, data_type::f32, {6, 4});
    g.ops.push_back(static_reshape(0, 0, 1, {24}));
    g.ops.push_back(dynamic_reshape(1, "middle", 1, 2, 3));
    g.ops.push_back(static_reshape(2, 3, 4, {6, 4}));
    const partition p = whole_graph(g);
    ASSERT_EQ(p.inputs, (tensor_ids{0, 2}));
    const auto cp = compile(g, p, {g.tensor(0), g.tensor(2)}, {any_lt(4, data_type::f32, {6, 4})}, cpu_engine());
    EXPECT_EQ(cp->lowering(), lowering_kind::kernel);
    EXPECT_EQ(cp->lowering_details().rfind("1 strided copy", 0), 0u) << cp->lowering_details();

    host_buffer data(g.tensor(0)), out(cp->outputs()[0]), expected(cp->outputs()[0]);
    std::mt19937 rng(5);
    data.fill_random(rng);
    out.fill(0x5A);
    expected.fill(0x5A);
    reference_reshape(g.tensor(0), data.data(), cp->outputs()[0], expected.data());
    const std::int32_t good[3] = {2, 3, -1}, bad[3] = {3, 2, -1};
    const error e = error_of([&] { cp->execute({data.data(), bad}, {out.data()}); });
    EXPECT_EQ(e.code(), status::invalid_shape);
    EXPECT_NE(std::string(e.what()).find("'middle'"), std::string::npos) << e.what();
    cp->execute({data.data(), good}, {out.data()});
    EXPECT_TRUE(out == expected);
}

// The plan's words name the data input the partition says is the data,
// wherever it stands: here after a shape input of the output's volume (data
// [3] to [3,1,1] takes three shape values), which a guess by volume took.
TEST(backend_runtime_shape_compile, plan_text_names_the_data_input_wherever_it_stands) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {3});
    logical_tensor shape = strided_lt(1, data_type::s64, {3});
    shape.property = property_type::variable;
    g.tensors[1] = shape;
    g.tensors[2] = strided_lt(2, data_type::f32, {3, 1, 1});
    g.ops.push_back(dynamic_reshape(0, "dyn", 0, 1, 2));
    partition p = whole_graph(g);
    p.inputs = {1, 0}; // the shape input first
    const auto cp = compile(g, p, {g.tensor(1), g.tensor(0)}, {g.tensor(2)}, cpu_engine());
    EXPECT_EQ(cp->data_input_position(), 1u);
    const std::string text = describe_plan(*cp);
    EXPECT_NE(text.find(verbose_tensor(cp->inputs()[1]) + " -> "), std::string::npos) << text;
    EXPECT_EQ(text.find(verbose_tensor(cp->inputs()[0])), std::string::npos) << text;

    const std::int64_t values[3] = {3, 1, 1};
    const float data[3] = {1.5f, -2.0f, 3.25f};
    float out[3] = {};
    cp->execute({values, data}, {out});
    EXPECT_EQ(std::memcmp(out, data, sizeof data), 0);
}

// Constant shape values are known at compile: the output shape follows.
TEST(backend_runtime_shape_compile, constant_shape_values_resolve_at_compile) {
    graph g;
    g.tensors[0] = strided_lt(0, data_type::f32, {4, 6});
    logical_tensor shape = strided_lt(1, data_type::s64, {3});
    shape.property = property_type::constant;
    tensor_values values;
    values.type = data_type::s64;
    values.count = 3;
    const std::int64_t target[3] = {2, -1, 3};
    values.bytes.resize(sizeof target);
    std::memcpy(values.bytes.data(), target, sizeof target);
    shape.values = values;
    g.tensors[1] = shape;
    g.tensors[2] = strided_lt(2, data_type::f32, {-1, -1, -1});
    g.ops.push_back(onnx_reshape_0_1_to_2());
    const auto cp = compile(g, whole_graph(g), {g.tensor(0), g.tensor(1)}, {any_lt(2, data_type::f32, {-1, -1, -1})},
                            cpu_engine());
    EXPECT_EQ(cp->outputs()[0].shape, (dims_t{2, 4, 3}));
    EXPECT_EQ(cp->outputs()[0].strides, (dims_t{12, 3, 1}));
    EXPECT_EQ(cp->lowering(), lowering_kind::alias);
}

} // namespace
} // namespace reshaper::impl::testing
