// Fuzz target (b): the C API's builder driven by bytes, as a host would call
// it: reshaper_graph_create, reshaper_op_create with a kind of the family (or
// an unknown one), reshaper_op_set_domain, inputs and outputs, attributes of
// every type, reshaper_graph_add_op, reshaper_graph_set_tensor_values,
// reshaper_graph_finalize; then to_json (which must read back to the same
// partitions), get_partitions, compile and execute of what compiles, on
// buffers of exactly the compiled size (now and then with the outputs of
// in-place pairs given their input's buffer, as the Python binding runs an
// alias). Most ops continue a coherent chain
// (the fuzzer tracks the dims, so inference, compile and execute are
// reached); the others are random in every field, out-of-range enums and
// unterminated format tags included. Every call must return a status of the
// enum, with a message when it is not reshaper_success; a crash, a sanitizer
// report, an input written by execute or a contract break is a finding.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "reshaper/reshaper.h"

namespace {

[[noreturn]] void finding(const char *what, reshaper_status_t s) {
    const char *message = nullptr;
    reshaper_get_last_error(nullptr, &message);
    std::fprintf(stderr, "fuzz_builder: %s (status %d, last error: %s)\n", what, static_cast<int>(s),
                 message ? message : "(null)");
    std::abort();
}

// Every call returns a status of the enum; a failure leaves a message.
reshaper_status_t check(reshaper_status_t s) {
    if (s < reshaper_success || s > reshaper_runtime_error) finding("status outside the enum", s);
    if (s != reshaper_success) {
        reshaper_status_t last = reshaper_success;
        const char *message = nullptr;
        reshaper_get_last_error(&last, &message);
        if (last != s || message == nullptr || *message == '\0') finding("a failure without its message", s);
    }
    return s;
}

// An enum field of a logical tensor as a C caller may fill it: any int,
// also outside the enum. Stored without loading it as the enum (which would
// be the fuzzer's own undefined behaviour); the library reads such fields
// as ints. Enums passed by value (engine kind, policy) stay in range: an
// out-of-range one is undefined before the library sees it.
template <typename Enum>
void set_raw(Enum &field, FuzzedDataProvider &fdp, int last) {
    static_assert(sizeof(Enum) == sizeof(int));
    const int value = fdp.ConsumeProbability<float>() < 0.9f ? fdp.ConsumeIntegralInRange<int>(0, last)
                                                              : fdp.ConsumeIntegralInRange<int>(-2, last + 3);
    std::memcpy(&field, &value, sizeof value);
}

template <typename Enum>
Enum pick_enum(FuzzedDataProvider &fdp, Enum last) {
    return static_cast<Enum>(fdp.ConsumeIntegralInRange<int>(0, static_cast<int>(last)));
}

using dims = std::vector<std::int64_t>;

std::int64_t volume_of(const dims &d) {
    std::int64_t v = 1;
    for (std::int64_t x : d) v *= x;
    return v;
}

std::int64_t wild_value(FuzzedDataProvider &fdp) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return std::numeric_limits<std::int64_t>::min();
    case 1: return std::numeric_limits<std::int64_t>::max();
    case 2: return std::int64_t{1} << fdp.ConsumeIntegralInRange<int>(31, 62);
    default: return fdp.ConsumeIntegralInRange<std::int64_t>(-4, 8);
    }
}

// A shape of `volume` elements (small dims; 0 volume: one dim 0).
dims random_target(FuzzedDataProvider &fdp, std::int64_t volume) {
    const std::size_t rank = fdp.ConsumeIntegralInRange<std::size_t>(volume == 1 ? 0 : 1, 4);
    dims d(rank, 1);
    if (rank == 0) return d;
    if (volume == 0) {
        d[fdp.ConsumeIntegralInRange<std::size_t>(0, rank - 1)] = 0;
        return d;
    }
    std::int64_t left = volume;
    for (std::size_t k = 0; k + 1 < rank; ++k) {
        std::vector<std::int64_t> divisors;
        for (std::int64_t x = 1; x <= left && x <= 8; ++x)
            if (left % x == 0) divisors.push_back(x);
        d[k] = divisors[fdp.ConsumeIntegralInRange<std::size_t>(0, divisors.size() - 1)];
        left /= d[k];
    }
    d[rank - 1] = left;
    return d;
}

