// Front-half throughput: validation + shape inference and partitioning of
// large graphs (the partitioner must stay linear: 100,000 ops in well under
// a second).
#include <benchmark/benchmark.h>

#include "ops/graph_inference.hpp"
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
    for (auto _ : state) benchmark::DoNotOptimize(get_partitions(g, partition_policy::fusion));
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

} // namespace

