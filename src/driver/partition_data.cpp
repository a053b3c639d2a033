#include "driver/partition_data.hpp"

#include <optional>

#include "core/element_codec.hpp"
#include "ops/registry.hpp"
#include "ops/reshape_request.hpp"

namespace reshaper::driver {
namespace {

using impl::logical_tensor;
using impl::tensor_id;

constexpr std::uint64_t data_seed = 20261122;

// A shape input with no values gets the shape the graph says the op makes,
// so that generated data agrees with the compiled output; a 0-D one gets the
// only value it may hold, 1 (a scalar output).
std::optional<impl::tensor_values> implied_shape_values(const impl::graph &g,
                                                        const impl::partition &part, tensor_id id) {
    for (std::size_t index : part.op_indices) {
        const impl::op &o = g.ops[index];
        const impl::op_schema *schema = impl::op_registry::instance().resolve(o);
        if (!schema || !schema->reshape) continue;
        const auto request = impl::read_reshape_request(*schema, o, g);
        if (!request.shape_input || o.inputs[*request.shape_input] != id) continue;
        const logical_tensor &shape_lt = g.tensor(id);
        const logical_tensor &out = g.tensor(o.outputs[0]);
        if (!out.shape_known()) return std::nullopt;
        const impl::dims_t target = request.target_is_0d ? impl::dims_t{1} : out.shape;
        impl::tensor_values v;
        v.type = shape_lt.dtype;
        v.count = target.size();
        v.bytes.assign(impl::dense_bytes(v.type, v.count), 0);
        for (std::size_t i = 0; i < v.count; ++i) // narrowed to the type's width
            impl::store_bits(v.type, v.bytes.data(), i, static_cast<std::uint64_t>(target[i]));
        return v;
    }
    return std::nullopt;
}

} // namespace

std::vector<host_tensor> make_inputs(const impl::graph &g, const impl::partition &part,
                                     const std::vector<logical_tensor> &descs) {
    std::vector<host_tensor> inputs;
    for (const logical_tensor &desc : descs) {
        host_tensor t(desc);
        const logical_tensor &given = g.tensor(desc.id);
        if (given.values) t.fill_from(*given.values);
        else if (auto implied = implied_shape_values(g, part, desc.id)) t.fill_from(*implied);
        else t.fill_random(data_seed + static_cast<std::uint64_t>(desc.id));
        inputs.push_back(std::move(t));
    }
    return inputs;
}

std::vector<host_tensor> make_outputs(const impl::compiled_partition &cp) {
    std::vector<host_tensor> outputs;
    for (const logical_tensor &d : cp.outputs()) outputs.emplace_back(d);
    return outputs;
}

std::vector<const void *> input_pointers(const std::vector<host_tensor> &ts) {
    std::vector<const void *> p;
    for (const auto &t : ts) p.push_back(t.data());
    return p;
}

std::vector<void *> output_pointers(std::vector<host_tensor> &ts) {
    std::vector<void *> p;
    for (auto &t : ts) p.push_back(t.data());
    return p;
}

std::vector<void *> in_place_outputs(const impl::compiled_partition &cp, std::vector<host_tensor> &inputs) {
    std::vector<void *> shared;
    for (const auto &pair : cp.inplace_pairs())
        for (std::size_t i = 0; i < cp.inputs().size(); ++i)
            if (cp.inputs()[i].id == pair.first) shared.push_back(inputs[i].data());
    return shared;
}

std::size_t data_position(const impl::graph &g, const impl::partition &part) {
    return impl::data_input_position(g, part).value();
}

} // namespace reshaper::driver