std::vector<std::int64_t> random_permutation(FuzzedDataProvider &fdp, std::size_t rank) {
    std::vector<std::int64_t> p(rank);
    std::iota(p.begin(), p.end(), std::int64_t{0});
    for (std::size_t k = rank; k > 1; --k) std::swap(p[k - 1], p[fdp.ConsumeIntegralInRange<std::size_t>(0, k - 1)]);
    return p;
}

constexpr const char *formats[] = {"nChw16c", "nChw8c", "aBcd16b", "ABcd16a16b", "acdb", "abc", "xyz"};

// A logical tensor: `d` known or unknown (-1) dims, dense, permuted or
// random strides, any layout; `wild` also breaks ranks, dims and strings.
reshaper_logical_tensor_t make_lt(FuzzedDataProvider &fdp, std::int64_t id, reshaper_data_type_t t, const dims &d,
                                  bool wild) {
    reshaper_logical_tensor_t lt{};
    lt.id = id;
    lt.data_type = t;
    lt.ndims = static_cast<std::int32_t>(std::min<std::size_t>(d.size(), RESHAPER_MAX_NDIMS));
    const bool unknown = fdp.ConsumeProbability<float>() < 0.3f;
    for (std::int32_t k = 0; k < lt.ndims; ++k) lt.dims[k] = unknown ? RESHAPER_UNKNOWN_DIM : d[k];
    std::fill(lt.strides, lt.strides + RESHAPER_MAX_NDIMS, RESHAPER_UNKNOWN_DIM);
    lt.layout_type = reshaper_layout_strided;
    lt.property_type = reshaper_property_undef;
    switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: lt.layout_type = reshaper_layout_any; break;
    case 1: lt.layout_type = reshaper_layout_undef; break;
    case 2:
        lt.layout_type = reshaper_layout_opaque;
        std::strcpy(lt.format, fdp.PickValueInArray(formats));
        break;
    case 3: { // a random axis order, maybe padded
        std::int64_t next = 1;
        const auto order = random_permutation(fdp, static_cast<std::size_t>(lt.ndims));
        for (std::int64_t a : order) {
            lt.strides[a] = next;
            next *= std::max<std::int64_t>(lt.dims[a], 1) + fdp.ConsumeIntegralInRange<int>(0, 1);
        }
        break;
    }
    case 4:
        for (std::int32_t k = 0; k < lt.ndims; ++k) lt.strides[k] = fdp.ConsumeIntegralInRange<std::int64_t>(-1, 9);
        break;
    default: break; // dense
    }
    if (fdp.ConsumeProbability<float>() < 0.1f) lt.property_type = reshaper_property_variable;
    if (!wild) return lt;
    set_raw(lt.layout_type, fdp, reshaper_layout_opaque);
    set_raw(lt.property_type, fdp, reshaper_property_constant);
    set_raw(lt.data_type, fdp, reshaper_dt_u2);
    switch (fdp.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: lt.ndims = fdp.ConsumeIntegralInRange<std::int32_t>(-2, RESHAPER_MAX_NDIMS + 2); break;
    case 1:
        for (std::int32_t k = 0; k < std::min(lt.ndims, RESHAPER_MAX_NDIMS); ++k)
            if (fdp.ConsumeBool()) lt.dims[k] = wild_value(fdp);
        break;
    case 2: std::memset(lt.format, 'c', sizeof lt.format); break; // no NUL
    case 3:
        for (std::int32_t k = 0; k < std::min(lt.ndims, RESHAPER_MAX_NDIMS); ++k) lt.strides[k] = wild_value(fdp);
        break;
    default: break;
    }
    return lt;
}

struct op_kind {
    const char *kind, *domain;
};
constexpr op_kind kinds[] = {
    {"StaticReshape", ""}, {"StaticTranspose", ""}, {"DynamicReshape", ""}, {"Reshape", ""},
    {"Reshape", "ai.onnx"}, {"Transpose", "ai.onnx"}, {"Squeeze", "ai.onnx"}, {"Unsqueeze", "ai.onnx"},
    {"Flatten", "ai.onnx"}, {"MatMul", ""}, // a kind this backend does not handle
};
constexpr std::int64_t onnx_versions[] = {1, 4, 5, 11, 13, 14, 19, 21, 23, 24, 25, 28};

