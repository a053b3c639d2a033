// The fixed costs a caller pays per partition: compile of a single-op
// partition (first time, and from the compiled-partition cache) and the
// execute of small tensors (where no thread fork may happen; also of 4 KiB
// transposes whose graphs take a constant shape input), plus the
// 2-thread against 1-thread speed-up of a large transpose, and what a chain
// of ops costs against the one movement it composes to.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <dnnl.hpp>
#include <oneapi/tbb/task_arena.h>

#include "backend/compiled_partition.hpp"
#include "backend/compiled_partition_cache.hpp"
#include "backend/engine.hpp"
#include "core/line_aligned.hpp"
#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"
#include "backend/claims.hpp"
#include "constant_shape_graphs.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;

namespace {

// A StaticReshape of f32 [n, c, hw] stored with `strides` to [n, c * hw].
std::string reshape_json(dim_t n, dim_t c, dim_t hw, const dims_t &strides) {
    auto list = [](const dims_t &d) {
        std::string s = "[";
        for (std::size_t k = 0; k < d.size(); ++k) {
            if (k) s += ",";
            s += std::to_string(d[k]);
        }
        return s + "]";
    };
    return R"({"version":"3.3.0","engine_kind":"cpu","fpmath_mode":"strict","graph":[{"id":0,"name":"r","kind":"StaticReshape",
      "attrs":{"special_zero":{"type":"bool","value":0},"shape":{"type":"s64[]","value":)" +
           list({n, c * hw}) + R"(}},
      "inputs":[{"id":0,"dtype":"f32","shape":)" + list({n, c, hw}) + R"(,"stride":)" + list(strides) +
           R"(,"layout_type":"strided","property_type":"undef"}],
      "outputs":[{"id":1,"dtype":"f32","shape":)" + list({n, c * hw}) +
           R"(,"layout_type":"strided","property_type":"undef"}]}]})";
}

struct prepared {
    graph g;
    partition p;
};

prepared prepare(dim_t n, dim_t c, dim_t hw, bool permuted) {
    prepared r;
    r.g = read_graph_json(reshape_json(n, c, hw, permuted ? dims_t{c * hw, 1, c} : dims_t{c * hw, hw, 1}));
    infer_graph_shapes(r.g);
    r.p = get_partitions(r.g, partition_policy::fusion, backend_claims(engine_kind::cpu)).at(0);
    return r;
}

const std::shared_ptr<const engine> &cpu() {
    static const std::shared_ptr<const engine> e = engine::create(engine_kind::cpu);
    return e;
}

void bm_compile_first(benchmark::State &state) {
    const prepared pr = prepare(1, 16, 64, true);
    for (auto _ : state)
        benchmark::DoNotOptimize(compile(pr.g, pr.p, {pr.g.tensor(0)}, {pr.g.tensor(1)}, cpu()));
}

void bm_compile_cached(benchmark::State &state) {
    const prepared pr = prepare(1, 16, 64, true);
    compiled_partition_cache cache(16);
    for (auto _ : state)
        benchmark::DoNotOptimize(cache.get_or_compile(pr.g, pr.p, {pr.g.tensor(0)}, {pr.g.tensor(1)}, cpu()));
}

// Executes of `bytes` of f32: a transpose (permuted) or an alias into a new buffer.
void bm_execute(benchmark::State &state, bool permuted) {
    const auto bytes = static_cast<dim_t>(state.range(0));
    const dim_t c = 16, hw = std::max<dim_t>(1, bytes / 4 / c);
    const prepared pr = prepare(1, c, hw, permuted);
    const auto cp = compile(pr.g, pr.p, {pr.g.tensor(0)}, {pr.g.tensor(1)}, cpu());
    std::vector<float> in(static_cast<std::size_t>(c * hw), 1.0f), out(in.size());
    for (auto _ : state) {
        cp->execute({in.data()}, {out.data()});
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * c * hw * 4);
    state.SetLabel(std::string(to_string(cp->lowering())));
}

// The execute of a 4 KiB transpose whose graph takes a constant shape
// input (constant_shape_graphs.hpp), its buffer holding the graph's values,
// as the driver's perf mode runs it.
void bm_execute_constant_shape(benchmark::State &state, bool chain) {
    prepared pr;
    pr.g = read_graph_json(reshaper_bench::constant_shape_json(chain));
    infer_graph_shapes(pr.g);
    pr.p = get_partitions(pr.g, partition_policy::fusion, backend_claims(engine_kind::cpu)).at(0);
    const auto cp = compile(pr.g, pr.p, {}, {}, cpu());
    std::vector<float, line_aligned_allocator<float>> in(1024, 1.0f), out(1024);
    std::vector<const void *> ins;
    for (const logical_tensor &lt : cp->inputs())
        ins.push_back(lt.id == 0 ? static_cast<const void *>(in.data())
                                 : reshaper_bench::constant_shape_buffer(chain));
    const std::vector<void *> outs{out.data()};
    for (auto _ : state) {
        cp->execute(ins, outs);
        benchmark::ClobberMemory();
    }
    state.SetLabel(std::string(to_string(cp->lowering())) + ": " + cp->lowering_details());
}

// The f32 NHWC -> NCHW transpose of 64 MiB on 1 and on 2 threads.
void bm_threads(benchmark::State &state) {
    const int threads = static_cast<int>(state.range(0));
    const prepared pr = prepare(16, 256, 4096, true);
    const auto cp = compile(pr.g, pr.p, {pr.g.tensor(0)}, {pr.g.tensor(1)}, cpu());
    // Line-aligned, as framework allocators give buffers (std::vector's
    // start 16 bytes into a line).
    std::vector<float, line_aligned_allocator<float>> in(std::size_t{16} * 256 * 4096, 1.0f), out(in.size());
    oneapi::tbb::task_arena arena(threads);
    for (auto _ : state) {
        arena.execute([&] { cp->execute({in.data()}, {out.data()}); });
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * 8));
}

op make_op(std::int64_t id, const std::string &kind, tensor_id in, tensor_id out,
            attribute_map attrs) {
    op o;
    o.id = id;
    o.name = kind + std::to_string(id);
    o.kind = kind;
    o.attrs = std::move(attrs);
    o.inputs = {in};
    o.outputs = {out};
    return o;
}

logical_tensor bf16_tensor(tensor_id id, dims_t shape, dims_t strides = {}) {
    logical_tensor lt;
    lt.id = id;
    lt.dtype = data_type::bf16;
    lt.shape = std::move(shape);
    lt.strides = std::move(strides);
    return lt;
}

// Attention's merge heads, bf16 [16,16,2048,64] (b,h,s,d) to [32768,1024]
// (b*s, h*d): as the chain a graph states (StaticTranspose, then
// StaticReshape), or as the one movement it composes to (a StaticReshape
// of the input seen through the transposed strides).
void bm_merge_heads(benchmark::State &state, bool as_chain) {
    const dims_t bhsd{16, 16, 2048, 64}, bshd{16, 2048, 16, 64}, merged{32768, 1024};
    const std::vector<std::int64_t> target(merged.begin(), merged.end());
    prepared pr;
    if (as_chain) {
        pr.g.tensors[0] = bf16_tensor(0, bhsd);
        pr.g.tensors[1] = bf16_tensor(1, bshd);
        pr.g.tensors[2] = bf16_tensor(2, merged);
        pr.g.ops.push_back(make_op(0, "StaticTranspose", 0, 1, {{"order", std::vector<std::int64_t>{0, 2, 1, 3}}}));
        pr.g.ops.push_back(make_op(1, "StaticReshape", 1, 2, {{"shape", target}, {"special_zero", false}}));
    } else {
        pr.g.tensors[0] = bf16_tensor(0, bshd, {2048 * 16 * 64, 64, 2048 * 64, 1});
        pr.g.tensors[2] = bf16_tensor(2, merged);
        pr.g.ops.push_back(make_op(0, "StaticReshape", 0, 2, {{"shape", target}, {"special_zero", false}}));
    }
    infer_graph_shapes(pr.g);
    pr.p = get_partitions(pr.g, partition_policy::fusion, backend_claims(engine_kind::cpu)).at(0);
    const auto cp = compile(pr.g, pr.p, {pr.g.tensor(0)}, {pr.g.tensor(2)}, cpu());
    std::vector<std::uint16_t> in(std::size_t{16} * 16 * 2048 * 64, 0x3f80), out(in.size());
    for (auto _ : state) {
        cp->execute({in.data()}, {out.data()});
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * 4));
    state.SetLabel(std::string(to_string(cp->lowering())) + ": " + cp->lowering_details());
}

// Padded nChw16c (250 channels: 15 whole blocks and 10 of a 16th), f32
// [16,250,64,64], to plain nchw (to_blocked false) or back: reshaper's
// compiled partition against a direct oneDNN reorder of the same layouts
// in the same program (mover "reshaper" or "onednn").
void bm_padded(benchmark::State &state, bool to_blocked, bool onednn) {
    const dims_t dims{16, 250, 64, 64};
    const std::size_t padded_elements = std::size_t{16} * 256 * 64 * 64, plain_elements = std::size_t{16} * 250 * 64 * 64;
    // Line-aligned, as framework allocators give buffers.
    std::vector<float, line_aligned_allocator<float>> blocked(padded_elements, 1.0f), plain(plain_elements, 2.0f);
    const void *src = to_blocked ? static_cast<const void *>(plain.data()) : blocked.data();
    void *dst = to_blocked ? static_cast<void *>(blocked.data()) : plain.data();
    if (onednn) {
        static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
        const dnnl::memory::dims d(dims.begin(), dims.end());
        const dnnl::memory::desc plain_md(d, dnnl::memory::data_type::f32, dnnl::memory::format_tag::nchw);
        const dnnl::memory::desc blocked_md(d, dnnl::memory::data_type::f32, dnnl::memory::format_tag::nChw16c);
        dnnl::memory from(to_blocked ? plain_md : blocked_md, eng, const_cast<void *>(src));
        dnnl::memory to(to_blocked ? blocked_md : plain_md, eng, dst);
        dnnl::reorder r(from, to);
        dnnl::stream st(eng);
        for (auto _ : state) {
            r.execute(st, from, to);
            st.wait();
            benchmark::ClobberMemory();
        }
    } else {
        logical_tensor in;
        in.id = 0;
        in.dtype = data_type::f32;
        in.shape = dims;
        logical_tensor out = in;
        out.id = 1;
        logical_tensor &blocked_lt = to_blocked ? out : in;
        blocked_lt.layout = layout_type::opaque;
        blocked_lt.format = "nChw16c";
        prepared pr;
        pr.g.tensors[0] = in;
        pr.g.tensors[1] = out;
        pr.g.ops.push_back(make_op(0, "StaticReshape", 0, 1,
                                   {{"shape", std::vector<std::int64_t>(dims.begin(), dims.end())},
                                    {"special_zero", false}}));
        infer_graph_shapes(pr.g);
        pr.p = get_partitions(pr.g, partition_policy::fusion, backend_claims(engine_kind::cpu)).at(0);
        const auto cp = compile(pr.g, pr.p, {in}, {out}, cpu());
        for (auto _ : state) {
            cp->execute({src}, {dst});
            benchmark::ClobberMemory();
        }
        state.SetLabel(std::string(to_string(cp->lowering())) + ": " + cp->lowering_details());
    }
    // Read plus written: the plain tensor's bytes and the blocked buffer's.
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * (padded_elements + plain_elements) * 4));
}

} // namespace

BENCHMARK_CAPTURE(bm_padded, from_blocked_reshaper, false, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_padded, from_blocked_onednn, false, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_padded, to_blocked_reshaper, true, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_padded, to_blocked_onednn, true, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_merge_heads, chain, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_merge_heads, one_movement, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_compile_first)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_compile_cached)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_execute, transpose, true)->RangeMultiplier(4)->Range(4 << 10, 1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_execute, alias_copy, false)->RangeMultiplier(4)->Range(4 << 10, 1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_execute_constant_shape, nhwc_reshape_4KiB, false);
BENCHMARK_CAPTURE(bm_execute_constant_shape, transpose_reshape_4KiB, true);
BENCHMARK(bm_threads)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
