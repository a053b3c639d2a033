// Which SIMD level the data-movement kernels run at. Detected once from the
// CPU, capped by RESHAPER_MAX_CPU_ISA (as ONEDNN_MAX_CPU_ISA caps oneDNN) so
// that every level can be run and tested on a machine that has the highest.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace reshaper::impl {

// Ordered: each level implies the ones below it.
enum class cpu_isa {
    scalar, // portable C++ (plain stores)
    avx2,   // AVX2: 256-bit shuffles, streaming stores
    avx512, // AVX-512 F+BW: 512-bit shuffles, streaming stores
};

std::string_view to_string(cpu_isa isa);
// "scalar", "avx2", "avx512" (any case; oneDNN's "avx512_core" and
// "default" are accepted too); nothing for any other text.
std::optional<cpu_isa> parse_cpu_isa(std::string_view text);

// The highest level this CPU (and this build) supports.
cpu_isa detected_cpu_isa();

// The level the kernels use: the detected one, capped by
// RESHAPER_MAX_CPU_ISA when set. Read once; an unknown value is ignored
// with a one-line warning on stderr.
cpu_isa active_cpu_isa();

// Tests: the kernels run at `level` (capped at the detected one) instead,
// until called with nothing, so that one process can run a compiled
// partition at every level (the kernel tests pass the level instead). Not
// while kernels run on other threads.
void override_cpu_isa_for_testing(std::optional<cpu_isa> level);

// Whose measurements a level's kernel table follows where CPUs of the same
// level differ: the AVX-512 level was tuned on an AMD EPYC and again on an
// Intel Xeon, whose fastest walks differ (docs/performance.md, "Why the
// kernels are tuned as they are"). Levels without such a difference have
// one table for both.
enum class kernel_tuning {
    amd,   // AMD's CPUs, and any other vendor's
    intel, // Intel's
};
std::string_view to_string(kernel_tuning tuning);

// The tuning the kernels use: by the CPU's vendor, or as
// RESHAPER_KERNEL_TUNING=amd|intel says (so that every table can be run and
// tested on one machine). Read once; an unknown value is ignored with a
// one-line warning on stderr.
kernel_tuning active_kernel_tuning();

// What a machine says of its caches, as sysfs lists them for cpu0: the
// highest level (its bytes, whole, and the CPUs listed as sharing it; 0:
// not listed) and the largest data cache below it, the core's own (its L2).
struct cache_facts {
    std::size_t last_level_bytes = 0;
    std::size_t last_level_sharing_cpus = 0;
    std::size_t core_bytes = 0;
};

// The sizes the kernels decide by, all from those facts (thresholds_for).
struct cache_thresholds {
    // The last-level cache counted on: cache_share_bytes of the listed one.
    std::size_t last_level_bytes = 0;
    // Copies (contiguous runs) of at least this many bytes of destination
    // are written with streaming stores: a third of the last-level cache.
    // Smaller outputs stay in the cache for the op that reads them next,
    // where streaming stores would send them to DRAM; a move plus a read of
    // its output measured faster with ordinary stores up to there, and
    // slower from there on (docs/performance.md, "Streaming stores and the
    // last-level cache" and the bullet on the cache counted).
    std::size_t copy_streaming_bytes = 0;
    // Transposes (tiles, split and joined rows, packed tiles) stream from
    // half that, a sixth of the cache: their ordinary stores each read a
    // line for ownership, which streaming ones skip (same measurements).
    std::size_t transpose_streaming_bytes = 0;
    // Transposes not streamed walk with prefetches of the next step's
    // source and destination lines (row_reach in_last_level) from 8 times
    // the core's cache, where their lines come from the last-level cache.
    // Below, the caches' own prefetchers kept up and the walk's only cost
    // (docs/performance.md, "Why the kernels are tuned as they are").
    std::size_t last_level_walk_bytes = 0;
};
cache_thresholds thresholds_for(const cache_facts &facts);

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

// This machine's facts, read once: sysfs for cpu0, else sysconf's levels
// 3 and 2 (sharing not listed), else 8 MiB and 1 MiB. sysfs first: on a
// Zen 3 EPYC it lists the 32 MiB one core shares, where
// sysconf(_SC_LEVEL3_CACHE_SIZE) says 256, the whole socket's.
const cache_facts &machine_cache_facts();
// thresholds_for(machine_cache_facts()), computed once.
const cache_thresholds &machine_cache_thresholds();

// This machine's last-level cache as counted, and as listed, whole (what
// sizes a move that it cannot hold: scripts/bench_report.py's DRAM-sized
// moves, from reshaper-run's report).
std::size_t last_level_cache_bytes();
std::size_t listed_last_level_cache_bytes();
// This machine's core cache (2 MiB on an Intel Xeon VM, 512 KiB on a Zen 3
// EPYC). Moves past it come from the last-level cache.
std::size_t core_cache_bytes();

// This machine's copy_streaming_bytes, or a test's override.
std::size_t streaming_threshold_bytes();
// Half of streaming_threshold_bytes(): this machine's
// transpose_streaming_bytes, or half a test's override.
std::size_t transpose_streaming_threshold_bytes();

// This machine's last_level_walk_bytes, or a test's override.
std::size_t last_level_walk_threshold_bytes();
// Tests: last_level_walk_threshold_bytes() returns `bytes` instead, until
// called with nothing. Not while kernels run on other threads.
void override_last_level_walk_threshold_for_testing(std::optional<std::size_t> bytes);

// Tests: streaming_threshold_bytes() returns `bytes` instead (and
// transpose_streaming_threshold_bytes() half of it), until called
// with nothing, so that moves of test sizes reach both the streamed and the
// cached paths. Not while kernels run on other threads.
void override_streaming_threshold_for_testing(std::optional<std::size_t> bytes);

} // namespace reshaper::impl
