/* Building a graph in code: the reshapes of the transformer self-attention
 * block of examples/attention_reshapes.json (split Q into heads with ONNX
 * Reshape-14 and a constant shape input, split K and V with StaticReshape,
 * merge the transposed heads and flatten the tokens), added op by op
 * through the builder, finalized, partitioned, compiled and executed; every
 * output is checked against a plain reference. Then an invalid op, to show
 * the error: status, message and rule id.
 * Built against the installed package and run by the
 * api.package_install_and_consume test; docs/api.md walks through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <reshaper/reshaper.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        reshaper_status_t s_ = (call);                                               \
        if (s_ != reshaper_success) {                                                \
            const char *message_ = "";                                               \
            reshaper_get_last_error(NULL, &message_);                                \
            fprintf(stderr, "%s failed: %s\n", #call, message_);                    \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static reshaper_logical_tensor_t tensor(int64_t id, reshaper_data_type_t dt, int32_t ndims,
                                        const int64_t *dims, const int64_t *strides,
                                        reshaper_property_type_t property) {
    reshaper_logical_tensor_t lt;
    CHECK(reshaper_logical_tensor_init(&lt, id, dt, ndims, dims, strides, reshaper_layout_strided,
                                       property));
    return lt;
}

static const int64_t tokens[] = {256, 768};
static const int64_t heads[] = {2, 128, 12, 64};
static const int64_t merged[] = {2, 128, 768};
/* The context after the transpose back: [2,128,12,64] over a [2,12,128,64] buffer. */
static const int64_t transposed_strides[] = {98304, 64, 8192, 1};
static const int64_t head_shape[] = {2, 128, 12, 64};
static const int64_t four = 4;

/* A StaticReshape from `in` to `out` with its `shape` and `special_zero`. */
static void add_static_reshape(reshaper_graph_t graph, int64_t id, const char *name,
                               reshaper_logical_tensor_t in, reshaper_logical_tensor_t out,
                               const int64_t *shape, size_t rank, int special_zero) {
    reshaper_op_t op = NULL;
    CHECK(reshaper_op_create(&op, id, "StaticReshape", name));
    CHECK(reshaper_op_add_input(op, &in));
    CHECK(reshaper_op_add_output(op, &out));
    CHECK(reshaper_op_set_attr_s64s(op, "shape", shape, rank));
    CHECK(reshaper_op_set_attr_bool(op, "special_zero", special_zero));
    CHECK(reshaper_graph_add_op(graph, op));
    CHECK(reshaper_op_destroy(op)); /* the graph keeps a copy */
}

