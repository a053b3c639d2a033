/* reshaper C API: load a oneDNN Graph JSON graph, partition it, compile the
 * partitions this backend supports and execute them on host buffers.
 *
 * Conventions
 * - Every function returns a reshaper_status_t; no C++ exception crosses this
 *   API. On failure the status and a message naming the op, the rule and the
 *   values are kept per thread: reshaper_get_last_error(). Successful calls
 *   leave them untouched.
 * - A NULL handle or a NULL required pointer gives reshaper_invalid_arguments.
 * - Functions returning an array take (out, capacity, count): *count always
 *   receives the number of elements; they are copied when out is not NULL
 *   (capacity too small -> reshaper_invalid_arguments). Call once with
 *   out = NULL to size the buffer.
 * - Strings returned as `const char *` are owned by the library and live as
 *   long as the object they come from (or forever, for static ones).
 * - Handles are not thread-safe for concurrent mutation (graph inference);
 *   compiled partitions are immutable and may execute concurrently.
 */
#ifndef RESHAPER_RESHAPER_H
#define RESHAPER_RESHAPER_H

#include <stddef.h>
#include <stdint.h>

#if defined(RESHAPER_BUILDING_LIBRARY)
#define RESHAPER_API __attribute__((visibility("default")))
#else
#define RESHAPER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- enums -- */

/* The status codes of the interface contract, in this order. */
typedef enum reshaper_status {
    reshaper_success = 0,
    reshaper_invalid_arguments,
    reshaper_invalid_graph,
    reshaper_invalid_graph_op,
    reshaper_invalid_shape,
    reshaper_invalid_data_type,
    reshaper_unimplemented,
    reshaper_unavailable,
    reshaper_out_of_memory,
    reshaper_runtime_error,
} reshaper_status_t;

/* Element types: oneDNN Graph's, then the ones added for ONNX (new ones are
 * appended, so every value keeps its number). Sub-byte types (s4, u4,
 * f4_e2m1) are packed two per byte, low nibble first; s2 and u2 four per
 * byte, lowest bit pair first. A string tensor's buffer holds std::string
 * objects (C++ hosts only). */
typedef enum reshaper_data_type {
    reshaper_dt_undef = 0,
    reshaper_dt_f32,
    reshaper_dt_f16,
    reshaper_dt_bf16,
    reshaper_dt_s8,
    reshaper_dt_u8,
    reshaper_dt_s32,
    reshaper_dt_boolean,
    reshaper_dt_f8_e5m2,
    reshaper_dt_f8_e4m3,
    reshaper_dt_s4,
    reshaper_dt_u4,
    reshaper_dt_f64,
    reshaper_dt_s16,
    reshaper_dt_u16,
    reshaper_dt_u32,
    reshaper_dt_s64,
    reshaper_dt_u64,
    reshaper_dt_c64,
    reshaper_dt_c128,
    reshaper_dt_string,
    reshaper_dt_f8_e4m3fnuz,
    reshaper_dt_f8_e5m2fnuz,
    reshaper_dt_f8_e8m0,
    reshaper_dt_f4_e2m1,
    reshaper_dt_s2, /* ONNX int2 */
    reshaper_dt_u2, /* ONNX uint2 */
} reshaper_data_type_t;

typedef enum reshaper_layout_type {
    reshaper_layout_undef = 0,
    reshaper_layout_any,     /* the backend chooses (outputs) */
    reshaper_layout_strided, /* element strides in `strides` */
    reshaper_layout_opaque,  /* a oneDNN blocked format tag in `format` */
} reshaper_layout_type_t;

typedef enum reshaper_property_type {
    reshaper_property_undef = 0,
    reshaper_property_variable,
    reshaper_property_constant,
} reshaper_property_type_t;

typedef enum reshaper_engine_kind {
    reshaper_engine_cpu = 0,
    reshaper_engine_gpu,
} reshaper_engine_kind_t;

typedef enum reshaper_partition_policy {
    reshaper_policy_fusion = 0, /* chains of reshapes become one partition */
    reshaper_policy_debug,      /* one op per partition */
} reshaper_partition_policy_t;

/* How a compiled partition moves data (decided once, at compile time). */
typedef enum reshaper_lowering_kind {
    reshaper_lowering_alias = 0, /* the output is a view of the input buffer */
    reshaper_lowering_reorder,   /* oneDNN reorder primitive(s) */
    reshaper_lowering_kernel,    /* the backend's own copy kernel */
} reshaper_lowering_kind_t;

