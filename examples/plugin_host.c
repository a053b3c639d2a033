/* A plugin host: dlopen() libreshaper, take its function table from
 * reshaper_plugin_entry() and run every supported partition of a graph file
 * on the file's values (or zeros). Needs only reshaper/plugin.h at build
 * time.  Usage: plugin_host LIBRARY GRAPH.json */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <reshaper/plugin.h>

static const reshaper_plugin_api *api;

static int failed(const char *what, reshaper_status_t status) {
    const char *message = "", *name = "";
    api->get_last_error(NULL, &message);
    api->status_name(status, &name);
    fprintf(stderr, "%s: %s: %s\n", what, name, message);
    return 1;
}

#define CHECK(call)                                                  \
    do {                                                             \
        reshaper_status_t s_ = (call);                               \
        if (s_ != reshaper_success) return failed(#call, s_);        \
    } while (0)

/* Compiles and executes one partition; buffers are freed on every path. */
static int run_partition(reshaper_graph_t graph, const_reshaper_partition_t partition,
                         reshaper_engine_t engine) {
    reshaper_compiled_partition_t compiled = NULL;
    reshaper_logical_tensor_t lts[2 * 16];
    void *buffers[2 * 16] = {0};
    size_t n_in = 0, n_out = 0, i, bytes, value_bytes;
    reshaper_lowering_kind_t lowering;
    reshaper_status_t s = reshaper_success;
    static const char *lowering_names[] = {"alias", "reorder", "kernel"};

    CHECK(api->partition_compile(partition, engine, 0, NULL, 0, NULL, &compiled));
    s = api->compiled_partition_get_inputs(compiled, lts, 16, &n_in);
    if (s == reshaper_success)
        s = api->compiled_partition_get_outputs(compiled, lts + n_in, 16, &n_out);
    if (s == reshaper_success) s = api->compiled_partition_get_lowering(compiled, &lowering);
    for (i = 0; s == reshaper_success && i < n_in + n_out; ++i) {
        s = api->logical_tensor_get_mem_size(&lts[i], &bytes);
        if (s != reshaper_success) break;
        buffers[i] = calloc(bytes > 0 ? bytes : 1, 1);
        if (buffers[i] == NULL) {
            s = reshaper_out_of_memory;
            break;
        }
        if (i < n_in) { /* inputs: the file's values when it has them */
            s = api->graph_get_tensor_values(graph, lts[i].id, NULL, 0, &value_bytes);
            if (s == reshaper_success && value_bytes > 0 && value_bytes <= bytes)
                s = api->graph_get_tensor_values(graph, lts[i].id, buffers[i], bytes,
                                                 &value_bytes);
        }
    }
    if (s == reshaper_success)
        s = api->compiled_partition_execute(compiled, n_in, (const void *const *)buffers, n_out,
                                            buffers + n_in);
    if (s == reshaper_success)
        printf("  %zu input(s) -> %zu output(s), lowering %s: executed\n", n_in, n_out,
               lowering_names[lowering]);
    for (i = 0; i < n_in + n_out; ++i) free(buffers[i]);
    api->compiled_partition_destroy(compiled);
    return s == reshaper_success ? 0 : failed("run_partition", s);
}

int main(int argc, char **argv) {
    void *library;
    reshaper_plugin_entry_fn entry;
    reshaper_graph_t graph = NULL;
    reshaper_partition_list_t list = NULL;
    reshaper_engine_t engine = NULL;
    size_t count = 0, i;
    int rc = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBRARY GRAPH.json\n", argv[0]);
        return 2;
    }
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    /* POSIX's way to turn dlsym's object pointer into a function pointer. */
    *(void **)&entry = dlsym(library, RESHAPER_PLUGIN_ENTRY_NAME);
    api = entry != NULL ? entry(RESHAPER_PLUGIN_ABI_VERSION) : NULL;
    if (api == NULL) {
        fprintf(stderr, "%s has no plugin table for ABI %d\n", argv[1],
                RESHAPER_PLUGIN_ABI_VERSION);
        return 2;
    }
    printf("plugin %s %s (ABI %u)\n", api->name, api->version, api->abi_version);

    CHECK(api->graph_create_from_file(argv[2], &graph));
    CHECK(api->graph_get_partitions(graph, reshaper_policy_fusion, reshaper_engine_cpu, &list));
    CHECK(api->engine_create(reshaper_engine_cpu, 0, &engine));
    CHECK(api->partition_list_get_count(list, &count));
    for (i = 0; i < count && rc == 0; ++i) {
        const_reshaper_partition_t partition = NULL;
        int supported = 0;
        const char *reason = "";
        CHECK(api->partition_list_get(list, i, &partition));
        CHECK(api->partition_is_supported(partition, &supported));
        printf("partition %zu: %s\n", i, supported ? "supported" : "not supported");
        if (supported)
            rc = run_partition(graph, partition, engine);
        else if (api->partition_get_reason(partition, &reason) == reshaper_success)
            printf("  %s\n", reason);
    }
    api->engine_destroy(engine);
    api->partition_list_destroy(list);
    api->graph_destroy(graph);
    dlclose(library);
    return rc;
}
