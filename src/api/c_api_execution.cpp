// C API: engines, compilation, compiled-partition queries, execution.
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/c_types.hpp"
#include "api/error_boundary.hpp"
#include "api/handles.hpp"
#include "backend/graph_dump.hpp"
#include "backend/buffer_size.hpp"
#include "backend/compiled_partition_cache.hpp"
#include "reshaper/reshaper.h"
#include "core/fail.hpp"

using namespace reshaper;
using api::call;
using api::guarded;

namespace {

// The bytes a buffer for `lt` needs, or an error saying why they cannot be
// known.
std::size_t required_bytes(const impl::logical_tensor &lt) {
    if (auto bytes = impl::buffer_bytes(lt)) return *bytes;
    const std::string name = "logical tensor " + std::to_string(lt.id);
    std::string why = "a stride is negative or the size overflows";
    if (!lt.shape_known())
        why = "its shape " + impl::dims_to_string(lt.shape) + " has unknown dims";
    else if (lt.layout == impl::layout_type::any)
        why = "its layout is any (compile first: the compiled outputs have concrete layouts)";
    impl::fail(impl::rule::buffer_size_known, name + ": the buffer size cannot be known: " + why);
}

// Converts into `out`, reusing its tensors' buffers.
void to_impl(const reshaper_logical_tensor_t *lts, std::size_t n, const impl::graph &g,
             std::vector<impl::logical_tensor> &out) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) api::assign_impl(lts[i], &g, out[i]);
}

// What compile converts its boundary tensors into, kept per thread so that
// the cache-hit compiles a host makes again and again allocate nothing for
// them (vectors per call were a third of a hit's time: perf, api_bench).
struct call_scratch {
    std::vector<impl::logical_tensor> inputs, outputs;
};
call_scratch &scratch() {
    thread_local call_scratch s;
    return s;
}

// The cache entry that served the partition handle's last compile, when
// this request is that one byte for byte; else none.
impl::compiled_partition_cache::entry_ref same_request(
        reshaper_compile_memo &memo, const std::shared_ptr<const impl::engine> &eng, std::size_t num_inputs,
        const reshaper_logical_tensor_t *inputs, std::size_t num_outputs, const reshaper_logical_tensor_t *outputs) {
    std::lock_guard lock(memo.mutex);
    const std::size_t bytes = sizeof(reshaper_logical_tensor_t);
    if (memo.served.generation == 0 || memo.engine != eng || memo.num_inputs != num_inputs ||
        memo.given.size() != num_inputs + num_outputs ||
        (num_inputs != 0 && std::memcmp(memo.given.data(), inputs, num_inputs * bytes) != 0) ||
        (num_outputs != 0 && std::memcmp(memo.given.data() + num_inputs, outputs, num_outputs * bytes) != 0))
        return {};
    return memo.served;
}

void remember_request(reshaper_compile_memo &memo, const std::shared_ptr<const impl::engine> &eng,
                      std::size_t num_inputs, const reshaper_logical_tensor_t *inputs, std::size_t num_outputs,
                      const reshaper_logical_tensor_t *outputs,
                      const impl::compiled_partition_cache::entry_ref &served) {
    std::lock_guard lock(memo.mutex);
    memo.engine = eng;
    memo.num_inputs = num_inputs;
    memo.given.assign(inputs, inputs + num_inputs);
    memo.given.insert(memo.given.end(), outputs, outputs + num_outputs);
    memo.served = served;
}

// Each buffer array must have the compiled count and a non-NULL pointer for
// every tensor that occupies bytes.
template <typename Pointer>
void check_buffers(const call &c, const char *what, Pointer const *array, std::size_t n,
                   const std::vector<impl::logical_tensor> &lts) {
    if (n != lts.size())
        c.fail(std::string("the partition has ") + std::to_string(lts.size()) + " " + what +
               ", " + std::to_string(n) + " buffers were given");
    if (n > 0) c.require(array, what);
    for (std::size_t i = 0; i < n; ++i)
        if (array[i] == nullptr && required_bytes(lts[i]) > 0)
            c.fail(std::string(what) + "[" + std::to_string(i) + "] (logical tensor " +
                   std::to_string(lts[i].id) + ") is NULL");
}

} // namespace

