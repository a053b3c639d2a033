// C API: library queries, graphs and partitions.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/c_types.hpp"
#include "api/error_boundary.hpp"
#include "api/graph_state.hpp"
#include "api/handles.hpp"
#include "backend/claims.hpp"
#include "io/graph_json.hpp"
#include "onnx/onnx_model.hpp"
#include "ops/graph_inference.hpp"
#include "ops/registry.hpp"
#include "reshaper/reshaper.h"
#include "core/fail.hpp"

using namespace reshaper;
using api::call;
using api::guarded;

using api::finalized_graph;
using api::current_graph;

extern "C" {

RESHAPER_API reshaper_status_t reshaper_get_version(reshaper_version_t *version) {
    return guarded(__func__, [&](const call &c) {
        c.require(version, "version");
        *version = {RESHAPER_VERSION_MAJOR, RESHAPER_VERSION_MINOR, RESHAPER_VERSION_PATCH,
                    RESHAPER_VERSION_STRING};
    });
}

RESHAPER_API reshaper_status_t reshaper_get_handled_op_kinds(const char *const **kinds,
                                                             size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(kinds, "kinds");
        c.require(count, "count");
        // Built once: the registry is immutable, the strings live forever.
        static const std::vector<std::string> names = impl::op_registry::instance().handled_kinds();
        static const std::vector<const char *> pointers = [] {
            std::vector<const char *> p;
            for (const auto &n : names) p.push_back(n.c_str());
            return p;
        }();
        *kinds = pointers.data();
        *count = pointers.size();
    });
}

RESHAPER_API reshaper_status_t reshaper_status_name(reshaper_status_t status, const char **name) {
    return guarded(__func__, [&](const call &c) {
        c.require(name, "name");
        const int value = api::raw_enum(status); // never loaded as an enum (UBSan)
        if (value < reshaper_success || value > reshaper_runtime_error)
            c.fail("status " + std::to_string(value) + " is out of range");
        // to_string returns views of string literals, so data() is NUL-terminated.
        *name = impl::to_string(static_cast<impl::status>(value)).data();
    });
}

RESHAPER_API reshaper_status_t reshaper_get_last_error(reshaper_status_t *status,
                                                       const char **message) {
    // Reads only: it must not overwrite the error it reports.
    if (status != nullptr) *status = api::last_error_status();
    if (message != nullptr) *message = api::last_error_message();
    return reshaper_success;
}

RESHAPER_API reshaper_status_t reshaper_get_last_error_rule(const char **rule) {
    if (rule != nullptr) *rule = api::last_error_rule();
    return reshaper_success;
}

