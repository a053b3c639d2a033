#include "driver/partition_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/global_control.h>

#include "backend/engine.hpp"
#include "backend/graph_dump.hpp"
#include "core/element_codec.hpp"
#include "core/fail.hpp"
#include "core/verbose_log.hpp"
#include "driver/host_tensor.hpp"
#include "ops/registry.hpp"
#include "layout/reference.hpp"
#include "ops/reshape_request.hpp"

namespace reshaper::driver {
namespace {

using impl::error;
using impl::logical_tensor;
using impl::status;
using impl::tensor_id;

constexpr std::uint64_t data_seed = 20261122;

// A shape input with no values gets the shape the graph says the op makes,
// so that generated data agrees with the compiled output; a 0-D one gets the
// only value it may hold, 1 (a scalar output).
std::optional<impl::tensor_values> implied_shape_values(const impl::graph &g,
                                                        const impl::partition &part, tensor_id id) {
    for (std::size_t index : part.op_indices) {
        const impl::op &o = g.ops[index];
        const impl::op_schema *schema = impl::op_registry::instance().resolve(o);
        if (!schema || !schema->reshape) continue;
        const auto request = impl::read_reshape_request(*schema, o, g);
        if (!request.shape_input || o.inputs[*request.shape_input] != id) continue;
        const logical_tensor &shape_lt = g.tensor(id);
        const logical_tensor &out = g.tensor(o.outputs[0]);
        if (!out.shape_known()) return std::nullopt;
        const impl::dims_t target = request.target_is_0d ? impl::dims_t{1} : out.shape;
        impl::tensor_values v;
        v.type = shape_lt.dtype;
        v.count = target.size();
        v.bytes.assign(impl::dense_bytes(v.type, v.count), 0);
        for (std::size_t i = 0; i < v.count; ++i) // narrowed to the type's width
            impl::store_bits(v.type, v.bytes.data(), i, static_cast<std::uint64_t>(target[i]));
        return v;
    }
    return std::nullopt;
}

std::vector<host_tensor> make_inputs(const impl::graph &g, const impl::partition &part,
                                     const std::vector<logical_tensor> &descs) {
    std::vector<host_tensor> inputs;
    for (const logical_tensor &desc : descs) {
        host_tensor t(desc);
        const logical_tensor &given = g.tensor(desc.id);
        if (given.values) t.fill_from(*given.values);
        else if (auto implied = implied_shape_values(g, part, desc.id)) t.fill_from(*implied);
        else t.fill_random(data_seed + static_cast<std::uint64_t>(desc.id));
        inputs.push_back(std::move(t));
    }
    return inputs;
}

std::vector<const void *> input_pointers(const std::vector<host_tensor> &ts) {
    std::vector<const void *> p;
    for (const auto &t : ts) p.push_back(t.data());
    return p;
}

// The data input among a compiled partition's inputs (compile found it).
std::size_t data_position(const impl::graph &g, const impl::partition &part) {
    return impl::data_input_position(g, part).value();
}

// Output buffers for the compiled outputs.
std::vector<host_tensor> make_outputs(const impl::compiled_partition &cp) {
    std::vector<host_tensor> outputs;
    for (const logical_tensor &d : cp.outputs()) outputs.emplace_back(d);
    return outputs;
}

std::vector<void *> output_pointers(std::vector<host_tensor> &ts) {
    std::vector<void *> p;
    for (auto &t : ts) p.push_back(t.data());
    return p;
}

// An alias lowering's output buffers for running in place: the buffers of
// the inputs its in-place pairs name, in output order.
std::vector<void *> in_place_outputs(const impl::compiled_partition &cp,
                                     std::vector<host_tensor> &inputs) {
    std::vector<void *> shared;
    for (const auto &pair : cp.inplace_pairs())
        for (std::size_t i = 0; i < cp.inputs().size(); ++i)
            if (cp.inputs()[i].id == pair.first) shared.push_back(inputs[i].data());
    return shared;
}

struct check_outcome {
    bool passed = true;
    std::string detail;
    void fail(const std::string &why) {
        if (passed) detail = why;
        passed = false;
    }
};

// What one partition's compile and check change outside its partition_run:
// kept apart so that partitions can run side by side and be applied in
// partition order (see compile_and_run_partitions).
struct partition_result {
    std::optional<bool> passed;         // checked: whether it passed
    std::vector<output_values> values;  // --values: its outputs' values
    // Side by side: the graph's descriptions of its outputs before
    // compile's replaced them, to put back should an earlier partition fail.
    std::vector<logical_tensor> replaced;
};

void check_partition(const graph_run &run, partition_run &pr, const impl::compiled_partition &cp,
                     const options &opts, partition_result &result) {
    const std::vector<host_tensor> inputs = make_inputs(run.graph, pr.part, cp.inputs());
    const std::vector<host_tensor> pristine = inputs;
    // What each output must hold: the data input's elements, read in
    // row-major order, through the reference chain of the ops up to it.
    const host_tensor &data = inputs.at(data_position(run.graph, pr.part));
    const impl::tensor_values read = data.row_major();
    std::vector<impl::tensor_values> wants;
    for (const auto &steps : cp.output_steps())
        wants.push_back(impl::reference_chain(read, data.desc().shape, steps));
    check_outcome outcome;

    std::vector<host_tensor> outputs = make_outputs(cp);
    cp.execute(input_pointers(inputs), output_pointers(outputs));
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const host_tensor &out = outputs[k];
        const std::string id = std::to_string(out.desc().id);
        if (!out.guards_intact()) outcome.fail("wrote outside output " + id);
        impl::tensor_values got = out.row_major();
        if (got != wants[k]) outcome.fail("output " + id + " differs from the reference");
        if (opts.values) result.values.push_back({out.desc().id, std::move(got)});
    }

