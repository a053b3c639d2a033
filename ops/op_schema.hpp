// Declarative op schemas: ports, type constraints, attributes, shape
// inference and documentation of one (domain, kind, version). Schemas are
// data; one generic verifier (verify_op) enforces them and the docs are
// generated from them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "ops/axis_range.hpp"

namespace reshaper::impl {

struct port_spec {
    std::string name;
    std::string type_var; // names a type_constraint of the schema
    bool required = true;
    std::string doc;
};

struct type_constraint {
    std::string type_var;
    std::vector<data_type> allowed;
    std::string doc;
};

struct attribute_spec {
    std::string name;
    attr_kind kind = attr_kind::s64;
    bool required = false;
    std::optional<attribute_value> default_value; // for optional attributes
    // Inclusive bounds on every s64 value (each element of an s64[]).
    std::optional<std::int64_t> min_value;
    std::optional<std::int64_t> max_value;
    std::string doc;
};

struct op_schema;

// Shape inference for one op, given the schema the registry resolved for it
// (and verified it against): reads the op's input tensors from the graph
// and writes (or checks, when given) its output tensors' dtype and shape.
// Throws error with the op's ref, the rule and the values on failure.
using shape_inference_fn = std::function<void(const op_schema &, const op &, graph &)>;

// How a reshape op reads a 0 in its target: the attribute that decides and
// the value of it that means "copy the input dim"
// (zero_rule::copy_from_input); any other value means a literal 0. No
// attribute: zeros are always copied (ONNX Reshape before 14).
struct zero_mapping {
    std::string attribute;
    attribute_value copy_when = true;
};

// How a reshape op states its target shape; read by read_reshape_request.
struct reshape_form {
    // The s64[] attribute holding the target (StaticReshape, ONNX Reshape-1)
    std::string target_attribute;
    // or the index of the input that carries it.
    std::optional<std::size_t> target_input;
    // A 0-D target input holding 1 also means a scalar output (oneDNN and
    // OpenVINO ops; ONNX requires a 1-D shape input).
    bool scalar_target_input = false;
    zero_mapping zeros;
};

// The members of the data-movement family other than the reshapes, by the
// rule each resolves through.
enum class movement_kind {
    permute_axes, // StaticTranspose, Transpose: the permutation rule
    remove_axes,  // Squeeze: the axes rule
    insert_axes,  // Unsqueeze: the axes rule
    flatten,      // Flatten: the flatten rule
};

// How a transpose, squeeze, unsqueeze or flatten states its values (an
// order, axes, an axis); read by read_movement_request.
struct movement_form {
    movement_kind kind = movement_kind::permute_axes;
    // The attribute holding them (order, perm, axes: s64[]; axis: s64)
    std::string values_attribute;
    // or the index of the input that carries them (a 1-D s64 tensor:
    // Squeeze and Unsqueeze from version 13).
    std::optional<std::size_t> values_input;
    // Whether a negative axis counts from the back or is out of range.
    negative_axes negatives = negative_axes::rejected;
    // Squeeze-1/11 read an empty axes attribute as none given (every size-1
    // dim goes); from 13 an empty axes input removes nothing (the sheet's
    // decision, after ONNX's own shape inference and reference).
    bool empty_values_are_absent = false;
};

struct op_schema {
    std::string domain; // "" or "ai.onnx"
    std::string kind;
    int since_version = 1;
    std::string doc;
    std::vector<port_spec> inputs;
    std::vector<port_spec> outputs;
    std::vector<type_constraint> type_constraints;
    std::vector<attribute_spec> attributes;
    shape_inference_fn infer_shapes;
    // Every schema is one member of the data-movement family: a reshape
    // (reshape set) or one of the others (movement set), never both.
    std::optional<reshape_form> reshape;
    std::optional<movement_form> movement;

    // "StaticReshape-1", "ai.onnx.Reshape-14"
    std::string versioned_name() const;
};

// "f32, f16, bf16": a type constraint's types, for messages and docs.
std::string type_list(const std::vector<data_type> &types);

// An attribute's inclusive bounds, "0..1", ">= 0" or "<= 5"; "" when it has
// none. For messages and docs.
std::string range_text(const attribute_spec &a);

// How messages name an op: "op 3 'Reshape_0' StaticReshape-1"; without a
// schema, the kind as written ("op 3 'r' ai.onnx.Reshape (version 25)").
std::string op_label(const op &o, const op_schema *schema);

} // namespace reshaper::impl
