/* reshaper plugin ABI: the one entry point a host finds with dlsym() after
 * dlopen("libreshaper.so.0"), and the table of functions it returns. The
 * table covers the whole backend, so a host needs nothing else to run a graph
 * file: the members have the signatures and the meaning of the C API
 * functions of the same name in reshaper.h (the types come from there).
 *
 * ABI rules: a table of a given abi_version never changes; new members are
 * only ever added at the end together with a new version.
 */
#ifndef RESHAPER_PLUGIN_H
#define RESHAPER_PLUGIN_H

#include <stdint.h>

#include "reshaper/reshaper.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RESHAPER_PLUGIN_ABI_VERSION 1
#define RESHAPER_PLUGIN_ENTRY_NAME "reshaper_plugin_entry"

typedef struct reshaper_plugin_api {
    uint32_t abi_version; /* RESHAPER_PLUGIN_ABI_VERSION of the table */
    const char *name;     /* "reshaper" */
    const char *version;  /* library version, "major.minor.patch" */

    /* capabilities and errors */
    reshaper_status_t (*get_handled_op_kinds)(const char *const **kinds, size_t *count);
    reshaper_status_t (*get_last_error)(reshaper_status_t *status, const char **message);
    reshaper_status_t (*status_name)(reshaper_status_t status, const char **name);

    /* graphs */
    reshaper_status_t (*graph_create_from_json)(const char *json, reshaper_graph_t *graph);
    reshaper_status_t (*graph_create_from_file)(const char *path, reshaper_graph_t *graph);
    reshaper_status_t (*graph_destroy)(reshaper_graph_t graph);
    reshaper_status_t (*graph_infer_shapes)(reshaper_graph_t graph);
    reshaper_status_t (*graph_to_json)(const_reshaper_graph_t graph, char *buffer,
                                       size_t capacity, size_t *size);
    reshaper_status_t (*graph_get_tensor)(const_reshaper_graph_t graph, int64_t id,
                                          reshaper_logical_tensor_t *lt);
    reshaper_status_t (*graph_get_tensor_values)(const_reshaper_graph_t graph, int64_t id,
                                                 void *buffer, size_t capacity, size_t *size);

    /* partitions */
    reshaper_status_t (*graph_get_partitions)(reshaper_graph_t graph,
                                              reshaper_partition_policy_t policy,
                                              reshaper_engine_kind_t engine_kind,
                                              reshaper_partition_list_t *list);
    reshaper_status_t (*partition_list_destroy)(reshaper_partition_list_t list);
    reshaper_status_t (*partition_list_get_count)(reshaper_partition_list_t list, size_t *count);
    reshaper_status_t (*partition_list_get)(reshaper_partition_list_t list, size_t index,
                                            const_reshaper_partition_t *partition);
    reshaper_status_t (*partition_get_id)(const_reshaper_partition_t partition, size_t *id);
    reshaper_status_t (*partition_is_supported)(const_reshaper_partition_t partition,
                                                int *supported);
    reshaper_status_t (*partition_get_op_ids)(const_reshaper_partition_t partition, int64_t *ids,
                                              size_t capacity, size_t *count);
    reshaper_status_t (*partition_get_inputs)(const_reshaper_partition_t partition,
                                              reshaper_logical_tensor_t *lts, size_t capacity,
                                              size_t *count);
    reshaper_status_t (*partition_get_outputs)(const_reshaper_partition_t partition,
                                               reshaper_logical_tensor_t *lts, size_t capacity,
                                               size_t *count);
    reshaper_status_t (*partition_get_reason)(const_reshaper_partition_t partition,
                                              const char **reason);

    /* engines and compilation */
    reshaper_status_t (*engine_create)(reshaper_engine_kind_t kind, size_t index,
                                       reshaper_engine_t *engine);
    reshaper_status_t (*engine_destroy)(reshaper_engine_t engine);
    reshaper_status_t (*partition_compile)(const_reshaper_partition_t partition,
                                           reshaper_engine_t engine, size_t num_inputs,
                                           const reshaper_logical_tensor_t *inputs,
                                           size_t num_outputs,
                                           const reshaper_logical_tensor_t *outputs,
                                           reshaper_compiled_partition_t *compiled);
    reshaper_status_t (*compiled_partition_destroy)(reshaper_compiled_partition_t compiled);

    /* compiled layouts, lowering, in-place pairs, buffer sizes */
    reshaper_status_t (*compiled_partition_get_inputs)(reshaper_compiled_partition_t compiled,
                                                       reshaper_logical_tensor_t *lts,
                                                       size_t capacity, size_t *count);
    reshaper_status_t (*compiled_partition_get_outputs)(reshaper_compiled_partition_t compiled,
                                                        reshaper_logical_tensor_t *lts,
                                                        size_t capacity, size_t *count);
    reshaper_status_t (*compiled_partition_get_lowering)(reshaper_compiled_partition_t compiled,
                                                         reshaper_lowering_kind_t *lowering);
    reshaper_status_t (*compiled_partition_get_lowering_details)(
            reshaper_compiled_partition_t compiled, const char **details);
    reshaper_status_t (*compiled_partition_get_inplace_pairs)(
            reshaper_compiled_partition_t compiled, reshaper_inplace_pair_t *pairs,
            size_t capacity, size_t *count);
    reshaper_status_t (*logical_tensor_get_mem_size)(const reshaper_logical_tensor_t *lt,
                                                     size_t *size);

    /* execution */
    reshaper_status_t (*compiled_partition_execute)(reshaper_compiled_partition_t compiled,
                                                    size_t num_inputs, const void *const *inputs,
                                                    size_t num_outputs, void *const *outputs);

    /* added in 0.2 (the table only grows at its end) */
    reshaper_status_t (*get_last_error_rule)(const char **rule);
    reshaper_status_t (*compiled_partition_get_why_not_alias)(
            reshaper_compiled_partition_t compiled, const char **why);

    /* building graphs in code (see reshaper.h) */
    reshaper_status_t (*graph_create)(reshaper_engine_kind_t engine_kind, reshaper_graph_t *graph);
    reshaper_status_t (*op_create)(reshaper_op_t *op, int64_t id, const char *kind,
                                   const char *name);
    reshaper_status_t (*op_destroy)(reshaper_op_t op);
    reshaper_status_t (*op_set_domain)(reshaper_op_t op, const char *domain, int64_t version);
    reshaper_status_t (*op_add_input)(reshaper_op_t op, const reshaper_logical_tensor_t *lt);
    reshaper_status_t (*op_add_output)(reshaper_op_t op, const reshaper_logical_tensor_t *lt);
    reshaper_status_t (*op_set_attr_s64)(reshaper_op_t op, const char *name, int64_t value);
    reshaper_status_t (*op_set_attr_s64s)(reshaper_op_t op, const char *name,
                                          const int64_t *values, size_t count);
    reshaper_status_t (*op_set_attr_f32)(reshaper_op_t op, const char *name, float value);
    reshaper_status_t (*op_set_attr_f32s)(reshaper_op_t op, const char *name, const float *values,
                                          size_t count);
    reshaper_status_t (*op_set_attr_bool)(reshaper_op_t op, const char *name, int value);
    reshaper_status_t (*op_set_attr_str)(reshaper_op_t op, const char *name, const char *value);
    reshaper_status_t (*graph_add_op)(reshaper_graph_t graph, const_reshaper_op_t op);
    reshaper_status_t (*graph_set_tensor_values)(reshaper_graph_t graph, int64_t tensor_id,
                                                 const void *data, size_t bytes);
    reshaper_status_t (*graph_finalize)(reshaper_graph_t graph);

    /* dynamic shapes (see reshaper.h) */
    reshaper_status_t (*compiled_partition_get_output_mem_size)(
            reshaper_compiled_partition_t compiled, size_t index, size_t *size);
    reshaper_status_t (*compiled_partition_execute_dynamic)(
            reshaper_compiled_partition_t compiled, size_t num_inputs, const void *const *inputs,
            size_t num_outputs, void *const *outputs, reshaper_logical_tensor_t *resolved_outputs);

    /* ONNX models in (see reshaper.h) */
    reshaper_status_t (*graph_create_from_onnx)(reshaper_engine_kind_t engine_kind, const char *path,
                                                size_t n_free_dims, const char *const *free_dim_names,
                                                const int64_t *free_dim_values, reshaper_graph_t *graph);
    reshaper_status_t (*graph_create_from_onnx_bytes)(reshaper_engine_kind_t engine_kind,
                                                      const void *data, size_t size, size_t n_free_dims,
                                                      const char *const *free_dim_names,
                                                      const int64_t *free_dim_values,
                                                      reshaper_graph_t *graph);
} reshaper_plugin_api;

/* The table for `abi_version`; NULL when this library does not provide it. */
RESHAPER_API const reshaper_plugin_api *reshaper_plugin_entry(uint32_t abi_version);

typedef const reshaper_plugin_api *(*reshaper_plugin_entry_fn)(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif /* RESHAPER_PLUGIN_H */
