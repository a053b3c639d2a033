// One graph file through the pipeline the options ask for: load, validate,
// partition, infer (every mode); compile, execute and compare (check); time
// (perf). The result is what the reports print.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/compiled_partition.hpp"
#include "core/graph.hpp"
#include "core/heap_optional.hpp"
#include "core/status.hpp"
#include "driver/options.hpp"
#include "kernels/cpu_isa.hpp"
#include "kernels/movement_program.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::driver {

struct perf_figures {
    std::int64_t bytes = 0;   // read plus written by one execute
    double ms = 0;            // median time of one execute into a separate buffer
    std::size_t batch = 1;    // executes per timed sample (perf_timing.hpp: >1 below 10 us)
    double gbps = 0;
    std::optional<double> inplace_ms; // alias lowerings: median in-place execute
    // The yardsticks of docs/performance.md, timed in turn with the execute:
    // glibc memcpy and a streaming-store copy of the same bytes between the
    // same buffers, on `yardstick_threads` threads (yardstick.hpp); none for
    // strings.
    std::optional<double> memcpy_gbps;
    std::optional<double> stream_gbps;
    int yardstick_threads = 1;
};

// What the reports say of a compiled partition (the compiled partition
// itself is released once checked or timed: a graph may have 500,000).
struct compiled_summary {
    impl::lowering_kind lowering = impl::lowering_kind::alias;
    // Only where there are any: on the heap, as are the words below (each
    // record of 100,000 partitions counts at the peak of checking them).
    impl::heap_optional<std::vector<std::pair<impl::tensor_id, impl::tensor_id>>> inplace_pairs;
    // describe_plan and why_not_alias (empty for an alias), for the JSON
    // report only; shared by the partitions of one form (hundreds of bytes
    // each, 100,000 times). Held as the report writes them, quoted and
    // escaped (json_string_text, report.hpp): made once per form, not
    // scanned for escapes again for each of its partitions.
    struct plan_words {
        std::string plan_json, why_not_alias_json;
    };
    std::shared_ptr<const plan_words> words;
};

struct partition_run {
    // One of graph_run::partition_list, which holds them as the partitioner
    // made them: a record of 100,000 partitions made by moving each into
    // its run held them twice at the peak of checking such a graph.
    const impl::partition &part;
    std::optional<compiled_summary> compiled;
    std::optional<bool> check_passed;
    // What differed, for the text report; only a failed check has it (a
    // string in every record was 2.3 MiB of 100,000 partitions' peak).
    impl::heap_optional<std::string> check_detail;
    // Perf mode only: on the heap, so that a check of 100,000 partitions
    // does not hold 80 bytes of it for each (a third of this record).
    impl::heap_optional<perf_figures> perf;
};

struct output_values {
    impl::tensor_id id;
    impl::tensor_values values;
};

// The machine facts that set a timed move's plan and its yardsticks: the
// kernels' SIMD level and tuning, the caches as read from the machine, and
// the thresholds they make (kernels/cpu_isa.hpp): so that a figure can be
// read against what the kernels knew of the machine.
struct timed_machine {
    impl::machine_facts facts; // the level and the thresholds
    impl::kernel_tuning tuning = impl::kernel_tuning::amd;
    std::size_t listed_last_level_cache_bytes = 0;
    std::size_t last_level_cache_bytes = 0; // as the thresholds count it
    std::size_t core_cache_bytes = 0;
};

// Moves keep every partition_run's partition (a vector's elements stay
// where they are); a copy would not, so there is none.
struct graph_run {
    graph_run() = default;
    graph_run(const graph_run &) = delete;
    graph_run &operator=(const graph_run &) = delete;
    graph_run(graph_run &&) = default;
    graph_run &operator=(graph_run &&) = default;

    std::string path;
    std::optional<impl::error> failure;
    bool graph_loaded = false;
    impl::graph graph; // after inference, outputs with the layouts compile chose
    std::vector<impl::partition> partition_list; // in partition order; read through partitions
    std::vector<partition_run> partitions;       // one per partition_list's, in its order
    std::vector<output_values> outputs;
    int checks_passed = 0;
    int checks_failed = 0;
    double ms = 0; // wall time of the whole run of this file
    // Perf mode on more than one thread: how many cores they really got
    // (two vCPUs may share one core).
    std::optional<double> cores;
    int threads = 1;
    // Perf mode: what the kernels counted on where they were timed.
    std::optional<timed_machine> machine;
};

graph_run run_graph_file(const std::string &path, const options &opts);

// 0 all good; 1 a check found a mismatch; 2 invalid input; 3 unavailable or
// not implemented (and resource failures).
int exit_code(const graph_run &run);

} // namespace reshaper::driver