// Data types the family's schemas take somewhere (plus a few they do not).
constexpr reshaper_data_type_t chain_types[] = {
    reshaper_dt_f32, reshaper_dt_bf16, reshaper_dt_f16, reshaper_dt_s8, reshaper_dt_u8, reshaper_dt_s4,
    reshaper_dt_u4, reshaper_dt_s2, reshaper_dt_u2, reshaper_dt_boolean, reshaper_dt_s64, reshaper_dt_c128,
    reshaper_dt_string, reshaper_dt_f4_e2m1, reshaper_dt_f8_e5m2, reshaper_dt_undef};

// A graph being built: the chain's current tensor and its dims.
struct builder {
    FuzzedDataProvider &fdp;
    reshaper_graph_t graph;
    reshaper_data_type_t type;
    std::int64_t current = 0;
    dims cur{};
    // How the ops so far describe the current tensor (a consumer that
    // describes it otherwise is refused: tensor_agreement).
    reshaper_logical_tensor_t cur_lt{};
    std::int64_t next_tensor = 1;

    // A 1-D integer tensor for shape or axes values: constant with values
    // mostly, else variable (the values arrive at execute).
    void add_values_input(reshaper_op_t op, const std::vector<std::int64_t> &values, bool s32) {
        const std::int64_t id = next_tensor++;
        const std::int64_t length = static_cast<std::int64_t>(values.size());
        const bool constant = fdp.ConsumeProbability<float>() < 0.8f;
        reshaper_logical_tensor_t lt{};
        check(reshaper_logical_tensor_init(&lt, id, s32 ? reshaper_dt_s32 : reshaper_dt_s64, 1, &length, nullptr,
                                           reshaper_layout_strided,
                                           constant ? reshaper_property_constant : reshaper_property_variable));
        check(reshaper_op_add_input(op, &lt));
        pending_values.push_back({id, values, s32, constant});
    }

    struct values_to_set {
        std::int64_t id;
        std::vector<std::int64_t> values;
        bool s32, constant;
    };
    std::vector<values_to_set> pending_values;

    // Sets the pending values once the op is in the graph (the tensor must be).
    void set_pending_values() {
        for (const values_to_set &v : pending_values) {
            if (!v.constant && fdp.ConsumeBool()) continue;
            std::vector<std::uint8_t> bytes;
            for (std::int64_t x : v.values) {
                std::uint8_t b[8];
                if (v.s32) {
                    const auto y = static_cast<std::int32_t>(x);
                    std::memcpy(b, &y, 4);
                    bytes.insert(bytes.end(), b, b + 4);
                } else {
                    std::memcpy(b, &x, 8);
                    bytes.insert(bytes.end(), b, b + 8);
                }
            }
            std::size_t size = bytes.size();
            if (fdp.ConsumeProbability<float>() < 0.05f) size = fdp.ConsumeIntegralInRange<std::size_t>(0, size + 9);
            bytes.resize(std::max<std::size_t>(size, 1));
            check(reshaper_graph_set_tensor_values(graph, v.id, bytes.data(), size));
        }
        pending_values.clear();
    }

    std::vector<std::int64_t> maybe_spoil(std::vector<std::int64_t> v) {
        if (fdp.ConsumeProbability<float>() < 0.1f) {
            if (!v.empty() && fdp.ConsumeBool()) v[fdp.ConsumeIntegralInRange<std::size_t>(0, v.size() - 1)] = wild_value(fdp);
            else v.push_back(wild_value(fdp));
        }
        return v;
    }

