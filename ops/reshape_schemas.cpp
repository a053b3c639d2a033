// Every reshape schema of this backend, one table row each. Rows are data:
// ports, type constraints, attributes and docs; they all share the one shape
// inference function and the one reshape rule, and differ in how they state
// the target (reshape_form) and which types they accept.
#include "ops/reshape_schemas.hpp"

#include "ops/onnx_types.hpp"
#include "ops/reshape_inference.hpp"

// Rows name only the fields they set; the rest keep their defaults on
// purpose. GCC 12 warns about that even for designated initializers.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace reshaper::impl {
namespace {

// How each family maps its zero attribute to zero_rule::copy_from_input:
// special_zero=true (oneDNN) is allowzero=0 (ONNX).
const zero_mapping special_zero_copies{.attribute = "special_zero", .copy_when = true};
const zero_mapping allowzero_zero_copies{.attribute = "allowzero",
                                         .copy_when = std::int64_t{0}};
const zero_mapping zeros_always_copy{};

} // namespace

std::vector<op_schema> make_reshape_schemas() {
    using enum data_type;

    const std::vector<data_type> float_types{f32, f16, bf16};
    const std::vector<data_type> integer_types{s8, u8, s16, u16, s32, u32, s64, u64};
    // ONNX Reshape: each version's type list extends the one before.
    const onnx_type_sets &onnx = onnx_types();

    const attribute_spec special_zero{
        .name = "special_zero",
        .kind = attr_kind::boolean,
        .required = true,
        .doc = "true: a 0 in the target copies the input dim at the same index; "
               "false: a 0 is a literal zero-size dim.",
    };
    const attribute_spec shape_attribute{
        .name = "shape",
        .kind = attr_kind::s64_list,
        .required = true,
        // No min_value: a value below -1 is the reshape rule's value_range
        // (invalid_shape), the same for an attribute as for a shape input.
        .doc = "The target shape. One -1 at most: that dim keeps the element count; "
               "0 is read as the op's zero rule says.",
    };
    const attribute_spec allowzero{
        .name = "allowzero",
        .kind = attr_kind::s64,
        .default_value = std::int64_t{0},
        .min_value = 0,
        .max_value = 1,
        .doc = "0: a 0 in the target copies the input dim at the same index; "
               "1: a 0 is a literal zero-size dim (then -1 may not appear with it).",
    };
    const attribute_spec consumed_inputs{
        .name = "consumed_inputs",
        .kind = attr_kind::s64_list,
        .doc = "Legacy optimisation hint; accepted and ignored.",
    };

    const port_spec data_t{.name = "data", .type_var = "T", .doc = "The tensor to reshape."};
    const port_spec output_t{
        .name = "output", .type_var = "T", .doc = "The data of `data` in the target shape."};
    const port_spec onnx_shape{
        .name = "shape", .type_var = "T_SHAPE", .doc = "1-D tensor holding the target shape."};
    const port_spec reshaped{
        .name = "reshaped", .type_var = "T", .doc = "The data of `data` in the target shape."};
    const type_constraint onnx_shape_type{
        .type_var = "T_SHAPE", .allowed = {s64}, .doc = "The shape input is int64."};
    auto onnx_data_type = [](std::vector<data_type> allowed) {
        return type_constraint{.type_var = "T",
                               .allowed = std::move(allowed),
                               .doc = "Input and output share one element type."};
    };
    const reshape_form onnx_shape_input{.target_input = 1, .zeros = zeros_always_copy};
    const reshape_form onnx_shape_input_allowzero{.target_input = 1,
                                                  .zeros = allowzero_zero_copies};

    return {
        {
            .domain = "",
            .kind = "StaticReshape",
            .since_version = 1,
            .doc = "Reshapes `data` to the `shape` attribute, known before compilation. "
                   "One -1 at most takes the dim that keeps the element count; "
                   "a 0 follows `special_zero`. Input and output volumes are equal.",
            .inputs = {data_t},
            .outputs = {output_t},
            .type_constraints = {{.type_var = "T", .allowed = float_types,
                                  .doc = "Floating-point data; output as input."}},
            .attributes = {shape_attribute, special_zero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = reshape_form{.target_attribute = "shape", .zeros = special_zero_copies},
        },
        {
            .domain = "",
            .kind = "DynamicReshape",
            .since_version = 1,
            .doc = "Reshapes `data` to the shape held by the `shape` input, which may be "
                   "known only at execution. Same rules as StaticReshape.",
            .inputs = {{.name = "data", .type_var = "T1", .doc = "The tensor to reshape."},
                       {.name = "shape", .type_var = "T2",
                        .doc = "1-D target shape (0-D holding 1 means a scalar)."}},
            .outputs = {{.name = "output", .type_var = "T1",
                         .doc = "The data of `data` in the target shape."}},
            .type_constraints = {{.type_var = "T1", .allowed = float_types,
                                  .doc = "Floating-point data; output as input."},
                                 {.type_var = "T2", .allowed = {s32},
                                  .doc = "The shape input is int32."}},
            .attributes = {special_zero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = reshape_form{.target_input = 1, .scalar_target_input = true,
                                    .zeros = special_zero_copies},
        },
        {
            .domain = "",
            .kind = "Reshape",
            .since_version = 1,
            .doc = "OpenVINO's Reshape: reshapes `data` of any type to the shape held by "
                   "the `shape` input of any integer type. Same rules as StaticReshape.",
            .inputs = {data_t,
                       {.name = "shape", .type_var = "T_SHAPE",
                        .doc = "1-D target shape (0-D holding 1 means a scalar)."}},
            .outputs = {output_t},
            .type_constraints = {{.type_var = "T", .allowed = all_data_types(),
                                  .doc = "Any supported type; output as input."},
                                 {.type_var = "T_SHAPE", .allowed = integer_types,
                                  .doc = "Any integer type of 8 bits or more."}},
            .attributes = {special_zero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = reshape_form{.target_input = 1, .scalar_target_input = true,
                                    .zeros = special_zero_copies},
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 1,
            .doc = "ONNX Reshape with the target in the `shape` attribute. A 0 copies the "
                   "input dim at its index, one -1 at most takes the dim that keeps the "
                   "element count, and an empty target gives a scalar.",
            .inputs = {data_t},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.floats)},
            .attributes = {shape_attribute, consumed_inputs},
            .infer_shapes = infer_reshape_shapes,
            .reshape = reshape_form{.target_attribute = "shape", .zeros = zeros_always_copy},
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 5,
            .doc = "The target moves from the attribute to the second input (int64); most "
                   "tensor types. Zeros copy as in version 1.",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.all), onnx_shape_type},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 13,
            .doc = "Adds bfloat16.",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir4), onnx_shape_type},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 14,
            .doc = "Adds the allowzero attribute: with allowzero=1 a 0 is a literal zero-size "
                   "dim, and -1 may not appear beside it.",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir4), onnx_shape_type},
            .attributes = {allowzero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input_allowzero,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 19,
            .doc = "Adds the float8 types (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz).",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir9), onnx_shape_type},
            .attributes = {allowzero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input_allowzero,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 21,
            .doc = "Adds int4 and uint4.",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir10), onnx_shape_type},
            .attributes = {allowzero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input_allowzero,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 23,
            .doc = "Adds float4e2m1.",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir11), onnx_shape_type},
            .attributes = {allowzero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input_allowzero,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 24,
            .doc = "Adds float8e8m0.",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir12), onnx_shape_type},
            .attributes = {allowzero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input_allowzero,
        },
        {
            .domain = "ai.onnx",
            .kind = "Reshape",
            .since_version = 25,
            .doc = "Adds int2 and uint2 (s2, u2).",
            .inputs = {data_t, onnx_shape},
            .outputs = {reshaped},
            .type_constraints = {onnx_data_type(onnx.ir13), onnx_shape_type},
            .attributes = {allowzero},
            .infer_shapes = infer_reshape_shapes,
            .reshape = onnx_shape_input_allowzero,
        },
    };
}

} // namespace reshaper::impl
