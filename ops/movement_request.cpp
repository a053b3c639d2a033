#include "ops/movement_request.hpp"

#include "ops/registry.hpp"

namespace reshaper::impl {

bool is_movement_schema(const op_schema &schema) { return schema.reshape.has_value(); }

movement_request read_movement_request(const op_schema &schema, const op &o, const graph &g) {
    movement_request r;
    if (schema.reshape) {
        r.reshape = read_reshape_request(schema, o, g);
        r.values_input = r.reshape->shape_input;
        r.values = r.reshape->target;
        r.value_count = r.reshape->target_rank;
        return r;
    }
    throw error(status::unimplemented,
                op_label(o, &schema) + ": not an op of the data-movement family [partition_supported]",
                o.ref());
}

movement_transform resolve_movement(const op &o, const dims_t &data_dims,
                                    const movement_request &request,
                                    const std::vector<std::int64_t> *runtime_values) {
    if (request.reshape)
        return movement_transform{resolve_for_op(o, data_dims, *request.reshape, runtime_values), {}};
    throw error(status::unimplemented,
                op_label(o, op_registry::instance().resolve(o)) +
                    ": not an op of the data-movement family [partition_supported]",
                o.ref());
}

} // namespace reshaper::impl