    // One op continuing the chain (its attributes and extra inputs right,
    // now and then spoiled); returns the output's dims.
    dims coherent(reshaper_op_t op, const op_kind &k, std::int64_t version) {
        const std::string kind = k.kind;
        const bool onnx = std::strcmp(k.domain, "ai.onnx") == 0;
        const std::int64_t volume = volume_of(cur);
        if (kind == "StaticTranspose" || kind == "Transpose") {
            const auto p = random_permutation(fdp, cur.size());
            dims out;
            for (std::int64_t a : p) out.push_back(cur[static_cast<std::size_t>(a)]);
            std::vector<std::int64_t> given = p;
            if (!onnx)
                for (auto &a : given)
                    if (fdp.ConsumeBool()) a -= static_cast<std::int64_t>(cur.size());
            given = maybe_spoil(given);
            if (!onnx || fdp.ConsumeProbability<float>() < 0.8f)
                check(reshaper_op_set_attr_s64s(op, onnx ? "perm" : "order", given.data(), given.size()));
            else
                std::reverse(out.begin(), out.end()); // ONNX's default: the axes reversed
            return out;
        }
        if (kind == "Squeeze" || kind == "Unsqueeze") {
            std::vector<std::int64_t> axes;
            dims out;
            if (kind == "Squeeze") {
                for (std::size_t a = 0; a < cur.size(); ++a)
                    if (cur[a] == 1 && fdp.ConsumeBool()) axes.push_back(static_cast<std::int64_t>(a));
                    else out.push_back(cur[a]);
            } else {
                // 1 or 2 new axes of size 1 at random places of the output.
                const std::size_t rank = cur.size() + fdp.ConsumeIntegralInRange<std::size_t>(1, 2);
                const auto places = random_permutation(fdp, rank);
                axes.assign(places.begin(), places.begin() + static_cast<std::ptrdiff_t>(rank - cur.size()));
                std::size_t from = 0;
                for (std::size_t a = 0; a < rank; ++a)
                    out.push_back(std::count(axes.begin(), axes.end(), static_cast<std::int64_t>(a)) ? 1 : cur[from++]);
            }
            for (auto &a : axes)
                if (fdp.ConsumeBool()) a -= static_cast<std::int64_t>(out.size() > cur.size() ? out.size() : cur.size());
            axes = maybe_spoil(axes);
            if (version >= 13) add_values_input(op, axes, false);
            else check(reshaper_op_set_attr_s64s(op, "axes", axes.data(), axes.size()));
            return out;
        }
        if (kind == "Flatten") {
            const auto axis = fdp.ConsumeIntegralInRange<std::int64_t>(0, static_cast<std::int64_t>(cur.size()));
            std::int64_t outer = 1;
            for (std::int64_t a = 0; a < axis; ++a) outer *= cur[static_cast<std::size_t>(a)];
            check(reshaper_op_set_attr_s64(op, "axis", fdp.ConsumeProbability<float>() < 0.9f ? axis : wild_value(fdp)));
            return {outer, outer == 0 ? 0 : volume / outer};
        }
        if (kind == "MatMul") return cur;
        // The reshapes.
        const dims out = random_target(fdp, volume);
        std::vector<std::int64_t> target(out.begin(), out.end());
        if (!target.empty() && fdp.ConsumeBool()) target[fdp.ConsumeIntegralInRange<std::size_t>(0, target.size() - 1)] = -1;
        target = maybe_spoil(target);
        if (kind == "StaticReshape" || (onnx && version < 5)) {
            check(reshaper_op_set_attr_s64s(op, "shape", target.data(), target.size()));
        } else {
            add_values_input(op, target, kind == "DynamicReshape" && fdp.ConsumeBool());
        }
        if (!onnx) check(reshaper_op_set_attr_bool(op, "special_zero", fdp.ConsumeBool()));
        else if (version >= 14 && fdp.ConsumeBool()) check(reshaper_op_set_attr_s64(op, "allowzero", fdp.ConsumeIntegralInRange<int>(0, 2)));
        return out;
    }

    // Attributes of every type, with names the family uses and others.
    void random_attributes(reshaper_op_t op) {
        static constexpr const char *names[] = {"shape", "special_zero", "order", "perm", "axes", "axis", "allowzero", "x", ""};
        const int n = fdp.ConsumeIntegralInRange<int>(0, 3);
        for (int i = 0; i < n; ++i) {
            const char *name = fdp.PickValueInArray(names);
            switch (fdp.ConsumeIntegralInRange<int>(0, 6)) {
            case 0: check(reshaper_op_set_attr_s64(op, name, wild_value(fdp))); break;
            case 1: {
                std::vector<std::int64_t> v(fdp.ConsumeIntegralInRange<std::size_t>(0, 5));
                for (auto &x : v) x = wild_value(fdp);
                check(reshaper_op_set_attr_s64s(op, name, v.empty() && fdp.ConsumeBool() ? nullptr : v.data(), v.size()));
                break;
            }
            case 2: check(reshaper_op_set_attr_f32(op, name, fdp.ConsumeFloatingPoint<float>())); break;
            case 3: {
                const float f[2] = {fdp.ConsumeFloatingPoint<float>(), std::numeric_limits<float>::quiet_NaN()};
                check(reshaper_op_set_attr_f32s(op, name, f, fdp.ConsumeIntegralInRange<std::size_t>(0, 2)));
                break;
            }
            case 4: check(reshaper_op_set_attr_bool(op, name, fdp.ConsumeIntegral<int>())); break;
            case 5: check(reshaper_op_set_attr_str(op, name, fdp.ConsumeRandomLengthString(12).c_str())); break;
            default: check(reshaper_op_set_attr_str(op, name, nullptr)); break;
            }
        }
    }

