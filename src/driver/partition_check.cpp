#include "driver/partition_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>

#include "backend/compiled_partition_cache.hpp"
#include "backend/engine.hpp"
#include "backend/renamed_partition.hpp"
#include "backend/graph_dump.hpp"
#include "core/fail.hpp"
#include "core/verbose_log.hpp"
#include "driver/level_scheduler.hpp"
#include "driver/partition_data.hpp"
#include "driver/partition_perf.hpp"
#include "driver/report.hpp"
#include "layout/reference.hpp"

namespace reshaper::driver {
namespace {

using impl::error;
using impl::logical_tensor;
using impl::status;
using impl::tensor_id;

struct check_outcome {
    bool passed = true;
    std::string detail;
    void fail(const std::string &why) {
        if (passed) detail = why;
        passed = false;
    }
};

// Each form of partition compiled once (backend/renamed_partition.hpp):
// the first partition of a form compiles, the others take its plan under
// their own ids. Shared by the threads that run partitions side by side.
class compiled_forms {
public:
    struct form {
        std::shared_ptr<const impl::compiled_partition> compiled;
        std::vector<tensor_id> touched; // its ids, partition_form_key's order
        std::shared_ptr<const compiled_summary::plan_words> words; // for the JSON report, when asked

        // What each output must hold, as an order of the data input's
        // elements (impl::reference_order), made by the form's first check
        // and gathered for each partition of the form: the reference walk
        // itself, a few thousand instructions a call, was a tenth of
        // checking 100,000 small partitions.
        const std::vector<std::vector<std::size_t>> &reference_orders(const impl::compiled_partition &cp,
                                                                     const impl::dims_t &data_dims) const {
            std::call_once(orders_made_, [&] {
                for (const auto &steps : cp.output_steps())
                    orders_.push_back(impl::reference_order(data_dims, steps));
            });
            return orders_;
        }

    private:
        mutable std::once_flag orders_made_;
        mutable std::vector<std::vector<std::size_t>> orders_;
    };
    // Verbose lines and dumped files say what each compile did: then every
    // partition compiles.
    static bool wanted(const options &opts) {
        const char *dump = std::getenv("RESHAPER_GRAPH_DUMP");
        return opts.mode != run_mode::perf && impl::verbose_level() == 0 && !(dump && *dump);
    }
    // What one thread holds of a form: the form, and its compiled
    // partition and words under reference counts of the thread's own.
    // Every partition of a form copies these (its renamed partition holds
    // the compiled one, its summary the words): copies of the form's own
    // pointers had both threads increment and decrement one count, whose
    // cache line then went back and forth between the cores at every
    // partition (with the shared lock's: checking 100,000 single
    // transposes took twice the CPU time on two threads as on one, perf,
    // the locked increments its hottest instructions).
    struct thread_view {
        const form *shared = nullptr;
        std::shared_ptr<const impl::compiled_partition> compiled;
        std::shared_ptr<const compiled_summary::plan_words> words;
    };
    // Every partition looks its form up, and nearly all find it: each
    // thread in its own table first, then in the shared one (its lock
    // shared by the threads' look-ups).
    const thread_view *find(const std::string &key) const {
        auto &mine = local_.local();
        if (const auto it = mine.find(key); it != mine.end()) return &it->second;
        std::shared_ptr<const form> found;
        {
            std::shared_lock lock(mutex_);
            const auto it = forms_.find(key);
            if (it == forms_.end()) return nullptr;
            found = it->second;
        }
        thread_view view{found.get(), counted_apart(found->compiled), counted_apart(found->words)};
        return &mine.emplace(key, std::move(view)).first->second;
    }
    void add(std::string key, std::shared_ptr<const form> f) {
        std::unique_lock lock(mutex_);
        forms_.emplace(std::move(key), std::move(f));
    }

private:
    // The object `p` points at under a count of its own, which holds `p`.
    template <typename T>
    static std::shared_ptr<const T> counted_apart(const std::shared_ptr<const T> &p) {
        if (!p) return nullptr;
        return std::shared_ptr<const T>(p.get(), [held = p](const T *) {});
    }

