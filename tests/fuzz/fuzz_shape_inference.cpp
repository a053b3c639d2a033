// Fuzz target (c): shape inference of every schema in the registry with
// random attributes (right and wrong kinds, values in and out of range) and
// random input shapes, dtypes and constant shape values. Bad ops must end
// as an impl::error; an op that infers must keep the volume: the data
// input's known volume equals the output's (contract: volumes always match).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "core/element_codec.hpp"
#include "core/graph.hpp"
#include "core/status.hpp"
#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"
#include "ops/registry.hpp"

using namespace reshaper::impl;

namespace {

std::int64_t random_dim_value(FuzzedDataProvider &fdp) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return std::int64_t{1} << fdp.ConsumeIntegralInRange<int>(31, 62);
    case 1: return std::numeric_limits<std::int64_t>::max();
    case 2: return std::numeric_limits<std::int64_t>::min();
    default: return fdp.ConsumeIntegralInRange<std::int64_t>(-3, 8);
    }
}

dims_t random_shape(FuzzedDataProvider &fdp) {
    dims_t dims(fdp.ConsumeIntegralInRange<std::size_t>(0, 5));
    // Dims below -1 are refused where shapes come in (file reader, C API).
    for (auto &d : dims) d = fdp.ConsumeProbability<float>() < 0.1f ? std::max<dim_t>(random_dim_value(fdp), -1)
                                                                     : fdp.ConsumeIntegralInRange<dim_t>(-1, 6);
    return dims;
}

attribute_value random_attribute(FuzzedDataProvider &fdp, attr_kind kind) {
    switch (kind) {
    case attr_kind::boolean: return fdp.ConsumeBool();
    case attr_kind::s64: return random_dim_value(fdp);
    case attr_kind::s64_list: {
        std::vector<std::int64_t> v(fdp.ConsumeIntegralInRange<std::size_t>(0, 6));
        for (auto &e : v) e = random_dim_value(fdp);
        return v;
    }
    case attr_kind::f32: return fdp.ConsumeFloatingPoint<float>();
    case attr_kind::f32_list: return std::vector<float>{fdp.ConsumeFloatingPoint<float>()};
    case attr_kind::string: return fdp.ConsumeRandomLengthString(8);
    }
    return false;
}

constexpr attr_kind any_kind[] = {attr_kind::boolean, attr_kind::s64, attr_kind::s64_list,
                                  attr_kind::f32, attr_kind::f32_list, attr_kind::string};

logical_tensor random_tensor(FuzzedDataProvider &fdp, tensor_id id, const std::vector<data_type> &allowed) {
    logical_tensor lt;
    lt.id = id;
    const auto &types = all_data_types();
    lt.dtype = !allowed.empty() && fdp.ConsumeProbability<float>() < 0.9f
                   ? allowed[fdp.ConsumeIntegralInRange<std::size_t>(0, allowed.size() - 1)]
                   : types[fdp.ConsumeIntegralInRange<std::size_t>(0, types.size() - 1)];
    lt.shape = random_shape(fdp);
    return lt;
}

// Constant values for a shape input: random dims, as many as its shape holds.
void maybe_give_values(FuzzedDataProvider &fdp, logical_tensor &lt) {
    if (!lt.shape_known() || !is_integer(lt.dtype) || !fdp.ConsumeBool()) return;
    const auto volume = checked_volume(lt.shape);
    if (!volume || *volume > 8) return;
    tensor_values v;
    v.type = lt.dtype;
    v.count = static_cast<std::size_t>(*volume);
    v.bytes.assign(dense_bytes(lt.dtype, v.count), 0);
    for (std::size_t i = 0; i < v.count; ++i) {
        const std::int64_t value = random_dim_value(fdp);
        auto bits = is_signed_integer(lt.dtype) ? encode_signed(lt.dtype, value)
                                                : encode_unsigned(lt.dtype, static_cast<std::uint64_t>(value));
        store_bits(lt.dtype, v.bytes.data(), i, bits.value_or(0));
    }
    lt.values = std::move(v);
    lt.property = property_type::constant;
}

const std::vector<data_type> &allowed_types(const op_schema &s, const port_spec &p) {
    static const std::vector<data_type> none;
    for (const auto &c : s.type_constraints)
        if (c.type_var == p.type_var) return c.allowed;
    return none;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    FuzzedDataProvider fdp(data, size);
    const auto &schemas = op_registry::instance().schemas();
    const op_schema &s = schemas[fdp.ConsumeIntegralInRange<std::size_t>(0, schemas.size() - 1)];

    graph g;
    op o;
    o.id = 0;
    o.name = "fuzzed";
    o.kind = s.kind;
    o.domain = s.domain;
    o.version = fdp.ConsumeProbability<float>() < 0.8f ? s.since_version : fdp.ConsumeIntegralInRange<int>(-1, 30);
    for (const auto &a : s.attributes)
        if (fdp.ConsumeProbability<float>() < 0.85f)
            o.attrs[a.name] = random_attribute(fdp, fdp.ConsumeProbability<float>() < 0.9f ? a.kind
                                                                                             : fdp.PickValueInArray(any_kind));
    if (fdp.ConsumeProbability<float>() < 0.05f) o.attrs["unknown_attr"] = std::int64_t{1};

    tensor_id next = 0;
    for (const auto &p : s.inputs) {
        if (!p.required && fdp.ConsumeBool()) continue;
        logical_tensor lt = random_tensor(fdp, next++, allowed_types(s, p));
        maybe_give_values(fdp, lt);
        o.inputs.push_back(lt.id);
        g.tensors[lt.id] = std::move(lt);
    }
    for (const auto &p : s.outputs) {
        logical_tensor lt = random_tensor(fdp, next++, allowed_types(s, p));
        if (fdp.ConsumeBool()) lt.shape.assign(lt.shape.size(), unknown_dim);
        if (fdp.ConsumeBool()) lt.dtype = data_type::undef;
        o.outputs.push_back(lt.id);
        g.tensors[lt.id] = std::move(lt);
    }
    g.ops.push_back(o);

    try {
        infer_graph_shapes(g);
    } catch (const error &) {
        return 0;
    }
    if (o.inputs.empty() || o.outputs.empty()) return 0;
    const logical_tensor &in = g.tensor(o.inputs[0]);
    const logical_tensor &out = g.tensor(o.outputs[0]);
    if (in.shape_known() && out.shape_known() && checked_volume(in.shape) != checked_volume(out.shape)) {
        std::fprintf(stderr, "inference accepted a reshape that changes the volume:\n%s\n",
                     write_graph_json(g).c_str());
        std::abort();
    }
    return 0;
}
