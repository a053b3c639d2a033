#include "ops/graph_inference.hpp"

#include <algorithm>
#include <unordered_map>

#include "ops/registry.hpp"
#include "core/fail.hpp"

namespace reshaper::impl {
namespace {

void check_op_ids_unique(const graph &g) {
    std::unordered_map<std::int64_t, std::size_t> seen;
    seen.reserve(g.ops.size());
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        auto [it, inserted] = seen.emplace(g.ops[i].id, i);
        if (!inserted)
            fail(rule::unique_op_id,
                 "op id " + std::to_string(g.ops[i].id) + " is used by both " +
                     describe(g.ops[it->second]) + " and " + describe(g.ops[i]),
                 g.ops[i].ref());
    }
}

void check_op_tensors_exist(const graph &g) {
    for (const op &o : g.ops) {
        auto check = [&](const tensor_ids &ids, const char *direction) {
            for (std::size_t i = 0; i < ids.size(); ++i)
                if (!g.tensors.count(ids[i]))
                    fail(rule::tensor_exists,
                         describe(o) + ": " + direction + " " + std::to_string(i) +
                             " refers to tensor " + std::to_string(ids[i]) +
                             ", which is not in the graph",
                         o.ref());
        };
        check(o.inputs, "input");
        check(o.outputs, "output");
    }
}

void check_ports(const graph &g) {
    auto check = [&](const std::optional<std::vector<tensor_id>> &ports, const char *name) {
        if (!ports) return;
        for (tensor_id id : *ports)
            if (!g.tensors.count(id))
                fail(rule::port_tensor_exists,
                     std::string(name) + " lists tensor " + std::to_string(id) +
                         ", which is not in the graph");
    };
    check(g.input_ports, "input_ports");
    check(g.output_ports, "output_ports");
}

// Everything that does not need the schemas; returns the topology it built.
graph_topology check_structure(const graph &g) {
    check_op_ids_unique(g);
    check_op_tensors_exist(g);
    check_ports(g);
    return graph_topology::build(g);
}

// Inputs are inferred by the time their consumer is: an undef dtype left on
// one is never known (a graph input, or an op we do not own gave none), and
// nothing can move data of an unknown type.
void check_input_dtypes_known(const op &o, const op_schema &schema, const graph &g) {
    for (std::size_t i = 0; i < o.inputs.size(); ++i)
        if (g.tensor(o.inputs[i]).dtype == data_type::undef)
            fail(rule::input_dtype_known,
                 op_label(o, &schema) + ": input " + std::to_string(i) +
                     (i < schema.inputs.size() ? " '" + schema.inputs[i].name + "'" : "") +
                     " has dtype undef, and no op in the graph gives tensor " +
                     std::to_string(o.inputs[i]) + " one",
                 o.ref());
}

// The op's schema after verifying the op against it; nullptr for kinds this
// backend leaves alone.
const op_schema *verified_schema(const op &o, const graph &g) {
    const op_schema *schema = op_registry::instance().resolve(o);
    if (schema) verify_op(*schema, o, g);
    return schema;
}

bool size_fits(const logical_tensor &lt) {
    if (!lt.shape_known()) return true;
    const auto volume = checked_volume(lt.shape);
    return volume && checked_mul(*volume, static_cast<dim_t>(std::max<std::size_t>(element_bits(lt.dtype), 1)));
}

// Inference keeps graphs representable: from inputs a graph file can hold
// (the reader's volume_fits rule), no output it cannot. Else a finalized
// graph would not read back from its own JSON and no buffer size could be
// stated: a huge dim in a reshape's target over an input of unknown dims got
// this far. (Inputs that are too big already come only from graphs built in
// memory; the rules' arithmetic is tested on those.)
void check_output_sizes_fit(const op &o, const op_schema &schema, const graph &g) {
    for (tensor_id in : o.inputs)
        if (!size_fits(g.tensor(in))) return;
    for (std::size_t i = 0; i < o.outputs.size(); ++i) {
        const logical_tensor &lt = g.tensor(o.outputs[i]);
        if (size_fits(lt)) continue;
        fail(rule::volume_fits,
             op_label(o, &schema) + ": output " + std::to_string(i) + " (tensor " +
                 std::to_string(lt.id) + ") gets shape " + dims_to_string(lt.shape) + " of " +
                 std::string(to_string(lt.dtype)) + ", whose size in bits overflows int64",
             o.ref());
    }
}

} // namespace

void validate_graph(const graph &g) {
    check_structure(g);
    for (const op &o : g.ops)
        if (!tensor_of_unknown_rank(g, o)) verified_schema(o, g);
}

graph_topology infer_graph_shapes(graph &g) {
    graph_topology topology = check_structure(g);
    // Each op is verified once its inputs are inferred, so a dtype that only
    // inference reveals is checked too.
    for (std::size_t index : topology.topological_order) {
        const op &o = g.ops[index];
        // An op over a tensor of unknown rank is left as it is: the
        // partitioner leaves it unclaimed and says why.
        if (tensor_of_unknown_rank(g, o)) continue;
        const op_schema *schema = verified_schema(o, g);
        if (schema) check_input_dtypes_known(o, *schema, g);
        if (schema && schema->infer_shapes) {
            schema->infer_shapes(*schema, o, g);
            check_output_sizes_fit(o, *schema, g);
        }
    }
    return topology;
}

} // namespace reshaper::impl
