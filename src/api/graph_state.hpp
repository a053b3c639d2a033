// Finalizing a graph handle, shared by the graph queries and the builder.
#pragma once

#include <memory>

#include "api/handles.hpp"

namespace reshaper::api {

// The finalized graph: validated and its shapes inferred, by the code that
// loads graph files (a built graph is written as the graph file it describes
// and read back). Done once, under the handle's mutex; afterwards lock-free
// and immutable. Throws the error the equivalent graph file gives.
std::shared_ptr<const impl::graph> finalized_graph(reshaper_graph &handle);

// The graph as it is now (finalized or not), without finalizing it.
std::shared_ptr<const impl::graph> current_graph(const reshaper_graph &handle);

} // namespace reshaper::api
