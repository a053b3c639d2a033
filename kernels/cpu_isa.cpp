#include "kernels/cpu_isa.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/limits.hpp"

namespace reshaper::impl {

std::string_view to_string(cpu_isa isa) {
    switch (isa) {
    case cpu_isa::scalar: return "scalar";
    case cpu_isa::avx2: return "avx2";
    case cpu_isa::avx512: return "avx512";
    }
    return "scalar";
}

std::optional<cpu_isa> parse_cpu_isa(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "scalar" || lower == "default") return cpu_isa::scalar;
    if (lower == "avx2") return cpu_isa::avx2;
    if (lower == "avx512" || lower == "avx512_core") return cpu_isa::avx512;
    return std::nullopt;
}

cpu_isa detected_cpu_isa() {
#if defined(RESHAPER_X86_KERNELS)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        return cpu_isa::avx512;
    if (__builtin_cpu_supports("avx2")) return cpu_isa::avx2;
#endif
    return cpu_isa::scalar;
}

namespace {
// -1: none; else the level a test asked for.
std::atomic<int> testing_override{-1};
} // namespace

void override_cpu_isa_for_testing(std::optional<cpu_isa> level) {
    testing_override.store(level ? static_cast<int>(std::min(*level, detected_cpu_isa())) : -1,
                           std::memory_order_relaxed);
}

cpu_isa active_cpu_isa() {
    if (const int forced = testing_override.load(std::memory_order_relaxed); forced >= 0)
        return static_cast<cpu_isa>(forced);
    static const cpu_isa active = [] {
        const cpu_isa detected = detected_cpu_isa();
        const char *cap = std::getenv("RESHAPER_MAX_CPU_ISA");
        if (!cap || !*cap) return detected;
        const auto level = parse_cpu_isa(cap);
        if (!level) {
            warn_once("RESHAPER_MAX_CPU_ISA", "RESHAPER_MAX_CPU_ISA=" + std::string(cap) +
                                                  " is not one of scalar, avx2, avx512; using " +
                                                  std::string(to_string(detected)));
            return detected;
        }
        return std::min(*level, detected);
    }();
    return active;
}

std::string_view to_string(kernel_tuning tuning) { return tuning == kernel_tuning::intel ? "intel" : "amd"; }

kernel_tuning active_kernel_tuning() {
    static const kernel_tuning active = [] {
#if defined(RESHAPER_X86_KERNELS)
        __builtin_cpu_init();
        const kernel_tuning by_vendor = __builtin_cpu_is("intel") ? kernel_tuning::intel : kernel_tuning::amd;
#else
        const kernel_tuning by_vendor = kernel_tuning::amd;
#endif
        const char *asked = std::getenv("RESHAPER_KERNEL_TUNING");
        if (!asked || !*asked) return by_vendor;
        for (kernel_tuning t : {kernel_tuning::amd, kernel_tuning::intel})
            if (to_string(t) == asked) return t;
        warn_once("RESHAPER_KERNEL_TUNING", "RESHAPER_KERNEL_TUNING=" + std::string(asked) +
                                                " is not one of amd, intel; using " + std::string(to_string(by_vendor)));
        return by_vendor;
    }();
    return active;
}

namespace {

// "32768K", "8M", "512" (bytes) as sysfs writes cache sizes; 0 for other text.
std::size_t parse_cache_size(const std::string &text) {
    std::size_t value = 0, i = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
        value = value * 10 + static_cast<std::size_t>(text[i] - '0');
    if (i == 0) return 0;
    if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) return value << 10;
    if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) return value << 20;
    if (i < text.size() && (text[i] == 'G' || text[i] == 'g')) return value << 30;
    return value;
}

// How many CPUs a sysfs cpu list ("0-1", "0-3,8-11", "5") names; 0 for
// text it does not parse.
std::size_t count_listed_cpus(const std::string &text) {
    std::size_t count = 0, i = 0;
    const auto number = [&](std::size_t &value) {
        const std::size_t start = i;
        value = 0;
        for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
            value = value * 10 + static_cast<std::size_t>(text[i] - '0');
        return i > start;
    };
    while (i < text.size()) {
        std::size_t first = 0, last = 0;
        if (!number(first)) return 0;
        last = first;
        if (i < text.size() && text[i] == '-' && (++i, !number(last))) return 0;
        if (last < first) return 0;
        count += last - first + 1;
        if (i < text.size() && text[i] != ',') return 0;
        if (i < text.size()) ++i;
    }
    return count;
}

// A data or unified cache sysfs lists for cpu0.
struct listed_cache {
    int level = 0;
    std::size_t bytes = 0;
    std::size_t sharing_cpus = 0; // 0: not listed
};