    mutable std::shared_mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const form>> forms_; // owns the forms
    // Node-based: a view's address stays while the table grows.
    mutable tbb::enumerable_thread_specific<std::unordered_map<std::string, thread_view>> local_;
};

// `form`: the partition's shared form, when forms are shared.
void check_partition(const graph_run &run, partition_run &pr, const impl::compiled_partition &cp,
                     const compiled_forms::form *form, const options &opts, partition_result &result) {
    const std::vector<host_tensor> inputs = make_inputs(run.graph, pr.part, cp.inputs());
    const std::vector<host_tensor> pristine = inputs;
    // What each output must hold: the data input's elements, read in
    // row-major order, through the reference chain of the ops up to it.
    const host_tensor &data = inputs.at(data_position(run.graph, pr.part));
    const impl::tensor_values read = data.row_major();
    std::vector<impl::tensor_values> wants;
    if (form) {
        for (const auto &order : form->reference_orders(cp, data.desc().shape))
            wants.push_back(impl::reference_gather(read, order));
    } else {
        for (const auto &steps : cp.output_steps())
            wants.push_back(impl::reference_chain(read, data.desc().shape, steps));
    }
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
    if (outcome.detail.empty()) pr.check_detail.reset();
    else pr.check_detail = outcome.detail;
    result.passed = outcome.passed;
}

// Compiles one supported partition with `eng`, writes the compiled output
// descriptions into the graph (what they were into result.replaced, when
// `keep_replaced`: side by side, for undoing),
// and checks or times it. Returns false for a partition infer mode leaves alone.
bool run_partition(graph_run &run, partition_run &pr, const std::shared_ptr<const impl::engine> &eng,
                   const options &opts, partition_result &result, compiled_forms *forms,
                   bool keep_replaced = false) {
    const bool infer_only = opts.mode == run_mode::infer;
    const bool json = opts.report == report_format::json;
    std::shared_ptr<const impl::compiled_partition> compiled;
    const compiled_forms::thread_view *same_form = nullptr;
    std::string form_key;
    std::vector<tensor_id> touched;
    try {
        // The boundary tensors are the graph's own (as its producers'
        // compiles left them), which compile takes when none are given.
        // The engine by reference: a renamed partition, which keeps this,
        // ends with this call (a copy counted on the engine's one count,
        // shared by the threads).
        const auto compile_own = [&run, &pr, &eng] { return impl::compile(run.graph, pr.part, {}, {}, eng); };
        if (forms) {
            form_key = impl::partition_form_key(run.graph, pr.part, *eng, &touched);
            same_form = forms->find(form_key);
        }
        if (same_form)
            compiled = std::make_shared<impl::renamed_partition>(same_form->compiled, same_form->shared->touched,
                                                                 touched, compile_own);
        else compiled = compile_own();
        // RESHAPER_GRAPH_DUMP=partition; forms are shared only when nothing
        // is dumped (compiled_forms::wanted), so then its look-up is spared.
        if (!forms) impl::dump_compiled_partition(run.graph, pr.part, *compiled);
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
    if (!compiled->inplace_pairs().empty()) summary.inplace_pairs = compiled->inplace_pairs();
    if (same_form && compiled->outputs().size() == 1) { // words that name no id: the form's
        summary.words = same_form->words;
    } else if (json) {
        summary.words = std::make_shared<const compiled_summary::plan_words>(compiled_summary::plan_words{
            json_string_text(impl::describe_plan(*compiled)),
            json_string_text(summary.lowering != impl::lowering_kind::alias ? compiled->why_not_alias()
                                                                            : std::string())});
    }
    // The partition's form, when forms are shared. One made here is held
    // here too: a form another thread added first under the key is kept
    // instead of it.
    const compiled_forms::form *form = same_form ? same_form->shared : nullptr;
    std::shared_ptr<compiled_forms::form> made;
    if (forms && !same_form) {
        made = std::make_shared<compiled_forms::form>();
        made->compiled = compiled;
        made->touched = std::move(touched);
        made->words = summary.words;
        form = made.get();
        forms->add(std::move(form_key), made);
    }
    pr.compiled = std::move(summary);
    if (opts.mode == run_mode::check) check_partition(run, pr, *compiled, form, opts, result);
    else if (opts.mode == run_mode::perf) time_partition(pr, *compiled, run.graph, opts);
    return true;
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

} // namespace

void compile_and_run_partitions(graph_run &run, const options &opts) {
    // Infer mode compiles too (no data is needed to choose a lowering), but
    // only where every boundary shape is known, and only on an engine that
    // exists here.
    const bool infer_only = opts.mode == run_mode::infer;
    if (opts.mode == run_mode::perf) {
        run.threads = static_cast<int>(
            tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
        run.cores = cores_of_driver_threads();
        run.machine = timing_machine();
    }
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
    std::optional<compiled_forms> forms;
    if (compiled_forms::wanted(opts)) forms.emplace();
    compiled_forms *const shared_forms = forms ? &*forms : nullptr;
    if (runs_side_by_side(opts, supported)) {
        try {
            eng = impl::engine::create(impl::engine_kind_from_string(kind));
        } catch (const error &e) {
            if (infer_only && e.code() == status::unavailable) return;
            throw;
        }
        return run_in_levels(run, compiles, [&](std::size_t i, partition_result &result) {
            run_partition(run, run.partitions[i], eng, opts, result, shared_forms, true);
        });
    }
    // One partition's result at a time, gathered as it comes (in partition
    // order, as run_in_levels gathers them): not a record per partition.
    std::vector<partition_result> result(1);
    try {
        for (std::size_t i = 0; i < run.partitions.size(); ++i) {
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
            run_partition(run, pr, eng, opts, result[0], shared_forms);
            gather(run, result, 1);
            result[0] = partition_result{};
        }
    } catch (...) {
        gather(run, result, 1);
        throw;
    }
}

} // namespace reshaper::driver