/* ------------------------------------------------------ logical tensors -- */

#define RESHAPER_MAX_NDIMS 12
#define RESHAPER_MAX_FORMAT_LEN 64
/* An unknown dimension (in dims), or in strides[0]: "dense row-major". */
#define RESHAPER_UNKNOWN_DIM (-1)

typedef struct reshaper_logical_tensor {
    int64_t id;
    reshaper_data_type_t data_type;
    int32_t ndims; /* 0: a scalar */
    int64_t dims[RESHAPER_MAX_NDIMS];
    /* Element strides, for layout strided. Every one RESHAPER_UNKNOWN_DIM
     * means dense row-major (or not yet known, for unknown dims). */
    int64_t strides[RESHAPER_MAX_NDIMS];
    reshaper_layout_type_t layout_type;
    reshaper_property_type_t property_type;
    /* Layout opaque: NUL-terminated format tag such as "nChw16c". */
    char format[RESHAPER_MAX_FORMAT_LEN];
} reshaper_logical_tensor_t;

/* Fills *lt. strides may be NULL (dense row-major). */
RESHAPER_API reshaper_status_t reshaper_logical_tensor_init(
        reshaper_logical_tensor_t *lt, int64_t id, reshaper_data_type_t data_type,
        int32_t ndims, const int64_t *dims, const int64_t *strides,
        reshaper_layout_type_t layout_type, reshaper_property_type_t property_type);

/* Bytes a buffer for *lt needs (strided: the span its strides reach; opaque:
 * the padded blocked size). Every dim must be known. */
RESHAPER_API reshaper_status_t reshaper_logical_tensor_get_mem_size(
        const reshaper_logical_tensor_t *lt, size_t *size);

/* -------------------------------------------------------------- library -- */

typedef struct reshaper_version {
    int major;
    int minor;
    int patch;
    const char *string; /* "major.minor.patch" */
} reshaper_version_t;

RESHAPER_API reshaper_status_t reshaper_get_version(reshaper_version_t *version);

/* The op kinds this backend handles: "StaticReshape", "DynamicReshape",
 * "Reshape" and, for the ONNX domain, "ai.onnx.Reshape". Static array. */
RESHAPER_API reshaper_status_t reshaper_get_handled_op_kinds(const char *const **kinds,
                                                             size_t *count);

/* The contract's spelling of a status: "invalid_shape". Static string. */
RESHAPER_API reshaper_status_t reshaper_status_name(reshaper_status_t status,
                                                    const char **name);

/* The status and message of this thread's most recent failed call
 * (reshaper_success and "" when none failed). Either pointer may be NULL.
 * The message lives until the next failed call on this thread. */
RESHAPER_API reshaper_status_t reshaper_get_last_error(reshaper_status_t *status,
                                                       const char **message);

/* The id of the rule this thread's most recent failed call broke, such as
 * "volume_mismatch" (listed in docs/rules.md; every failure names one); "" when
 * none failed. Lives as long as the message. rule may be NULL. */
RESHAPER_API reshaper_status_t reshaper_get_last_error_rule(const char **rule);

/* ---------------------------------------------------------------- graph -- */

typedef struct reshaper_graph *reshaper_graph_t;
typedef const struct reshaper_graph *const_reshaper_graph_t;

/* From NUL-terminated JSON text / a file in oneDNN Graph's serialized format. */
RESHAPER_API reshaper_status_t reshaper_graph_create_from_json(const char *json,
                                                               reshaper_graph_t *graph);
RESHAPER_API reshaper_status_t reshaper_graph_create_from_file(const char *path,
                                                               reshaper_graph_t *graph);
/* From an ONNX model file (a serialized ModelProto; interface contract 5.3):
 * every node an op of domain "ai.onnx" at the model's opset, op ids the nodes'
 * positions, tensor ids the positions of the names in first-appearance order
 * (graph inputs, initializers, node outputs); shapes from ONNX's shape
 * inference with data propagation and reshaper's folding of the shape
 * arithmetic. `free_dim_names[i]` (a dim_param of the model's inputs) is bound
 * to `free_dim_values[i]` (>= 0) before inference, as ONNX Runtime's free
 * dimension override does; 0, NULL, NULL: no bindings. Not a model:
 * reshaper_invalid_graph (rule onnx_model). */
