#include "partition/partitioner.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "core/verbose_log.hpp"
#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

// Why this backend leaves `o` to others, or "" when it claims it.
std::string unsupported_reason(const graph &g, const op &o, const backend_support &backend) {
    const op_registry &registry = op_registry::instance();
    if (!registry.handles_kind(o.domain, o.kind)) {
        const std::string where = o.domain.empty() ? "" : " (domain " + o.domain + ")";
        return "op kind " + o.kind + where + " is not handled by this backend";
    }
    if (const auto t = tensor_of_unknown_rank(g, o))
        return "tensor " + std::to_string(*t) + " has an unknown rank (shape inference could not tell it)";
    return backend.refusal(g, o);
}

// `body(i)` for each i below `n`: side by side for graphs of this many ops
// and more when oneTBB may use more than one thread (as inference runs
// them, ops/graph_inference.cpp). Each op's verdict and each partition's
// boundary is its own: partitioning 100,000 single transposes was 22-30 ms
// on one thread while the other waited (perf, two threads).
constexpr std::size_t side_by_side_ops = 4096;

template <typename Body>
void for_each_index(std::size_t n, std::size_t ops, const Body &body) {
    if (ops < side_by_side_ops ||
        tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) < 2) {
        for (std::size_t i = 0; i < n; ++i) body(i);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256), [&](const tbb::blocked_range<std::size_t> &r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) body(i);
    });
}

} // namespace

std::vector<partition> get_partitions(const graph &g, partition_policy policy, const backend_support &backend) {
    return get_partitions(g, graph_topology::build(g), policy, backend);
}