    // Alias lowerings run in place too: the output buffer is the input's.
    if (cp.lowering() == impl::lowering_kind::alias) {
        std::vector<host_tensor> in_place = inputs;
        const std::vector<void *> shared = in_place_outputs(cp, in_place);
        if (shared.size() != cp.outputs().size())
            outcome.fail("alias lowering without an in-place pair for every output");
        else {
            cp.execute(input_pointers(in_place), shared);
            for (std::size_t k = 0; k < cp.outputs().size(); ++k)
                // The shared buffer read through the output's layout.
                if (read_row_major(cp.outputs()[k], shared[k]) != wants[k])
                    outcome.fail("in-place output " + std::to_string(cp.outputs()[k].id) +
                                 " differs from the reference");
        }
    }

    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (!inputs[i].same_contents(pristine[i]))
            outcome.fail("input " + std::to_string(inputs[i].desc().id) + " was modified");

    pr.check_passed = outcome.passed;
    pr.check_detail = outcome.detail;
    result.passed = outcome.passed;
}

double median_ms(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

// Wall time of one run, in milliseconds.
template <typename F>
double elapsed_ms(F &&run) {
    const auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

template <typename F>
double time_median(int reps, F &&run_once) {
    for (int i = 0; i < 2; ++i) run_once(); // warm-up
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) samples.push_back(elapsed_ms(run_once));
    return median_ms(std::move(samples));
}

// Medians of two runs timed in turn, rep by rep (after a warm-up of each).
template <typename A, typename B>
std::pair<double, double> time_medians_in_turn(int reps, A &&run_a, B &&run_b) {
    for (int i = 0; i < 2; ++i) run_a(), run_b();
    std::vector<double> a, b;
    for (int i = 0; i < reps; ++i) {
        a.push_back(elapsed_ms(run_a));
        b.push_back(elapsed_ms(run_b));
    }
    return {median_ms(std::move(a)), median_ms(std::move(b))};
}

std::int64_t logical_bytes(const logical_tensor &lt) {
    const auto count = impl::checked_volume(lt.shape).value_or(0);
    return static_cast<std::int64_t>(impl::dense_bytes(lt.dtype, static_cast<std::size_t>(count)));
}

void time_partition(partition_run &pr, const impl::compiled_partition &cp, const impl::graph &g,
                    const options &opts) {
    std::vector<host_tensor> inputs = make_inputs(g, pr.part, cp.inputs());
    std::vector<host_tensor> outputs = make_outputs(cp);
    const auto in_ptrs = input_pointers(inputs);
    const auto out_ptrs = output_pointers(outputs);

    perf_figures f;
    const std::size_t data_at = data_position(g, pr.part);
    const logical_tensor &data = cp.inputs().at(data_at);
    f.bytes = logical_bytes(data);
    for (const logical_tensor &d : cp.outputs()) f.bytes += logical_bytes(d);
    // The yardstick: memcpy of as many bytes (half read, half written) from
    // the data input's buffer into the first output's, timed in turn with
    // the execute so a noisy neighbour slows both alike.
    const std::size_t copy_bytes =
        std::min({static_cast<std::size_t>(f.bytes / 2), inputs[data_at].buffer_bytes(),
                  outputs.empty() ? std::size_t{0} : outputs[0].buffer_bytes()});
    if (copy_bytes > 0) {
        const auto [execute_ms, copy_ms] = time_medians_in_turn(
            opts.reps, [&] { cp.execute(in_ptrs, out_ptrs); },
            [&] { std::memcpy(outputs[0].data(), inputs[data_at].data(), copy_bytes); });
        f.ms = execute_ms;
        if (copy_ms > 0) f.memcpy_gbps = 2.0 * static_cast<double>(copy_bytes) / (copy_ms * 1e6);
    } else {
        f.ms = time_median(opts.reps, [&] { cp.execute(in_ptrs, out_ptrs); });
    }
    f.gbps = f.ms > 0 ? static_cast<double>(f.bytes) / (f.ms * 1e6) : 0;
    if (cp.lowering() == impl::lowering_kind::alias) {
        const std::vector<void *> shared = in_place_outputs(cp, inputs);
        f.inplace_ms = time_median(opts.reps, [&] { cp.execute(in_ptrs, shared); });
    }
    pr.perf = f;
}

} // namespace

namespace {

// Compiles one supported partition with `eng`, writes the compiled output
// descriptions into the graph (what they were into result.replaced, when
// `keep_replaced`: side by side, for undoing),
// and checks or times it. Returns false for a partition infer mode leaves alone.
bool run_partition(graph_run &run, partition_run &pr, const std::shared_ptr<const impl::engine> &eng,
                   const options &opts, partition_result &result, bool keep_replaced = false) {
    const bool infer_only = opts.mode == run_mode::infer;
    std::shared_ptr<const impl::compiled_partition> compiled;
    try {
        // The boundary tensors are the graph's own (as its producers'
        // compiles left them), which compile takes when none are given.
        compiled = impl::compile(run.graph, pr.part, {}, {}, eng);
        impl::dump_compiled_partition(run.graph, pr.part, *compiled); // RESHAPER_GRAPH_DUMP=partition
    } catch (const error &e) {
        // Infer mode promises shapes, not a lowering: a partition that
        // cannot compile as given (an `any` input, say) is reported
        // without one. The executing modes report the error, naming
        // the partition's (first) op when compile named none.
        if (infer_only) return false;
        if (e.op() || pr.part.op_indices.empty()) throw;
        const impl::op_ref first = run.graph.ops[pr.part.op_indices.front()].ref();
        impl::fail(e.rule_id(), // its rule, in context
                   "partition " + std::to_string(pr.part.id) + " of " + impl::describe(first) +
                       (pr.part.op_indices.size() > 1 ? " and more" : "") + ": " + e.what(),
                   first);
    }
    for (const logical_tensor &out : compiled->outputs()) {
        logical_tensor &lt = run.graph.tensor(out.id);
        if (keep_replaced) result.replaced.push_back(lt);
        auto values = std::move(lt.values);
        lt = out;
        lt.values = std::move(values);
    }
    compiled_summary summary;
    summary.lowering = compiled->lowering();
    summary.inplace_pairs = compiled->inplace_pairs();
    if (opts.report == report_format::json) {
        summary.plan = impl::describe_plan(*compiled);
        if (summary.lowering != impl::lowering_kind::alias) summary.why_not_alias = compiled->why_not_alias();
    }
    pr.compiled = std::move(summary);
    if (opts.mode == run_mode::check) check_partition(run, pr, *compiled, opts, result);
    else if (opts.mode == run_mode::perf) time_partition(pr, *compiled, run.graph, opts);
    return true;
}

// The check counts and values of the partitions that ran, in partition order.
void gather(graph_run &run, std::vector<partition_result> &results, std::size_t count) {
    for (std::size_t i = 0; i < count && i < results.size(); ++i) {
        if (results[i].passed) (*results[i].passed ? run.checks_passed : run.checks_failed) += 1;
        for (output_values &v : results[i].values) run.outputs.push_back(std::move(v));
    }
}

// Whether check and infer mode may run partitions side by side: more than
// one thread, and nothing that reports partitions in the order they ran
// (verbose lines, dumped files). Perf mode times one partition at a time.
bool runs_side_by_side(const options &opts, std::size_t supported) {
    const char *dump = std::getenv("RESHAPER_GRAPH_DUMP");
    return (opts.mode == run_mode::check || opts.mode == run_mode::infer) && supported > 1 &&
           impl::verbose_level() == 0 && !(dump && *dump) &&
           tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) > 1;
}

// Check (or infer) mode over threads; `compiles` says whether a partition
// runs, asked when its turn comes. A partition reads the descriptions its producers'
// compiles wrote into the graph, so partitions run level by level: a
// partition's level is one past its producers' highest (a graph of
// independent partitions is one level). Within a level none reads what
// another writes. The outcome is the one-at-a-time outcome: should a
// partition fail, the partitions before it still run, those after it are
// undone (their summaries and the graph descriptions they wrote), and its
// error is thrown.
template <class Compiles>
void check_in_levels(graph_run &run, const std::shared_ptr<const impl::engine> &eng, const options &opts,
                     const Compiles &compiles) {
    const std::size_t n = run.partitions.size();
    std::vector<std::size_t> level(n, 0);
    std::unordered_map<tensor_id, std::size_t> producer; // tensor -> partition
    std::vector<std::vector<std::size_t>> levels;
    for (std::size_t i = 0; i < n; ++i) {
        const impl::partition &p = run.partitions[i].part;
        if (!p.supported) continue;
        for (tensor_id id : p.inputs)
            if (const auto it = producer.find(id); it != producer.end())
                level[i] = std::max(level[i], level[it->second] + 1);
        for (tensor_id id : p.outputs) producer[id] = i;
        if (level[i] >= levels.size()) levels.resize(level[i] + 1);
        levels[level[i]].push_back(i);
    }
    // The lowest partition of each level and the levels after it: a
    // partition's undo record is needed only while a lower one may still fail.
    std::vector<std::size_t> lowest_from(levels.size() + 1, n);
    for (std::size_t l = levels.size(); l-- > 0;)
        lowest_from[l] = std::min(lowest_from[l + 1], levels[l].empty() ? n : levels[l].front());
    std::vector<partition_result> results(n);
    std::vector<std::exception_ptr> failures(n);
    std::vector<char> ran(n, 0); // bytes, not vector<bool>'s shared bits: threads set them
    std::size_t first_failure = n;
    // A level in blocks of partitions, in order, so that undo records are
    // dropped as they stop being needed (they are a tensor description per
    // output: 18 MB for 100,000 partitions).
    constexpr std::size_t block = 4096;
    for (std::size_t l = 0; l < levels.size(); ++l) {
        std::vector<std::size_t> &members = levels[l];
        for (std::size_t from = 0; from < members.size(); from += block) {
            const std::size_t to = std::min(members.size(), from + block);
            tbb::parallel_for(tbb::blocked_range<std::size_t>(from, to, 8),
                              [&](const tbb::blocked_range<std::size_t> &r) {
                                  for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                      const std::size_t i = members[k];
                                      // After a failure, only the partitions before it (as one at a time).
                                      if (i > first_failure || !compiles(run.partitions[i])) continue;
                                      ran[i] = 1;
                                      try {
                                          run_partition(run, run.partitions[i], eng, opts, results[i], true);
                                      } catch (...) {
                                          failures[i] = std::current_exception();
                                      }
                                  }
                              });
            for (std::size_t k = from; k < to; ++k)
                if (failures[members[k]]) first_failure = std::min(first_failure, members[k]);
            // Below every partition still to run (and the first failure), none can be undone.
            const std::size_t undo_above = std::min({first_failure, to < members.size() ? members[to] : n,
                                                      lowest_from[l + 1]});
            for (std::size_t k = from; k < to; ++k)
                if (members[k] < undo_above) std::vector<logical_tensor>().swap(results[members[k]].replaced);
        }
    }
    if (first_failure == n) return gather(run, results, n);
    for (std::size_t i = n; i-- > first_failure + 1;) {
        if (!ran[i]) continue;
        for (logical_tensor &lt : results[i].replaced) run.graph.tensor(lt.id) = std::move(lt);
        partition_run &pr = run.partitions[i];
        pr.compiled.reset();
        pr.check_passed.reset();
        pr.check_detail.clear();
    }
    gather(run, results, first_failure + 1);
    std::rethrow_exception(failures[first_failure]);
}

} // namespace

