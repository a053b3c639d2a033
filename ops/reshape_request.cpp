#include "ops/reshape_request.hpp"

#include "core/fail.hpp"
#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

zero_rule zero_rule_of(const op_schema &schema, const op &o) {
    const zero_mapping &m = schema.reshape->zeros;
    if (m.attribute.empty()) return zero_rule::copy_from_input;
    const auto value = attribute_or_default(schema, o, m.attribute);
    if (!value)
        fail(rule::required_attribute, op_label(o, &schema) + ": attr " + m.attribute +
                 " is missing", o.ref());
    return *value == m.copy_when ? zero_rule::copy_from_input : zero_rule::literal;
}

// The target a 0-D shape input stands for: its one value must be 1.
std::vector<std::int64_t> target_of_0d(const op &o, const op_schema *schema,
                                       const std::vector<std::int64_t> &values) {
    if (values.size() != 1 || values[0] != 1)
        fail(rule::scalar_shape_input,
             op_label(o, schema) + ": 0-D shape input holds " + dims_to_string(values) +
                 "; only the single value 1 (a scalar output) is allowed", o.ref());
    return {};
}

void read_target_input(const op_schema &schema, const op &o, const graph &g, reshape_request &r) {
    const std::size_t index = *schema.reshape->target_input;
    const port_spec &port = schema.inputs.at(index);
    if (index >= o.inputs.size())
        fail(rule::input_count, op_label(o, &schema) + ": input " + std::to_string(index) + " '" +
                                                       port.name + "' is missing", o.ref());
    r.shape_input = index;
    const logical_tensor &shape = g.tensor(o.inputs[index]);
    const std::string subject = "input " + std::to_string(index) + " '" + port.name + "'";
    const bool scalar_ok = schema.reshape->scalar_target_input;
    if (shape.shape.size() > 1 || (shape.shape.empty() && !scalar_ok))
        fail(rule::shape_input_rank,
             op_label(o, &schema) + ": " + subject + " has shape " + dims_to_string(shape.shape) +
                 "; it must be 1-D" +
                 (scalar_ok ? " (or 0-D holding 1)" : ""), o.ref());
    r.target_is_0d = shape.shape.empty();

    if (!shape.values_known()) {
        if (r.target_is_0d)
            r.target_rank = 0;
        else if (shape.shape[0] >= 0)
            r.target_rank = static_cast<std::size_t>(shape.shape[0]);
        return;
    }
    std::vector<std::int64_t> values;
    try {
        values = values_as_int64(*shape.values);
    } catch (const error &e) {
        // The values' own rule (a dtype, a value beyond int64), said of this op.
        fail(e.rule_id(), op_label(o, &schema) + ": " + subject + ": " + e.what(), o.ref());
    }
    if (!r.target_is_0d && shape.shape[0] >= 0 &&
        values.size() != static_cast<std::size_t>(shape.shape[0]))
        fail(rule::shape_input_values,
             op_label(o, &schema) + ": " + subject + " has shape " + dims_to_string(shape.shape) + " but " +
                 std::to_string(values.size()) + " values", o.ref());
    r.target = r.target_is_0d ? target_of_0d(o, &schema, values) : values;
    r.target_rank = r.target->size();
}

} // namespace

reshape_request read_reshape_request(const op_schema &schema, const op &o, const graph &g) {
    if (!schema.reshape)
        fail(rule::internal_invariant, op_label(o, &schema) + ": not a reshape op", o.ref());
    reshape_request r;
    r.zeros = zero_rule_of(schema, o);
    if (schema.reshape->target_input) {
        read_target_input(schema, o, g, r);
        return r;
    }
    const auto value = attribute_or_default(schema, o, schema.reshape->target_attribute);
    const auto *target = value ? std::get_if<std::vector<std::int64_t>>(&*value) : nullptr;
    if (!target)
        fail(rule::required_attribute,
             op_label(o, &schema) + ": attr " + schema.reshape->target_attribute +
                 " is missing or not s64[]", o.ref());
    r.target = *target;
    r.target_rank = target->size();
    return r;
}

dims_t resolve_for_op(const op &o, const dims_t &data_dims, const reshape_request &request,
                      const std::vector<std::int64_t> *runtime_target) {
    const op_schema *schema = op_registry::instance().resolve(o);
    std::vector<std::int64_t> target;
    if (runtime_target) {
        target = request.target_is_0d ? target_of_0d(o, schema, *runtime_target) : *runtime_target;
        if (request.target_rank && target.size() != *request.target_rank)
            fail(rule::shape_input_values,
                 op_label(o, schema) + ": shape values " + dims_to_string(*runtime_target) +
                     " do not have the " +
                     std::to_string(*request.target_rank) + " elements the shape input declares", o.ref());
    } else if (request.target) {
        target = *request.target;
    } else {
        fail(rule::runtime_shape_given,
             op_label(o, schema) +
                 ": the target shape arrives only at execute, and no values were given", o.ref());
    }
    reshape_resolution res = resolve_target_shape(data_dims, target, request.zeros);
    if (!res.ok())
        fail(res.diagnostic.rule, op_label(o, schema) + ": " + res.diagnostic.message, o.ref());
    return std::move(*res.dims);
}

} // namespace reshaper::impl