RESHAPER_API reshaper_status_t reshaper_logical_tensor_init(
        reshaper_logical_tensor_t *lt, int64_t id, reshaper_data_type_t data_type, int32_t ndims,
        const int64_t *dims, const int64_t *strides, reshaper_layout_type_t layout_type,
        reshaper_property_type_t property_type) {
    return guarded(__func__, [&](const call &c) {
        c.require(lt, "lt");
        if (ndims > 0) c.require(dims, "dims");
        // Checked before *lt is written: a refused call leaves it as it was.
        // Written field by field, not through a zeroed copy of the struct:
        // the two 288-byte block moves (rep stos, rep movs) were 15% of a
        // cache-hit compile through the C++ API (perf, api_bench).
        api::check_c_fields(id, ndims, dims, data_type, layout_type, property_type);
        reshaper_logical_tensor_t &out = *lt;
        out.id = id;
        // Copied as bytes: a C caller's out-of-range enum was refused above
        // (api::raw_enum), never loaded as an enum.
        std::memcpy(&out.data_type, &data_type, sizeof data_type);
        out.ndims = ndims;
        std::memcpy(&out.layout_type, &layout_type, sizeof layout_type);
        std::memcpy(&out.property_type, &property_type, sizeof property_type);
        for (int i = 0; i < RESHAPER_MAX_NDIMS; ++i) {
            out.dims[i] = i < ndims ? dims[i] : 0;
            out.strides[i] = strides != nullptr && i < ndims ? strides[i] : RESHAPER_UNKNOWN_DIM;
        }
        std::memset(out.format, 0, sizeof out.format);
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_create_from_json(const char *json,
                                                               reshaper_graph_t *graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(json, "json");
        c.require(graph, "graph");
        *graph = new reshaper_graph(std::make_shared<const impl::graph>(impl::read_graph_json(json)));
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_create_from_file(const char *path,
                                                               reshaper_graph_t *graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(path, "path");
        c.require(graph, "graph");
        *graph = new reshaper_graph(std::make_shared<const impl::graph>(impl::read_graph_file(path)));
    });
}

namespace {

impl::free_dim_bindings free_dims_of(const call &c, size_t n, const char *const *names, const int64_t *values) {
    impl::free_dim_bindings bindings;
    if (n == 0) return bindings;
    c.require(names, "free_dim_names");
    c.require(values, "free_dim_values");
    for (size_t i = 0; i < n; ++i) {
        c.require(names[i], "a free_dim_names entry");
        bindings[names[i]] = values[i];
    }
    return bindings;
}

reshaper_graph_t onnx_graph_handle(impl::onnx_import model) {
    return new reshaper_graph(std::make_shared<const impl::graph>(std::move(model.g)));
}

} // namespace

RESHAPER_API reshaper_status_t reshaper_graph_create_from_onnx(
        reshaper_engine_kind_t engine_kind, const char *path, size_t n_free_dims,
        const char *const *free_dim_names, const int64_t *free_dim_values, reshaper_graph_t *graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(path, "path");
        c.require(graph, "graph");
        const std::string kind(impl::to_string(api::to_impl(engine_kind)));
        *graph = onnx_graph_handle(impl::read_onnx_file(
            path, free_dims_of(c, n_free_dims, free_dim_names, free_dim_values), kind));
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_create_from_onnx_bytes(
        reshaper_engine_kind_t engine_kind, const void *data, size_t size, size_t n_free_dims,
        const char *const *free_dim_names, const int64_t *free_dim_values, reshaper_graph_t *graph) {
    return guarded(__func__, [&](const call &c) {
        if (size > 0) c.require(data, "data");
        c.require(graph, "graph");
        const std::string kind(impl::to_string(api::to_impl(engine_kind)));
        *graph = onnx_graph_handle(impl::read_onnx_model(
            std::string_view(static_cast<const char *>(data), data ? size : 0),
            free_dims_of(c, n_free_dims, free_dim_names, free_dim_values), kind));
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_destroy(reshaper_graph_t graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        delete graph;
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_infer_shapes(reshaper_graph_t graph) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        finalized_graph(*graph);
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_to_json(const_reshaper_graph_t graph, char *buffer,
                                                      size_t capacity, size_t *size) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        c.require(size, "size");
        // Finalizing is no change a caller sees through a const handle.
        const std::string text =
            impl::write_graph_json(*finalized_graph(const_cast<reshaper_graph &>(*graph)));
        *size = text.size() + 1;
        if (buffer == nullptr) return;
        if (capacity < *size)
            c.fail("buffer holds " + std::to_string(capacity) + " bytes, " +
                   std::to_string(*size) + " are needed");
        std::copy(text.c_str(), text.c_str() + *size, buffer);
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_get_tensor(const_reshaper_graph_t graph, int64_t id,
                                                         reshaper_logical_tensor_t *lt) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        c.require(lt, "lt");
        *lt = api::to_c(current_graph(*graph)->tensor(id));
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_get_tensor_values(const_reshaper_graph_t graph,
                                                                int64_t id, void *buffer,
                                                                size_t capacity, size_t *size) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        c.require(size, "size");
        const auto snapshot = current_graph(*graph);
        const impl::logical_tensor &lt = snapshot->tensor(id);
        if (lt.dtype == impl::data_type::string && lt.values)
            impl::fail(impl::rule::c_api_representable,
                       "logical tensor " + std::to_string(id) + ": string values have no byte form in the C API");
        const std::vector<std::uint8_t> none;
        const std::vector<std::uint8_t> &bytes = lt.values ? lt.values->bytes : none;
        api::copy_out(bytes, static_cast<std::uint8_t *>(buffer), capacity, size);
    });
}

RESHAPER_API reshaper_status_t reshaper_graph_get_partitions(reshaper_graph_t graph,
                                                             reshaper_partition_policy_t policy,
                                                             reshaper_engine_kind_t engine_kind,
                                                             reshaper_partition_list_t *list) {
    return guarded(__func__, [&](const call &c) {
        c.require(graph, "graph");
        c.require(list, "list");
        const impl::partition_policy internal_policy = api::to_impl(policy);
        const impl::backend_support &claims = impl::backend_claims(api::to_impl(engine_kind));
        // The partitioner needs a valid graph.
        const std::shared_ptr<const impl::graph> g = finalized_graph(*graph);

        auto result = std::make_unique<reshaper_partition_list>();
        for (auto &p : impl::get_partitions(*g, internal_policy, claims))
            result->partitions.push_back({g, std::move(p)});
        *list = result.release();
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_list_destroy(reshaper_partition_list_t list) {
    return guarded(__func__, [&](const call &c) {
        c.require(list, "list");
        delete list;
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_list_get_count(reshaper_partition_list_t list,
                                                                 size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(list, "list");
        c.require(count, "count");
        *count = list->partitions.size();
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_list_get(reshaper_partition_list_t list,
                                                           size_t index,
                                                           const_reshaper_partition_t *partition) {
    return guarded(__func__, [&](const call &c) {
        c.require(list, "list");
        c.require(partition, "partition");
        if (index >= list->partitions.size())
            c.fail("index " + std::to_string(index) + " is out of range: the list has " +
                   std::to_string(list->partitions.size()) + " partitions");
        *partition = &list->partitions[index];
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_get_id(const_reshaper_partition_t partition,
                                                         size_t *id) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(id, "id");
        *id = partition->partition.id;
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_is_supported(const_reshaper_partition_t partition,
                                                               int *supported) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(supported, "supported");
        *supported = partition->partition.supported ? 1 : 0;
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_get_op_ids(const_reshaper_partition_t partition,
                                                             int64_t *ids, size_t capacity,
                                                             size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(count, "count");
        std::vector<std::int64_t> op_ids;
        for (std::size_t index : partition->partition.op_indices)
            op_ids.push_back(partition->graph->ops.at(index).id);
        api::copy_out(op_ids, ids, capacity, count);
    });
}

namespace {

std::vector<reshaper_logical_tensor_t> boundary(const reshaper_partition &p,
                                                const impl::tensor_ids &ids) {
    std::vector<reshaper_logical_tensor_t> lts;
    for (impl::tensor_id id : ids) lts.push_back(api::to_c(p.graph->tensor(id)));
    return lts;
}

} // namespace

RESHAPER_API reshaper_status_t reshaper_partition_get_inputs(const_reshaper_partition_t partition,
                                                             reshaper_logical_tensor_t *lts,
                                                             size_t capacity, size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(count, "count");
        api::copy_out(boundary(*partition, partition->partition.inputs), lts, capacity, count);
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_get_outputs(const_reshaper_partition_t partition,
                                                              reshaper_logical_tensor_t *lts,
                                                              size_t capacity, size_t *count) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(count, "count");
        api::copy_out(boundary(*partition, partition->partition.outputs), lts, capacity, count);
    });
}

RESHAPER_API reshaper_status_t reshaper_partition_get_reason(const_reshaper_partition_t partition,
                                                             const char **reason) {
    return guarded(__func__, [&](const call &c) {
        c.require(partition, "partition");
        c.require(reason, "reason");
        *reason = partition->partition.reason.c_str();
    });
}

} // extern "C"
