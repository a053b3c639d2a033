#include "ops/movement_request.hpp"

#include "core/fail.hpp"
#include "ops/axes_rule.hpp"
#include "ops/flatten_rule.hpp"
#include "ops/permutation_rule.hpp"
#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

// The values input of Squeeze/Unsqueeze-13+ (axes): a 1-D s64 tensor whose
// values are known now when it is constant with values (as the reshapes'
// shape input), else only its length may be.
void read_values_input(const op_schema &schema, const op &o, const graph &g, movement_request &r) {
    const std::size_t index = *schema.movement->values_input;
    const port_spec &port = schema.inputs.at(index);
    const std::string subject = "input " + std::to_string(index) + " '" + port.name + "'";
    if (index >= o.inputs.size()) {
        if (port.required)
            fail(rule::input_count, op_label(o, &schema) + ": " + subject + " is missing", o.ref());
        r.values.emplace();
        r.values_absent = true;
        return;
    }
    r.values_input = index;
    const logical_tensor &axes = g.tensor(o.inputs[index]);
    if (axes.shape.size() != 1)
        fail(rule::axes_rank,
             op_label(o, &schema) + ": " + subject + " has shape " + dims_to_string(axes.shape) +
                 "; it must be 1-D", o.ref());
    if (!axes.values_known()) {
        if (axes.shape[0] >= 0) r.value_count = static_cast<std::size_t>(axes.shape[0]);
        return;
    }
    std::vector<std::int64_t> values;
    try {
        values = values_as_int64(*axes.values);
    } catch (const error &e) {
        // The values' own rule (a dtype, a value beyond int64), said of this op.
        fail(e.rule_id(), op_label(o, &schema) + ": " + subject + ": " + e.what(), o.ref());
    }
    if (axes.shape[0] >= 0 && values.size() != static_cast<std::size_t>(axes.shape[0]))
        fail(rule::axes_input_values,
             op_label(o, &schema) + ": " + subject + " has shape " + dims_to_string(axes.shape) + " but " +
                 std::to_string(values.size()) + " values", o.ref());
    r.value_count = values.size();
    r.values = std::move(values);
}

void read_values_attribute(const op_schema &schema, const op &o, movement_request &r) {
    const movement_form &form = *schema.movement;
    const auto value = attribute_or_default(schema, o, form.values_attribute);
    if (!value) {
        // Unsqueeze-1/11 require theirs (verify_op says so first).
        if (form.kind == movement_kind::insert_axes)
            fail(rule::required_attribute, op_label(o, &schema) + ": attr " + form.values_attribute +
                     " is missing", o.ref());
        r.values.emplace();
        r.values_absent = true;
    } else if (const auto *list = std::get_if<std::vector<std::int64_t>>(&*value)) {
        r.values = *list;
        r.values_absent = list->empty() && form.empty_values_are_absent;
    } else if (const auto *one = std::get_if<std::int64_t>(&*value)) {
        r.values = std::vector<std::int64_t>{*one};
    } else {
        fail(rule::attribute_kind,
             op_label(o, &schema) + ": attr " + form.values_attribute + " is " + attribute_to_string(*value) +
                 ", not an s64 or s64[]", o.ref());
    }
    r.value_count = r.values->size();
}

