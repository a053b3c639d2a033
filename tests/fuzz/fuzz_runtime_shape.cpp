// Fuzz target (e): shape values that arrive only at execute (DynamicReshape-1,
// Reshape-1, ONNX Reshape-5 and -14): a partition compiled for a concrete
// output shape is executed with random shape values (the right ones, -1,
// 0 for "copy", too few or too many, out of range, huge). Execute must
// either refuse with an impl::error and write nothing, or produce exactly
// the reference's bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "backend/buffer_size.hpp"
#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "core/element_codec.hpp"
#include "core/graph.hpp"
#include "core/status.hpp"
#include "backend/claims.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;

namespace {

struct op_case {
    const char *domain, *kind;
    std::optional<std::int64_t> version;
    data_type shape_type;
    const char *zero_attr; // nullptr: none
    bool zero_attr_is_bool;
};

constexpr op_case cases[] = {
    {"", "DynamicReshape", std::nullopt, data_type::s32, "special_zero", true},
    {"", "Reshape", std::nullopt, data_type::s64, "special_zero", true},
    {"", "Reshape", std::nullopt, data_type::u8, "special_zero", true},
    {"ai.onnx", "Reshape", 5, data_type::s64, nullptr, false},
    {"ai.onnx", "Reshape", 14, data_type::s64, "allowzero", false},
    {"ai.onnx", "Reshape", 21, data_type::s64, "allowzero", false},
};

dims_t random_dims(FuzzedDataProvider &fdp, std::size_t rank, dim_t max) {
    dims_t dims(rank);
    for (auto &d : dims) d = fdp.ConsumeIntegralInRange<dim_t>(0, max);
    return dims;
}

std::int64_t random_value(FuzzedDataProvider &fdp, dim_t wanted) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return -1;
    case 1: return 0;
    case 2: return fdp.ConsumeIntegral<std::int64_t>();
    case 3: return fdp.ConsumeIntegralInRange<std::int64_t>(-3, 8);
    default: return wanted;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    FuzzedDataProvider fdp(data, size);
    const op_case &c = fdp.PickValueInArray(cases);
    const dims_t in_dims = random_dims(fdp, fdp.ConsumeIntegralInRange<std::size_t>(0, 4), 4);
    dims_t out_dims = random_dims(fdp, fdp.ConsumeIntegralInRange<std::size_t>(0, 4), 6);
    if (fdp.ConsumeProbability<float>() < 0.7f) { // mostly a shape of the same volume
        const dim_t volume = *checked_volume(in_dims);
        out_dims = volume == 0 ? dims_t{0, 3} : dims_t{volume};
        if (volume > 1 && volume % 2 == 0 && fdp.ConsumeBool()) out_dims = {2, volume / 2};
    }
    const std::size_t shape_len = fdp.ConsumeProbability<float>() < 0.8f
                                      ? out_dims.size()
                                      : fdp.ConsumeIntegralInRange<std::size_t>(0, 5);

    graph g;
    logical_tensor in{.id = 0, .dtype = data_type::f32, .shape = in_dims};
    logical_tensor shape{.id = 1, .dtype = c.shape_type, .shape = {static_cast<dim_t>(shape_len)}};
    shape.property = property_type::variable;
    logical_tensor out{.id = 2, .dtype = data_type::f32, .shape = out_dims};
    g.tensors[0] = in;
    g.tensors[1] = shape;
    g.tensors[2] = out;
    op o;
    o.id = 0;
    o.name = "at_run_time";
    o.kind = c.kind;
    o.domain = c.domain;
    o.version = c.version;
    const bool zero_flag = fdp.ConsumeBool();
    if (c.zero_attr && c.zero_attr_is_bool) o.attrs[c.zero_attr] = zero_flag;
    else if (c.zero_attr) o.attrs[c.zero_attr] = std::int64_t{zero_flag ? 1 : 0};
    o.inputs = {0, 1};
    o.outputs = {2};
    g.ops.push_back(o);

    static const std::shared_ptr<const engine> cpu = engine::create(engine_kind::cpu);
    std::shared_ptr<const compiled_partition> cp;
    try {
        const std::vector<partition> parts =
            get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::cpu));
        if (parts.size() != 1 || !parts[0].supported) return 0;
        cp = compile(g, parts[0], {in, shape}, {out}, cpu);
    } catch (const error &) {
        return 0;
    }

    const std::size_t in_bytes = *buffer_bytes(cp->inputs().at(0));
    const std::size_t out_bytes = *buffer_bytes(cp->outputs().at(0));
    std::vector<std::uint8_t> src(in_bytes);
    for (std::size_t i = 0; i < in_bytes; ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 1);
    std::vector<std::uint8_t> values(dense_bytes(c.shape_type, shape_len));
    for (std::size_t i = 0; i < shape_len; ++i) {
        const dim_t wanted = i < out_dims.size() ? out_dims[i] : 1;
        const std::int64_t v = random_value(fdp, wanted);
        const auto bits = c.shape_type == data_type::u8 ? encode_unsigned(c.shape_type, static_cast<std::uint64_t>(v) & 0xFF)
                                                         : encode_signed(c.shape_type, v);
        store_bits(c.shape_type, values.data(), i, bits.value_or(static_cast<std::uint64_t>(v)));
    }
    std::vector<std::uint8_t> dst(out_bytes, 0xA5);
    // The compiled inputs are data and shape in the partition's order.
    std::vector<const void *> ins(cp->inputs().size());
    for (std::size_t i = 0; i < ins.size(); ++i)
        ins[i] = cp->inputs()[i].id == 1 ? static_cast<const void *>(values.data()) : src.data();
    try {
        cp->execute(ins, {dst.data()});
    } catch (const error &) {
        for (std::uint8_t b : dst)
            if (b != 0xA5) std::abort(); // refused, yet wrote
        return 0;
    }
    // Dense data into a dense output: a reshape keeps the bytes.
    if (dst != src) std::abort();
    return 0;
}
