// Command line of reshaper-run (interface contract, section 2).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "partition/partitioner.hpp"

namespace reshaper::driver {

enum class run_mode { infer, check, perf };
enum class report_format { text, json };

struct options {
    run_mode mode = run_mode::check;
    std::optional<std::string> engine; // nothing: the file's engine_kind
    impl::partition_policy policy = impl::partition_policy::fusion;
    report_format report = report_format::text;
    bool values = false;
    int reps = 20;
    std::optional<int> threads;
    // --free-dim=NAME=VALUE: symbolic dims of ONNX models bound before
    // inference (ONNX Runtime's free dimension override).
    std::map<std::string, std::int64_t, std::less<>> free_dims;
    std::vector<std::string> files;
    bool help = false;    // --help, -h: print the usage, exit 0
    bool version = false; // --version: print the versions, exit 0
};

// Throws impl::error(invalid_arguments) naming the offending argument.
options parse_options(int argc, const char *const argv[]);

const char *usage_text();
// The full help of --help: usage, modes, exit status, environment.
const char *help_text();

} // namespace reshaper::driver
