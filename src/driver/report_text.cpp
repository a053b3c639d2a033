#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "driver/report.hpp"

namespace reshaper::driver {
namespace {

// The report of 100,000 partitions is 30 MB; made through a stringstream,
// one string per tensor, it took a tenth of loading and checking such a
// graph, so it is appended in place: to the report's text, or to a strip
// of rows made beside others (piece_writer::append_in_strips).
class text_appender {
public:
    explicit text_appender(std::string &text) : text_(text) {}

    text_appender &operator<<(std::string_view s) {
        text_.append(s);
        return *this;
    }
    text_appender &operator<<(char c) {
        text_.push_back(c);
        return *this;
    }
    text_appender &operator<<(std::int64_t v) { return right_aligned(v, 0); }
    text_appender &operator<<(std::size_t v) { return *this << static_cast<std::int64_t>(v); }
    // `s` in a column `width` characters wide, padded on the left (numbers)
    // or the right (words); the partition table's columns, without a
    // formatted print per row (one per row was 2% of checking 100,000).
    text_appender &right_aligned(std::string_view s, std::size_t width) {
        if (s.size() < width) text_.append(width - s.size(), ' ');
        text_.append(s);
        return *this;
    }
    text_appender &left_aligned(std::string_view s, std::size_t width) {
        text_.append(s);
        if (s.size() < width) text_.append(width - s.size(), ' ');
        return *this;
    }
    text_appender &right_aligned(std::int64_t v, std::size_t width) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        return right_aligned(std::string_view(digits, static_cast<std::size_t>(end - digits)), width);
    }
    text_appender &operator<<(int v) { return *this << static_cast<std::int64_t>(v); }
    text_appender &dims(const impl::dims_t &d) {
        impl::append_dims(text_, d);
        return *this;
    }
    // "3:f32[2,3]{[3,1]}": id, dtype, shape and the layout when it says more.
    text_appender &tensor(const impl::logical_tensor &lt) {
        *this << lt.id << ':' << impl::to_string(lt.dtype);
        if (lt.rank_known) dims(lt.shape);
        else *this << "[unknown rank]";
        if (lt.layout == impl::layout_type::opaque) *this << '{' << lt.format.get() << '}';
        else if (lt.layout == impl::layout_type::any) *this << "{any}";
        else if (!lt.strides.empty()) {
            *this << '{';
            dims(lt.strides);
            *this << '}';
        }
        return *this;
    }
    text_appender &tensors(const impl::tensor_ids &ids, const impl::graph &g) {
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (i) text_.push_back(' ');
            tensor(g.tensor(ids[i]));
        }
        return *this;
    }

private:
    std::string &text_;
};

class report_writer : public piece_writer {
public:
    using piece_writer::append_in_strips;
    using piece_writer::piece_writer;

    // The report's own text, to append to; rows in strips: append_in_strips.
    text_appender text() { return text_appender(text_); }
};

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