RESHAPER_API reshaper_status_t reshaper_graph_create_from_onnx(
        reshaper_engine_kind_t engine_kind, const char *path, size_t n_free_dims,
        const char *const *free_dim_names, const int64_t *free_dim_values, reshaper_graph_t *graph);
/* The same from the `size` bytes of a serialized model in memory. */
RESHAPER_API reshaper_status_t reshaper_graph_create_from_onnx_bytes(
        reshaper_engine_kind_t engine_kind, const void *data, size_t size, size_t n_free_dims,
        const char *const *free_dim_names, const int64_t *free_dim_values, reshaper_graph_t *graph);
RESHAPER_API reshaper_status_t reshaper_graph_destroy(reshaper_graph_t graph);

/* Finalizes the graph (see reshaper_graph_finalize) when it is not yet:
 * validates every op against its schema, then infers every shape it can.
 * reshaper_graph_get_partitions and reshaper_graph_to_json do it too. */
RESHAPER_API reshaper_status_t reshaper_graph_infer_shapes(reshaper_graph_t graph);

/* ------------------------------------------------------------- builder -- */
/* Building a graph in code, in the style of oneDNN Graph's API: create an
 * empty graph, create ops, give them their input and output logical tensors
 * and attributes, add them, finalize. Finalizing validates and infers
 * exactly as loading a graph file does (the same code: a built graph is
 * checked as the graph file it describes), so an invalid op or graph gets the
 * status, message and rule the same file gets. Afterwards the graph is
 * immutable and may be used from any number of threads at once.
 *
 * Misuse: adding an op to a finalized graph, an op id twice, or a tensor id
 * described two ways (another dtype, layout, property, strides, rank or known
 * dim) is reshaper_invalid_graph; a NULL handle or pointer is
 * reshaper_invalid_arguments. Ops and graphs being built are not
 * thread-safe. */

typedef struct reshaper_op *reshaper_op_t;
typedef const struct reshaper_op *const_reshaper_op_t;

/* An empty graph for this engine kind (its "engine_kind"). */
RESHAPER_API reshaper_status_t reshaper_graph_create(reshaper_engine_kind_t engine_kind,
                                                     reshaper_graph_t *graph);
/* An op with its id (unique in the graph), kind ("StaticReshape", "Reshape",
 * or any other: unknown kinds become unsupported partitions) and name. */
RESHAPER_API reshaper_status_t reshaper_op_create(reshaper_op_t *op, int64_t id, const char *kind,
                                                  const char *name);
RESHAPER_API reshaper_status_t reshaper_op_destroy(reshaper_op_t op);
/* domain "" (the oneDNN Graph opset, the default) or "ai.onnx"; version as in
 * a graph file (for ai.onnx the opset), 0: the newest */
RESHAPER_API reshaper_status_t reshaper_op_set_domain(reshaper_op_t op, const char *domain,
                                                      int64_t version);
/* The next input / output, in order. */
RESHAPER_API reshaper_status_t reshaper_op_add_input(reshaper_op_t op,
                                                     const reshaper_logical_tensor_t *lt);
RESHAPER_API reshaper_status_t reshaper_op_add_output(reshaper_op_t op,
                                                      const reshaper_logical_tensor_t *lt);
/* Attributes by type; setting a name again replaces its value. */
RESHAPER_API reshaper_status_t reshaper_op_set_attr_s64(reshaper_op_t op, const char *name,
                                                        int64_t value);
RESHAPER_API reshaper_status_t reshaper_op_set_attr_s64s(reshaper_op_t op, const char *name,
                                                         const int64_t *values, size_t count);
RESHAPER_API reshaper_status_t reshaper_op_set_attr_f32(reshaper_op_t op, const char *name,
                                                        float value);
RESHAPER_API reshaper_status_t reshaper_op_set_attr_f32s(reshaper_op_t op, const char *name,
                                                         const float *values, size_t count);
RESHAPER_API reshaper_status_t reshaper_op_set_attr_bool(reshaper_op_t op, const char *name,
                                                         int value);
RESHAPER_API reshaper_status_t reshaper_op_set_attr_str(reshaper_op_t op, const char *name,
                                                        const char *value);
/* the op is copied: it may be destroyed afterwards */
RESHAPER_API reshaper_status_t reshaper_graph_add_op(reshaper_graph_t graph,
                                                     const_reshaper_op_t op);