static reshaper_graph_t build_attention_reshapes(void) {
    reshaper_graph_t graph = NULL;
    CHECK(reshaper_graph_create(reshaper_engine_cpu, &graph));

    /* q_split_heads: ONNX Reshape (opset 14), shape from a constant input. */
    reshaper_op_t q = NULL;
    CHECK(reshaper_op_create(&q, 1, "Reshape", "q_split_heads"));
    CHECK(reshaper_op_set_domain(q, "ai.onnx", 14));
    reshaper_logical_tensor_t q_in = tensor(2, reshaper_dt_f32, 2, tokens, NULL, reshaper_property_undef);
    reshaper_logical_tensor_t q_shape = tensor(3, reshaper_dt_s64, 1, &four, NULL, reshaper_property_constant);
    reshaper_logical_tensor_t q_out = tensor(4, reshaper_dt_f32, 4, heads, NULL, reshaper_property_undef);
    CHECK(reshaper_op_add_input(q, &q_in));
    CHECK(reshaper_op_add_input(q, &q_shape));
    CHECK(reshaper_op_add_output(q, &q_out));
    CHECK(reshaper_op_set_attr_s64(q, "allowzero", 0));
    CHECK(reshaper_graph_add_op(graph, q));
    CHECK(reshaper_op_destroy(q));
    CHECK(reshaper_graph_set_tensor_values(graph, 3, head_shape, sizeof head_shape));

    /* k_split_heads, v_split_heads: StaticReshape. */
    add_static_reshape(graph, 4, "k_split_heads",
                       tensor(7, reshaper_dt_f32, 2, tokens, NULL, reshaper_property_undef),
                       tensor(8, reshaper_dt_f32, 4, heads, NULL, reshaper_property_undef),
                       head_shape, 4, 0);
    add_static_reshape(graph, 7, "v_split_heads",
                       tensor(11, reshaper_dt_f32, 2, tokens, NULL, reshaper_property_undef),
                       tensor(12, reshaper_dt_f32, 4, heads, NULL, reshaper_property_undef),
                       head_shape, 4, 0);

    /* merge_heads then flatten_tokens: one fused partition. Output shapes are
     * left unknown (-1): inference fills them in. */
    const int64_t merge_shape[] = {0, 0, 768}, flatten_shape[] = {-1, 768};
    const int64_t unknown3[] = {-1, -1, -1}, unknown2[] = {-1, -1};
    add_static_reshape(graph, 13, "merge_heads",
                       tensor(17, reshaper_dt_f32, 4, heads, transposed_strides, reshaper_property_undef),
                       tensor(18, reshaper_dt_f32, 3, unknown3, NULL, reshaper_property_undef),
                       merge_shape, 3, 1);
    add_static_reshape(graph, 14, "flatten_tokens",
                       tensor(18, reshaper_dt_f32, 3, unknown3, NULL, reshaper_property_undef),
                       tensor(19, reshaper_dt_f32, 2, unknown2, NULL, reshaper_property_undef),
                       flatten_shape, 2, 0);
    (void)merged;

    /* Validates and infers as loading the graph file does; immutable from now on. */
    CHECK(reshaper_graph_finalize(graph));
    return graph;
}

/* Byte offset of the element with row-major index `linear` in a strided f32 tensor. */
static size_t offset_of(const reshaper_logical_tensor_t *lt, int64_t linear) {
    int64_t offset = 0;
    for (int k = lt->ndims - 1; k >= 0; --k) {
        offset += (linear % lt->dims[k]) * lt->strides[k];
        linear /= lt->dims[k];
    }
    return (size_t)offset;
}

static int64_t volume(const reshaper_logical_tensor_t *lt) {
    int64_t v = 1;
    for (int k = 0; k < lt->ndims; ++k) v *= lt->dims[k];
    return v;
}

/* Compiles, executes on generated data and checks one supported partition. */
static int run_partition(const_reshaper_partition_t partition, reshaper_engine_t engine) {
    reshaper_compiled_partition_t compiled = NULL;
    CHECK(reshaper_partition_compile(partition, engine, 0, NULL, 0, NULL, &compiled));
    reshaper_logical_tensor_t in[2], out[1];
    size_t n_in = 0, n_out = 0;
    CHECK(reshaper_compiled_partition_get_inputs(compiled, in, 2, &n_in));
    CHECK(reshaper_compiled_partition_get_outputs(compiled, out, 1, &n_out));

    void *in_buffers[2] = {NULL, NULL};
    const reshaper_logical_tensor_t *data = NULL;
    for (size_t i = 0; i < n_in; ++i) {
        size_t bytes = 0;
        CHECK(reshaper_logical_tensor_get_mem_size(&in[i], &bytes));
        in_buffers[i] = malloc(bytes ? bytes : 1);
        if (in[i].data_type == reshaper_dt_s64) {
            memcpy(in_buffers[i], head_shape, sizeof head_shape); /* the shape input */
        } else {
            data = &in[i];
            float *f = in_buffers[i];
            for (size_t e = 0; e < bytes / sizeof(float); ++e) f[e] = (float)e;
        }
    }
    size_t out_bytes = 0;
    CHECK(reshaper_logical_tensor_get_mem_size(&out[0], &out_bytes));
    float *result = malloc(out_bytes);
    void *out_buffers[1] = {result};
    CHECK(reshaper_compiled_partition_execute(compiled, n_in, (const void *const *)in_buffers, 1,
                                              out_buffers));

    /* The reference: a reshape keeps the row-major order of the elements. */
    int wrong = 0;
    const float *src = in_buffers[data == &in[0] ? 0 : 1];
    for (int64_t e = 0; e < volume(&out[0]); ++e)
        wrong += result[offset_of(&out[0], e)] != src[offset_of(data, e)];

    reshaper_lowering_kind_t lowering;
    const char *details = "", *why = "";
    CHECK(reshaper_compiled_partition_get_lowering(compiled, &lowering));
    CHECK(reshaper_compiled_partition_get_lowering_details(compiled, &details));
    CHECK(reshaper_compiled_partition_get_why_not_alias(compiled, &why));
    static const char *const lowering_names[] = {"alias", "reorder", "kernel"};
    printf("  %s: %s%s%s -> %s\n", lowering_names[lowering], details, *why ? "; not an alias: " : "",
           why, wrong ? "WRONG" : "checked");

    for (size_t i = 0; i < n_in; ++i) free(in_buffers[i]);
    free(result);
    CHECK(reshaper_compiled_partition_destroy(compiled));
    return wrong;
}

