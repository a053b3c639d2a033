// Fuzz target (a): a graph file from bytes through everything reshaper-run
// does before compiling: read, validate, infer, partition (both policies),
// and write back, which must read again as an equal graph. Bad input must
// end as an impl::error; anything else (a crash, a sanitizer report, another
// exception, a written graph that does not read back) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    graph g;
    try {
        g = read_graph_json(text);
    } catch (const error &) {
        return 0;
    }
    // What was read writes out and reads back as the same graph.
    try {
        if (!(read_graph_json(write_graph_json(g)) == g)) std::abort();
    } catch (const error &) {
        // A graph holding an op that names a tensor it lacks cannot be written.
    }
    try {
        infer_graph_shapes(g);
        for (auto policy : {partition_policy::fusion, partition_policy::debug})
            for (const char *engine : {"cpu", "gpu"}) get_partitions(g, policy, engine);
    } catch (const error &) {
    }
    return 0;
}