/* row-major data of an input tensor, as "values" in a graph file (known at
 * compile time when the tensor is constant); `bytes` must equal the tensor's
 * size (packed types two per byte). The tensor must have been added with an
 * op, with a known shape; string tensors: reshaper_unimplemented. */
RESHAPER_API reshaper_status_t reshaper_graph_set_tensor_values(reshaper_graph_t graph,
                                                                int64_t tensor_id,
                                                                const void *data, size_t bytes);
/* validates and infers exactly as loading a graph file does; afterwards the
 * graph is immutable and may be used from any number of threads at once.
 * A graph read from JSON is finalized the same way. Finalizing a finalized
 * graph does nothing. */
RESHAPER_API reshaper_status_t reshaper_graph_finalize(reshaper_graph_t graph);
/* *finalized: 1 once the graph is finalized, else 0. */
RESHAPER_API reshaper_status_t reshaper_graph_is_finalized(const_reshaper_graph_t graph,
                                                           int *finalized);

/* The graph as JSON text (finalizing it first). *size receives the bytes
 * needed including the terminating NUL; the text is copied when buffer is
 * not NULL. */
RESHAPER_API reshaper_status_t reshaper_graph_to_json(const_reshaper_graph_t graph,
                                                      char *buffer, size_t capacity,
                                                      size_t *size);

/* The logical tensor with this id (after inference, if it was run). */
RESHAPER_API reshaper_status_t reshaper_graph_get_tensor(const_reshaper_graph_t graph,
                                                         int64_t id,
                                                         reshaper_logical_tensor_t *lt);

/* The tensor's "values" from the file as dense row-major bytes (packed
 * types two per byte). *size receives their byte size, 0 when the file gives
 * none; they are copied when buffer is not NULL. String tensors:
 * reshaper_unimplemented. */
RESHAPER_API reshaper_status_t reshaper_graph_get_tensor_values(const_reshaper_graph_t graph,
                                                                int64_t id, void *buffer,
                                                                size_t capacity, size_t *size);

/* ----------------------------------------------------------- partitions -- */

typedef struct reshaper_partition_list *reshaper_partition_list_t;
/* Borrowed from its list: valid until the list is destroyed. */
typedef const struct reshaper_partition *const_reshaper_partition_t;

/* Partitions covering every op once, producers first. Unknown op kinds
 * become unsupported partitions, never an error. The list keeps its own
 * snapshot of the graph: the graph may be destroyed afterwards. */
RESHAPER_API reshaper_status_t reshaper_graph_get_partitions(
        reshaper_graph_t graph, reshaper_partition_policy_t policy,
        reshaper_engine_kind_t engine_kind, reshaper_partition_list_t *list);
RESHAPER_API reshaper_status_t reshaper_partition_list_destroy(reshaper_partition_list_t list);
RESHAPER_API reshaper_status_t reshaper_partition_list_get_count(reshaper_partition_list_t list,
                                                                 size_t *count);
RESHAPER_API reshaper_status_t reshaper_partition_list_get(reshaper_partition_list_t list,
                                                           size_t index,
                                                           const_reshaper_partition_t *partition);

RESHAPER_API reshaper_status_t reshaper_partition_get_id(const_reshaper_partition_t partition,
                                                         size_t *id);
RESHAPER_API reshaper_status_t reshaper_partition_is_supported(
        const_reshaper_partition_t partition, int *supported);
/* Ids of the partition's ops (as in the graph file), producers first. */
RESHAPER_API reshaper_status_t reshaper_partition_get_op_ids(const_reshaper_partition_t partition,
                                                             int64_t *ids, size_t capacity,
                                                             size_t *count);
/* Boundary logical tensors, as inferred in the graph. */
RESHAPER_API reshaper_status_t reshaper_partition_get_inputs(
        const_reshaper_partition_t partition, reshaper_logical_tensor_t *lts, size_t capacity,
        size_t *count);
RESHAPER_API reshaper_status_t reshaper_partition_get_outputs(
        const_reshaper_partition_t partition, reshaper_logical_tensor_t *lts, size_t capacity,
        size_t *count);
/* Why the partition is unsupported ("" when supported). */
RESHAPER_API reshaper_status_t reshaper_partition_get_reason(const_reshaper_partition_t partition,
                                                             const char **reason);

/* -------------------------------------------------------------- engines -- */

typedef struct reshaper_engine *reshaper_engine_t;

