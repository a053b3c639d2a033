// The kinds of device a graph is partitioned and compiled for: a graph
// file's "engine_kind", the API's reshaper_engine_kind_t. Vocabulary only:
// what runs where is the backend's (backend/engine.hpp, backend/claims.hpp).
#pragma once

#include <string_view>

namespace reshaper::impl {

enum class engine_kind { cpu, gpu };

// "cpu" / "gpu" (the contract's spelling; backend/engine.hpp reads it back).
constexpr std::string_view to_string(engine_kind k) { return k == engine_kind::cpu ? "cpu" : "gpu"; }

} // namespace reshaper::impl
