#include "backend/claims.hpp"

#include <string>

#include "backend/dnnl_mapping.hpp"

namespace reshaper::impl {
namespace {

class cpu_claims final : public backend_support {
public:
    engine_kind engine() const override { return engine_kind::cpu; }
    std::string refusal(const graph &, const op &) const override { return ""; }
};

class gpu_claims final : public backend_support {
public:
    engine_kind engine() const override { return engine_kind::gpu; }
    std::string refusal(const graph &g, const op &o) const override {
        if (o.inputs.empty()) return "";
        const data_type t = g.tensor(o.inputs[0]).dtype;
        if (dnnl_reorder_type(t)) return "";
        return "dtype " + std::string(to_string(t)) + " is not supported on the gpu engine";
    }
};

} // namespace

const backend_support &backend_claims(engine_kind kind) {
    static const cpu_claims cpu;
    static const gpu_claims gpu;
    if (kind == engine_kind::gpu) return gpu;
    return cpu;
}

} // namespace reshaper::impl