/* reshaper_unavailable when there is no such device on this machine. */
RESHAPER_API reshaper_status_t reshaper_engine_create(reshaper_engine_kind_t kind, size_t index,
                                                      reshaper_engine_t *engine);
RESHAPER_API reshaper_status_t reshaper_engine_destroy(reshaper_engine_t engine);

/* -------------------------------------------------- compiled partitions -- */

typedef struct reshaper_compiled_partition *reshaper_compiled_partition_t;

typedef struct reshaper_inplace_pair {
    int64_t input_id;
    int64_t output_id;
} reshaper_inplace_pair_t;

/* Compiles a supported partition for `engine`. inputs / outputs give the
 * boundary tensors as the caller has them (concrete shapes, actual strides or
 * layouts, `any` outputs to let the backend choose), matched to the
 * partition's by id; a boundary tensor not given (NULL with a count of 0 for
 * all of them) is the partition's own. The compiled partition keeps what it
 * needs: the graph, the list and the engine may be destroyed afterwards. */
RESHAPER_API reshaper_status_t reshaper_partition_compile(
        const_reshaper_partition_t partition, reshaper_engine_t engine, size_t num_inputs,
        const reshaper_logical_tensor_t *inputs, size_t num_outputs,
        const reshaper_logical_tensor_t *outputs, reshaper_compiled_partition_t *compiled);
RESHAPER_API reshaper_status_t reshaper_compiled_partition_destroy(
        reshaper_compiled_partition_t compiled);

/* Final boundary tensors: every shape resolved, every `any` output given the
 * layout the backend chose. */
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_inputs(
        reshaper_compiled_partition_t compiled, reshaper_logical_tensor_t *lts,
        size_t capacity, size_t *count);
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_outputs(
        reshaper_compiled_partition_t compiled, reshaper_logical_tensor_t *lts,
        size_t capacity, size_t *count);
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_lowering(
        reshaper_compiled_partition_t compiled, reshaper_lowering_kind_t *lowering);
/* The plan in words: steps, shapes, strides. */
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_lowering_details(
        reshaper_compiled_partition_t compiled, const char **details);
/* When the lowering is not alias: why the output cannot be a view of the
 * input (the view rule's reason, naming the dims that break it); "" for an
 * alias. Lives as long as the handle. */
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_why_not_alias(
        reshaper_compiled_partition_t compiled, const char **why);
/* (input id, output id) pairs that may share one buffer. */
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_inplace_pairs(
        reshaper_compiled_partition_t compiled, reshaper_inplace_pair_t *pairs, size_t capacity,
        size_t *count);

/* Runs the partition: one host buffer per input and per output, in the order
 * of the compiled inputs / outputs. Inputs are never modified and nothing is
 * written outside an output's extent; run-time shape values that disagree
 * with the compiled output give reshaper_invalid_shape and write nothing. */
RESHAPER_API reshaper_status_t reshaper_compiled_partition_execute(
        reshaper_compiled_partition_t compiled, size_t num_inputs, const void *const *inputs,
        size_t num_outputs, void *const *outputs);

/* Dynamic shapes. A partition whose target shape arrives only at execute
 * (DynamicReshape, Reshape-1, ONNX Reshape with a non-constant shape input)
 * compiles with its output dims unknown (-1) when the caller does not give
 * them: the output is then dense (its layout must be `any` or dense strided),
 * and one compiled partition serves every target shape. Its buffer size is
 * known at compile all the same (a reshape keeps the volume):
 * reshaper_compiled_partition_get_output_mem_size. Execute with
 * reshaper_compiled_partition_execute_dynamic to learn the dims: it runs as
 * reshaper_compiled_partition_execute does and fills `resolved_outputs` (one
 * per output, may be NULL) with the outputs' logical tensors, every dim
 * known, dense strides. Thread-safe like execute. */
RESHAPER_API reshaper_status_t reshaper_compiled_partition_get_output_mem_size(
        reshaper_compiled_partition_t compiled, size_t index, size_t *size);
RESHAPER_API reshaper_status_t reshaper_compiled_partition_execute_dynamic(
        reshaper_compiled_partition_t compiled, size_t num_inputs, const void *const *inputs,
        size_t num_outputs, void *const *outputs, reshaper_logical_tensor_t *resolved_outputs);

#ifdef __cplusplus
}
#endif

#endif /* RESHAPER_RESHAPER_H */
