#include <nlohmann/json.hpp>

#include "driver/report.hpp"
#include "io/graph_json.hpp"

namespace reshaper::driver {
namespace {

using nlohmann::json;

json error_json(const impl::error &e) {
    json j = {{"code", std::string(impl::to_string(e.code()))}, {"message", e.what()}};
    if (!e.rule().empty()) j["rule"] = e.rule();
    if (e.op()) j["op"] = {{"id", e.op()->id}, {"name", e.op()->name}, {"kind", e.op()->kind}};
    return j;
}

// Boundary tensors as the compiled partition has them when there is one.
json tensors_json(const std::vector<impl::tensor_id> &ids, const impl::graph &g) {
    json list = json::array();
    for (impl::tensor_id id : ids) list.push_back(impl::logical_tensor_to_json(g.tensor(id)));
    return list;
}

json partition_json(const partition_run &pr, const impl::graph &g) {
    json ops = json::array();
    for (std::size_t index : pr.part.op_indices) ops.push_back(g.ops[index].id);
    json j = {{"id", pr.part.id}, {"supported", pr.part.supported}, {"ops", ops}};
    if (!pr.part.supported) {
        j["reason"] = pr.part.reason;
        return j;
    }
    if (pr.compiled) j["lowering"] = std::string(impl::to_string(pr.compiled->lowering));
    j["inputs"] = tensors_json(pr.part.inputs, g);
    j["outputs"] = tensors_json(pr.part.outputs, g);
    if (pr.compiled) {
        json pairs = json::array();
        for (const auto &[in, out] : pr.compiled->inplace_pairs) pairs.push_back({in, out});
        j["inplace"] = pairs;
        j["plan"] = pr.compiled->plan;
        if (pr.compiled->lowering != impl::lowering_kind::alias)
            j["why_not_alias"] = pr.compiled->why_not_alias;
    }
    return j;
}

} // namespace

std::string json_report(const graph_run &run, const options &opts) {
    json j = {{"graph", run.path}, {"status", run.failure ? "error" : "ok"}};
    if (run.failure) j["error"] = error_json(*run.failure);
    if (run.graph_loaded && !run.graph.warnings.empty()) j["warnings"] = json(static_cast<const std::vector<std::string> &>(run.graph.warnings));
    if (run.graph_loaded) {
        json parts = json::array();
        for (const partition_run &pr : run.partitions) parts.push_back(partition_json(pr, run.graph));
        j["partitions"] = parts;
        json tensors = json::array();
        for (const auto &[id, lt] : run.graph.tensors) tensors.push_back(impl::logical_tensor_to_json(lt));
        j["tensors"] = tensors;
    }
    if (opts.values && opts.mode == run_mode::check) {
        json outs = json::array();
        for (const output_values &o : run.outputs)
            outs.push_back({{"id", o.id}, {"values", impl::values_to_json(o.values)}});
        j["outputs"] = outs;
    }
    if (opts.mode == run_mode::check)
        j["check"] = {{"passed", run.checks_passed}, {"failed", run.checks_failed}};
    if (opts.mode == run_mode::perf) {
        json perf = json::array();
        for (const partition_run &pr : run.partitions) {
            if (!pr.perf || !pr.compiled) continue;
            json p = {{"partition", pr.part.id},
                      {"lowering", std::string(impl::to_string(pr.compiled->lowering))},
                      {"bytes", pr.perf->bytes},
                      {"ms", pr.perf->ms},
                      {"gbps", pr.perf->gbps}};
            if (pr.perf->inplace_ms) p["inplace_ms"] = *pr.perf->inplace_ms;
            if (pr.perf->memcpy_gbps) p["memcpy_gbps"] = *pr.perf->memcpy_gbps;
            perf.push_back(p);
        }
        j["perf"] = perf;
    }
    // One object per line; invalid UTF-8 from a file never breaks the report.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace reshaper::driver
