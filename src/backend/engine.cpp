#include "backend/engine.hpp"

#include "core/status.hpp"

namespace reshaper::impl {

engine_kind engine_kind_from_string(std::string_view s) {
    if (s == "cpu") return engine_kind::cpu;
    if (s == "gpu") return engine_kind::gpu;
    throw error(status::invalid_arguments,
                "engine kind must be cpu or gpu, got '" + std::string(s) + "' [api_argument]");
}

std::shared_ptr<engine> engine::create(engine_kind kind, std::size_t index) {
    const auto dnnl_kind = kind == engine_kind::cpu ? dnnl::engine::kind::cpu : dnnl::engine::kind::gpu;
    const std::size_t count = dnnl::engine::get_count(dnnl_kind);
    if (index >= count)
        throw error(status::unavailable,
                    std::string(to_string(kind)) + " engine " + std::to_string(index) +
                        " is unavailable: oneDNN found " + std::to_string(count) + " " +
                        std::string(to_string(kind)) + " device(s) on this machine [engine_available]");
    try {
        return std::shared_ptr<engine>(new engine(kind, index, dnnl::engine(dnnl_kind, index)));
    } catch (const dnnl::error &e) {
        throw error(status::unavailable, std::string(to_string(kind)) +
                                             " engine could not be created: " + e.what() + " [engine_available]");
    }
}

} // namespace reshaper::impl
