#include <cstdio>
#include <sstream>

#include "driver/report.hpp"

namespace reshaper::driver {
namespace {

std::string tensor_summary(const impl::logical_tensor &lt) {
    std::string s = std::to_string(lt.id) + ":" + std::string(impl::to_string(lt.dtype)) +
                    impl::dims_to_string(lt.shape);
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "{" + string.
    if (lt.layout == impl::layout_type::opaque) s.append("{").append(lt.format).append("}");
    else if (lt.layout == impl::layout_type::any) s.append("{any}");
    else if (!lt.strides.empty()) s.append("{").append(impl::dims_to_string(lt.strides)).append("}");
    return s;
}

std::string tensor_list(const std::vector<impl::tensor_id> &ids, const impl::graph &g) {
    std::string s;
    for (impl::tensor_id id : ids) {
        if (!s.empty()) s += ' ';
        s += tensor_summary(g.tensor(id));
    }
    return s;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace

std::string summary_line(const graph_run &run, const options &opts) {
    std::size_t claimed = 0, alias = 0, reorder = 0, kernel = 0;
    for (const partition_run &pr : run.partitions) {
        claimed += pr.part.supported;
        if (!pr.compiled) continue;
        switch (pr.compiled->lowering) {
        case impl::lowering_kind::alias: ++alias; break;
        case impl::lowering_kind::reorder: ++reorder; break;
        case impl::lowering_kind::kernel: ++kernel; break;
        }
    }
    std::string line = "summary: " + std::string(run.failure ? "error" : "ok") + ", " +
                       std::to_string(run.partitions.size()) + " partitions, " +
                       std::to_string(claimed) + " claimed";
    if (opts.mode != run_mode::infer)
        line += ", lowerings: " + std::to_string(alias) + " alias, " + std::to_string(reorder) +
                " reorder, " + std::to_string(kernel) + " kernel";
    if (opts.mode == run_mode::check)
        line += ", check: " + std::to_string(run.checks_passed) + " passed, " +
                std::to_string(run.checks_failed) + " failed";
    return line + ", " + fixed(run.ms, 3) + " ms";
}

std::string text_report(const graph_run &run, const options &opts) {
    std::ostringstream out;
    out << run.path << ": ";
    if (run.failure) {
        out << "error " << impl::to_string(run.failure->code()) << ": " << run.failure->what() << "\n";
        if (!run.graph_loaded) return out.str() + summary_line(run, opts) + "\n";
    } else {
        std::size_t claimed = 0;
        for (const auto &pr : run.partitions) claimed += pr.part.supported;
        out << "ok, " << run.graph.ops.size() << " ops, " << run.partitions.size()
            << " partitions (" << claimed << " claimed by reshaper)\n";
    }
    for (const std::string &w : run.graph.warnings) out << "  warning: " << w << "\n";

    out << "\n  part  claimed  lowering  ops\n";
    for (const partition_run &pr : run.partitions) {
        std::string ops;
        for (std::size_t index : pr.part.op_indices) {
            const impl::op &o = run.graph.ops[index];
            ops += (ops.empty() ? "" : " -> ") + std::to_string(o.id) + ":" + o.kind;
        }
        char head[64];
        std::snprintf(head, sizeof head, "  %4zu  %-7s  %-8s  ", pr.part.id,
                      pr.part.supported ? "yes" : "no",
                      pr.compiled ? std::string(impl::to_string(pr.compiled->lowering)).c_str() : "-");
        out << head << ops << "\n";
        if (!pr.part.supported) {
            out << "                            (" << pr.part.reason << ")\n";
            continue;
        }
        out << "                            in:  " << tensor_list(pr.part.inputs, run.graph) << "\n"
            << "                            out: " << tensor_list(pr.part.outputs, run.graph) << "\n";
        if (pr.compiled && !pr.compiled->inplace_pairs.empty())
            out << "                            in place: input " << pr.compiled->inplace_pairs[0].first
                << " -> output " << pr.compiled->inplace_pairs[0].second << "\n";
        if (pr.check_passed)
            out << "                            check: " << (*pr.check_passed ? "passed" : "FAILED")
                << (pr.check_detail.empty() ? "" : " (" + pr.check_detail + ")") << "\n";
        if (pr.perf) {
            out << "                            perf: " << fixed(pr.perf->ms, 4) << " ms, "
                << pr.perf->bytes << " bytes, " << fixed(pr.perf->gbps, 2) << " GB/s";
            if (pr.perf->inplace_ms) out << ", in place " << fixed(*pr.perf->inplace_ms, 6) << " ms";
            if (pr.perf->memcpy_gbps)
                out << "; memcpy of the same bytes " << fixed(*pr.perf->memcpy_gbps, 2) << " GB/s ("
                    << fixed(pr.perf->gbps / *pr.perf->memcpy_gbps, 2) << "x)";
            out << "\n";
        }
    }

    out << "\n  tensors (after inference)\n";
    for (const auto &[id, lt] : run.graph.tensors) out << "    " << tensor_summary(lt) << "\n";
    if (opts.mode == run_mode::check)
        out << "\n  check: " << run.checks_passed << " passed, " << run.checks_failed << " failed\n";
    out << "\n" << summary_line(run, opts) << "\n";
    return out.str();
}

} // namespace reshaper::driver
