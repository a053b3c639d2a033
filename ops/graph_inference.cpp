#include "ops/graph_inference.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <unordered_map>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "ops/registry.hpp"
#include "core/fail.hpp"

namespace reshaper::impl {
namespace {

// Graphs of this many ops and more are validated and inferred on the
// threads oneTBB may use (check_structure, infer_side_by_side), when it
// may use more than one; below, handing work over costs more than it saves.
constexpr std::size_t side_by_side_ops = 4096;

bool side_by_side(const graph &g) {
    return g.ops.size() >= side_by_side_ops &&
           tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) > 1;
}

void check_op_ids_unique(const graph &g) {
    // Files number their ops in increasing order: then no id repeats, and
    // no table of them is needed (a hash node per op, 100,000 of them).
    if (std::adjacent_find(g.ops.begin(), g.ops.end(), [](const op &a, const op &b) { return a.id >= b.id; }) ==
        g.ops.end())
        return;
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
// The checks only read the graph, and building the topology needs none of
// them (it reads the ops' ids of tensors, not the tensors): on a large
// graph, where oneTBB may use more than one thread, the topology is built
// beside the checks, and the error of the first check that fails (in the
// order above) comes out first, as when they run in turn.
graph_topology check_structure(const graph &g) {
    const auto checks = [&g] {
        check_op_ids_unique(g);
        check_op_tensors_exist(g);
        check_ports(g);
    };
    if (!side_by_side(g)) {
        checks();
        return graph_topology::build(g);
    }
    std::exception_ptr checks_failed, build_failed;
    std::optional<graph_topology> topology;
    tbb::parallel_invoke(
        [&] {
            try {
                checks();
            } catch (...) {
                checks_failed = std::current_exception();
            }
        },
        [&] {
            try {
                topology.emplace(graph_topology::build(g));
            } catch (...) {
                build_failed = std::current_exception();
            }
        });
    if (checks_failed) std::rethrow_exception(checks_failed);
    if (build_failed) std::rethrow_exception(build_failed);
    return std::move(*topology);
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

namespace {

// Verifies and infers one op (its inputs inferred already).
void infer_op(const op &o, graph &g) {
    // An op over a tensor of unknown rank is left as it is: the
    // partitioner leaves it unclaimed and says why.
    if (tensor_of_unknown_rank(g, o)) return;
    const op_schema *schema = verified_schema(o, g);
    if (schema) check_input_dtypes_known(o, *schema, g);
    if (schema && schema->infer_shapes) {
        schema->infer_shapes(*schema, o, g);
        check_output_sizes_fit(o, *schema, g);
    }
}

// The topological order a stretch at a time, each stretch's ops level by
// level (an op's level within its stretch: one past its producers' in the
// stretch), the ops of a level side by side on oneTBB's threads. An op
// writes only its outputs, and reads only its inputs, which the ops of
// earlier stretches and levels have written: so every op before the
// first that fails (in the order) is inferred as in turn, and that op
// fails as in turn. What the ops after it in its stretch wrote is put
// back (each op's outputs are kept before it runs) and its error
// thrown: the graph is left as inferring in turn leaves it. Inference
// was a serial seventh of checking 100,000 single transposes on two
// threads (docs/performance.md, scale5).
void infer_side_by_side(graph &g, const graph_topology &topology, std::size_t stretch) {
    const std::vector<std::size_t> &order = topology.topological_order;
    std::vector<std::size_t> position(g.ops.size(), 0);
    for (std::size_t p = 0; p < order.size(); ++p) position[order[p]] = p;
    std::vector<std::size_t> level(stretch);
    std::vector<std::vector<std::size_t>> levels;
    std::vector<std::vector<logical_tensor>> kept(stretch);
    std::vector<std::exception_ptr> failures(stretch);
    for (std::size_t from = 0; from < order.size(); from += stretch) {
        const std::size_t to = std::min(order.size(), from + stretch);
        for (auto &l : levels) l.clear();
        for (std::size_t p = from; p < to; ++p) {
            std::size_t l = 0;
            for (tensor_id in : g.ops[order[p]].inputs)
                if (const std::size_t producer = topology.producer(in); producer != graph_topology::none)
                    if (const std::size_t q = position[producer]; q >= from && q < p)
                        l = std::max(l, level[q - from] + 1);
            level[p - from] = l;
            if (l >= levels.size()) levels.resize(l + 1);
            levels[l].push_back(p);
        }
        for (const std::vector<std::size_t> &members : levels)
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, members.size(), 16),
                              [&](const tbb::blocked_range<std::size_t> &r) {
                                  for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                      const std::size_t p = members[k];
                                      const op &o = g.ops[order[p]];
                                      std::vector<logical_tensor> &before = kept[p - from];
                                      before.clear();
                                      try {
                                          for (tensor_id out : o.outputs)
                                              if (const auto it = g.tensors.find(out); it != g.tensors.end())
                                                  before.push_back(it->second);
                                          infer_op(o, g);
                                      } catch (...) {
                                          failures[p - from] = std::current_exception();
                                      }
                                  }
                              });
        std::size_t first = to;
        for (std::size_t p = from; p < to && first == to; ++p)
            if (failures[p - from]) first = p;
        if (first == to) continue;
        // The ops after it, in the order: their outputs as they were.
        for (std::size_t p = to; p-- > first + 1;)
            for (logical_tensor &lt : kept[p - from])
                if (const auto it = g.tensors.find(lt.id); it != g.tensors.end()) it->second = std::move(lt);
        std::rethrow_exception(failures[first - from]);
    }
}

} // namespace

namespace detail {
void infer_in_stretches(graph &g, const graph_topology &topology, std::size_t stretch) {
    infer_side_by_side(g, topology, std::max<std::size_t>(1, stretch));
}
} // namespace detail

graph_topology infer_graph_shapes(graph &g) {
    graph_topology topology = check_structure(g);
    // Each op is verified once its inputs are inferred, so a dtype that only
    // inference reveals is checked too.
    if (side_by_side(g)) {
        infer_side_by_side(g, topology, side_by_side_ops);
        return topology;
    }
    for (std::size_t index : topology.topological_order) infer_op(g.ops[index], g);
    return topology;
}

} // namespace reshaper::impl
