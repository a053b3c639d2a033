// Fuzz target (d): compile and execute a random chain of StaticReshapes over
// a random dtype (packed ones included), shape and layout (dense, permuted,
// padded, broadcast, blocked), into a random output layout, and compare the
// result bit for bit with the reference reshape; the input must stay
// untouched and an alias must also run in place. Buffers are exactly their
// tensors' size, so AddressSanitizer sees any access outside them. compile
// may refuse a case with an impl::error; execute must not.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "backend/buffer_size.hpp"
#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "core/graph.hpp"
#include "core/status.hpp"
#include "layout/reference.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;

namespace {

constexpr const char *blocked_tags[] = {"nChw16c", "nChw8c", "aBcd16b", "ABcd16a16b", "Acdb16a", "acdb"};

dims_t random_dims(FuzzedDataProvider &fdp, std::size_t rank) {
    dims_t dims(rank);
    for (auto &d : dims) d = fdp.ConsumeIntegralInRange<dim_t>(0, 6);
    if (fdp.ConsumeProbability<float>() < 0.9f)
        for (auto &d : dims) d = d == 0 ? 1 : d; // zero volume now and then
    return dims;
}

// A shape of `volume` elements (0: one dim 0), `rank` dims.
dims_t random_target(FuzzedDataProvider &fdp, dim_t volume, std::size_t rank) {
    dims_t dims(rank, 1);
    if (rank == 0) return volume == 1 ? dims : dims_t{volume};
    if (volume == 0) {
        for (auto &d : dims) d = fdp.ConsumeIntegralInRange<dim_t>(1, 4);
        dims[fdp.ConsumeIntegralInRange<std::size_t>(0, rank - 1)] = 0;
        return dims;
    }
    dim_t left = volume;
    for (std::size_t k = 0; k + 1 < rank; ++k) {
        std::vector<dim_t> divisors;
        for (dim_t d = 1; d <= left && d <= 12; ++d)
            if (left % d == 0) divisors.push_back(d);
        dims[k] = divisors[fdp.ConsumeIntegralInRange<std::size_t>(0, divisors.size() - 1)];
        left /= dims[k];
    }
    dims[rank - 1] = left;
    return dims;
}

// Strides for `dims`: dense, permuted, padded (gaps), or one broadcast dim.
dims_t random_strides(FuzzedDataProvider &fdp, const dims_t &dims, bool allow_broadcast) {
    const std::size_t rank = dims.size();
    std::vector<std::size_t> order(rank); // innermost first
    for (std::size_t k = 0; k < rank; ++k) order[k] = rank - 1 - k;
    for (std::size_t k = rank; k > 1; --k) std::swap(order[k - 1], order[fdp.ConsumeIntegralInRange<std::size_t>(0, k - 1)]);
    dims_t strides(rank);
    dim_t running = fdp.ConsumeIntegralInRange<dim_t>(1, 2);
    for (std::size_t k : order) {
        strides[k] = running;
        running *= std::max<dim_t>(dims[k], 1) + fdp.ConsumeIntegralInRange<dim_t>(0, 2);
    }
    if (allow_broadcast && rank > 0 && fdp.ConsumeBool())
        strides[fdp.ConsumeIntegralInRange<std::size_t>(0, rank - 1)] = 0;
    return strides;
}

logical_tensor random_layout(FuzzedDataProvider &fdp, tensor_id id, data_type t, const dims_t &dims,
                             bool is_output) {
    logical_tensor lt;
    lt.id = id;
    lt.dtype = t;
    lt.shape = dims;
    switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: break; // dense
    case 1: lt.strides = random_strides(fdp, dims, !is_output); break;
    case 2:
        if (dims.size() == 4) {
            lt.layout = layout_type::opaque;
            lt.format = fdp.PickValueInArray(blocked_tags);
        }
        break;
    case 3:
        if (is_output) lt.layout = layout_type::any;
        break;
    }
    return lt;
}

struct buffer {
    data_type type;
    std::vector<std::uint8_t> bytes;
    std::vector<std::string> strings;

