// Every Squeeze and Unsqueeze schema (ONNX 1, 11, 13, 21, 23, 24, 25), one
// table row each. Both resolve through the one axes rule and the one
// inference function; rows differ in where the axes come from (attribute
// before 13, input 1 from 13), whether negative axes count from the back
// (from 11), and which types they accept.
#include <algorithm>

#include "ops/movement_inference.hpp"
#include "ops/movement_schemas.hpp"
#include "ops/onnx_types.hpp"

// Rows name only the fields they set; the rest keep their defaults on
// purpose. GCC 12 warns about that even for designated initializers.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace reshaper::impl {
namespace {

// What separates the versions of one op.
struct version_row {
    int version;
    std::string doc;
    const std::vector<data_type> *types;
};

} // namespace

std::vector<op_schema> make_squeeze_schemas() {
    using enum data_type;
    const onnx_type_sets &onnx = onnx_types();
    // The same steps for both ops: 11 reads negative axes, 13 moves them to
    // an input and adds bf16, later versions add types.
    const std::vector<version_row> versions{
        {1, "", &onnx.all},
        {11, "Negative axes count from the back.", &onnx.all},
        {13, "The axes move from the attribute to input 1 (1-D int64); adds bfloat16.", &onnx.ir4},
        {21, "Adds the float8 types (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz), int4 and uint4.",
         &onnx.ir10},
        {23, "Adds float4e2m1.", &onnx.ir11},
        {24, "Adds float8e8m0.", &onnx.ir12},
        {25, "Adds int2 and uint2 (s2, u2).", &onnx.ir13},
    };
    const type_constraint axes_type{
        .type_var = "T_AXES", .allowed = {s64}, .doc = "The axes input is int64."};
    auto data_type_of = [](const std::vector<data_type> &allowed) {
        return type_constraint{
            .type_var = "T", .allowed = allowed, .doc = "Input and output share one element type."};
    };

    std::vector<op_schema> rows;
    for (const version_row &v : versions) {
        const bool axes_input = v.version >= 13;
        const negative_axes negatives =
            v.version >= 11 ? negative_axes::count_from_back : negative_axes::rejected;
        const std::string range = v.version >= 11 ? "[-r, r-1] (negative: + r)" : "[0, r-1]";
        op_schema squeeze{
            .domain = "ai.onnx",
            .kind = "Squeeze",
            .since_version = v.version,
            .doc = v.version == 1
                       ? "Removes the listed axes of size 1 from `data` (each in [0, r-1], in any "
                         "order, none twice); without axes, every size-1 axis. The elements "
                         "keep their order: a reshape."
                       : v.doc,
            .inputs = {{.name = "data", .type_var = "T", .doc = "The tensor to squeeze."}},
            .outputs = {{.name = "squeezed", .type_var = "T",
                         .doc = "`data` without the removed axes."}},
            .type_constraints = {data_type_of(*v.types)},
            .infer_shapes = infer_movement_shapes,
            .movement = movement_form{.kind = movement_kind::remove_axes,
                                      .values_attribute = axes_input ? "" : "axes",
                                      .negatives = negatives,
                                      .empty_values_are_absent = !axes_input},
        };
        op_schema unsqueeze{
            .domain = "ai.onnx",
            .kind = "Unsqueeze",
            .since_version = v.version,
            .doc = v.version == 1
                       ? "Inserts axes of size 1 into `data` at the listed positions of the "
                         "output (rank r + number of axes; each in [0, rank-1], in any order, "
                         "none twice). The elements keep their order: a reshape."
                       : v.version == 11 ? "Negative axes count from the back of the output."
                                         : v.doc,
            .inputs = {{.name = "data", .type_var = "T", .doc = "The tensor to unsqueeze."}},
            .outputs = {{.name = "expanded", .type_var = "T",
                         .doc = "`data` with a size-1 axis at each listed position."}},
            .type_constraints = {data_type_of(*v.types)},
            .infer_shapes = infer_movement_shapes,
            .movement = movement_form{.kind = movement_kind::insert_axes,
                                      .values_attribute = axes_input ? "" : "axes",
                                      .negatives = negatives},
        };
        if (axes_input) {
            squeeze.inputs.push_back({.name = "axes", .type_var = "T_AXES", .required = false,
                                      .doc = "1-D: the axes to remove, each in " + range +
                                             ". Not connected: every size-1 axis; empty: none."});
            squeeze.type_constraints.push_back(axes_type);
            squeeze.movement->values_input = 1;
            unsqueeze.inputs.push_back(
                {.name = "axes", .type_var = "T_AXES",
                 .doc = "1-D: the positions of the new axes in the output of rank R, each in "
                        "[-R, R-1] (negative: + R)."});
            unsqueeze.type_constraints.push_back(axes_type);
            unsqueeze.movement->values_input = 1;
        } else {
            squeeze.attributes = {{.name = "axes", .kind = attr_kind::s64_list,
                                   .doc = "The axes to remove, each in " + range +
                                          ". Absent or empty: every size-1 axis."}};
            unsqueeze.attributes = {
                {.name = "axes", .kind = attr_kind::s64_list, .required = true,
                 .doc = "The positions of the new axes in the output of rank R, each in " +
                        std::string(v.version >= 11 ? "[-R, R-1] (negative: + R)" : "[0, R-1]") +
                        "."}};
        }
        rows.push_back(std::move(squeeze));
        rows.push_back(std::move(unsqueeze));
    }
    // Squeeze's versions first, then Unsqueeze's, as docs/ops.md lists them.
    std::stable_partition(rows.begin(), rows.end(),
                          [](const op_schema &s) { return s.kind == "Squeeze"; });
    return rows;
}

} // namespace reshaper::impl