extern "C" {

RESHAPER_API reshaper_status_t reshaper_logical_tensor_get_mem_size(
        const reshaper_logical_tensor_t *lt, size_t *size) {
    return guarded(__func__, [&](const call &c) {
        c.require(lt, "lt");
        c.require(size, "size");
        *size = required_bytes(api::to_impl(*lt));
    });
}

RESHAPER_API reshaper_status_t reshaper_engine_create(reshaper_engine_kind_t kind, size_t index,
                                                      reshaper_engine_t *engine) {
    return guarded(__func__, [&](const call &c) {
        c.require(engine, "engine");
        *engine = new reshaper_engine{impl::engine::create(api::to_impl(kind), index)};
    });
}

RESHAPER_API reshaper_status_t reshaper_engine_destroy(reshaper_engine_t engine) {
    return guarded(__func__, [&](const call &c) {
        c.require(engine, "engine");
        delete engine;
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_compile(
        const_reshaper_partition_t partition, reshaper_engine_t engine, size_t num_inputs,
        const reshaper_logical_tensor_t *inputs, size_t num_outputs,
        const reshaper_logical_tensor_t *outputs, reshaper_compiled_partition_t *compiled) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(engine, "engine");
        c.require(compiled, "compiled");
        if (num_inputs > 0) c.require(inputs, "inputs");
        if (num_outputs > 0) c.require(outputs, "outputs");
        const impl::graph &g = *partition->graph;
        const impl::partition &p = partition->partition;
        if (!p.supported)
            impl::fail(impl::rule::api_argument,
                       "partition " + std::to_string(p.id) + " is not supported by this backend: " + p.reason);
        impl::compiled_partition_cache &cache = impl::compiled_partition_cache::global();
        reshaper_compile_memo &memo = *partition->compile_memo;
        std::shared_ptr<const impl::compiled_partition> result = cache.find(
                same_request(memo, engine->engine, num_inputs, inputs, num_outputs, outputs));
        if (!result) {
            // Boundary tensors not given (a count of 0) are taken from the
            // graph by compile(). The cache serves hosts that compile the
            // same partition again and again.
            call_scratch &given = scratch();
            to_impl(inputs, num_inputs, g, given.inputs);
            to_impl(outputs, num_outputs, g, given.outputs);
            impl::compiled_partition_cache::entry_ref served;
            result = cache.get_or_compile(g, p, given.inputs, given.outputs, engine->engine, &served);
            remember_request(memo, engine->engine, num_inputs, inputs, num_outputs, outputs, served);
        }
        impl::dump_compiled_partition(g, p, *result);
        *compiled = new reshaper_compiled_partition(std::move(result));
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_destroy(
        reshaper_compiled_partition_t compiled) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        delete compiled;
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_inputs(
        reshaper_compiled_partition_t compiled, reshaper_logical_tensor_t *lts, size_t capacity,
        size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(count, "count");
        api::copy_out(api::to_c(compiled->compiled->inputs()), lts, capacity, count);
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_outputs(
        reshaper_compiled_partition_t compiled, reshaper_logical_tensor_t *lts, size_t capacity,
        size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(count, "count");
        api::copy_out(api::to_c(compiled->compiled->outputs()), lts, capacity, count);
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_lowering(
        reshaper_compiled_partition_t compiled, reshaper_lowering_kind_t *lowering) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(lowering, "lowering");
        *lowering = api::to_c(compiled->compiled->lowering());
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_lowering_details(
        reshaper_compiled_partition_t compiled, const char **details) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(details, "details");
        // Computed once and kept, so the pointer lives as long as the handle.
        std::call_once(compiled->details_once,
                       [&] { compiled->details = compiled->compiled->lowering_details(); });
        *details = compiled->details.c_str();
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_why_not_alias(
        reshaper_compiled_partition_t compiled, const char **why) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(why, "why");
        std::call_once(compiled->why_not_alias_once,
                       [&] { compiled->why_not_alias = compiled->compiled->why_not_alias(); });
        *why = compiled->why_not_alias.c_str();
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_inplace_pairs(
        reshaper_compiled_partition_t compiled, reshaper_inplace_pair_t *pairs, size_t capacity,
        size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(count, "count");
        std::vector<reshaper_inplace_pair_t> out;
        for (const auto &[in, o] : compiled->compiled->inplace_pairs()) out.push_back({in, o});
        api::copy_out(out, pairs, capacity, count);
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_execute(
        reshaper_compiled_partition_t compiled, size_t num_inputs, const void *const *inputs,
        size_t num_outputs, void *const *outputs) {
    // Captured by value: the prepared execute's checks read registers.
    return guarded(__func__, [=](const call &c) {
        c.require(compiled, "compiled");
        // A partition prepared at compile time runs straight away where its
        // buffers (and shape inputs' values) are fine (else below says why).
        if (num_outputs == 1 && inputs && outputs && compiled->prepared.run(inputs, num_inputs, outputs[0]))
            return;
        const impl::compiled_partition &cp = *compiled->compiled;
        // Inputs checked first; the caller's arrays are passed on as they are.
        check_buffers(c, "inputs", inputs, num_inputs, cp.inputs());
        check_buffers(c, "outputs", outputs, num_outputs, cp.outputs());
        cp.execute_checked(std::span<const void *const>(inputs, num_inputs),
                           std::span<void *const>(outputs, num_outputs));
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_output_mem_size(
        reshaper_compiled_partition_t compiled, size_t index, size_t *size) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        c.require(size, "size");
        const std::vector<std::size_t> bytes = compiled->compiled->output_buffer_bytes();
        if (index >= bytes.size())
            c.fail("index " + std::to_string(index) + " is out of range: the partition has " +
                   std::to_string(bytes.size()) + " outputs");
        *size = bytes[index];
    });
}

RESHAPER_API reshaper_status_t reshaper_compiled_partition_execute_dynamic(
        reshaper_compiled_partition_t compiled, size_t num_inputs, const void *const *inputs,
        size_t num_outputs, void *const *outputs, reshaper_logical_tensor_t *resolved_outputs) {
    return guarded(__func__, [&](const call &c) {
        c.require(compiled, "compiled");
        const impl::compiled_partition &cp = *compiled->compiled;
        check_buffers(c, "inputs", inputs, num_inputs, cp.inputs());
        check_buffers(c, "outputs", outputs, num_outputs, cp.outputs());
        const std::vector<impl::logical_tensor> resolved = cp.execute_resolving(
                std::vector<const void *>(inputs, inputs + num_inputs), std::vector<void *>(outputs, outputs + num_outputs));
        if (resolved_outputs != nullptr)
            for (std::size_t i = 0; i < resolved.size(); ++i) resolved_outputs[i] = api::to_c(resolved[i]);
    });
}

} // extern "C"
