// Every Flatten schema (ONNX 1, 9, 11, 13, 21, 23, 24, 25), one table row
// each. They share the one flatten rule and the one inference function, and
// differ in whether a negative axis counts from the back (from 11) and which
// types they accept.
#include "ops/movement_inference.hpp"
#include "ops/movement_schemas.hpp"
#include "ops/onnx_types.hpp"

// Rows name only the fields they set; the rest keep their defaults on
// purpose. GCC 12 warns about that even for designated initializers.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace reshaper::impl {

std::vector<op_schema> make_flatten_schemas() {
    const onnx_type_sets &onnx = onnx_types();
    auto row = [](int version, std::string doc, const std::vector<data_type> &types) {
        const bool from_back = version >= 11;
        return op_schema{
            .domain = "ai.onnx",
            .kind = "Flatten",
            .since_version = version,
            .doc = std::move(doc),
            .inputs = {{.name = "input", .type_var = "T", .doc = "The tensor to flatten."}},
            .outputs = {{.name = "output", .type_var = "T",
                         .doc = "2-D: [product of the dims before axis, product of the rest]."}},
            .type_constraints = {{.type_var = "T", .allowed = types,
                                  .doc = "Input and output share one element type."}},
            .attributes = {{
                .name = "axis",
                .kind = attr_kind::s64,
                .default_value = std::int64_t{1},
                // No range here: it depends on the input's rank, so it is the
                // flatten rule's axis_range (invalid_shape).
                .doc = from_back ? "Where the columns start, in [-r, r] (negative: + r)."
                                 : "Where the columns start, in [0, r].",
            }},
            .infer_shapes = infer_movement_shapes,
            .movement = movement_form{.kind = movement_kind::flatten,
                                      .values_attribute = "axis",
                                      .negatives = from_back ? negative_axes::count_from_back
                                                             : negative_axes::rejected},
        };
    };
    return {
        row(1,
            "Flattens `input` into a matrix: the dims before `axis` multiply into the rows, "
            "the rest into the columns. The elements keep their order: a reshape. A rank-0 "
            "input needs axis 0.",
            onnx.floats),
        row(9, "Every tensor type.", onnx.all),
        row(11, "A negative axis counts from the back.", onnx.all),
        row(13, "Adds bfloat16.", onnx.ir4),
        row(21, "Adds the float8 types (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz), int4 and uint4.",
            onnx.ir10),
        row(23, "Adds float4e2m1.", onnx.ir11),
        row(24, "Adds float8e8m0.", onnx.ir12),
        row(25, "Adds int2 and uint2 (s2, u2).", onnx.ir13),
    };
}

} // namespace reshaper::impl
