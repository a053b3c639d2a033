// Every transpose schema, one table row each: oneDNN's StaticTranspose-1 and
// ONNX Transpose 1..25. They share the one inference function and the one
// permutation rule, and differ in the attribute's name, whether negative
// entries count from the back, and which types they accept.
#include "ops/movement_inference.hpp"
#include "ops/movement_schemas.hpp"
#include "ops/onnx_types.hpp"

// Rows name only the fields they set; the rest keep their defaults on
// purpose. GCC 12 warns about that even for designated initializers.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace reshaper::impl {

std::vector<op_schema> make_transpose_schemas() {
    using enum data_type;
    const onnx_type_sets &onnx = onnx_types();

    // ONNX Transpose: only T changes between versions.
    const attribute_spec perm{
        .name = "perm",
        .kind = attr_kind::s64_list,
        // No min_value: a negative entry is the permutation rule's axis_range
        // (invalid_shape), as the sheet decides, not an attribute error.
        .doc = "Output axis i is input axis perm[i]: each of 0..n-1 exactly once. Absent or "
               "empty: the axes reversed.",
    };
    const port_spec data{.name = "data", .type_var = "T", .doc = "The tensor to transpose."};
    const port_spec transposed{
        .name = "transposed", .type_var = "T", .doc = "`data` with its axes permuted."};
    const movement_form onnx_perm{.kind = movement_kind::permute_axes,
                                  .values_attribute = "perm",
                                  .negatives = negative_axes::rejected};
    auto onnx_row = [&](int version, std::string doc, std::vector<data_type> types) {
        return op_schema{
            .domain = "ai.onnx",
            .kind = "Transpose",
            .since_version = version,
            .doc = std::move(doc),
            .inputs = {data},
            .outputs = {transposed},
            .type_constraints = {{.type_var = "T", .allowed = std::move(types),
                                  .doc = "Input and output share one element type."}},
            .attributes = {perm},
            .infer_shapes = infer_movement_shapes,
            .movement = onnx_perm,
        };
    };

    return {
        {
            .domain = "",
            .kind = "StaticTranspose",
            .since_version = 1,
            .doc = "Permutes the axes of `src` by the `order` attribute: axis i of `dst` is "
                   "axis order[i] of `src`. Entries may be negative (counting from the back); "
                   "an empty order reverses the axes.",
            .inputs = {{.name = "src", .type_var = "T", .doc = "The tensor to transpose."}},
            .outputs = {{.name = "dst", .type_var = "T", .doc = "`src` with its axes permuted."}},
            .type_constraints = {{.type_var = "T", .allowed = {f32, bf16, f16},
                                  .doc = "Floating-point data; output as input."}},
            .attributes = {{
                .name = "order",
                .kind = attr_kind::s64_list,
                .required = true,
                .doc = "Empty, or a permutation of the N input axes, each in [-N, N-1] "
                       "(negative: + N). Empty reverses the axes.",
            }},
            .infer_shapes = infer_movement_shapes,
            .movement = movement_form{.kind = movement_kind::permute_axes,
                                      .values_attribute = "order",
                                      .negatives = negative_axes::count_from_back},
        },
        onnx_row(1,
                 "ONNX Transpose: output axis i is input axis perm[i], as numpy.transpose; "
                 "without perm (or with an empty one) the axes are reversed. Negative entries "
                 "are not allowed.",
                 onnx.all),
        onnx_row(13, "Adds bfloat16.", onnx.ir4),
        onnx_row(21, "Adds the float8 types (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz), int4 and uint4.",
                 onnx.ir10),
        onnx_row(23, "Adds float4e2m1.", onnx.ir11),
        onnx_row(24, "Adds float8e8m0.", onnx.ir12),
        onnx_row(25, "Adds int2 and uint2 (s2, u2).", onnx.ir13),
    };
}

} // namespace reshaper::impl
