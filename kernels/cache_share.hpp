// How much of a listed last-level cache the streaming thresholds count on
// (cpu_isa.hpp's last_level_cache_bytes).
#pragma once

#include <cstddef>

namespace reshaper::impl {

// A last-level cache listed for few CPUs counts at most this much for each:
// a hypervisor may list its host's whole cache to a guest of 2 CPUs (480
// MiB on an Intel Xeon VM), which kept 64 MiB transposes in a cache whose
// guest's share does not hold them (docs/performance.md, "Why the kernels
// are tuned as they are"). Real caches have far less per CPU (1.5-12 MiB a
// core), so they count as listed.
inline constexpr std::size_t max_cache_bytes_per_cpu = std::size_t{128} << 20;

// `listed_bytes` of cache that sysfs says `sharing_cpus` CPUs share (0: not
// listed), as the bytes the streaming thresholds count on.
std::size_t cache_share_bytes(std::size_t listed_bytes, std::size_t sharing_cpus);

} // namespace reshaper::impl
