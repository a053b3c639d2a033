// Resource limits: what a graph may ask of the process before it is refused
// with a clear error instead of exhausting memory or time. Each has a
// default and an environment variable that sets it (read at each use, so a
// test can lower a limit instead of allocating):
//   RESHAPER_MAX_GRAPH_BYTES   size of a graph file or JSON text   1 GiB
//   RESHAPER_MAX_JSON_DEPTH    nesting of JSON arrays and objects  256 (at most 1024)
//   RESHAPER_MAX_OPS           ops in one graph                    10,000,000
//   RESHAPER_MAX_TENSOR_BYTES  one tensor's buffer in check/perf   16 GiB
// Exceeding the first three is invalid input (invalid_graph); a tensor
// larger than the last is out_of_memory. A value that is not a positive
// decimal integer is ignored with a warning on stderr (once per variable and
// value); a depth above json_depth_ceiling is lowered to it, with a warning.
#pragma once

#include <cstdint>
#include <string>

namespace reshaper::impl {

// The deepest nesting RESHAPER_MAX_JSON_DEPTH can allow. Reading is
// iterative, but converting, copying and dumping a JSON value (ours and
// nlohmann's, for extra fields and messages) recurse once per level, about
// 300 bytes of stack a level in a release build: with an 8 MiB stack a
// file 60,000 levels deep crashed the driver, and with a 256 KiB stack 880
// levels loaded. 1024 levels take about 300 KiB (a 512 KiB stack holds
// them), far within the 8 MiB of a main thread and the megabytes of other
// threads, sanitizer builds' larger frames included; real graph files nest
// 7.
constexpr std::uint64_t json_depth_ceiling = 1024;

struct resource_limits {
    std::uint64_t max_graph_bytes = std::uint64_t{1} << 30;
    std::uint64_t max_json_depth = 256;
    std::uint64_t max_ops = 10'000'000;
    std::uint64_t max_tensor_bytes = std::uint64_t{16} << 30;
};

// The defaults, each replaced by its environment variable when that holds
// a positive decimal integer (see above for other values).
resource_limits current_limits();

// "reshaper: warning: " + text + "\n" on stderr, at most once per `key`
// and `text` in a process (limits are read at every use): for settings
// from the environment that are ignored or changed.
void warn_once(const std::string &key, const std::string &text);

// "16 GiB", "1.5 MiB", "300 bytes": for messages.
std::string format_bytes(std::uint64_t bytes);

} // namespace reshaper::impl
