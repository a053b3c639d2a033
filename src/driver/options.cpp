#include "driver/options.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <thread>
#include <string_view>

#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::driver {
namespace {

using impl::error;
using impl::fail;
using impl::rule;
using impl::status;

int parse_positive(std::string_view name, std::string_view text) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1)
        fail(rule::driver_option, "option " + std::string(name) +
                                      " takes a positive integer, got '" +
                                      std::string(text) + "'");
    return value;
}

// The most --threads allows: 1024, or the machine's hardware threads when
// more. oneTBB's limit and OpenMP's thread count take any number, and the
// memory they reserve grows with it: 10^7 took 1.3 GB and 6 s before a
// single partition ran (1024: nothing measurable).
int max_threads() {
    constexpr unsigned floor = 1024;
    return static_cast<int>(std::max(floor, std::min(std::thread::hardware_concurrency(), 1u << 20)));
}

// --free-dim=NAME=VALUE: NAME (up to the last '=') and a value >= 0.
std::pair<std::string, std::int64_t> parse_free_dim(std::string_view text) {
    const auto eq = text.rfind('=');
    std::int64_t value = -1;
    if (eq != std::string_view::npos && eq > 0) {
        const std::string_view digits = text.substr(eq + 1);
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (ec != std::errc() || end != digits.data() + digits.size()) value = -1;
    }
    if (value < 0)
        fail(rule::driver_option, "option --free-dim takes NAME=VALUE with a value >= 0, got '" +
                                      std::string(text) + "'");
    return {std::string(text.substr(0, eq)), value};
}

[[noreturn]] void bad_value(std::string_view name, std::string_view value, std::string_view allowed) {
    fail(rule::driver_option, "option " + std::string(name) + " takes " +
                                  std::string(allowed) + ", got '" +
                                  std::string(value) + "'");
}

} // namespace

const char *usage_text() {
    return "usage: reshaper-run [options] GRAPH.json|MODEL.onnx ...\n"
           "  --mode=infer|check|perf  (default check)\n"
           "  --engine=cpu|gpu         (default: the file's engine_kind)\n"
           "  --policy=fusion|debug    (default fusion)\n"
           "  --report=text|json       (default text)\n"
           "  --values                 with --report=json: include output values\n"
           "  --reps=N                 timed runs per partition in perf mode (default 20)\n"
           "  --threads=N              worker threads, at most 1024 or the cores (default: all cores)\n"
           "  --free-dim=NAME=VALUE    bind an ONNX model's symbolic dim (repeatable)\n"
           "  --help, -h               the full help; --version: versions\n"
           "exit status: 0 all good; 1 a check found a mismatch; 2 invalid input (unreadable or\n"
           "  malformed JSON, invalid graph, op, attribute, dtype or shape); 3 unavailable (no such\n"
           "  engine, not implemented) or out_of_memory (more memory than the limit allows);\n"
           "  with several files the worst wins\n"
           "limits (environment): RESHAPER_MAX_GRAPH_BYTES (1 GiB), RESHAPER_MAX_JSON_DEPTH (256),\n"
           "  RESHAPER_MAX_OPS (10000000), RESHAPER_MAX_TENSOR_BYTES (16 GiB; check and perf)\n";
}