void write_text_report(std::FILE *to, const graph_run &run, const options &opts) {
    report_writer writer(to);
    text_appender out = writer.text();
    out << run.path << ": ";
    if (run.failure) {
        out << "error " << impl::to_string(run.failure->code()) << ": " << run.failure->what() << "\n";
        if (!run.graph_loaded) {
            out << summary_line(run, opts) << "\n";
            return;
        }
    } else {
        std::size_t claimed = 0;
        for (const auto &pr : run.partitions) claimed += pr.part.supported;
        out << "ok, " << run.graph.ops.size() << " ops, " << run.partitions.size() << " partitions (" << claimed
            << " claimed by reshaper)\n";
    }
    for (const std::string &w : run.graph.warnings) out << "  warning: " << w << "\n";

    constexpr std::string_view indent = "                            ";
    out << "\n  part  claimed  lowering  ops\n";
    writer.append_in_strips(run.partitions.size(), [&](std::string &text, std::size_t p) {
        const partition_run &pr = run.partitions[p];
        text_appender out(text);
        out << "  ";
        out.right_aligned(static_cast<std::int64_t>(pr.part.id), 4) << "  ";
        out.left_aligned(pr.part.supported ? "yes" : "no", 7) << "  ";
        out.left_aligned(pr.compiled ? impl::to_string(pr.compiled->lowering) : "-", 8) << "  ";
        for (std::size_t i = 0; i < pr.part.op_indices.size(); ++i) {
            const impl::op &o = run.graph.ops[pr.part.op_indices[i]];
            out << (i ? " -> " : "") << o.id << ':' << o.kind;
        }
        out << '\n';
        if (!pr.part.supported) {
            out << indent << '(' << pr.part.reason << ")\n";
            return;
        }
        out << indent << "in:  ";
        out.tensors(pr.part.inputs, run.graph) << '\n' << indent << "out: ";
        out.tensors(pr.part.outputs, run.graph) << '\n';
        if (pr.compiled && pr.compiled->inplace_pairs && !pr.compiled->inplace_pairs->empty())
            out << indent << "in place: input " << pr.compiled->inplace_pairs->front().first << " -> output "
                << pr.compiled->inplace_pairs->front().second << "\n";
        if (pr.check_passed) {
            out << indent << "check: " << (*pr.check_passed ? "passed" : "FAILED");
            if (pr.check_detail) out << " (" << *pr.check_detail << ")";
            out << '\n';
        }
        if (pr.perf) {
            const perf_figures &f = *pr.perf;
            out << indent << "perf: " << fixed(f.ms, 6) << " ms per execute";
            if (f.batch > 1) out << " (timed in batches of " << f.batch << ")";
            out << ", " << f.bytes << " bytes, " << fixed(f.gbps, 2) << " GB/s";
            if (f.inplace_ms) out << ", in place " << fixed(*f.inplace_ms, 6) << " ms";
            if (f.memcpy_gbps)
                out << "; memcpy of the same bytes " << fixed(*f.memcpy_gbps, 2) << " GB/s ("
                    << fixed(f.gbps / *f.memcpy_gbps, 2) << "x)";
            if (f.stream_gbps)
                out << ", streaming copy " << fixed(*f.stream_gbps, 2) << " GB/s ("
                    << fixed(f.gbps / *f.stream_gbps, 2) << "x), on " << f.yardstick_threads
                    << (f.yardstick_threads == 1 ? " thread" : " threads");
            out << '\n';
        }
    });
    if (opts.mode == run_mode::perf &&
        std::any_of(run.partitions.begin(), run.partitions.end(), [](const partition_run &pr) { return pr.perf.has_value(); })) {
        out << "\n  perf: " << run.threads << (run.threads == 1 ? " thread" : " threads");
        if (run.cores) out << ", which got " << fixed(*run.cores, 2) << " cores (CPU-bound threads against one)";
        const timed_machine &m = *run.machine;
        out << "; kernels " << impl::to_string(m.facts.isa) << " (" << impl::to_string(m.tuning) << " tuning), last-level cache " << m.listed_last_level_cache_bytes
            << " bytes as listed, " << m.last_level_cache_bytes << " counted, core cache " << m.core_cache_bytes
            << "; streaming stores from " << m.facts.copy_streaming_bytes << " bytes (copies), "
            << m.facts.transpose_streaming_bytes << " (transposes); last-level walk from " << m.facts.last_level_walk_bytes
            << '\n';
    }

    out << "\n  tensors (after inference)\n";
    writer.append_in_strips(run.graph.tensors.size(), [&](std::string &text, std::size_t t) {
        text_appender row(text);
        row << "    ";
        row.tensor((run.graph.tensors.begin() + static_cast<std::ptrdiff_t>(t))->second) << '\n';
    });
    if (opts.mode == run_mode::check)
        out << "\n  check: " << run.checks_passed << " passed, " << run.checks_failed << " failed\n";
    out << '\n' << summary_line(run, opts) << '\n';
}

} // namespace reshaper::driver