    void add_op(std::int64_t id) {
        const bool wild = fdp.ConsumeProbability<float>() < 0.25f;
        const op_kind &k = fdp.ConsumeProbability<float>() < 0.97f ? fdp.PickValueInArray(kinds) : op_kind{"Wildcard", "x"};
        std::string kind = k.kind;
        if (wild && fdp.ConsumeProbability<float>() < 0.2f) kind = fdp.ConsumeRandomLengthString(16);
        reshaper_op_t op = nullptr;
        if (check(reshaper_op_create(&op, wild && fdp.ConsumeBool() ? wild_value(fdp) : id, kind.c_str(),
                                     ("op" + std::to_string(id)).c_str())) != reshaper_success)
            return;
        std::int64_t version = 0;
        if (std::strcmp(k.domain, "ai.onnx") == 0) version = fdp.PickValueInArray(onnx_versions);
        if (wild && fdp.ConsumeBool()) version = wild_value(fdp);
        const std::string domain = wild && fdp.ConsumeProbability<float>() < 0.3f ? fdp.ConsumeRandomLengthString(8) : k.domain;
        if (*k.domain || version != 0 || fdp.ConsumeBool())
            check(reshaper_op_set_domain(op, domain.c_str(), version == 0 && *k.domain ? 25 : version));

        if (!wild) {
            reshaper_logical_tensor_t in =
                fdp.ConsumeProbability<float>() < 0.9f ? cur_lt : make_lt(fdp, current, type, cur, false);
            check(reshaper_op_add_input(op, &in));
            const dims out_dims = coherent(op, k, version == 0 ? 25 : version);
            const std::int64_t out_id = next_tensor++;
            reshaper_logical_tensor_t out = make_lt(fdp, out_id, type, out_dims, false);
            check(reshaper_op_add_output(op, &out));
            if (check(reshaper_graph_add_op(graph, op)) == reshaper_success) {
                current = out_id;
                cur = out_dims;
                cur_lt = out;
            }
        } else {
            random_attributes(op);
            const int ins = fdp.ConsumeIntegralInRange<int>(0, 3), outs = fdp.ConsumeIntegralInRange<int>(0, 2);
            for (int i = 0; i < ins + outs; ++i) {
                dims d(fdp.ConsumeIntegralInRange<std::size_t>(0, 4));
                for (auto &x : d) x = fdp.ConsumeIntegralInRange<std::int64_t>(-1, 5);
                const std::int64_t lt_id = fdp.ConsumeIntegralInRange<std::int64_t>(-1, next_tensor);
                reshaper_logical_tensor_t lt = make_lt(fdp, lt_id, fdp.PickValueInArray(chain_types), d, true);
                check(i < ins ? reshaper_op_add_input(op, fdp.ConsumeProbability<float>() < 0.02f ? nullptr : &lt)
                              : reshaper_op_add_output(op, &lt));
            }
            check(reshaper_graph_add_op(graph, op));
        }
        check(reshaper_op_destroy(op));
        set_pending_values();
    }
};

// Host buffers for one compiled partition's boundary, each exactly as large
// as the compiled tensor needs; nothing when one cannot be made (a string
// tensor, a size the C API does not state, or above 1 MiB).
bool make_buffers(const std::vector<reshaper_logical_tensor_t> &lts, FuzzedDataProvider &fdp,
                  std::vector<std::vector<std::uint8_t>> &buffers, reshaper_graph_t graph) {
    for (const reshaper_logical_tensor_t &lt : lts) {
        if (lt.data_type == reshaper_dt_string) return false;
        std::size_t size = 0;
        if (check(reshaper_logical_tensor_get_mem_size(&lt, &size)) != reshaper_success || size > (1u << 20))
            return false;
        std::vector<std::uint8_t> b(size);
        // A constant's values from the graph (dense tensors only), else random.
        std::size_t values = 0;
        if (graph && check(reshaper_graph_get_tensor_values(graph, lt.id, nullptr, 0, &values)) == reshaper_success &&
            values == size && size > 0) {
            check(reshaper_graph_get_tensor_values(graph, lt.id, b.data(), size, &values));
        } else {
            for (auto &x : b) x = fdp.ConsumeIntegral<std::uint8_t>();
        }
        buffers.push_back(std::move(b));
    }
    return true;
}

