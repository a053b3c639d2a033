// C API: building graphs in code (reshaper_graph_create, reshaper_op_*,
// reshaper_graph_add_op, reshaper_graph_finalize). Ops and tensors are
// collected as given; finalize writes them as the graph file they describe
// and reads that back, so a built graph meets exactly the checks, errors and
// inference of a loaded one.
#include <cstring>
#include <memory>
#include <string>

#include "api/c_types.hpp"
#include "api/error_boundary.hpp"
#include "api/graph_state.hpp"
#include "api/handles.hpp"
#include "backend/graph_dump.hpp"
#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"
#include "reshaper/reshaper.h"
#include "core/fail.hpp"

using namespace reshaper;
using api::call;
using api::guarded;

namespace reshaper::api {

std::shared_ptr<const impl::graph> finalized_graph(reshaper_graph &handle) {
    if (handle.finalized.load(std::memory_order_acquire)) return handle.graph;
    std::lock_guard<std::mutex> lock(handle.mutex);
    if (handle.finalized.load(std::memory_order_relaxed)) return handle.graph;
    auto g = std::make_shared<impl::graph>(
        handle.built ? impl::read_graph_json(impl::write_graph_json(handle.building, -1))
                     : *handle.graph);
    impl::infer_graph_shapes(*g);
    impl::dump_finalized_graph(*g);
    handle.graph = std::move(g);
    handle.finalized.store(true, std::memory_order_release);
    return handle.graph;
}

std::shared_ptr<const impl::graph> current_graph(const reshaper_graph &handle) {
    if (handle.finalized.load(std::memory_order_acquire)) return handle.graph;
    std::lock_guard<std::mutex> lock(handle.mutex);
    if (handle.graph) return handle.graph;
    return std::make_shared<const impl::graph>(handle.building);
}

} // namespace reshaper::api

namespace {

const char *text_or_empty(const char *s) { return s != nullptr ? s : ""; }

std::string describe_tensor(const impl::logical_tensor &lt) {
    std::string text = std::string(impl::to_string(lt.dtype)) + " " + impl::dims_to_string(lt.shape) +
                       " " + std::string(impl::to_string(lt.layout));
    if (!lt.strides.empty()) text += " strides " + impl::dims_to_string(lt.strides);
    if (!lt.format.get().empty()) text += " " + lt.format.get();
    return text + " " + std::string(impl::to_string(lt.property));
}

// One tensor id, one description: `given` must agree with `known` (the
// description added before); an unknown dim or stride list takes the other's.
// As in a graph file (contract, section 1), a producer and a consumer that
// disagree only on the shape are forgiven: the producer's description
// stands (`given_by_producer`: `given` is an op's output).
void merge_description(impl::logical_tensor &known, const impl::logical_tensor &given,
                       const std::string &where, bool given_by_producer) {
    std::optional<impl::dims_t> shape = impl::merge_known_dims(known.shape, given.shape);
    const bool same_kind = known.dtype == given.dtype && known.layout == given.layout &&
                           known.property == given.property && known.format == given.format;
    if (same_kind && !shape && !known.values) {
        if (given_by_producer) {
            known.shape = given.shape;
            known.strides = given.strides;
        }
        return;
    }
    // Strides that differ only where they address nothing (size-1 dims,
    // zero volume) describe one layout; the first description's stand.
    const bool strides_agree = known.strides.empty() || given.strides.empty() ||
                               (shape && impl::same_strided_layout(*shape, known.strides, given.strides));
    if (!same_kind || !shape || !strides_agree)
        impl::fail(impl::rule::tensor_agreement,
                   where + " describes tensor " + std::to_string(given.id) + " as " +
                       describe_tensor(given) + ", but it was added as " +
                       describe_tensor(known));
    known.shape = std::move(*shape);
    if (known.strides.empty()) known.strides = given.strides;
}

// The graph being built, for a call that changes it.
reshaper_graph &open_graph(reshaper_graph *graph, const call &c) {
    c.require(graph, "graph");
    if (!graph->built || graph->finalized.load(std::memory_order_acquire))
        impl::fail(impl::rule::graph_not_finalized,
                   std::string("the graph is ") +
                       (graph->built ? "finalized" : "read from JSON") +
                       ": it takes no more ops or values");
    return *graph;
}

// A dim below -1 is the graph file's error (invalid_shape), not an argument's.
impl::logical_tensor tensor_of(const reshaper_logical_tensor_t &lt) {
    for (int32_t k = 0; k >= 0 && k < lt.ndims && k < RESHAPER_MAX_NDIMS; ++k)
        if (lt.dims[k] < -1)
            impl::fail(impl::rule::dims_at_least_minus_one,
                       "tensor " + std::to_string(lt.id) + ": dims[" + std::to_string(k) +
                           "] = " + std::to_string(lt.dims[k]) +
                           "; dims must be >= -1");
    return api::to_impl(lt);
}

template <typename Value>
reshaper_status_t set_attr(const char *function, reshaper_op_t op, const char *name, Value &&value) {
    return guarded(function, [&](const call &c) {
        c.require(op, "op");
        c.require(name, "name");
        op->op.attrs[name] = impl::attribute_value(std::forward<Value>(value));
    });
}

} // namespace