std::vector<listed_cache> sysfs_data_caches() {
    std::vector<listed_cache> caches;
    for (int index = 0; index < 16; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size"),
            shared_file(dir + "shared_cpu_list");
        listed_cache c;
        std::string type, size, shared;
        if (!(level_file >> c.level) || !(type_file >> type) || !(size_file >> size)) continue;
        if (type == "Instruction") continue;
        c.bytes = parse_cache_size(size);
        c.sharing_cpus = shared_file >> shared ? count_listed_cpus(shared) : 0;
        if (c.bytes > 0) caches.push_back(c);
    }
    std::sort(caches.begin(), caches.end(),
              [](const listed_cache &a, const listed_cache &b) { return a.level < b.level; });
    return caches;
}

// sysconf's names of the level 2 and 3 cache sizes, where it has them.
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
constexpr int sysconf_level2 = _SC_LEVEL2_CACHE_SIZE, sysconf_level3 = _SC_LEVEL3_CACHE_SIZE;
#else
constexpr int sysconf_level2 = -1, sysconf_level3 = -1;
#endif

// A cache's bytes: as sysfs lists them (`from_sysfs`, 0 when it does not),
// else as sysconf's `sysconf_name` says, else `fallback`.
std::size_t listed_else(std::size_t from_sysfs, int sysconf_name, std::size_t fallback) {
    if (from_sysfs > 0) return from_sysfs;
    if (sysconf_name >= 0)
        if (const long bytes = sysconf(sysconf_name); bytes > 0) return static_cast<std::size_t>(bytes);
    return fallback;
}

// Transposes stream from half the copies' threshold (cache_thresholds).
std::size_t transpose_threshold_of(std::size_t copy_streaming_bytes) { return copy_streaming_bytes / 2; }

// 0: none; else the threshold a test asked for.
std::atomic<std::size_t> streaming_threshold_override{0};
std::atomic<std::size_t> last_level_walk_threshold_override{0};

} // namespace

std::size_t cache_share_bytes(std::size_t listed_bytes, std::size_t sharing_cpus) {
    if (sharing_cpus == 0) return listed_bytes;
    return std::min(listed_bytes, sharing_cpus * max_cache_bytes_per_cpu);
}

cache_thresholds thresholds_for(const cache_facts &facts) {
    cache_thresholds t;
    t.last_level_bytes = cache_share_bytes(facts.last_level_bytes, facts.last_level_sharing_cpus);
    t.copy_streaming_bytes = t.last_level_bytes / 3;
    t.transpose_streaming_bytes = transpose_threshold_of(t.copy_streaming_bytes);
    t.last_level_walk_bytes = 8 * facts.core_bytes;
    return t;
}

const cache_facts &machine_cache_facts() {
    static const cache_facts facts = [] {
        const std::vector<listed_cache> caches = sysfs_data_caches();
        cache_facts f;
        if (!caches.empty()) {
            f.last_level_bytes = caches.back().bytes;
            f.last_level_sharing_cpus = caches.back().sharing_cpus;
            const int below = caches.back().level - 1;
            for (auto c = caches.rbegin(); c != caches.rend() && f.core_bytes == 0; ++c)
                if (c->level == below) f.core_bytes = c->bytes;
        }
        f.last_level_bytes = listed_else(f.last_level_bytes, sysconf_level3, std::size_t{8} << 20);
        f.core_bytes = listed_else(f.core_bytes, sysconf_level2, std::size_t{1} << 20);
        return f;
    }();
    return facts;
}

const cache_thresholds &machine_cache_thresholds() {
    static const cache_thresholds thresholds = thresholds_for(machine_cache_facts());
    return thresholds;
}

std::size_t last_level_cache_bytes() { return machine_cache_thresholds().last_level_bytes; }

std::size_t listed_last_level_cache_bytes() { return machine_cache_facts().last_level_bytes; }

std::size_t core_cache_bytes() { return machine_cache_facts().core_bytes; }

std::size_t streaming_threshold_bytes() {
    if (const std::size_t forced = streaming_threshold_override.load(std::memory_order_relaxed); forced > 0)
        return forced;
    return machine_cache_thresholds().copy_streaming_bytes;
}

std::size_t transpose_streaming_threshold_bytes() { return transpose_threshold_of(streaming_threshold_bytes()); }

void override_streaming_threshold_for_testing(std::optional<std::size_t> bytes) {
    streaming_threshold_override.store(bytes ? std::max<std::size_t>(*bytes, 1) : 0, std::memory_order_relaxed);
}

std::size_t last_level_walk_threshold_bytes() {
    if (const std::size_t forced = last_level_walk_threshold_override.load(std::memory_order_relaxed); forced > 0)
        return forced;
    return machine_cache_thresholds().last_level_walk_bytes;
}

void override_last_level_walk_threshold_for_testing(std::optional<std::size_t> bytes) {
    last_level_walk_threshold_override.store(bytes ? std::max<std::size_t>(*bytes, 1) : 0, std::memory_order_relaxed);
}

} // namespace reshaper::impl
