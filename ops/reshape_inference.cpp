#include "ops/reshape_inference.hpp"

#include "ops/reshape_request.hpp"
#include "core/fail.hpp"

namespace reshaper::impl {
namespace {

// The inferred dims merged with the dims the graph gives for the output: a
// dim known on both sides must agree; a dim known on one side is taken.
dims_t merge_with_given(const op &o, const op_schema &schema, const dims_t &inferred,
                        const dims_t &given) {
    if (auto merged = merge_known_dims(inferred, given)) return std::move(*merged);
    fail(rule::output_shape_match,
         op_label(o, &schema) + ": output 0 is given as " + dims_to_string(given) +
             " but the reshape gives " + dims_to_string(inferred),
         o.ref());
}

} // namespace

void infer_reshape_shapes(const op_schema &schema, const op &o, graph &g) {
    const reshape_request request = read_reshape_request(schema, o, g);
    const logical_tensor &data = g.tensor(o.inputs.at(0));

    logical_tensor &out = g.tensor(o.outputs.at(0));
    std::optional<dims_t> inferred;
    if (request.target) {
        inferred = resolve_for_op(o, data.shape, request);
    } else if (request.target_rank) {
        // Values arrive at execute; the shape input's length is the output
        // rank. It may be any size (2^40), so compare it with the given rank
        // before building that many unknown dims.
        if (*request.target_rank != out.shape.size())
            fail(rule::output_shape_match,
                 op_label(o, &schema) + ": output 0 is given as " +
                     dims_to_string(out.shape) + " of rank " +
                     std::to_string(out.shape.size()) +
                     (request.target_is_0d
                          ? std::string(", but a 0-D shape input makes it a scalar")
                          : ", but the shape input holds " +
                                std::to_string(*request.target_rank) + " values"),
                 o.ref());
        if (request.target_is_0d) {
            // A 0-D shape input may only hold 1, a scalar: whatever arrives,
            // the target is [] and the volumes can be checked now. (The
            // request itself keeps no target, so execute still checks the 1.)
            reshape_request scalar = request;
            scalar.target.emplace();
            inferred = resolve_for_op(o, data.shape, scalar);
        } else {
            inferred = dims_t(*request.target_rank, unknown_dim);
        }
    }

    if (out.dtype == data_type::undef) out.dtype = data.dtype;
    // Without a target rank nothing is known about the output shape.
    if (inferred) out.shape = merge_with_given(o, schema, *inferred, out.shape);
    // A target known only at execute still cannot change the volume: an
    // output given in full must hold the data's elements (found by fuzzing:
    // [6] -> a given [] passed).
    check_output_volume(schema, o, data.shape, out.shape);
}

void check_output_volume(const op_schema &schema, const op &o, const dims_t &input,
                         const dims_t &output) {
    if (has_unknown_dims(input) || has_unknown_dims(output)) return;
    const auto in_volume = checked_volume(input), out_volume = checked_volume(output);
    const auto count = [](const std::optional<dim_t> &v) {
        return v ? std::to_string(*v) : std::string("more than int64 holds");
    };
    if (in_volume != out_volume)
        fail(rule::volume_mismatch,
             op_label(o, &schema) + ": output 0 is given as " + dims_to_string(output) + " of " +
                 count(out_volume) + " elements, but the input " + dims_to_string(input) +
                 " has " + count(in_volume),
             o.ref());
}

} // namespace reshaper::impl