void compile_and_run(FuzzedDataProvider &fdp, reshaper_graph_t graph, const_reshaper_partition_t p,
                     reshaper_engine_t engine) {
    int supported = 0;
    check(reshaper_partition_is_supported(p, &supported));
    const char *reason = nullptr;
    check(reshaper_partition_get_reason(p, &reason));
    size_t n_in = 0, n_out = 0;
    check(reshaper_partition_get_inputs(p, nullptr, 0, &n_in));
    check(reshaper_partition_get_outputs(p, nullptr, 0, &n_out));
    std::vector<reshaper_logical_tensor_t> ins(n_in), outs(n_out);
    if (n_in) check(reshaper_partition_get_inputs(p, ins.data(), ins.size(), &n_in));
    if (n_out) check(reshaper_partition_get_outputs(p, outs.data(), outs.size(), &n_out));
    // The caller's view: the partition's own tensors, outputs `any` or dense
    // now and then.
    for (auto &lt : outs) {
        if (fdp.ConsumeBool()) lt.layout_type = reshaper_layout_any;
        else if (fdp.ConsumeBool()) std::fill(lt.strides, lt.strides + RESHAPER_MAX_NDIMS, RESHAPER_UNKNOWN_DIM);
    }
    reshaper_compiled_partition_t cp = nullptr;
    const bool given = fdp.ConsumeBool();
    const reshaper_status_t s = check(reshaper_partition_compile(p, engine, given ? ins.size() : 0, ins.data(),
                                                                 given ? outs.size() : 0, outs.data(), &cp));
    if (!supported && s == reshaper_success) finding("an unsupported partition compiled", s);
    if (s != reshaper_success) return;

    reshaper_lowering_kind_t lowering{};
    check(reshaper_compiled_partition_get_lowering(cp, &lowering));
    const char *text = nullptr;
    check(reshaper_compiled_partition_get_lowering_details(cp, &text));
    check(reshaper_compiled_partition_get_why_not_alias(cp, &text));
    size_t pairs = 0;
    check(reshaper_compiled_partition_get_inplace_pairs(cp, nullptr, 0, &pairs));
    std::vector<reshaper_inplace_pair_t> inplace(pairs);
    if (pairs) check(reshaper_compiled_partition_get_inplace_pairs(cp, inplace.data(), inplace.size(), &pairs));
    // Decided before the buffers' random bytes use up the input; an input
    // used up by now decides by the output id's parity (else it would never
    // run in place: ConsumeBool() is false on no bytes).
    const bool try_in_place =
            !inplace.empty() && (fdp.remaining_bytes() > 0 ? fdp.ConsumeBool() : inplace[0].output_id % 2 == 0);
    check(reshaper_compiled_partition_get_inputs(cp, nullptr, 0, &n_in));
    check(reshaper_compiled_partition_get_outputs(cp, nullptr, 0, &n_out));
    std::vector<reshaper_logical_tensor_t> cins(n_in), couts(n_out);
    if (n_in) check(reshaper_compiled_partition_get_inputs(cp, cins.data(), cins.size(), &n_in));
    if (n_out) check(reshaper_compiled_partition_get_outputs(cp, couts.data(), couts.size(), &n_out));

    std::vector<std::vector<std::uint8_t>> in_buffers, out_buffers;
    bool dynamic = false;
    for (std::size_t i = 0; i < couts.size(); ++i)
        for (std::int32_t k = 0; k < couts[i].ndims; ++k) dynamic |= couts[i].dims[k] == RESHAPER_UNKNOWN_DIM;
    bool ok = make_buffers(cins, fdp, in_buffers, graph);
    if (ok) {
        for (std::size_t i = 0; i < couts.size() && ok; ++i) {
            if (couts[i].data_type == reshaper_dt_string) ok = false;
            std::size_t size = 0;
            if (ok && check(reshaper_compiled_partition_get_output_mem_size(cp, i, &size)) != reshaper_success) ok = false;
            if (size > (1u << 20)) ok = false;
            out_buffers.emplace_back(size, 0xA5);
        }
    }
    if (ok) {
        const auto pristine = in_buffers;
        std::vector<const void *> in_ptrs;
        std::vector<void *> out_ptrs;
        for (auto &b : in_buffers) in_ptrs.push_back(b.data());
        for (auto &b : out_buffers) out_ptrs.push_back(b.data());
        // Now and then as the Python binding runs it: each output of an
        // in-place pair given its input's buffer (an alias's output is then
        // that memory with the output's strides; nothing may move).
        bool in_place = false;
        if (try_in_place)
            for (std::size_t k = 0; k < couts.size(); ++k)
                for (const reshaper_inplace_pair_t &pair : inplace)
                    for (std::size_t i = 0; i < cins.size(); ++i)
                        if (pair.output_id == couts[k].id && pair.input_id == cins[i].id) {
                            out_ptrs[k] = in_buffers[i].data();
                            in_place = true;
                        }
        std::vector<reshaper_logical_tensor_t> resolved(out_ptrs.size());
        const reshaper_status_t e =
            dynamic || fdp.ConsumeBool()
                ? check(reshaper_compiled_partition_execute_dynamic(cp, in_ptrs.size(), in_ptrs.data(), out_ptrs.size(),
                                                                    out_ptrs.data(), resolved.data()))
                : check(reshaper_compiled_partition_execute(cp, in_ptrs.size(), in_ptrs.data(), out_ptrs.size(),
                                                            out_ptrs.data()));
        if (in_buffers != pristine) finding(in_place ? "an in-place alias moved its input" : "execute wrote an input", e);
        if (in_place && e != reshaper_success) {
            const char *rule = nullptr;
            reshaper_get_last_error_rule(&rule);
            if (rule && std::strcmp(rule, "execute_buffers") == 0)
                finding("an in-place pair's buffers were refused in place", e);
        }
        if (e != reshaper_success)
            for (const auto &b : out_buffers)
                if (std::any_of(b.begin(), b.end(), [](std::uint8_t x) { return x != 0xA5; }))
                    finding("execute failed, yet wrote an output", e);
    }
    check(reshaper_compiled_partition_destroy(cp));
}