std::vector<partition> get_partitions(const graph &g, const graph_topology &topo, partition_policy policy,
                                      const backend_support &backend) {
    // Graph outputs are the ports when given, else the tensors no op reads
    // (which the boundary rule below treats as used outside anyway).
    std::vector<tensor_id> output_ports = g.output_ports.value_or(std::vector<tensor_id>{});
    std::sort(output_ports.begin(), output_ports.end());

    std::vector<partition> parts;
    std::vector<std::size_t> part_of_op(g.ops.size());
    std::vector<std::size_t> tail_position; // topological index of each part's last op
    // At most one partition per op: no regrowth (moves and large frees that
    // made the allocator consolidate at 100,000 ops).
    parts.reserve(g.ops.size());
    tail_position.reserve(g.ops.size());

    // Each op's verdict first (backend_support::refusal may be asked from
    // several threads at once), then the chains in topological order.
    std::vector<std::string> reasons(topo.topological_order.size());
    for_each_index(reasons.size(), g.ops.size(), [&](std::size_t pos) {
        reasons[pos] = unsupported_reason(g, g.ops[topo.topological_order[pos]], backend);
    });
    for (std::size_t pos = 0; pos < topo.topological_order.size(); ++pos) {
        const std::size_t index = topo.topological_order[pos];
        std::string &reason = reasons[pos];
        const bool supported = reason.empty();

        // Fuse into the producer's partition when this op continues a chain:
        // its data input comes from a claimed op whose output feeds only this
        // op (it may also be a graph output: the partition then produces it
        // too, from the same data input).
        std::optional<std::size_t> chain;
        const auto inputs = topo.inputs(index);
        if (policy == partition_policy::fusion && supported && !inputs.empty()) {
            const tensor_id data = inputs[0];
            const std::size_t producer = topo.producer(data);
            if (producer != graph_topology::none && topo.consumers(data).size() == 1) {
                const std::size_t p = part_of_op[producer];
                if (parts[p].supported && parts[p].op_indices.back() == producer) chain = p;
            }
        }
        if (chain) {
            parts[*chain].op_indices.push_back(index);
            tail_position[*chain] = pos;
            part_of_op[index] = *chain;
            continue;
        }
        partition p;
        p.supported = supported;
        p.reason = std::move(reason);
        p.op_indices.push_back(index);
        part_of_op[index] = parts.size();
        parts.push_back(std::move(p));
        tail_position.push_back(pos);
    }

    // Order by the position of each partition's last op: every input of a
    // partition is produced before its last op, every consumer comes after.
    std::vector<std::size_t> order(parts.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    // Each part's last op is its own, so the positions differ and the order
    // is unique. Files list ops in order, so mostly it is the parts' own
    // already: then it is only confirmed (sorting it anyway was a tenth of
    // partitioning 100,000 single transposes, perf).
    if (!std::is_sorted(tail_position.begin(), tail_position.end()))
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return tail_position[a] < tail_position[b]; });

    // Put in that order where they are (following each cycle of the
    // permutation; files list ops in order, so mostly none moves): a second
    // array of 100,000 partitions beside the first had been the peak of
    // checking such a graph.
    std::vector<char> placed(parts.size(), 0);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (placed[k] || order[k] == k) continue;
        partition first = std::move(parts[k]);
        std::size_t at = k;
        for (;;) {
            placed[at] = 1;
            const std::size_t from = order[at];
            if (from == k) {
                parts[at] = std::move(first);
                break;
            }
            parts[at] = std::move(parts[from]);
            at = from;
        }
    }
    std::vector<std::string>().swap(reasons);
    for_each_index(parts.size(), g.ops.size(), [&](std::size_t k) {
        partition &p = parts[k];
        const std::size_t i = order[k]; // its index in part_of_op
        p.id = k;
        // Boundary tensors: inputs not produced inside, outputs used outside
        // (or graph outputs, or consumed by nobody). Members are the ops
        // whose part is i; each boundary tensor is listed once (a linear
        // search of the few a short chain has, a set for long ones).
        const auto member = [&](std::size_t op_index) { return part_of_op[op_index] == i; };
        const bool long_chain = p.op_indices.size() > 16;
        std::unordered_set<tensor_id> seen_in, seen_out;
        const auto first_time = [&](std::unordered_set<tensor_id> &seen, const tensor_ids &listed,
                                    tensor_id t) {
            if (long_chain) return seen.insert(t).second;
            return std::find(listed.begin(), listed.end(), t) == listed.end();
        };
        for (std::size_t index : p.op_indices) {
            for (tensor_id t : topo.inputs(index)) {
                const std::size_t producer = topo.producer(t);
                const bool inside = producer != graph_topology::none && member(producer);
                if (!inside && first_time(seen_in, p.inputs, t)) p.inputs.push_back(t);
            }
            for (tensor_id t : topo.outputs(index)) {
                bool used_outside = std::binary_search(output_ports.begin(), output_ports.end(), t);
                const auto consumers = topo.consumers(t);
                if (consumers.empty()) used_outside = true;
                for (std::size_t c : consumers)
                    if (!member(c)) used_outside = true;
                if (used_outside && first_time(seen_out, p.outputs, t)) p.outputs.push_back(t);
            }
        }
    });
    if (verbose_level() >= 2) {
        // Why each op was or was not claimed.
        const std::string engine(to_string(backend.engine()));
        for (const partition &p : parts)
            for (std::size_t k = 0; k < p.op_indices.size(); ++k) {
                const op &o = g.ops[p.op_indices[k]];
                std::string line = "partition," + engine + ",partition " + std::to_string(p.id) +
                                   ",op " + std::to_string(o.id) + " '" + verbose_text(o.name) +
                                   "' " + verbose_text(o.kind);
                if (!p.supported)
                    line += ",not claimed," + verbose_text(p.reason);
                else if (k > 0)
                    line += ",claimed,fused: continues the chain from op " +
                            std::to_string(g.ops[p.op_indices[k - 1]].id);
                else
                    line += ",claimed,an op of the data-movement family this backend handles";
                verbose_print(line);
            }
    }
    return parts;
}

std::optional<std::size_t> data_input_position(const graph &g, const partition &p) {
    if (p.op_indices.empty()) return std::nullopt;
    const op &first = g.ops.at(p.op_indices.front());
    if (first.inputs.empty()) return std::nullopt;
    const auto it = std::find(p.inputs.begin(), p.inputs.end(), first.inputs[0]);
    if (it == p.inputs.end()) return std::nullopt;
    return static_cast<std::size_t>(it - p.inputs.begin());
}

} // namespace reshaper::impl
