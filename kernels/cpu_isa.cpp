#include "kernels/cpu_isa.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

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

} // namespace reshaper::impl
