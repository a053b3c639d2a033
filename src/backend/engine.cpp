#include "backend/engine.hpp"

#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

engine_kind engine_kind_from_string(std::string_view s) {
    if (s == "cpu") return engine_kind::cpu;
    if (s == "gpu") return engine_kind::gpu;
    fail(rule::api_argument,
         "engine kind must be cpu or gpu, got '" + std::string(s) + "'");
}

std::shared_ptr<engine> engine::create(engine_kind kind, std::size_t index) {
    const auto dnnl_kind = kind == engine_kind::cpu ? dnnl::engine::kind::cpu : dnnl::engine::kind::gpu;
    const std::size_t count = dnnl::engine::get_count(dnnl_kind);
    if (index >= count)
        fail(rule::engine_available,
             std::string(to_string(kind)) + " engine " + std::to_string(index) +
                 " is unavailable: oneDNN found " + std::to_string(count) + " " +
                 std::string(to_string(kind)) + " device(s) on this machine");
    try {
        return std::shared_ptr<engine>(new engine(kind, index, dnnl::engine(dnnl_kind, index)));
    } catch (const dnnl::error &e) {
        fail(rule::engine_available, std::string(to_string(kind)) +
                                         " engine could not be created: " + e.what());
    }
}

} // namespace reshaper::impl
