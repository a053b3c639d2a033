// Resource limits: what a graph may ask of the process before it is refused
// with a clear error instead of exhausting memory or time. Each has a
// default and an environment variable that sets it (read at each use, so a
// test can lower a limit instead of allocating):
//   RESHAPER_MAX_GRAPH_BYTES   size of a graph file or JSON text   1 GiB
//   RESHAPER_MAX_JSON_DEPTH    nesting of JSON arrays and objects  256
//   RESHAPER_MAX_OPS           ops in one graph                    10,000,000
//   RESHAPER_MAX_TENSOR_BYTES  one tensor's buffer in check/perf   16 GiB
// Exceeding the first three is invalid input (invalid_graph); a tensor
// larger than the last is out_of_memory.
#pragma once

#include <cstdint>
#include <string>

namespace reshaper::impl {

struct resource_limits {
    std::uint64_t max_graph_bytes = std::uint64_t{1} << 30;
    std::uint64_t max_json_depth = 256;
    std::uint64_t max_ops = 10'000'000;
    std::uint64_t max_tensor_bytes = std::uint64_t{16} << 30;
};

// The defaults, each replaced by its environment variable when that holds
// a positive decimal integer (other values are ignored).
resource_limits current_limits();

// "16 GiB", "1.5 MiB", "300 bytes": for messages.
std::string format_bytes(std::uint64_t bytes);

} // namespace reshaper::impl
