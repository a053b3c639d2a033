#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/report.hpp"
#include "io/graph_json.hpp"

namespace reshaper::driver {
namespace {

using nlohmann::json;

json error_json(const impl::error &e) {
    json j = {{"code", std::string(impl::to_string(e.code()))}, {"message", e.what()}};
    j["rule"] = std::string(e.rule()); // every error names its rule
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

// The report written as it is made, one partition, tensor or output at a
// time, instead of as one DOM of the whole report dumped at the end: that
// DOM was 34x the graph file (a 30 MB file of 100,000 partitions: 1 GB
// peak, against 0.14 GB for the text report), so files far under the size
// limit were killed for memory. The text is the DOM's dump byte for byte:
// the members in its order (nlohmann::json sorts keys), each piece dumped
// as the DOM dumps it.
class json_writer : public piece_writer {
public:
    using piece_writer::piece_writer;

    // The next member of the top-level object: its key, then its value.
    json_writer &member(std::string_view key) {
        text_ += first_member_ ? "{\"" : ",\"";
        first_member_ = false;
        text_.append(key).append("\":");
        return *this;
    }
    json_writer &value(const json &j) {
        // One object per line; invalid UTF-8 from a file never breaks the report.
        text_ += j.dump(-1, ' ', false, json::error_handler_t::replace);
        at_a_break();
        return *this;
    }
    // An array of `items`, each made by `element` as it is written.
    template <class Range, class Element>
    json_writer &array(const Range &items, Element &&element) {
        text_ += '[';
        bool first = true;
        for (const auto &item : items) {
            if (!first) text_ += ',';
            first = false;
            value(element(item));
        }
        text_ += ']';
        return *this;
    }
    void end() { text_ += first_member_ ? "{}" : "}"; }

private:
    bool first_member_ = true;
};

} // namespace

void write_json_report(std::FILE *to, const graph_run &run, const options &opts) {
    json_writer out(to);
    // In the order of the keys' bytes, as nlohmann::json's objects hold them.
    if (opts.mode == run_mode::check)
        out.member("check").value({{"passed", run.checks_passed}, {"failed", run.checks_failed}});
    if (run.failure) out.member("error").value(error_json(*run.failure));
    out.member("graph").value(run.path);
    if (opts.values && opts.mode == run_mode::check)
        out.member("outputs").array(run.outputs, [](const output_values &o) {
            return json{{"id", o.id}, {"values", impl::values_to_json(o.values)}};
        });
    if (run.graph_loaded)
        out.member("partitions").array(run.partitions, [&](const partition_run &pr) {
            return partition_json(pr, run.graph);
        });
    if (opts.mode == run_mode::perf) {
        std::vector<const partition_run *> timed;
        for (const partition_run &pr : run.partitions)
            if (pr.perf && pr.compiled) timed.push_back(&pr);
        out.member("perf").array(timed, [](const partition_run *pr) {
            json p = {{"partition", pr->part.id},
                      {"lowering", std::string(impl::to_string(pr->compiled->lowering))},
                      {"bytes", pr->perf->bytes},
                      {"ms", pr->perf->ms},
                      {"gbps", pr->perf->gbps}};
            if (pr->perf->inplace_ms) p["inplace_ms"] = *pr->perf->inplace_ms;
            p["batch"] = pr->perf->batch;
            if (pr->perf->memcpy_gbps) p["memcpy_gbps"] = *pr->perf->memcpy_gbps;
            if (pr->perf->stream_gbps) {
                p["stream_gbps"] = *pr->perf->stream_gbps;
                p["yardstick_threads"] = pr->perf->yardstick_threads;
            }
            return p;
        });
        if (!timed.empty()) { // the threads that timed them
            json threads = {{"threads", run.threads}};
            if (run.cores) threads["cores"] = *run.cores;
            out.member("perf_threads").value(threads);
        }
    }
    out.member("status").value(run.failure ? "error" : "ok");
    if (run.graph_loaded)
        out.member("tensors").array(run.graph.tensors, [](const auto &entry) {
            return impl::logical_tensor_to_json(entry.second);
        });
    if (run.graph_loaded && !run.graph.warnings.empty())
        out.member("warnings").array(run.graph.warnings, [](const std::string &w) { return json(w); });
    out.end();
}

} // namespace reshaper::driver
