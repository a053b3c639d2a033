#include "backend/partition_chain.hpp"

#include <algorithm>

#include "core/fail.hpp"
#include "core/status.hpp"
#include "kernels/strided_copy.hpp"
#include "ops/registry.hpp"

namespace reshaper::impl {

namespace {

// "op 3 'Reshape_0' StaticReshape-1", as every layer names ops.
std::string describe_op(const op &o) {
    return op_label(o, op_registry::instance().find(o.domain, o.kind, o.version));
}

// The caller's tensor where given, checked against the graph's dtype.
logical_tensor boundary_tensor(const graph &g, tensor_id id, const std::vector<logical_tensor> &given) {
    const logical_tensor &declared = g.tensor(id);
    const logical_tensor *lt = find_tensor(given, id);
    if (!lt) return declared;
    if (lt->dtype != declared.dtype && declared.dtype != data_type::undef)
        fail(rule::boundary_dtype,
             "tensor " + std::to_string(id) + " is " + std::string(to_string(declared.dtype)) +
                 " in the graph but was given as " + std::string(to_string(lt->dtype)));
    // Known dims must agree; an unknown dim takes the other side's value.
    auto shape = merge_known_dims(lt->shape, declared.shape);
    if (!shape)
        fail(rule::boundary_shape, "tensor " + std::to_string(id) + " has shape " +
                                       dims_to_string(declared.shape) +
                                       " in the graph but was given as " +
                                       dims_to_string(lt->shape));
    logical_tensor result = *lt;
    result.shape = std::move(*shape);
    if (result.dtype == data_type::undef) result.dtype = declared.dtype;
    return result;
}

// Known dims of `declared` must match `resolved` (rank too, when declared).
void check_declared(const op &o, const dims_t &declared, const dims_t &resolved, const char *what) {
    if (!merge_known_dims(declared, resolved))
        fail(rule::output_shape_match,
             describe_op(o) + ": " + what + " shape " + dims_to_string(declared) +
                 " disagrees with the op's result " + dims_to_string(resolved),
             o.ref());
}

} // namespace

resolved_chain resolve_chain(const graph &g, const partition &p,
                             const std::vector<logical_tensor> &inputs,
                             const std::vector<logical_tensor> &outputs) {
    if (p.op_indices.empty() || p.outputs.empty())
        fail(rule::reshape_chain,
             "partition " + std::to_string(p.id) + " is not a chain of data-movement ops");
    // A caller's tensor that is no boundary tensor of the partition (a typo
    // in an id, say) would otherwise be silently ignored.
    const auto check_given = [&](const std::vector<logical_tensor> &given, const tensor_ids &ids,
                                 const char *side) {
        for (const logical_tensor &lt : given)
            if (std::find(ids.begin(), ids.end(), lt.id) == ids.end())
                fail(rule::boundary_tensor,
                     std::string(side) + " tensor " + std::to_string(lt.id) + " given to compile is not an " +
                         side + " of partition " + std::to_string(p.id) + " (its " + side + "s: " +
                         dims_to_string(dims_t(ids.begin(), ids.end())) + ")");
    };
    check_given(inputs, p.inputs, "input");
    check_given(outputs, p.outputs, "output");
    resolved_chain chain;
    for (tensor_id id : p.inputs) chain.inputs.push_back(boundary_tensor(g, id, inputs));
    for (tensor_id id : p.outputs) chain.outputs.push_back(boundary_tensor(g, id, outputs));
    chain.output_step_counts.assign(p.outputs.size(), 0);

    // The partition's ops over their own tensors, boundary tensors as given:
    // what read_movement_request sees (constant values included). When the
    // boundary tensors are the graph's own, that is the graph itself (no
    // copy per partition: issue 7's large graphs).
    bool as_declared = true;
    for (std::size_t k = 0; k < p.inputs.size() && as_declared; ++k)
        as_declared = chain.inputs[k] == g.tensor(p.inputs[k]);
    for (std::size_t k = 0; k < p.outputs.size() && as_declared; ++k)
        as_declared = chain.outputs[k] == g.tensor(p.outputs[k]);
    graph sub;
    if (!as_declared) {
        for (std::size_t index : p.op_indices) {
            const op &o = g.ops.at(index);
            for (const auto *ids : {&o.inputs, &o.outputs})
                for (tensor_id id : *ids) sub.tensors.emplace(id, g.tensor(id));
        }
        for (const auto &lt : chain.inputs) sub.tensors[lt.id] = lt;
        for (const auto &lt : chain.outputs) sub.tensors[lt.id] = lt;
    }
    const graph &tensors_of = as_declared ? g : sub;

    auto position_of_input = [&](tensor_id id) -> std::optional<std::size_t> {
        auto it = std::find(p.inputs.begin(), p.inputs.end(), id);
        if (it == p.inputs.end()) return std::nullopt;
        return static_cast<std::size_t>(it - p.inputs.begin());
    };

    const op &first = g.ops.at(p.op_indices.front());
    const auto data_position = data_input_position(g, p);
    if (!data_position)
        fail(rule::reshape_chain, "partition " + std::to_string(p.id) +
                                      ": the data input of " + describe_op(first) +
                                      " is not among the partition's inputs");
    chain.data_position = *data_position;
    const logical_tensor &data = chain.inputs[chain.data_position];
    if (!data.shape_known())
        fail(rule::input_shape_known, "partition " + std::to_string(p.id) + ": input tensor " +
                                          std::to_string(data.id) + " has unknown dims " +
                                          dims_to_string(data.shape) + " at compile");
    dims_t current = data.shape;
    tensor_id current_id = data.id;
    const std::size_t length = p.op_indices.size();
    chain.shapes.reserve(length + 1);
    chain.steps.reserve(length);
    chain.op_schemas.reserve(length);
    chain.shapes.push_back(current);
    // The ops as resolved, copied into chain.ops only if the chain is dynamic.
    struct resolved_op {
        const op *o;
        movement_request request;
        std::optional<std::size_t> runtime;
    };
    std::vector<resolved_op> resolved;
    resolved.reserve(length);

    for (std::size_t index : p.op_indices) {
        const op &o = g.ops.at(index);
        if (o.inputs.empty() || o.inputs[0] != current_id || o.outputs.size() != 1)
            fail(rule::reshape_chain,
                 "partition " + std::to_string(p.id) + ": " + describe_op(o) +
                     " does not continue the chain from tensor " +
                     std::to_string(current_id),
                 o.ref());
        const op_schema *schema = op_registry::instance().resolve(o);
        if (!schema || !is_movement_schema(*schema))
            fail(rule::partition_supported, describe_op(o) + ": op kind " + o.kind +
                                                " is not handled by this backend",
                 o.ref());
        chain.op_schemas.push_back(schema);
        // (`resolved` holds every op without growing: the reference stays.)
        resolved.push_back(resolved_op{&o, read_movement_request(*schema, o, tensors_of), std::nullopt});
        const movement_request &request = resolved.back().request;
        const dims_t &declared = tensors_of.tensor(o.outputs[0]).shape;
        chain_step step;
        if (request.values || !request.values_input) {
            movement_transform t = resolve_movement(o, current, request);
            check_declared(o, declared, t.output_dims, "output");
            step = chain_step{std::move(t.output_dims), std::move(t.permutation)};
        } else {
            // The values arrive at execute. An output shape given now is
            // checked against them then; one left unknown is resolved then
            // (a dynamic chain: these ops keep the volume and the row-major
            // order, so the output's bytes are known all the same).
            if (has_unknown_dims(declared) || has_unknown_dims(current))
                chain.dynamic = true;
            else if (checked_volume(declared) != checked_volume(current))
                fail(rule::volume_mismatch,
                     describe_op(o) + ": output shape " + dims_to_string(declared) +
                         " does not have the volume of the input " +
                         dims_to_string(current),
                     o.ref());
            if (request.reshape && request.value_count && *request.value_count != declared.size())
                fail(rule::output_shape_match,
                     describe_op(o) + ": output shape " + dims_to_string(declared) +
                         " does not have the " + std::to_string(*request.value_count) +
                         " dims the shape input gives",
                     o.ref());
            step = chain_step{declared, {}};
            const tensor_id values_id = o.inputs[*request.values_input];
            const auto position = position_of_input(values_id);
            if (!position)
                fail(rule::reshape_chain,
                     describe_op(o) + ": its shape input is produced inside the partition",
                     o.ref());
            // A 1-D shape input of unknown length holds one value per output
            // dim: its buffer size is known from now on.
            logical_tensor &values_lt = chain.inputs[*position];
            if (request.reshape && values_lt.shape.size() == 1 && values_lt.shape[0] == unknown_dim)
                values_lt.shape[0] = static_cast<dim_t>(declared.size());
            resolved.back().runtime = chain.runtime_shapes.size();
            chain.runtime_shapes.push_back(runtime_shape_input{
                o, request, *position, chain.inputs[*position], current, declared});
        }
        current = step.output_dims;
        current_id = o.outputs[0];
        chain.shapes.push_back(current);
        chain.steps.push_back(std::move(step));
        for (std::size_t k = 0; k < p.outputs.size(); ++k)
            if (p.outputs[k] == current_id) {
                chain.outputs[k].shape = current;
                chain.output_step_counts[k] = chain.steps.size();
            }
    }
    for (std::size_t k = 0; k < p.outputs.size(); ++k)
        if (chain.output_step_counts[k] == 0)
            fail(rule::reshape_chain, "partition " + std::to_string(p.id) + ": output tensor " +
                                          std::to_string(p.outputs[k]) +
                                          " is not the result of an op of the chain");
    if (p.outputs.back() != current_id)
        fail(rule::reshape_chain, "partition " + std::to_string(p.id) +
                                      ": the chain ends at tensor " +
                                      std::to_string(current_id) +
                                      ", not at the partition's last output " +
                                      std::to_string(p.outputs.back()));
    if (chain.dynamic) {
        chain.ops.reserve(resolved.size());
        for (resolved_op &r : resolved) chain.ops.push_back(chain_op{*r.o, std::move(r.request), r.runtime});
        const bool permutes = std::any_of(chain.steps.begin(), chain.steps.end(),
                                          [](const chain_step &s) { return !s.permutation.empty(); });
        if (permutes || p.outputs.size() > 1)
            fail(rule::dynamic_chain,
                 "partition " + std::to_string(p.id) + ": its shapes arrive only at execute, and it " +
                     (permutes ? "permutes axes" : "has several outputs") +
                     "; such a chain is planned at compile only when every shape is known then");
    }
    for (logical_tensor &out : chain.outputs) {
        if (out.dtype == data_type::undef) out.dtype = data.dtype;
        if (out.dtype != data.dtype)
            fail(rule::type_constraint,
                 "partition " + std::to_string(p.id) + ": output tensor " +
                     std::to_string(out.id) + " is " + std::string(to_string(out.dtype)) +
                     " but its input is " + std::string(to_string(data.dtype)));
    }
    return chain;
}

namespace {

// The run-time shape values of `r` from its host buffer.
std::vector<std::int64_t> read_shape_values(const runtime_shape_input &r, const void *buffer);

} // namespace

dims_t resolve_at_execute(const std::vector<chain_op> &ops,
                          const std::vector<runtime_shape_input> &runtime_shapes,
                          std::span<const void *const> inputs, const dims_t &data_dims,
                          const dims_t &compiled_output) {
    dims_t current = data_dims;
    for (const chain_op &c : ops) {
        if (c.runtime) {
            const runtime_shape_input &r = runtime_shapes[*c.runtime];
            const std::vector<std::int64_t> target =
                read_shape_values(r, inputs[r.input_position]);
            current = resolve_movement(c.reshape, current, c.request, &target).output_dims;
        } else {
            current = resolve_movement(c.reshape, current, c.request).output_dims;
        }
    }
    if (!merge_known_dims(current, compiled_output))
        fail(rule::runtime_shape_match,
             describe_op(ops.back().reshape) + ": shape values at execute give output " +
                 dims_to_string(current) + ", but the partition was compiled for " +
                 dims_to_string(compiled_output),
             ops.back().reshape.ref());
    return current;
}

namespace {

std::vector<std::int64_t> read_shape_values(const runtime_shape_input &r, const void *buffer) {
    const logical_tensor &lt = r.shape_tensor;
    if (lt.shape.size() > 1 || !lt.shape_known())
        fail(rule::shape_input_rank,
             describe_op(r.reshape) + ": shape input " + std::to_string(lt.id) +
                 " must be 0-D or 1-D with a known length, got " + dims_to_string(lt.shape),
             r.reshape.ref());
    const dim_t count = lt.shape.empty() ? 1 : lt.shape[0];
    tensor_values values;
    values.type = lt.dtype;
    values.count = static_cast<std::size_t>(count);
    if (count > 0) {
        if (!buffer)
            fail(rule::execute_buffers,
                 describe_op(r.reshape) + ": no buffer for shape input " + std::to_string(lt.id),
                 r.reshape.ref());
        if (!is_integer(lt.dtype))
            fail(rule::type_constraint,
                 describe_op(r.reshape) + ": shape input " + std::to_string(lt.id) +
                     " must have an integer type, got " + std::string(to_string(lt.dtype)),
                 r.reshape.ref());
        const dim_t stride = lt.shape.empty() || lt.strides.empty() ? 1 : lt.strides[0];
        values.bytes.resize(dense_bytes(lt.dtype, values.count));
        strided_copy(lt.dtype, {count}, strided_tensor{const_cast<void *>(buffer), 0, {stride}},
                     strided_tensor{values.bytes.data(), 0, {1}});
    }
    return values_as_int64(values);
}

} // namespace

void check_runtime_shape(const runtime_shape_input &r, const void *buffer) {
    const std::vector<std::int64_t> target = read_shape_values(r, buffer);
    const dims_t resolved = resolve_movement(r.reshape, r.data_dims, r.request, &target).output_dims;
    if (resolved != r.compiled_dims)
        fail(rule::runtime_shape_match,
             describe_op(r.reshape) + ": shape values " + dims_to_string(target) +
                 " at execute give output " + dims_to_string(resolved) +
                 ", but the partition was compiled for " + dims_to_string(r.compiled_dims),
             r.reshape.ref());
}

} // namespace reshaper::impl
