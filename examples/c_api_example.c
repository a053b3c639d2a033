/* The reshaper C API in one page: load a graph, partition it, compile the
 * reshape for a layout the backend picks, execute it, check the result.
 * Built against the installed package by the api.package_install_and_consume
 * test; docs/api.md walks through it. */
#include <stdio.h>
#include <stdlib.h>

#include <reshaper/reshaper.h>

/* Prints the library's message and leaves main() on failure. */
#define CHECK(call)                                                                  \
    do {                                                                             \
        reshaper_status_t s_ = (call);                                               \
        if (s_ != reshaper_success) {                                                \
            const char *message_ = "";                                               \
            const char *name_ = "";                                                  \
            reshaper_get_last_error(NULL, &message_);                                \
            reshaper_status_name(s_, &name_);                                        \
            fprintf(stderr, "%s failed: %s: %s\n", #call, name_, message_);         \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static const char *graph_json =
        "{ \"version\": \"3.3.0\", \"engine_kind\": \"cpu\", \"graph\": [\n"
        "  { \"id\": 0, \"name\": \"Reshape_0\", \"kind\": \"StaticReshape\",\n"
        "    \"attrs\": { \"special_zero\": {\"type\": \"bool\", \"value\": 0},\n"
        "               \"shape\": {\"type\": \"s64[]\", \"value\": [4, -1]} },\n"
        "    \"inputs\":  [ {\"id\": 0, \"dtype\": \"f32\", \"shape\": [2, 3, 4],\n"
        "                  \"stride\": [12, 4, 1], \"layout_type\": \"strided\",\n"
        "                  \"property_type\": \"undef\"} ],\n"
        "    \"outputs\": [ {\"id\": 1, \"dtype\": \"f32\", \"shape\": [-1, -1],\n"
        "                  \"stride\": [], \"layout_type\": \"any\",\n"
        "                  \"property_type\": \"undef\"} ] } ] }";

int main(void) {
    reshaper_graph_t graph = NULL;
    reshaper_partition_list_t partitions = NULL;
    reshaper_engine_t engine = NULL;
    reshaper_compiled_partition_t compiled = NULL;
    const_reshaper_partition_t partition = NULL;
    reshaper_logical_tensor_t output;
    reshaper_lowering_kind_t lowering;
    size_t count = 0, bytes = 0, i;
    int supported = 0;
    float input[24], *result;

    /* Load; partitioning validates the graph and infers the [4, 6] output. */
    CHECK(reshaper_graph_create_from_json(graph_json, &graph));
    CHECK(reshaper_graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu,
                                        &partitions));
    CHECK(reshaper_partition_list_get_count(partitions, &count));
    CHECK(reshaper_partition_list_get(partitions, 0, &partition));
    CHECK(reshaper_partition_is_supported(partition, &supported));
    if (count != 1 || !supported) {
        fprintf(stderr, "expected one supported partition\n");
        return 1;
    }

    /* Compile with the partition's own boundary tensors (NULL, 0). The
     * output's layout was `any`: the compiled output carries the choice. */
    CHECK(reshaper_engine_create(reshaper_engine_cpu, 0, &engine));
    CHECK(reshaper_partition_compile(partition, engine, 0, NULL, 0, NULL, &compiled));
    CHECK(reshaper_compiled_partition_get_outputs(compiled, &output, 1, &count));
    CHECK(reshaper_compiled_partition_get_lowering(compiled, &lowering));
    CHECK(reshaper_logical_tensor_get_mem_size(&output, &bytes));
    printf("output [%lld, %lld] strides [%lld, %lld], %zu bytes, lowering %s\n",
           (long long)output.dims[0], (long long)output.dims[1], (long long)output.strides[0],
           (long long)output.strides[1], bytes,
           lowering == reshaper_lowering_alias ? "alias" : "copy");

    /* Execute into a separate buffer. */
    for (i = 0; i < 24; ++i) input[i] = (float)i;
    result = malloc(bytes);
    if (result == NULL) return 1;
    {
        const void *inputs[1];
        void *outputs[1];
        inputs[0] = input;
        outputs[0] = result;
        CHECK(reshaper_compiled_partition_execute(compiled, 1, inputs, 1, outputs));
    }
    for (i = 0; i < 24; ++i) {
        if (result[i] != input[i]) {
            fprintf(stderr, "element %zu: %g, expected %g\n", i, result[i], input[i]);
            return 1;
        }
    }
    printf("ok: 24 elements in row-major order\n");

    free(result);
    reshaper_compiled_partition_destroy(compiled);
    reshaper_engine_destroy(engine);
    reshaper_partition_list_destroy(partitions);
    reshaper_graph_destroy(graph);
    return 0;
}
