#include "driver/graph_run.hpp"

#include <algorithm>
#include <chrono>
#include <new>
#include <optional>

#include "backend/claims.hpp"
#include "backend/engine.hpp"
#include "backend/graph_dump.hpp"
#include "core/fail.hpp"
#include "driver/partition_check.hpp"
#include "io/graph_json.hpp"
#include "layout/memory_layout.hpp"
#include "ops/graph_inference.hpp"
#include "onnx/onnx_model.hpp"

namespace reshaper::driver {

using impl::error;
using impl::fail;
using impl::rule;
using impl::status;

namespace {

// Whether a tensor's "values" are fed as data but not yet known at compile.
bool fed_but_not_constant(const impl::logical_tensor &lt) {
    return lt.values && lt.property != impl::property_type::constant;
}

// Executing modes feed every tensor's "values" as its data, so the driver
// knows run-time shape values before compiling: it infers once more with
// them as constants and gives compile the concrete shapes that follow (as a
// benchdnn user gives concrete shapes). Execute still checks the values.
void fill_shapes_from_fed_values(impl::graph &g, impl::graph fed) {
    for (auto &[id, lt] : fed.tensors)
        if (fed_but_not_constant(lt)) lt.property = impl::property_type::constant;
    impl::infer_graph_shapes(fed);
    for (auto &[id, lt] : g.tensors)
        if (!lt.shape_known()) lt.shape = fed.tensor(id).shape;
}

void load_and_partition(graph_run &run, const options &opts) {
    if (impl::is_onnx_path(run.path)) {
        impl::onnx_import model = impl::read_onnx_file(run.path, opts.free_dims, opts.engine.value_or("cpu"));
        // Compiling every partition needs every shape: symbolic input dims bound.
        if (opts.mode != run_mode::infer) impl::require_bound_dims(model, run.path);
        run.graph = std::move(model.g);
    } else {
        run.graph = impl::read_graph_file(run.path);
    }
    run.graph_loaded = true;
    // The graph as loaded only when fed values will be inferred again: a
    // copy of a graph of a million ops is a gigabyte.
    std::optional<impl::graph> as_loaded;
    if (opts.mode != run_mode::infer &&
        std::any_of(run.graph.tensors.begin(), run.graph.tensors.end(),
                    [](const auto &t) { return fed_but_not_constant(t.second); }))
        as_loaded = run.graph;
    // Held only until the graph is partitioned: a 100,000-op graph's
    // topology is 9 MB, which had stood beside every partition's record
    // at the peak of checking it.
    std::optional<impl::graph_topology> topology(impl::infer_graph_shapes(run.graph));
    impl::dump_finalized_graph(run.graph); // RESHAPER_GRAPH_DUMP=graph
    if (as_loaded) fill_shapes_from_fed_values(run.graph, std::move(*as_loaded));
    // A format tag the file names must be one we can lay out, in every mode.
    for (const auto &[id, lt] : run.graph.tensors)
        if (lt.layout == impl::layout_type::opaque && !lt.format.empty())
            impl::parse_format_tag(lt.format, lt.shape.size());
    const std::string engine = opts.engine.value_or(run.graph.engine_kind);
    if (engine != "cpu" && engine != "gpu")
        fail(rule::known_engine_kind, "engine_kind must be cpu or gpu, got '" + engine + "'");
    run.partition_list = impl::get_partitions(
        run.graph, *topology, opts.policy, impl::backend_claims(impl::engine_kind_from_string(engine)));
    topology.reset();
    // Exactly as many: a growing array of 100,000 partitions held 1.5 times
    // their size for a moment, the peak of checking such a graph.
    run.partitions.reserve(run.partition_list.size());
    for (const impl::partition &p : run.partition_list) run.partitions.push_back(partition_run{p, std::nullopt, {}, {}, {}});
}

} // namespace

graph_run run_graph_file(const std::string &path, const options &opts) {
    graph_run run;
    run.path = path;
    const auto start = std::chrono::steady_clock::now();
    try {
        load_and_partition(run, opts);
        compile_and_run_partitions(run, opts);
    } catch (const error &e) {
        run.failure = e;
    } catch (const std::bad_alloc &) {
        run.failure = error(rule::memory_limit, "out of memory while running " + path);
    } catch (const std::exception &e) {
        run.failure = error(rule::internal_invariant, e.what());
    }
    run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return run;
}

int exit_code(const graph_run &run) {
    if (run.failure) {
        switch (run.failure->code()) {
        case status::invalid_arguments:
        case status::invalid_graph:
        case status::invalid_graph_op:
        case status::invalid_shape:
        case status::invalid_data_type: return 2;
        default: return 3;
        }
    }
    return run.checks_failed > 0 ? 1 : 0;
}

} // namespace reshaper::driver