void compile_and_run_partitions(graph_run &run, const options &opts) {
    // Infer mode compiles too (no data is needed to choose a lowering), but
    // only where every boundary shape is known, and only on an engine that
    // exists here.
    const bool infer_only = opts.mode == run_mode::infer;
    const std::string kind = opts.engine.value_or(run.graph.engine_kind);
    const auto known = [&](tensor_id id) { return run.graph.tensor(id).shape_known(); };
    const auto compiles = [&](const partition_run &pr) {
        return pr.part.supported &&
               (!infer_only || (std::all_of(pr.part.inputs.begin(), pr.part.inputs.end(), known) &&
                                std::all_of(pr.part.outputs.begin(), pr.part.outputs.end(), known)));
    };
    const std::size_t supported = static_cast<std::size_t>(std::count_if(
        run.partitions.begin(), run.partitions.end(), [](const partition_run &pr) { return pr.part.supported; }));
    std::shared_ptr<const impl::engine> eng;
    if (runs_side_by_side(opts, supported)) {
        try {
            eng = impl::engine::create(impl::engine_kind_from_string(kind));
        } catch (const error &e) {
            if (infer_only && e.code() == status::unavailable) return;
            throw;
        }
        return check_in_levels(run, eng, opts, compiles);
    }
    std::vector<partition_result> results(run.partitions.size());
    std::size_t i = 0;
    try {
        for (; i < run.partitions.size(); ++i) {
            partition_run &pr = run.partitions[i];
            if (!compiles(pr)) continue;
            if (!eng) {
                try {
                    eng = impl::engine::create(impl::engine_kind_from_string(kind));
                } catch (const error &e) {
                    if (infer_only && e.code() == status::unavailable) return;
                    throw;
                }
            }
            run_partition(run, pr, eng, opts, results[i]);
        }
    } catch (...) {
        gather(run, results, i + 1);
        throw;
    }
    gather(run, results, results.size());
}

} // namespace reshaper::driver