const char *help_text() {
    return "reshaper-run: runs oneDNN Graph JSON graph files and ONNX models through the\n"
           "reshaper backend.\n"
           "\n"
           "usage: reshaper-run [options] GRAPH.json|MODEL.onnx [...]\n"
           "  A file ending in .onnx is read as an ONNX model: every node an op of domain\n"
           "  ai.onnx at the model's opset, shapes from ONNX's shape inference with data\n"
           "  propagation and reshaper's folding of the shape arithmetic; same modes and report.\n"
           "  --mode=infer     load, validate, partition, infer every shape; no data\n"
           "  --mode=check     (default) also compile and execute every supported partition on\n"
           "                   the tensors' \"values\" or generated data and compare bit-exactly\n"
           "                   with the reference; aliases run in place and into a separate buffer\n"
           "  --mode=perf      compile and time each supported partition; report time and GB/s\n"
           "  --engine=cpu|gpu (default: the file's engine_kind, else cpu)\n"
           "  --policy=fusion|debug   (default fusion; debug = one op per partition)\n"
           "  --report=text|json      (default text; json: one object per file and line)\n"
           "  --values         with --report=json: include output tensors' values\n"
           "  --reps=N         timed runs per partition in perf mode (default 20)\n"
           "  --threads=N      worker threads (default: all cores; at most 1024, or the cores\n"
           "                   when more): for the kernels, and in check and infer mode for\n"
           "                   partitions run side by side\n"
           "  --free-dim=NAME=VALUE  bind the symbolic dim NAME (dim_param) of ONNX models to\n"
           "                   VALUE before inference, as ONNX Runtime's free dimension\n"
           "                   override; repeatable. Check and perf modes need every symbolic\n"
           "                   dim of a model's inputs bound (else exit 2 naming them)\n"
           "  --help, -h       this text\n"
           "  --version        the library's and oneDNN's versions\n"
           "\n"
           "exit status: 0 all good; 1 a check found a mismatch; 2 invalid input; 3 unavailable,\n"
           "not implemented or out of memory. With several files the worst wins.\n"
           "\n"
           "environment: RESHAPER_VERBOSE=1|2|3 (RESHAPER_VERBOSE_FILE=path),\n"
           "RESHAPER_GRAPH_DUMP=graph|partition|graph,partition (RESHAPER_GRAPH_DUMP_DIR=dir),\n"
           "RESHAPER_MAX_CPU_ISA=avx512|avx2|scalar (cap the kernels' SIMD level),\n"
           "RESHAPER_KERNEL_TUNING=amd|intel (whose measurements the kernels follow; default: the CPU's vendor).\n"
           "Check and infer mode on graph files of 8 MiB and more run again with glibc's malloc asking for\n"
           "transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) where the system gives them\n"
           "only on asking; a GLIBC_TUNABLES that sets glibc.malloc.hugetlb already is kept as it is.\n"
           "limits (environment): RESHAPER_MAX_GRAPH_BYTES (1 GiB), RESHAPER_MAX_JSON_DEPTH (256, at\n"
           "most 1024), RESHAPER_MAX_OPS (10000000), RESHAPER_MAX_TENSOR_BYTES (16 GiB; check and perf);\n"
           "beyond one: out_of_memory, exit 3.\n"
           "Error rule ids: docs/rules.md.\n";
}

options parse_options(int argc, const char *const argv[]) {
    options opts;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            opts.help = true;
            continue;
        }
        if (arg == "--version") {
            opts.version = true;
            continue;
        }
        if (arg.rfind("--", 0) != 0) {
            opts.files.emplace_back(arg);
            continue;
        }
        const auto eq = arg.find('=');
        const std::string_view name = arg.substr(0, eq);
        const std::string_view value = eq == std::string_view::npos ? "" : arg.substr(eq + 1);
        if (name == "--values" && eq == std::string_view::npos) {
            opts.values = true;
        } else if (name == "--help" && eq == std::string_view::npos) {
            opts.help = true;
        } else if (eq == std::string_view::npos) {
            fail(rule::driver_option, "unknown option '" + std::string(arg) + "'");
        } else if (name == "--mode") {
            if (value == "infer") opts.mode = run_mode::infer;
            else if (value == "check") opts.mode = run_mode::check;
            else if (value == "perf") opts.mode = run_mode::perf;
            else bad_value(name, value, "infer, check or perf");
        } else if (name == "--engine") {
            if (value != "cpu" && value != "gpu") bad_value(name, value, "cpu or gpu");
            opts.engine = std::string(value);
        } else if (name == "--policy") {
            if (value == "fusion") opts.policy = impl::partition_policy::fusion;
            else if (value == "debug") opts.policy = impl::partition_policy::debug;
            else bad_value(name, value, "fusion or debug");
        } else if (name == "--report") {
            if (value == "text") opts.report = report_format::text;
            else if (value == "json") opts.report = report_format::json;
            else bad_value(name, value, "text or json");
        } else if (name == "--reps") {
            opts.reps = parse_positive(name, value);
        } else if (name == "--free-dim") {
            auto [dim, dim_value] = parse_free_dim(value);
            opts.free_dims[dim] = dim_value;
        } else if (name == "--threads") {
            opts.threads = parse_positive(name, value);
            if (*opts.threads > max_threads())
                fail(rule::driver_option,
                     "option --threads takes at most " + std::to_string(max_threads()) +
                         " (this machine has " +
                         std::to_string(std::thread::hardware_concurrency()) + " hardware threads), got '" +
                         std::string(value) + "'");
        } else {
            fail(rule::driver_option, "unknown option '" + std::string(arg) + "'");
        }
    }
    if (opts.files.empty() && !opts.help && !opts.version)
        fail(rule::driver_option, "no graph file given");
    return opts;
}

} // namespace reshaper::driver
