#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "driver/report.hpp"
#include "io/graph_json.hpp"

namespace reshaper::driver {
namespace {

using nlohmann::json;
using namespace std::literals;

json error_json(const impl::error &e) {
    json j = {{"code", std::string(impl::to_string(e.code()))}, {"message", e.what()}};
    j["rule"] = std::string(e.rule()); // every error names its rule
    if (e.op()) j["op"] = {{"id", e.op()->id}, {"name", e.op()->name}, {"kind", e.op()->kind}};
    return j;
}

// Pieces of the DOM's dump written straight into the text: making a DOM
// of each partition and its tensors only to dump it took 41% of checking
// 100,000 single transposes with this report (perf). Each piece is what
// the DOM dumps, byte for byte (keys in the order of their bytes).
void append_json(std::string &out, const json &j) { out += j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Whether the DOM dumps `c` as it is in a string: printable ASCII but the
// two it escapes.
constexpr bool dumped_as_is(unsigned char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }

// Whether the DOM dumps every byte of `s` as it is, 16 bytes a step (SSE2),
// then 8 (SWAR): a byte at a time, append_string was 14% of the
// instructions of checking 10,000 single transposes with this report
// (callgrind), each partition's plan some 500 bytes; 8 bytes a step, 7%;
// 16, 5%.
bool all_dumped_as_is(std::string_view s) {
    std::size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= s.size(); i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s.data() + i));
        // As signed bytes, those of 0x80 and up are below 0x20 too.
        const __m128i other = _mm_or_si128(
            _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F))),
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
        if (_mm_movemask_epi8(other) != 0) return false;
    }
#endif
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    // Whether some byte of `v` is zero (exact: the borrows start at one).
    const auto some_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        // Bytes of 0x80 and up; below 0x20 (exact for a bound up to 0x80); 0x7F, '"', '\\'.
        if ((w & highs) | ((w - 0x20 * ones) & ~w & highs) | some_zero(w ^ (0x7F * ones)) |
            some_zero(w ^ ('"' * ones)) | some_zero(w ^ ('\\' * ones)))
            return false;
    }
    for (; i < s.size(); ++i)
        if (!dumped_as_is(static_cast<unsigned char>(s[i]))) return false;
    return true;
}

void append_string(std::string &out, std::string_view s) {
    // Printable ASCII but the two escaped ones is dumped as it is; the rest
    // (escapes, UTF-8 and its replacement when invalid) is the DOM's to say.
    if (!all_dumped_as_is(s)) return append_json(out, json(std::string(s)));
    out += '"';
    out.append(s);
    out += '"';
}

void append_int(std::string &out, std::int64_t v) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}

// logical_tensor_to_json's dump. The names of our own enums (dtype,
// layout, property) are all printable ASCII without a quote or backslash,
// which the DOM dumps as they are: they are not scanned for escapes, and
// their quotes go with the keys' text (a large graph's report writes a
// tensor twice per partition).
void append_tensor(std::string &out, const impl::logical_tensor &lt) {
    if (lt.values) return append_json(out, impl::logical_tensor_to_json(lt)); // values: the DOM's number forms
    out += "{\"dtype\":\""sv;
    out += impl::to_string(lt.dtype);
    if (lt.layout == impl::layout_type::opaque && !lt.format.empty()) {
        out += "\",\"format\":"sv;
        append_string(out, lt.format.get());
        out += ",\"id\":"sv;
    } else {
        out += "\",\"id\":"sv;
    }
    append_int(out, lt.id);
    out += ",\"layout_type\":\""sv;
    out += impl::to_string(lt.layout);
    out += lt.rank_known ? "\",\"property_type\":\""sv : "\",\"ndims\":-1,\"property_type\":\""sv;
    out += impl::to_string(lt.property);
    out += "\",\"shape\":"sv;
    impl::append_dims(out, lt.shape); // the JSON text of a list of integers
    out += ",\"stride\":"sv;
    if (lt.layout != impl::layout_type::strided) out += "[]"sv;
    else if (!lt.strides.empty()) impl::append_dims(out, lt.strides);
    else impl::append_dims(out, impl::dense_strides(lt.shape).value_or(impl::dims_t{}));
    out += '}';
}

