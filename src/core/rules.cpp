#include "core/rules.hpp"

#include <array>

namespace reshaper::impl {
namespace {

using s = status;

// Grouped by layer, in the order a graph meets them.
constexpr std::array rules{
    // Reading a graph file (src/io).
    rule_info{"json_syntax", s::invalid_graph, "io", "the text is well-formed JSON"},
    rule_info{"top_level_object", s::invalid_graph, "io", "the graph file holds one JSON object"},
    rule_info{"required_field", s::invalid_graph, "io", "a field the format requires is present"},
    rule_info{"field_type", s::invalid_graph, "io", "a field has the JSON type the format gives it"},
    rule_info{"known_dtype", s::invalid_data_type, "io", "a dtype name is one of the format's"},
    rule_info{"known_layout", s::invalid_graph, "io", "layout_type is strided, any, undef or opaque"},
    rule_info{"known_property", s::invalid_graph, "io", "property_type is undef, variable or constant"},
    rule_info{"known_attr_type", s::invalid_graph_op, "io", "an attribute's type is bool, s64, s64[], f32, f32[] or string"},
    rule_info{"attr_value_type", s::invalid_graph_op, "io", "an attribute's value fits its type"},
    rule_info{"dims_at_least_minus_one", s::invalid_shape, "io", "every dim of a logical tensor is >= -1 (-1: unknown)"},
    rule_info{"volume_fits", s::invalid_shape, "io", "a tensor's size in bits fits int64"},
    rule_info{"ndims_shape", s::invalid_shape, "io", "a tensor's ndims, when given, is its shape's length, or -1 beside shape [] (an unknown rank)"},
    rule_info{"stride_rank", s::invalid_shape, "io", "a stride list has one entry per dim"},
    rule_info{"strides_at_least_minus_one", s::invalid_shape, "io", "every stride is >= 0, or -1 for unknown"},
    rule_info{"values_need_known_shape", s::invalid_shape, "io", "a tensor with values has a known shape"},
    rule_info{"values_count", s::invalid_shape, "io", "values hold one element per element of the shape"},
    rule_info{"value_fits_dtype", s::invalid_data_type, "io", "every value can be held by the tensor's dtype"},
    rule_info{"unique_outputs", s::invalid_graph, "io", "an op lists a tensor at most once among its outputs"},
    rule_info{"tensor_agreement", s::invalid_graph, "io", "every place describing a tensor agrees on dtype, layout (strides, format), property and values; strides agree when they address the same memory (those of size-1 dims and of zero-volume tensors address none and may differ); layout any or undef and property undef agree with any (the builder: on everything it gives)"},
    rule_info{"file_readable", s::invalid_arguments, "io", "a graph file exists and can be read"},
    rule_info{"max_graph_bytes", s::invalid_graph, "io", "a graph file is no larger than RESHAPER_MAX_GRAPH_BYTES (default 1 GiB)"},
    rule_info{"max_ops", s::invalid_graph, "io", "a graph has no more ops than RESHAPER_MAX_OPS (default 10,000,000)"},
    // Reading an ONNX model (src/onnx).
    rule_info{"onnx_model", s::invalid_graph, "onnx", "an ONNX file holds a model: a protobuf ModelProto with a graph and an opset for the default domain"},
    rule_info{"free_dim_value", s::invalid_arguments, "onnx", "a free dimension binding names a symbolic dim and gives it a value >= 0"},
    rule_info{"free_dims_bound", s::invalid_arguments, "onnx", "to compile or execute an ONNX model (check and perf modes), every symbolic dim of its inputs is bound (--free-dim, free_dims)"},
    // The graph's structure (src/core, ops/graph_inference, the builder).
    rule_info{"unique_op_id", s::invalid_graph, "graph", "no two ops share an id"},
    rule_info{"tensor_exists", s::invalid_graph, "graph", "every tensor an op names is in the graph"},
    rule_info{"port_tensor_exists", s::invalid_graph, "graph", "every input_ports/output_ports entry names a tensor of the graph"},
    rule_info{"single_producer", s::invalid_graph, "graph", "no tensor is produced by two ops"},
    rule_info{"acyclic", s::invalid_graph, "graph", "the graph has no cycle"},
    rule_info{"graph_not_finalized", s::invalid_graph, "graph", "ops and values are added only before a graph is finalized"},
    rule_info{"tensor_values_size", s::invalid_arguments, "graph", "values set through the builder have the tensor's byte size"},
    // An op against its schema (ops/).
    rule_info{"version", s::invalid_graph_op, "op", "the op's version (or ONNX opset) is one the registry defines"},
    rule_info{"input_count", s::invalid_graph_op, "op", "the op has as many inputs as its schema allows"},
    rule_info{"output_count", s::invalid_graph_op, "op", "the op has as many outputs as its schema allows"},
    rule_info{"type_constraint", s::invalid_data_type, "op", "each port's dtype is allowed by, and agrees with, its type variable"},
    rule_info{"input_dtype_known", s::invalid_data_type, "op", "an op's input has a dtype (given, or inferred from its producer)"},
    rule_info{"unknown_attribute", s::invalid_graph_op, "op", "every attribute is one the schema defines"},
    rule_info{"attribute_kind", s::invalid_graph_op, "op", "every attribute has the type the schema gives it"},
    rule_info{"required_attribute", s::invalid_graph_op, "op", "every required attribute is present"},
    rule_info{"attr_value_range", s::invalid_graph_op, "op", "an attribute's value is within the schema's allowed range"},
    // The reshape rule (ops/reshape_rule, ops/reshape_request, inference).
    rule_info{"value_range", s::invalid_shape, "shape", "no requested target dim is below -1"},
    rule_info{"single_minus_one", s::invalid_shape, "shape", "the requested shape holds at most one -1"},
    rule_info{"zero_index_in_rank", s::invalid_shape, "shape", "a 0 that copies an input dim has an input dim at its index"},
    rule_info{"zero_with_minus_one", s::invalid_shape, "shape", "with literal zeros (special_zero=false, allowzero=1) a 0 and a -1 never stand together"},
    rule_info{"ambiguous_minus_one", s::invalid_shape, "shape", "a -1 never stands beside other dims of volume 0"},
    rule_info{"volume_mismatch", s::invalid_shape, "shape", "the output has the input's element count"},
    rule_info{"overflow", s::invalid_shape, "shape", "no volume, stride or byte size overflows int64"},
    rule_info{"scalar_shape_input", s::invalid_shape, "shape", "a 0-D shape input holds the single value 1 (a scalar output)"},
    rule_info{"shape_input_rank", s::invalid_shape, "shape", "a shape input is 1-D (or 0-D where the op allows it)"},
    rule_info{"shape_input_values", s::invalid_shape, "shape", "a shape input holds one integer per element of its shape"},
    rule_info{"output_shape_match", s::invalid_shape, "shape", "an output shape given in the graph or at compile agrees with the op's result (rank and every known dim)"},
    // The permutation, axes and flatten rules (ops/permutation_rule, ops/axes_rule,
    // ops/flatten_rule, ops/movement_request, inference).
    rule_info{"perm_length", s::invalid_shape, "shape", "a non-empty transpose order (order, perm) has one entry per input axis"},
    rule_info{"axis_range", s::invalid_shape, "shape", "every axis value (order, perm, axes, axis) names an axis; a negative one only where the op's version counts from the back"},
    rule_info{"axis_duplicate", s::invalid_shape, "shape", "no axis is named twice once negative values are read from the back"},
    rule_info{"squeeze_not_one", s::invalid_shape, "shape", "every axis a Squeeze removes has size 1 (a dim unknown at inference is checked at execute)"},
    rule_info{"axes_rank", s::invalid_shape, "shape", "an axes input (Squeeze, Unsqueeze from version 13) is 1-D"},
    rule_info{"axes_input_values", s::invalid_shape, "shape", "an axes input holds one integer per element of its shape, at execute too"},
    // Compiling a partition (src/backend).
    rule_info{"partition_supported", s::unimplemented, "compile", "only a partition the backend claimed is compiled"},
    rule_info{"reshape_chain", s::unimplemented, "compile", "a claimed partition is a chain of data-movement ops, each the data input of the next, whose outputs are results of its ops"},
    rule_info{"dynamic_chain", s::unimplemented, "compile", "a chain whose shapes arrive only at execute neither permutes axes nor has several outputs"},
    rule_info{"chain_composition", s::invalid_arguments, "compile", "the ops of a chain agree on the dims each hands to the next (an internal consistency check of the lowering)"},
    rule_info{"boundary_tensor", s::invalid_arguments, "compile", "every tensor given to compile is an input or output of the partition"},
    rule_info{"boundary_dtype", s::invalid_data_type, "compile", "a tensor given at compile has the graph's dtype"},
    rule_info{"boundary_shape", s::invalid_shape, "compile", "a tensor given at compile has the graph's known dims"},
    rule_info{"input_shape_known", s::invalid_shape, "compile", "the data input's shape is known at compile"},
    rule_info{"buffer_strides", s::invalid_arguments, "compile", "strides describe a buffer: one per dim, none negative, no two output elements the plan writes at one address (an alias writes none: the view of a broadcast input may share them)"},
    rule_info{"concrete_input_layout", s::invalid_arguments, "compile", "an input's layout is strided or opaque, not any"},
    rule_info{"format_tag", s::invalid_graph, "compile", "an opaque tensor's format tag is a oneDNN tag that fits its rank"},
    rule_info{"dynamic_output_layout", s::unimplemented, "compile", "an output whose dims arrive only at execute is dense or of layout any"},
    rule_info{"engine_available", s::unavailable, "compile", "the engine kind exists on this machine"},
    // Executing (src/backend, src/api).
    rule_info{"execute_buffers", s::invalid_arguments, "execute", "one buffer per input and output, none NULL when it has bytes, an output overlapping an input only for an alias run in place"},
    rule_info{"input_dtype_matches", s::invalid_arguments, "execute", "an array given to execute from Python (an input, or an output given with outputs=) has the compiled tensor's dtype: nothing is cast"},
    rule_info{"python_tensor_kind", s::unimplemented, "execute", "a tensor executed from Python is one numpy or torch 1.13 can hold: a dtype one of them has (not 4- or 2-bit, f8 or string) in a strided layout"},
    rule_info{"runtime_shape_given", s::invalid_arguments, "execute", "shape values that arrive only at execute are given then"},
    rule_info{"runtime_shape_match", s::invalid_shape, "execute", "shape values at execute give the output shape the partition was compiled for"},
    rule_info{"onednn_failure", s::runtime_error, "execute", "a oneDNN primitive runs without an error"},
    rule_info{"memory_limit", s::out_of_memory, "execute", "the memory a call needs can be allocated"},
    // Calls (src/api) and the driver.
    rule_info{"api_argument", s::invalid_arguments, "api", "handles and required pointers are not NULL; indices, capacities and enums are in range"},
    rule_info{"values_fit_layout", s::invalid_shape, "driver", "values given for a tensor whose layout gives several elements one address agree at that address"},
    rule_info{"driver_option", s::invalid_arguments, "driver", "reshaper-run's options are known and well-formed, and at least one graph file is given"},
};

} // namespace

std::span<const rule_info> all_rules() { return rules; }

const rule_info *find_rule(std::string_view id) {
    for (const rule_info &r : rules)
        if (r.id == id) return &r;
    return nullptr;
}

std::string generate_rules_markdown() {
    std::string md =
        "# Rule ids\n\n"
        "<!-- Generated by reshaper-gen-rules-doc from src/core/rules.cpp; do not edit. -->\n\n"
        "Every check that can reject a graph, an op, a shape or a call has an id. An error's\n"
        "message ends with it in brackets (`... [volume_mismatch]`); the driver's JSON report\n"
        "carries it as `error.rule` and the C API gives it with `reshaper_get_last_error_rule`\n"
        "(C++: `reshaper::error::rule()`). The status is the one a violation gives.\n\n"
        "| id | status | checked at | rule |\n|---|---|---|---|\n";
    for (const rule_info &r : rules)
        md += "| `" + std::string(r.id) + "` | `" + std::string(to_string(r.code)) + "` | " +
              std::string(r.layer) + " | " + std::string(r.meaning) + " |\n";
    return md;
}

} // namespace reshaper::impl
