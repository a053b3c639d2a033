#include "backend/verbose.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace reshaper::impl {

namespace {
std::atomic<int> &level_setting() {
    static std::atomic<int> level = [] {
        const char *value = std::getenv("RESHAPER_VERBOSE");
        if (!value) return 0;
        char *end = nullptr;
        const long parsed = std::strtol(value, &end, 10);
        return end != value && parsed > 0 ? static_cast<int>(parsed) : 0;
    }();
    return level;
}
} // namespace

int verbose_level() { return level_setting().load(std::memory_order_relaxed); }

void set_verbose_level(int level) { level_setting().store(level, std::memory_order_relaxed); }

std::string verbose_tensor(const logical_tensor &lt) {
    std::string text = std::string(to_string(lt.dtype)) + ":" + dims_to_string(lt.shape) + ":";
    switch (lt.layout) {
    case layout_type::opaque: return text + lt.format;
    case layout_type::any: return text + "any";
    case layout_type::strided:
    case layout_type::undef: break;
    }
    const auto strides = lt.strides.empty() ? dense_strides(lt.shape) : std::optional(lt.strides);
    return text + (strides ? dims_to_string(*strides) : "?");
}

void verbose_print(std::string_view fields) {
    std::string line = "reshaper_verbose,";
    line += fields;
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

} // namespace reshaper::impl
