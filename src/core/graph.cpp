#include "core/graph.hpp"

#include <deque>
#include <unordered_set>

namespace reshaper::impl {
namespace {

error missing_tensor(tensor_id id) {
    return error(status::invalid_graph,
                 "tensor " + std::to_string(id) + " is not in the graph [tensor_exists]");
}

// Some op on a cycle, given the ops Kahn's algorithm could not order: every
// one of them has an unordered producer, so walking producers backwards must
// come back to an op already seen, and that op lies on a cycle.
std::size_t op_on_cycle(const graph &g, const graph_topology &t, const std::vector<bool> &ordered) {
    std::size_t current = 0;
    while (ordered[current]) ++current;
    std::vector<bool> seen(g.ops.size(), false);
    while (!seen[current]) {
        seen[current] = true;
        for (tensor_id in : g.ops[current].inputs) {
            auto p = t.producer.find(in);
            if (p != t.producer.end() && !ordered[p->second]) {
                current = p->second;
                break;
            }
        }
    }
    return current;
}

} // namespace

const logical_tensor &graph::tensor(tensor_id id) const {
    auto it = tensors.find(id);
    if (it == tensors.end()) throw missing_tensor(id);
    return it->second;
}

logical_tensor &graph::tensor(tensor_id id) {
    auto it = tensors.find(id);
    if (it == tensors.end()) throw missing_tensor(id);
    return it->second;
}

graph_topology graph_topology::build(const graph &g) {
    graph_topology t;
    t.producer.reserve(g.ops.size());
    t.consumers.reserve(g.ops.size());
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        for (tensor_id out : g.ops[i].outputs) {
            auto [it, inserted] = t.producer.emplace(out, i);
            if (!inserted)
                throw error(status::invalid_graph,
                            "tensor " + std::to_string(out) + " is produced by " +
                                describe(g.ops[it->second]) + " and " + describe(g.ops[i]) +
                                " [single_producer]",
                            g.ops[i].ref());
        }
        for (tensor_id in : g.ops[i].inputs) t.consumers[in].push_back(i);
    }

    // Kahn's algorithm; an op waits once per input an op produces.
    std::vector<std::size_t> waiting(g.ops.size(), 0);
    for (std::size_t i = 0; i < g.ops.size(); ++i)
        for (tensor_id in : g.ops[i].inputs)
            if (t.producer.count(in)) ++waiting[i];
    std::deque<std::size_t> ready;
    for (std::size_t i = 0; i < g.ops.size(); ++i)
        if (waiting[i] == 0) ready.push_back(i);
    std::vector<bool> ordered(g.ops.size(), false);
    t.topological_order.reserve(g.ops.size());
    while (!ready.empty()) {
        const std::size_t i = ready.front();
        ready.pop_front();
        ordered[i] = true;
        t.topological_order.push_back(i);
        for (tensor_id out : g.ops[i].outputs) {
            auto c = t.consumers.find(out);
            if (c == t.consumers.end()) continue;
            for (std::size_t consumer : c->second)
                if (--waiting[consumer] == 0) ready.push_back(consumer);
        }
    }
    if (t.topological_order.size() != g.ops.size()) {
        const op &culprit = g.ops[op_on_cycle(g, t, ordered)];
        throw error(status::invalid_graph,
                    "the graph has a cycle through " + describe(culprit) + " [acyclic]",
                    culprit.ref());
    }
    return t;
}

std::vector<tensor_id> graph_inputs(const graph &g) {
    if (g.input_ports) return *g.input_ports;
    std::unordered_set<tensor_id> produced, listed;
    for (const op &o : g.ops) produced.insert(o.outputs.begin(), o.outputs.end());
    std::vector<tensor_id> inputs;
    for (const op &o : g.ops)
        for (tensor_id in : o.inputs)
            if (!produced.count(in) && listed.insert(in).second) inputs.push_back(in);
    return inputs;
}

std::vector<tensor_id> graph_outputs(const graph &g) {
    if (g.output_ports) return *g.output_ports;
    std::unordered_set<tensor_id> consumed, listed;
    for (const op &o : g.ops) consumed.insert(o.inputs.begin(), o.inputs.end());
    std::vector<tensor_id> outputs;
    for (const op &o : g.ops)
        for (tensor_id out : o.outputs)
            if (!consumed.count(out) && listed.insert(out).second) outputs.push_back(out);
    return outputs;
}

} // namespace reshaper::impl
