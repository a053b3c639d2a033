#include "core/limits.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

namespace reshaper::impl {
namespace {

void override_from_env(const char *name, std::uint64_t &value) {
    const char *text = std::getenv(name);
    if (!text || !*text) return; // set empty: as if unset
    std::uint64_t v = 0;
    const char *end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, v);
    if (ec == std::errc() && ptr == end && v > 0) {
        value = v;
        return;
    }
    warn_once(name, std::string(name) + "='" + text + "' is not a positive integer" +
                        (ec == std::errc::result_out_of_range ? " that fits 64 bits" : "") +
                        "; using the default " + std::to_string(value));
}

} // namespace

resource_limits current_limits() {
    resource_limits l;
    override_from_env("RESHAPER_MAX_GRAPH_BYTES", l.max_graph_bytes);
    override_from_env("RESHAPER_MAX_JSON_DEPTH", l.max_json_depth);
    override_from_env("RESHAPER_MAX_OPS", l.max_ops);
    override_from_env("RESHAPER_MAX_TENSOR_BYTES", l.max_tensor_bytes);
    if (l.max_json_depth > json_depth_ceiling) {
        warn_once("RESHAPER_MAX_JSON_DEPTH", "RESHAPER_MAX_JSON_DEPTH=" + std::to_string(l.max_json_depth) +
                                                 " is above the deepest nesting the reader allows; using " +
                                                 std::to_string(json_depth_ceiling));
        l.max_json_depth = json_depth_ceiling;
    }
    return l;
}

void warn_once(const std::string &key, const std::string &text) {
    static std::mutex mutex;
    static std::set<std::pair<std::string, std::string>> warned;
    {
        std::lock_guard lock(mutex);
        if (!warned.emplace(key, text).second) return;
    }
    std::fprintf(stderr, "reshaper: warning: %s\n", text.c_str());
}

std::string format_bytes(std::uint64_t bytes) {
    static constexpr const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return std::to_string(bytes) + " bytes";
    double v = static_cast<double>(bytes);
    int unit = -1;
    while (v >= 1024 && unit < 5) v /= 1024, ++unit;
    char buf[32];
    std::snprintf(buf, sizeof buf, v == static_cast<double>(static_cast<std::uint64_t>(v)) ? "%.0f %s" : "%.1f %s",
                  v, units[unit]);
    return std::string(buf) + " (" + std::to_string(bytes) + " bytes)";
}

} // namespace reshaper::impl
