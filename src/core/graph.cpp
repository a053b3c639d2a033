#include "core/graph.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/fail.hpp"

namespace reshaper::impl {
namespace {

error missing_tensor(tensor_id id) {
    return error(rule::tensor_exists, "tensor " + std::to_string(id) + " is not in the graph");
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
            const std::size_t p = t.producer(in);
            if (p != graph_topology::none && !ordered[p]) {
                current = p;
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

std::size_t graph_topology::slot(tensor_id t) const {
    if (direct_) {
        if (t < first_id_ || static_cast<std::uint64_t>(t - first_id_) >= slot_count_) return none;
        return static_cast<std::size_t>(t - first_id_);
    }
    const auto it = std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), t);
    return it != sorted_ids_.end() && *it == t ? static_cast<std::size_t>(it - sorted_ids_.begin()) : none;
}

std::size_t graph_topology::producer(tensor_id t) const {
    const std::size_t s = slot(t);
    return s == none ? none : producer_[s];
}

std::span<const std::size_t> graph_topology::consumers(tensor_id t) const {
    const std::size_t s = slot(t);
    if (s == none) return {};
    return {consumer_ops_.data() + consumer_begin_[s], consumer_begin_[s + 1] - consumer_begin_[s]};
}

graph_topology graph_topology::build(const graph &g) {
    graph_topology t;
    const std::size_t op_count = g.ops.size();
    // The ports, copied op by op into one list (sized first: no regrowth).
    std::size_t port_count = 0;
    for (const op &o : g.ops) port_count += o.inputs.size() + o.outputs.size();
    t.ports_.reserve(port_count);
    t.port_begin_.reserve(2 * op_count + 1);
    for (const op &o : g.ops) {
        t.port_begin_.push_back(t.ports_.size());
        t.ports_.insert(t.ports_.end(), o.inputs.begin(), o.inputs.end());
        t.port_begin_.push_back(t.ports_.size());
        t.ports_.insert(t.ports_.end(), o.outputs.begin(), o.outputs.end());
    }
    t.port_begin_.push_back(t.ports_.size());

    // Slots: when the ids span at most about four times the ports (as
    // graph files number them), a slot per id of the span, found by
    // subtraction, with no sorting; else every id the ops name, sorted (no
    // overflow: the span is computed only when it fits). A slot no op names
    // has no producer and no consumer.
    if (!t.ports_.empty()) {
        const auto [lowest, highest] = std::minmax_element(t.ports_.begin(), t.ports_.end());
        tensor_id span = 0;
        const bool fits = !__builtin_sub_overflow(*highest, *lowest, &span);
        if (fits && static_cast<std::uint64_t>(span) < 4 * static_cast<std::uint64_t>(t.ports_.size()) + 64) {
            t.direct_ = true;
            t.first_id_ = *lowest;
            t.slot_count_ = static_cast<std::size_t>(span) + 1;
        } else {
            std::vector<tensor_id> ids = t.ports_;
            std::sort(ids.begin(), ids.end());
            ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
            t.slot_count_ = ids.size();
            t.sorted_ids_ = std::move(ids);
        }
    }
    const std::size_t slots = t.slot_count_;
    t.port_slots_.resize(t.ports_.size());
    for (std::size_t k = 0; k < t.ports_.size(); ++k) t.port_slots_[k] = t.slot(t.ports_[k]);
    const auto input_slots = [&](std::size_t i) {
        return std::span<const std::size_t>(t.port_slots_.data() + t.port_begin_[2 * i],
                                            t.port_begin_[2 * i + 1] - t.port_begin_[2 * i]);
    };
    const auto output_slots = [&](std::size_t i) {
        return std::span<const std::size_t>(t.port_slots_.data() + t.port_begin_[2 * i + 1],
                                            t.port_begin_[2 * i + 2] - t.port_begin_[2 * i + 1]);
    };

    t.producer_.assign(slots, none);
    t.consumer_begin_.assign(slots + 1, 0);
    for (std::size_t i = 0; i < op_count; ++i) {
        const auto outs = output_slots(i);
        for (std::size_t k = 0; k < outs.size(); ++k) {
            std::size_t &p = t.producer_[outs[k]];
            if (p != none)
                fail(rule::single_producer,
                     "tensor " + std::to_string(g.ops[i].outputs[k]) + " is produced by " +
                         describe(g.ops[p]) + " and " + describe(g.ops[i]),
                     g.ops[i].ref());
            p = i;
        }
        for (std::size_t in : input_slots(i)) ++t.consumer_begin_[in + 1];
    }
    for (std::size_t s = 0; s < slots; ++s) t.consumer_begin_[s + 1] += t.consumer_begin_[s];
    t.consumer_ops_.resize(t.consumer_begin_[slots]);
    {
        std::vector<std::size_t> filled(t.consumer_begin_.begin(), t.consumer_begin_.end() - 1);
        for (std::size_t i = 0; i < op_count; ++i) // op order within each tensor
            for (std::size_t in : input_slots(i)) t.consumer_ops_[filled[in]++] = i;
    }

    // Kahn's algorithm; an op waits once per input an op produces. The order
    // itself is the queue: ops are appended when ready, taken from `next`.
    std::vector<std::size_t> waiting(op_count, 0);
    for (std::size_t i = 0; i < op_count; ++i)
        for (std::size_t in : input_slots(i))
            if (t.producer_[in] != none) ++waiting[i];
    t.topological_order.reserve(op_count);
    for (std::size_t i = 0; i < op_count; ++i)
        if (waiting[i] == 0) t.topological_order.push_back(i);
    for (std::size_t next = 0; next < t.topological_order.size(); ++next) {
        const std::size_t i = t.topological_order[next];
        for (std::size_t out : output_slots(i))
            for (std::size_t c = t.consumer_begin_[out]; c < t.consumer_begin_[out + 1]; ++c)
                if (--waiting[t.consumer_ops_[c]] == 0) t.topological_order.push_back(t.consumer_ops_[c]);
    }
    if (t.topological_order.size() != op_count) {
        std::vector<bool> ordered(op_count, false);
        for (std::size_t i : t.topological_order) ordered[i] = true;
        const op &culprit = g.ops[op_on_cycle(g, t, ordered)];
        fail(rule::acyclic,
             "the graph has a cycle through " + describe(culprit),
             culprit.ref());
    }
    return t;
}

std::span<const tensor_id> graph_topology::inputs(std::size_t op_index) const {
    return {ports_.data() + port_begin_[2 * op_index], port_begin_[2 * op_index + 1] - port_begin_[2 * op_index]};
}

std::span<const tensor_id> graph_topology::outputs(std::size_t op_index) const {
    return {ports_.data() + port_begin_[2 * op_index + 1],
            port_begin_[2 * op_index + 2] - port_begin_[2 * op_index + 1]};
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

std::optional<tensor_id> tensor_of_unknown_rank(const graph &g, const op &o) {
    for (const tensor_ids *ids : {&o.inputs, &o.outputs})
        for (tensor_id id : *ids) {
            const auto it = g.tensors.find(id);
            if (it != g.tensors.end() && !it->second.rank_known) return id;
        }
    return std::nullopt;
}

} // namespace reshaper::impl
