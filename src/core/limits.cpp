#include "core/limits.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace reshaper::impl {
namespace {

void override_from_env(const char *name, std::uint64_t &value) {
    const char *text = std::getenv(name);
    if (!text) return;
    std::uint64_t v = 0;
    const char *end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, v);
    if (ec == std::errc() && ptr == end && v > 0) value = v;
}

} // namespace

resource_limits current_limits() {
    resource_limits l;
    override_from_env("RESHAPER_MAX_GRAPH_BYTES", l.max_graph_bytes);
    override_from_env("RESHAPER_MAX_JSON_DEPTH", l.max_json_depth);
    override_from_env("RESHAPER_MAX_OPS", l.max_ops);
    override_from_env("RESHAPER_MAX_TENSOR_BYTES", l.max_tensor_bytes);
    return l;
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