int main(void) {
    reshaper_graph_t graph = build_attention_reshapes();
    reshaper_engine_t engine = NULL;
    reshaper_partition_list_t list = NULL;
    CHECK(reshaper_engine_create(reshaper_engine_cpu, 0, &engine));
    CHECK(reshaper_graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu, &list));
    size_t count = 0;
    CHECK(reshaper_partition_list_get_count(list, &count));
    printf("built graph: %zu partitions\n", count);
    int failures = 0, supported_count = 0;
    for (size_t i = 0; i < count; ++i) {
        const_reshaper_partition_t p = NULL;
        int supported = 0;
        CHECK(reshaper_partition_list_get(list, i, &p));
        CHECK(reshaper_partition_is_supported(p, &supported));
        if (!supported) continue;
        ++supported_count;
        failures += run_partition(p, engine) != 0;
    }

    /* An invalid op: 256*768 elements cannot be [5, 5]. Finalize reports it
     * as loading the same graph file would. */
    reshaper_graph_t bad = NULL;
    const int64_t bad_shape[] = {5, 5}, unknown2[] = {-1, -1};
    CHECK(reshaper_graph_create(reshaper_engine_cpu, &bad));
    add_static_reshape(bad, 0, "bad_reshape",
                       tensor(0, reshaper_dt_f32, 2, tokens, NULL, reshaper_property_undef),
                       tensor(1, reshaper_dt_f32, 2, unknown2, NULL, reshaper_property_undef),
                       bad_shape, 2, 0);
    const reshaper_status_t status = reshaper_graph_finalize(bad);
    const char *message = "", *rule = "", *name = "";
    reshaper_get_last_error(NULL, &message);
    reshaper_get_last_error_rule(&rule);
    reshaper_status_name(status, &name);
    printf("invalid graph: %s [rule %s]: %s\n", name, rule, message);
    const int error_ok = status == reshaper_invalid_shape && strcmp(rule, "volume_mismatch") == 0;

    CHECK(reshaper_graph_destroy(bad));
    CHECK(reshaper_partition_list_destroy(list));
    CHECK(reshaper_graph_destroy(graph));
    CHECK(reshaper_engine_destroy(engine));
    if (failures || supported_count != 4 || !error_ok) {
        fprintf(stderr, "builder example: %d wrong results, %d supported partitions (want 4)%s\n",
                failures, supported_count, error_ok ? "" : ", unexpected error");
        return 1;
    }
    printf("builder example: all %d partitions checked\n", supported_count);
    return 0;
}
