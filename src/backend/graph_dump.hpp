// RESHAPER_GRAPH_DUMP, as ONEDNN_GRAPH_DUMP does for oneDNN: `graph` writes
// every finalized graph, `partition` every compiled partition (its ops and
// the logical tensors it was compiled with), `graph,partition` both, as graph
// files into RESHAPER_GRAPH_DUMP_DIR (default: the current directory), named
// reshaper_graph_<pid>_<n>.json and reshaper_partition_<pid>_<n>.json and
// never overwriting a file. reshaper-run replays them. The variables are read
// at every finalize and compile (cheap next to either), so a host may switch
// dumping on and off while it runs. A dump that cannot be written is
// reported on stderr and never fails the call.
#pragma once

#include "backend/compiled_partition.hpp"
#include "core/graph.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::impl {

void dump_finalized_graph(const graph &g);

// A graph file of the partition's ops with its boundary tensors as `compiled`
// has them (concrete shapes, strides, blocked formats), plus a top-level
// "reshaper_partition" {"id", "lowering"} naming what was compiled.
graph partition_as_graph(const graph &g, const partition &p,
                               const compiled_partition &compiled);
void dump_compiled_partition(const graph &g, const partition &p,
                             const compiled_partition &compiled);

} // namespace reshaper::impl