// Partitions as (supported, op ids), to compare a graph with its JSON.
std::vector<std::pair<int, std::vector<std::int64_t>>> partition_summary(reshaper_partition_list_t list) {
    std::vector<std::pair<int, std::vector<std::int64_t>>> out;
    size_t count = 0;
    check(reshaper_partition_list_get_count(list, &count));
    for (size_t i = 0; i < count; ++i) {
        const_reshaper_partition_t p = nullptr;
        check(reshaper_partition_list_get(list, i, &p));
        int supported = 0;
        check(reshaper_partition_is_supported(p, &supported));
        size_t n = 0;
        check(reshaper_partition_get_op_ids(p, nullptr, 0, &n));
        std::vector<std::int64_t> ids(n);
        if (n) check(reshaper_partition_get_op_ids(p, ids.data(), n, &n));
        out.emplace_back(supported, std::move(ids));
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    FuzzedDataProvider fdp(data, size);
    reshaper_graph_t graph = nullptr;
    if (check(reshaper_graph_create(pick_enum(fdp, reshaper_engine_gpu), &graph)) !=
        reshaper_success)
        return 0;

    // The chain's input: a type, small dims (a zero volume now and then).
    builder b{fdp, graph, fdp.PickValueInArray(chain_types)};
    b.cur.resize(fdp.ConsumeIntegralInRange<std::size_t>(0, 4));
    for (auto &d : b.cur) d = fdp.ConsumeIntegralInRange<std::int64_t>(fdp.ConsumeProbability<float>() < 0.05f ? 0 : 1, 5);
    const dims input_dims = b.cur;
    b.cur_lt = make_lt(fdp, 0, b.type, b.cur, false);
    const int ops = fdp.ConsumeIntegralInRange<int>(1, 6);
    for (int i = 0; i < ops; ++i) b.add_op(i);
    if (fdp.ConsumeProbability<float>() < 0.2f && b.type != reshaper_dt_string) {
        // Values for the data input (known at compile when it is constant).
        reshaper_logical_tensor_t dense{};
        check(reshaper_logical_tensor_init(&dense, 0, b.type, static_cast<int32_t>(input_dims.size()),
                                           input_dims.data(), nullptr, reshaper_layout_strided,
                                           reshaper_property_undef));
        std::size_t bytes = 0;
        if (reshaper_logical_tensor_get_mem_size(&dense, &bytes) == reshaper_success && bytes <= 4096) {
            std::vector<std::uint8_t> v(std::max<std::size_t>(bytes, 1));
            for (auto &x : v) x = fdp.ConsumeIntegral<std::uint8_t>();
            check(reshaper_graph_set_tensor_values(graph, 0, v.data(), bytes));
        }
    }

    const reshaper_status_t finalized = check(reshaper_graph_finalize(graph));
    int is_final = 0;
    check(reshaper_graph_is_finalized(graph, &is_final));
    if ((finalized == reshaper_success) != (is_final == 1)) finding("finalize and is_finalized disagree", finalized);
    if (finalized == reshaper_success) {
        // A finalized graph takes no more ops (contract section 4).
        reshaper_op_t late = nullptr;
        check(reshaper_op_create(&late, 1000, "StaticReshape", "late"));
        if (check(reshaper_graph_add_op(graph, late)) != reshaper_invalid_graph)
            finding("a finalized graph took an op", reshaper_success);
        check(reshaper_op_destroy(late));
    }
    // Finalizing again gives the same answer.
    if (check(reshaper_graph_finalize(graph)) != finalized) finding("finalize changed its mind", finalized);
    if (finalized != reshaper_success) {
        check(reshaper_graph_destroy(graph));
        return 0;
    }

    reshaper_partition_list_t list = nullptr;
    const auto policy = pick_enum(fdp, reshaper_policy_debug);
    if (check(reshaper_graph_get_partitions(graph, policy, reshaper_engine_cpu, &list)) == reshaper_success) {
        // The graph's JSON reads back to the same partitions (contract section 4).
        size_t json_size = 0;
        check(reshaper_graph_to_json(graph, nullptr, 0, &json_size));
        std::string json(json_size, '\0');
        if (json_size == 0 || check(reshaper_graph_to_json(graph, json.data(), json.size(), &json_size)) != reshaper_success)
            finding("to_json of a finalized graph failed", reshaper_success);
        reshaper_graph_t reread = nullptr;
        reshaper_partition_list_t relist = nullptr;
        if (check(reshaper_graph_create_from_json(json.c_str(), &reread)) != reshaper_success ||
            check(reshaper_graph_get_partitions(reread, policy, reshaper_engine_cpu, &relist)) != reshaper_success) {
            std::fprintf(stderr, "%s\n", json.c_str());
            finding("a finalized graph's JSON does not read back", reshaper_success);
        }
        if (partition_summary(list) != partition_summary(relist)) {
            std::fprintf(stderr, "%s\n", json.c_str());
            finding("a finalized graph's JSON reads back to other partitions", reshaper_success);
        }
        check(reshaper_partition_list_destroy(relist));
        check(reshaper_graph_destroy(reread));

        static reshaper_engine_t engine = [] {
            reshaper_engine_t e = nullptr;
            if (reshaper_engine_create(reshaper_engine_cpu, 0, &e) != reshaper_success) std::abort();
            return e;
        }();
        size_t count = 0;
        check(reshaper_partition_list_get_count(list, &count));
        for (size_t i = 0; i < count; ++i) {
            const_reshaper_partition_t p = nullptr;
            check(reshaper_partition_list_get(list, i, &p));
            compile_and_run(fdp, graph, p, engine);
        }
        const_reshaper_partition_t p = nullptr;
        if (check(reshaper_partition_list_get(list, count, &p)) == reshaper_success) finding("index past the end", reshaper_success);
        check(reshaper_partition_list_destroy(list));
    }
    reshaper_logical_tensor_t lt{};
    check(reshaper_graph_get_tensor(graph, fdp.ConsumeIntegralInRange<std::int64_t>(-1, b.next_tensor), &lt));
    check(reshaper_graph_destroy(graph));
    return 0;
}