// The transform of a non-reshape member for `dims` (which may hold unknown
// dims) and its values; nothing when the output rank is unknown.
std::optional<movement_transform> resolve_values(const op &o, const movement_form &form,
                                                 const dims_t &dims,
                                                 const std::vector<std::int64_t> &values,
                                                 bool absent) {
    const auto failed = [&](const reshape_diagnostic &d) -> movement_transform {
        fail(d.rule, op_label(o, op_registry::instance().resolve(o)) + ": " + d.message, o.ref());
    };
    switch (form.kind) {
    case movement_kind::permute_axes: {
        // Absent and empty both reverse the axes (oneDNN's `order = []`; the
        // sheet's decision for ONNX's empty perm).
        permutation_resolution res =
            resolve_permutation(dims, values, form.negatives, form.values_attribute);
        if (!res.ok()) return failed(res.diagnostic);
        return movement_transform{std::move(*res.dims), std::move(res.permutation)};
    }
    case movement_kind::remove_axes:
    case movement_kind::insert_axes: {
        axes_resolution res =
            form.kind == movement_kind::insert_axes
                ? insert_axes(dims, values, form.negatives)
                : remove_axes(dims, absent ? std::nullopt : std::optional(values), form.negatives);
        if (!res.ok()) return failed(*res.failure);
        if (!res.dims) return std::nullopt;
        return movement_transform{std::move(*res.dims), {}};
    }
    case movement_kind::flatten: {
        // The attribute has a default, so there is always exactly one value.
        reshape_resolution res = resolve_flatten(dims, values.at(0), form.negatives);
        if (!res.ok()) return failed(res.diagnostic);
        return movement_transform{std::move(*res.dims), {}};
    }
    }
    return std::nullopt;
}

} // namespace

bool is_movement_schema(const op_schema &schema) {
    return schema.reshape.has_value() || schema.movement.has_value();
}

movement_request read_movement_request(const op_schema &schema, const op &o, const graph &g) {
    movement_request r;
    if (schema.reshape) {
        r.reshape = read_reshape_request(schema, o, g);
        r.values_input = r.reshape->shape_input;
        r.values = r.reshape->target;
        r.value_count = r.reshape->target_rank;
        return r;
    }
    if (schema.movement) {
        r.movement = schema.movement;
        if (schema.movement->values_input)
            read_values_input(schema, o, g, r);
        else
            read_values_attribute(schema, o, r);
        return r;
    }
    fail(rule::partition_supported,
         op_label(o, &schema) + ": not an op of the data-movement family",
         o.ref());
}

movement_transform resolve_movement(const op &o, const dims_t &data_dims,
                                    const movement_request &request,
                                    const std::vector<std::int64_t> *runtime_values) {
    if (request.reshape)
        return movement_transform{resolve_for_op(o, data_dims, *request.reshape, runtime_values), {}};
    if (!request.movement)
        fail(rule::partition_supported,
             op_label(o, op_registry::instance().resolve(o)) +
                 ": not an op of the data-movement family",
             o.ref());
    const std::vector<std::int64_t> *values = request.values ? &*request.values : nullptr;
    if (runtime_values) {
        if (request.value_count && runtime_values->size() != *request.value_count)
            fail(rule::axes_input_values,
                 op_label(o, op_registry::instance().resolve(o)) + ": values " +
                     dims_to_string(*runtime_values) + " at execute do not have the " +
                     std::to_string(*request.value_count) + " elements the op declares", o.ref());
        values = runtime_values;
    }
    if (!values)
        fail(rule::runtime_shape_given,
             op_label(o, op_registry::instance().resolve(o)) +
                 ": the axes arrive only at execute, and no values were given", o.ref());
    auto transform =
        resolve_values(o, *request.movement, data_dims, *values, request.values_absent && !runtime_values);
    if (!transform)
        fail(rule::input_shape_known,
             op_label(o, op_registry::instance().resolve(o)) + ": input dims " + dims_to_string(data_dims) +
                 " must be known to remove every size-1 dim", o.ref());
    return std::move(*transform);
}

std::optional<movement_transform> resolve_partial_movement(const op &o, const dims_t &data_dims,
                                                           const movement_request &request) {
    if (!request.values) return std::nullopt;
    if (request.reshape) {
        return movement_transform{resolve_for_op(o, data_dims, *request.reshape), {}};
    }
    if (!request.movement) return resolve_movement(o, data_dims, request); // throws the reason
    return resolve_values(o, *request.movement, data_dims, *request.values, request.values_absent);
}

} // namespace reshaper::impl
