// Command line of reshaper-run (interface contract, section 2).
#pragma once

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
    bool help = false; // print usage_text() and exit 0
    std::vector<std::string> files;
};

// Throws impl::error(invalid_arguments) naming the offending argument.
options parse_options(int argc, const char *const argv[]);

const char *usage_text();

} // namespace reshaper::driver
