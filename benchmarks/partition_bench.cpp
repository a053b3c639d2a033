// Front-half throughput: validation + shape inference and partitioning of
// large graphs (the partitioner must stay linear: 100,000 ops in well under
// a second).
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <map>
#include <memory>
#include <string>

#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "io/graph_json.hpp"
#include "large_graph.hpp"
#include "ops/graph_inference.hpp"
#include "backend/claims.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;

namespace {

// n ops: runs of three reshapes (a fusable chain) separated by an op of a
// kind this backend does not handle.
graph make_graph(std::int64_t n) {
    graph g;
    logical_tensor lt;
    lt.id = 0;
    lt.dtype = data_type::f32;
    lt.shape = {64, 32};
    g.tensors[0] = lt;
    tensor_id last = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const bool reshape = i % 4 != 3;
        const dims_t shape = (i % 2 == 0) ? dims_t{32, 64} : dims_t{64, 32};
        logical_tensor out = lt;
        out.id = last + 1;
        out.shape = reshape ? shape : g.tensors[last].shape;
        g.tensors[out.id] = out;
        op o;
        o.id = i;
        o.name = "op" + std::to_string(i);
        o.kind = reshape ? "StaticReshape" : "ReLU";
        if (reshape) {
            o.attrs["shape"] = std::vector<std::int64_t>(shape.begin(), shape.end());
            o.attrs["special_zero"] = false;
        }
        o.inputs = {last};
        o.outputs = {out.id};
        g.ops.push_back(std::move(o));
        last = out.id;
    }
    return g;
}

void BM_GetPartitions(benchmark::State &state) {
    const graph g = make_graph(state.range(0));
    const backend_support &cpu = backend_claims(engine_kind::cpu);
    for (auto _ : state) benchmark::DoNotOptimize(get_partitions(g, partition_policy::fusion, cpu));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_GetPartitions)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_InferGraphShapes(benchmark::State &state) {
    const graph g = make_graph(state.range(0));
    for (auto _ : state) {
        graph copy = g;
        infer_graph_shapes(copy);
        benchmark::DoNotOptimize(copy);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_InferGraphShapes)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);



// ---- large graph files (issue 7) ----------------------------------------------
// The file reshaper-run is measured on (large_graph.hpp: its goals), read
// from memory.

const std::string &chains_json(std::int64_t n) {
    static std::map<std::int64_t, std::string> texts;
    auto it = texts.find(n);
    if (it == texts.end()) it = texts.emplace(n, reshaper::bench::large_graph_json(n)).first;
    return it->second;
}

const graph &chains_graph(std::int64_t n) { // read and inferred
    static std::map<std::int64_t, graph> graphs;
    auto it = graphs.find(n);
    if (it == graphs.end()) {
        graph g = read_graph_json(chains_json(n));
        infer_graph_shapes(g);
        it = graphs.emplace(n, std::move(g)).first;
    }
    return it->second;
}

// With the threads of the second argument: from two, the ops of a text of
// a MiB and more are read on a second thread while the parser goes on.
void BM_LargeGraph_ReadJson(benchmark::State &state) {
    const tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(state.range(1)));
    const std::string &text = chains_json(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(read_graph_json(text));
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

void BM_LargeGraph_Infer(benchmark::State &state) {
    const graph &g = chains_graph(state.range(0));
    for (auto _ : state) {
        state.PauseTiming();
        graph copy = g;
        state.ResumeTiming();
        infer_graph_shapes(copy);
        benchmark::DoNotOptimize(copy);
        state.PauseTiming();
        { graph gone = std::move(copy); }
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_LargeGraph_Partition(benchmark::State &state) {
    const graph &g = chains_graph(state.range(0));
    const backend_support &cpu = backend_claims(engine_kind::cpu);
    for (auto _ : state) benchmark::DoNotOptimize(get_partitions(g, partition_policy::fusion, cpu));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Every partition compiled, as reshaper-run's infer and check modes do.
void BM_LargeGraph_CompileAll(benchmark::State &state) {
    const graph &g = chains_graph(state.range(0));
    const std::vector<partition> parts =
        get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::cpu));
    const auto eng = engine::create(engine_kind::cpu);
    for (auto _ : state) {
        std::vector<std::shared_ptr<const compiled_partition>> compiled;
        compiled.reserve(parts.size());
        for (const partition &p : parts) {
            std::vector<logical_tensor> ins, outs;
            for (tensor_id id : p.inputs) ins.push_back(g.tensor(id));
            for (tensor_id id : p.outputs) outs.push_back(g.tensor(id));
            compiled.push_back(compile(g, p, ins, outs, eng));
        }
        benchmark::DoNotOptimize(compiled);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

#define LARGE_GRAPH_SIZES ->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime()
BENCHMARK(BM_LargeGraph_ReadJson)
    ->Args({10000, 1})->Args({10000, 2})->Args({100000, 1})->Args({100000, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LargeGraph_Infer) LARGE_GRAPH_SIZES;
BENCHMARK(BM_LargeGraph_Partition) LARGE_GRAPH_SIZES;
BENCHMARK(BM_LargeGraph_CompileAll) LARGE_GRAPH_SIZES;

} // namespace
