#include "ops/movement_inference.hpp"

#include "ops/movement_request.hpp"
#include "ops/reshape_inference.hpp"
#include "core/fail.hpp"

namespace reshaper::impl {
namespace {

const char *what_it_is(movement_kind kind) {
    switch (kind) {
    case movement_kind::permute_axes: return "transpose";
    case movement_kind::remove_axes: return "squeeze";
    case movement_kind::insert_axes: return "unsqueeze";
    case movement_kind::flatten: return "flatten";
    }
    return "op";
}

[[noreturn]] void output_disagrees(const op &o, const op_schema &schema, const dims_t &given,
                                   const std::string &inferred) {
    fail(rule::output_shape_match,
         op_label(o, &schema) + ": output 0 is given as " + dims_to_string(given) +
             " but the " + what_it_is(schema.movement->kind) + " gives " + inferred,
         o.ref());
}

// The output rank when the axes arrive only at execute but their count is
// known (Squeeze/Unsqueeze-13+ with a non-constant axes input).
std::optional<std::size_t> rank_from_count(const op &o, const op_schema &schema,
                                           const movement_request &request, std::size_t rank) {
    if (!request.value_count) return std::nullopt;
    const std::size_t count = *request.value_count;
    if (schema.movement->kind == movement_kind::insert_axes) return rank + count;
    // Distinct axes of a rank-r input: more than r must repeat one.
    if (count > rank)
        fail(rule::axis_duplicate,
             op_label(o, &schema) + ": input " +
                 std::to_string(request.values_input.value_or(1)) + " holds " +
                 std::to_string(count) + " axes, but the data input has only " +
                 std::to_string(rank) + ", so one would be removed twice",
             o.ref());
    return rank - count;
}

} // namespace

void infer_movement_shapes(const op_schema &schema, const op &o, graph &g) {
    const movement_request request = read_movement_request(schema, o, g);
    const logical_tensor &data = g.tensor(o.inputs.at(0));
    logical_tensor &out = g.tensor(o.outputs.at(0));

    if (out.dtype == data_type::undef) out.dtype = data.dtype;
    if (request.values) {
        // Nothing: not even the rank is known (a Squeeze of every size-1 dim
        // of an input with unknown dims); the output stays as given.
        if (const auto transform = resolve_partial_movement(o, data.shape, request)) {
            auto merged = merge_known_dims(transform->output_dims, out.shape);
            if (!merged) output_disagrees(o, schema, out.shape, dims_to_string(transform->output_dims));
            out.shape = std::move(*merged);
        }
    } else if (const auto rank = rank_from_count(o, schema, request, data.shape.size())) {
        // Compared before building that many unknown dims: a count may be huge.
        if (*rank != out.shape.size())
            output_disagrees(o, schema, out.shape, "rank " + std::to_string(*rank));
    }
    check_output_volume(schema, o, data.shape, out.shape);
}

} // namespace reshaper::impl