extern "C" {

RESHAPER_API reshaper_status_t reshaper_graph_create(reshaper_engine_kind_t engine_kind,
                                                     reshaper_graph_t *graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        auto g = std::make_unique<reshaper_graph>();
        g->built = true;
        g->building.engine_kind = std::string(impl::to_string(api::to_impl(engine_kind)));
        *graph = g.release();
    });
}

RESHAPER_API reshaper_status_t reshaper_op_create(reshaper_op_t *op, int64_t id, const char *kind,
                                                  const char *name) {
    return guarded(__func__, [&](const call &c) {
        c.require(op, "op");
        c.require(kind, "kind");
        auto o = std::make_unique<reshaper_op>();
        o->op.id = id;
        o->op.kind = kind;
        o->op.name = text_or_empty(name);
        *op = o.release();
    });
}

RESHAPER_API reshaper_status_t reshaper_op_destroy(reshaper_op_t op) {
    return guarded(__func__, [&](const call &c) {
        c.require(op, "op");
        delete op;
    });
}

RESHAPER_API reshaper_status_t reshaper_op_set_domain(reshaper_op_t op, const char *domain,
                                                      int64_t version) {
    return guarded(__func__, [&](const call &c) {
        c.require(op, "op");
        op->op.domain = text_or_empty(domain);
        op->op.version = version == 0 ? std::nullopt : std::optional<std::int64_t>(version);
    });
}

RESHAPER_API reshaper_status_t reshaper_op_add_input(reshaper_op_t op,
                                                     const reshaper_logical_tensor_t *lt) {
    return guarded(__func__, [&](const call &c) {
        c.require(op, "op");
        c.require(lt, "lt");
        op->inputs.push_back(tensor_of(*lt));
    });
}

RESHAPER_API reshaper_status_t reshaper_op_add_output(reshaper_op_t op,
                                                      const reshaper_logical_tensor_t *lt) {
    return guarded(__func__, [&](const call &c) {
        c.require(op, "op");
        c.require(lt, "lt");
        op->outputs.push_back(tensor_of(*lt));
    });
}

RESHAPER_API reshaper_status_t reshaper_op_set_attr_s64(reshaper_op_t op, const char *name,
                                                        int64_t value) {
    return set_attr(__func__, op, name, std::int64_t(value));
}

RESHAPER_API reshaper_status_t reshaper_op_set_attr_s64s(reshaper_op_t op, const char *name,
                                                         const int64_t *values, size_t count) {
    if (values == nullptr && count > 0)
        return guarded(__func__, [](const call &c) { c.require<int64_t>(nullptr, "values"); });
    return set_attr(__func__, op, name, std::vector<std::int64_t>(values, values + count));
}

RESHAPER_API reshaper_status_t reshaper_op_set_attr_f32(reshaper_op_t op, const char *name,
                                                        float value) {
    return set_attr(__func__, op, name, value);
}

RESHAPER_API reshaper_status_t reshaper_op_set_attr_f32s(reshaper_op_t op, const char *name,
                                                         const float *values, size_t count) {
    if (values == nullptr && count > 0)
        return guarded(__func__, [](const call &c) { c.require<float>(nullptr, "values"); });
    return set_attr(__func__, op, name, std::vector<float>(values, values + count));
}

