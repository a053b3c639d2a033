// reshaper-run on a large graph file: glibc's malloc asked for transparent
// huge pages (issue 27, graph scale).
//
// Checking 100,000 single transposes (a 29 MiB file) faulted in some 37,000
// pages of 4 KiB: the file's text, the reader's tensor table and ops, the
// topology, the partitions, the check's records. On the Zen 3 EPYC those
// faults (the kernel clearing and charging each page) were 14% of the
// run's CPU time on two threads, most of it on the main thread, which is
// the critical path of every serial phase. Where the system gives huge
// pages only to memory that asks for them (transparent_hugepage/enabled
// "madvise", as Debian and Ubuntu ship it), glibc's malloc asks when its
// tunable glibc.malloc.hugetlb=1 is set, and only at the process's start:
// so the driver runs itself again with it (some 10 ms, a process's start)
// when the graph files are large enough to gain more: 37,000 -> 11,500
// faults, 50-70 ms of 0.6-0.7 s on two threads. Where the system gives
// them always, or never, or the user set the tunable, nothing changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace reshaper::driver {

// Graph files from this size on (all of a run's together) are worth a
// second start of the process.
inline constexpr std::uint64_t huge_page_graph_bytes = std::uint64_t{8} << 20;

// The GLIBC_TUNABLES to run again with, or nothing: `thp_enabled` is
// /sys/kernel/mm/transparent_hugepage/enabled (the mode in brackets),
// `tunables` the GLIBC_TUNABLES the process has (null: none),
// `graph_bytes` the size of the run's graph files.
inline std::optional<std::string> huge_page_tunables(std::string_view thp_enabled, const char *tunables,
                                                     std::uint64_t graph_bytes) {
    if (graph_bytes < huge_page_graph_bytes) return std::nullopt;
    // The mode in use is the one in brackets: "always [madvise] never".
    if (thp_enabled.find("madvise]") == std::string_view::npos) return std::nullopt;
    const std::string_view had = tunables ? tunables : "";
    // Set already, by the user or by the run before this one.
    if (had.find("glibc.malloc.hugetlb") != std::string_view::npos) return std::nullopt;
    return had.empty() ? std::string("glibc.malloc.hugetlb=1") : std::string(had) + ":glibc.malloc.hugetlb=1";
}

} // namespace reshaper::driver