    buffer(data_type t, std::size_t size) : type(t) {
        if (t == data_type::string) strings.resize(size / sizeof(std::string));
        else bytes.resize(size);
    }
    void *data() { return type == data_type::string ? static_cast<void *>(strings.data()) : bytes.data(); }
    bool operator==(const buffer &o) const { return bytes == o.bytes && strings == o.strings; }
};

std::size_t bytes_of(const logical_tensor &lt) {
    const auto b = buffer_bytes(lt);
    if (!b) std::abort(); // compile accepted a layout whose size it cannot state
    return *b;
}

// The tensor's elements in row-major order, as a dense buffer.
buffer row_major(const logical_tensor &lt, const void *data) {
    logical_tensor dense = lt;
    dense.layout = layout_type::strided;
    dense.strides.clear();
    dense.format.clear();
    buffer out(lt.dtype, bytes_of(dense));
    reference_reshape(lt, data, dense, out.data());
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    FuzzedDataProvider fdp(data, size);
    const auto &types = all_data_types();
    const data_type t = types[fdp.ConsumeIntegralInRange<std::size_t>(0, types.size() - 1)];
    if (t == data_type::undef) return 0;
    const dims_t in_dims = random_dims(fdp, fdp.ConsumeIntegralInRange<std::size_t>(0, 4));
    const dim_t volume = *checked_volume(in_dims);

    graph g;
    const logical_tensor in = random_layout(fdp, 0, t, in_dims, false);
    g.tensors[0] = in;
    const std::size_t steps = fdp.ConsumeIntegralInRange<std::size_t>(1, 3);
    dims_t target;
    for (std::size_t k = 0; k < steps; ++k) {
        target = random_target(fdp, volume, fdp.ConsumeIntegralInRange<std::size_t>(0, 4));
        op o;
        o.id = static_cast<std::int64_t>(k);
        o.name = "r" + std::to_string(k);
        o.kind = "StaticReshape";
        o.attrs["shape"] = std::vector<std::int64_t>(target.begin(), target.end());
        o.attrs["special_zero"] = false;
        o.inputs = {static_cast<tensor_id>(k)};
        o.outputs = {static_cast<tensor_id>(k + 1)};
        g.ops.push_back(o);
        logical_tensor next;
        next.id = static_cast<tensor_id>(k + 1);
        next.dtype = t;
        next.shape = target;
        g.tensors[next.id] = next;
    }
    const logical_tensor out = random_layout(fdp, static_cast<tensor_id>(steps), t, target, true);
    g.tensors[out.id] = out;

    static const std::shared_ptr<const engine> cpu = engine::create(engine_kind::cpu);
    std::shared_ptr<const compiled_partition> cp;
    try {
        const std::vector<partition> parts = get_partitions(g, partition_policy::fusion, "cpu");
        if (parts.size() != 1 || !parts[0].supported) return 0;
        cp = compile(g, parts[0], {in}, {out}, cpu);
    } catch (const error &) {
        return 0; // refused with a message: fine
    }

    const logical_tensor &in_desc = cp->inputs().at(0);
    const logical_tensor &out_desc = cp->outputs().at(0);
    buffer src(t, bytes_of(in_desc));
    if (t == data_type::string) {
        for (std::size_t i = 0; i < src.strings.size(); ++i) src.strings[i] = "s" + std::to_string(i) + std::string(i % 3 * 12, 'x');
    } else {
        for (auto &b : src.bytes) b = fdp.ConsumeIntegral<std::uint8_t>();
    }
    const buffer pristine = src;
    buffer dst(t, bytes_of(out_desc));
    cp->execute({src.data()}, {dst.data()});
    if (!(src == pristine)) std::abort(); // execute wrote its input
    if (!(row_major(out_desc, dst.data()) == row_major(in_desc, src.data()))) std::abort();

    if (cp->lowering() == lowering_kind::alias && bytes_of(in_desc) == bytes_of(out_desc)) {
        buffer shared = src;
        cp->execute({shared.data()}, {shared.data()});
        if (!(shared == pristine)) std::abort(); // in place: nothing moves
    }
    return 0;
}