RESHAPER_API reshaper_status_t reshaper_op_set_attr_bool(reshaper_op_t op, const char *name,
                                                         int value) {
    return set_attr(__func__, op, name, value != 0);
}

RESHAPER_API reshaper_status_t reshaper_op_set_attr_str(reshaper_op_t op, const char *name,
                                                        const char *value) {
    if (value == nullptr)
        return guarded(__func__, [](const call &c) { c.require<char>(nullptr, "value"); });
    return set_attr(__func__, op, name, std::string(value));
}

RESHAPER_API reshaper_status_t reshaper_graph_add_op(reshaper_graph_t graph,
                                                     const_reshaper_op_t op) {
    return guarded(__func__, [&](const call &c) {
        c.require(op, "op");
        reshaper_graph &g = open_graph(graph, c);
        for (const impl::op &other : g.building.ops)
            if (other.id == op->op.id)
                impl::fail(impl::rule::unique_op_id,
                           "op id " + std::to_string(op->op.id) + " is used by both " +
                               impl::describe(other) + " and " + impl::describe(op->op),
                           op->op.ref());
        // Checked on a copy: a rejected op leaves the graph as it was.
        auto tensors = g.building.tensors;
        impl::op added = op->op;
        added.inputs.clear();
        added.outputs.clear();
        auto add = [&](const std::vector<impl::logical_tensor> &lts, const char *direction,
                       impl::tensor_ids &ids) {
            for (std::size_t i = 0; i < lts.size(); ++i) {
                const impl::logical_tensor &lt = lts[i];
                ids.push_back(lt.id);
                auto [it, inserted] = tensors.emplace(lt.id, lt);
                if (!inserted)
                    merge_description(it->second, lt,
                                      impl::describe(op->op) + ": " + direction + " " +
                                          std::to_string(i),
                                      std::string_view(direction) == "output");
            }
        };
        add(op->inputs, "input", added.inputs);
        add(op->outputs, "output", added.outputs);
        g.building.tensors = std::move(tensors);
        g.building.ops.push_back(std::move(added));
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_set_tensor_values(reshaper_graph_t graph,
                                                                int64_t tensor_id,
                                                                const void *data, size_t bytes) {
    return guarded(__func__, [&](const call &c) {
        reshaper_graph &g = open_graph(graph, c);
        auto it = g.building.tensors.find(tensor_id);
        if (it == g.building.tensors.end())
            impl::fail(impl::rule::tensor_exists,
                       "tensor " + std::to_string(tensor_id) +
                           " is not in the graph: add an op that uses it first");
        impl::logical_tensor &lt = it->second;
        const std::string name = "tensor " + std::to_string(tensor_id) + " " +
                                 impl::dims_to_string(lt.shape);
        if (lt.dtype == impl::data_type::string)
            impl::fail(impl::rule::c_api_representable, name + ": string values have no byte form in the C API");
        // As the file reader says it (a dtype of no size has no byte form;
        // its size would divide by zero).
        if (lt.dtype == impl::data_type::undef)
            impl::fail(impl::rule::value_fits_dtype,
                       name + ": values need a defined dtype, got undef");
        if (!lt.shape_known())
            impl::fail(impl::rule::values_need_known_shape,
                       name + ": values need a known shape");
        const auto volume = impl::checked_volume(lt.shape);
        const std::size_t count = volume ? static_cast<std::size_t>(*volume) : 0;
        const std::size_t expected = impl::dense_bytes(lt.dtype, count);
        if (bytes != expected)
            impl::fail(impl::rule::tensor_values_size,
                       name + " " + std::string(impl::to_string(lt.dtype)) + " takes " +
                           std::to_string(expected) + " bytes of values, got " +
                           std::to_string(bytes));
        if (bytes > 0) c.require(data, "data");
        impl::tensor_values values;
        values.type = lt.dtype;
        values.count = count;
        const auto *first = static_cast<const std::uint8_t *>(data);
        values.bytes.assign(first, first + bytes);
        lt.values = std::move(values);
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_finalize(reshaper_graph_t graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        api::finalized_graph(*graph);
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_is_finalized(const_reshaper_graph_t graph,
                                                           int *finalized) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        c.require(finalized, "finalized");
        *finalized = graph->finalized.load(std::memory_order_acquire) ? 1 : 0;
    });
}

} // extern "C"