// Boundary tensors as the compiled partition has them when there is one.
void append_tensors(std::string &out, const impl::tensor_ids &ids, const impl::graph &g) {
    out += '[';
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i) out += ',';
        append_tensor(out, g.tensor(ids[i]));
    }
    out += ']';
}

// partition_json's dump.
void append_partition(std::string &out, const partition_run &pr, const impl::graph &g) {
    out += "{\"id\":";
    append_int(out, static_cast<std::int64_t>(pr.part.id));
    if (pr.part.supported && pr.compiled) {
        out += ",\"inplace\":[";
        bool first = true;
        static const std::vector<std::pair<impl::tensor_id, impl::tensor_id>> no_pairs;
        for (const auto &[in, o] : pr.compiled->inplace_pairs ? *pr.compiled->inplace_pairs : no_pairs) {
            out += first ? "[" : ",[";
            first = false;
            append_int(out, in);
            out += ',';
            append_int(out, o);
            out += ']';
        }
        out += ']';
    }
    if (pr.part.supported) {
        out += ",\"inputs\":";
        append_tensors(out, pr.part.inputs, g);
    }
    if (pr.part.supported && pr.compiled) {
        out += ",\"lowering\":\""sv; // a name of ours, as a dtype's in append_tensor
        out += impl::to_string(pr.compiled->lowering);
        out += '"';
    }
    out += ",\"ops\":[";
    for (std::size_t i = 0; i < pr.part.op_indices.size(); ++i) {
        if (i) out += ',';
        append_int(out, g.ops[pr.part.op_indices[i]].id);
    }
    out += ']';
    if (!pr.part.supported) {
        out += ",\"reason\":";
        append_string(out, pr.part.reason);
        out += ",\"supported\":false}";
        return;
    }
    out += ",\"outputs\":";
    append_tensors(out, pr.part.outputs, g);
    if (pr.compiled) {
        out += ",\"plan\":";
        if (pr.compiled->words) out += pr.compiled->words->plan_json;
        else append_string(out, {});
    }
    out += ",\"supported\":true";
    if (pr.compiled && pr.compiled->lowering != impl::lowering_kind::alias) {
        out += ",\"why_not_alias\":";
        if (pr.compiled->words) out += pr.compiled->words->why_not_alias_json;
        else append_string(out, {});
    }
    out += '}';
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
    // An array of `items`, each appended to a text by `append(text, item)`
    // (in strips side by side: piece_writer::append_in_strips).
    template <class Range, class Append>
    json_writer &array_appended(const Range &items, Append &&append) {
        text_ += '[';
        const auto first = std::begin(items);
        append_in_strips(static_cast<std::size_t>(std::end(items) - first), [&](std::string &text, std::size_t i) {
            if (i) text += ',';
            append(text, first[static_cast<std::ptrdiff_t>(i)]);
        });
        text_ += ']';
        return *this;
    }
    void end() { text_ += first_member_ ? "{}" : "}"; }

private:
    bool first_member_ = true;
};

} // namespace

std::string json_string_text(std::string_view s) {
    std::string text;
    append_string(text, s);
    return text;
}

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
        out.member("partitions").array_appended(run.partitions, [&](std::string &text, const partition_run &pr) {
            append_partition(text, pr, run.graph);
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
            const timed_machine &m = *run.machine;
            out.member("perf_machine")
                .value(json{{"isa", std::string(impl::to_string(m.facts.isa))},
                            {"kernel_tuning", std::string(impl::to_string(m.tuning))},
                            {"listed_last_level_cache_bytes", m.listed_last_level_cache_bytes},
                            {"last_level_cache_bytes", m.last_level_cache_bytes},
                            {"core_cache_bytes", m.core_cache_bytes},
                            {"copy_streaming_bytes", m.facts.copy_streaming_bytes},
                            {"transpose_streaming_bytes", m.facts.transpose_streaming_bytes},
                            {"last_level_walk_bytes", m.facts.last_level_walk_bytes}});
        }
    }
    out.member("status").value(run.failure ? "error" : "ok");
    if (run.graph_loaded)
        out.member("tensors").array_appended(run.graph.tensors, [](std::string &text, const auto &entry) {
            append_tensor(text, entry.second);
        });
    if (run.graph_loaded && !run.graph.warnings.empty())
        out.member("warnings").array(run.graph.warnings, [](const std::string &w) { return json(w); });
    out.end();
}

} // namespace reshaper::driver
