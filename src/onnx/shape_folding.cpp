#include "onnx/shape_folding.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "core/checked_math.hpp"
#include "onnx/onnx_model.hpp"

// Everything here is the layer's own (onnx_detail); only the functions
// shape_folding.hpp declares are used from outside this file.
namespace reshaper::impl::onnx_detail {

// ---- element values ---------------------------------------------------------

// Shape arithmetic is small: values of more elements are not folded (a
// ConstantOfShape of an image's shape would be megabytes).
constexpr std::size_t max_folded_elements = 4096;

// The types folding computes in: integers, bool, f32, f64. A long double
// holds every int64 and uint64 exactly.
bool foldable(data_type t) {
    switch (t) {
    case data_type::s8: case data_type::u8: case data_type::s16: case data_type::u16:
    case data_type::s32: case data_type::u32: case data_type::s64: case data_type::u64:
    case data_type::boolean: case data_type::f32: case data_type::f64: return true;
    default: return false;
    }
}


// A known element as int64: saturated, never an out-of-range conversion
// (a u64 above INT64_MAX, a float's huge value; NaN gives 0).
std::int64_t to_i64(long double x) {
    if (!(x == x)) return 0;
    if (x >= 9223372036854775807.0L) return INT64_MAX;
    if (x <= -9223372036854775808.0L) return INT64_MIN;
    return static_cast<std::int64_t>(x);
}

// `x` as an element of `t` holds it (integers wrap as a cast does, floats
// round to their precision); nothing for a NaN or infinity cast to an
// integer.
std::optional<long double> as_element(data_type t, long double x) {
    if (t == data_type::f32) return static_cast<long double>(static_cast<float>(x));
    if (t == data_type::f64) return static_cast<long double>(static_cast<double>(x));
    if (t == data_type::boolean) return x != 0 ? 1.0L : 0.0L;
    if (!std::isfinite(x)) return std::nullopt;
    x = std::trunc(x);
    if (x < -9223372036854775808.0L || x >= 18446744073709551616.0L) return std::nullopt;
    const auto bits = x < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) : static_cast<std::uint64_t>(x);
    switch (t) {
    case data_type::s8: return static_cast<std::int8_t>(bits);
    case data_type::u8: return static_cast<std::uint8_t>(bits);
    case data_type::s16: return static_cast<std::int16_t>(bits);
    case data_type::u16: return static_cast<std::uint16_t>(bits);
    case data_type::s32: return static_cast<std::int32_t>(bits);
    case data_type::u32: return static_cast<std::uint32_t>(bits);
    case data_type::s64: return static_cast<long double>(static_cast<std::int64_t>(bits));
    case data_type::u64: return static_cast<long double>(bits);
    default: return std::nullopt;
    }
}

template <typename T> void put(std::vector<std::uint8_t> &bytes, std::size_t i, T value) {
    std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
}
template <typename T> long double get(const std::vector<std::uint8_t> &bytes, std::size_t i) {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    return static_cast<long double>(value);
}

tensor_values encode(const known &k) {
    tensor_values out;
    out.type = k.type;
    out.count = k.v.size();
    out.bytes.assign(dense_bytes(k.type, k.v.size()), 0);
    for (std::size_t i = 0; i < k.v.size(); ++i) {
        const long double x = k.v[i];
        switch (k.type) {
        case data_type::s8: put(out.bytes, i, static_cast<std::int8_t>(x)); break;
        case data_type::u8: put(out.bytes, i, static_cast<std::uint8_t>(x)); break;
        case data_type::boolean: put(out.bytes, i, static_cast<std::uint8_t>(x != 0)); break;
        case data_type::s16: put(out.bytes, i, static_cast<std::int16_t>(x)); break;
        case data_type::u16: put(out.bytes, i, static_cast<std::uint16_t>(x)); break;
        case data_type::s32: put(out.bytes, i, static_cast<std::int32_t>(x)); break;
        case data_type::u32: put(out.bytes, i, static_cast<std::uint32_t>(x)); break;
        case data_type::s64: put(out.bytes, i, static_cast<std::int64_t>(x)); break;
        case data_type::u64: put(out.bytes, i, static_cast<std::uint64_t>(x)); break;
        case data_type::f32: put(out.bytes, i, static_cast<float>(x)); break;
        case data_type::f64: put(out.bytes, i, static_cast<double>(x)); break;
        default: break;
        }
    }
    return out;
}

std::optional<known> decode(const tensor_values &values, const dims_t &shape) {
    if (!foldable(values.type) || values.count > max_folded_elements) return std::nullopt;
    known k{values.type, shape, {}};
    k.v.resize(values.count);
    for (std::size_t i = 0; i < values.count; ++i) {
        switch (values.type) {
        case data_type::s8: k.v[i] = get<std::int8_t>(values.bytes, i); break;
        case data_type::u8: case data_type::boolean: k.v[i] = get<std::uint8_t>(values.bytes, i); break;
        case data_type::s16: k.v[i] = get<std::int16_t>(values.bytes, i); break;
        case data_type::u16: k.v[i] = get<std::uint16_t>(values.bytes, i); break;
        case data_type::s32: k.v[i] = get<std::int32_t>(values.bytes, i); break;
        case data_type::u32: k.v[i] = get<std::uint32_t>(values.bytes, i); break;
        case data_type::s64: k.v[i] = get<std::int64_t>(values.bytes, i); break;
        case data_type::u64: k.v[i] = get<std::uint64_t>(values.bytes, i); break;
        case data_type::f32: k.v[i] = get<float>(values.bytes, i); break;
        case data_type::f64: k.v[i] = get<double>(values.bytes, i); break;
        default: return std::nullopt;
        }
    }
    return k;
}

int onnx_elem_type(data_type t) {
    for (int e = 1; e <= 26; ++e)
        if (dtype_of_onnx(e) == t) return e;
    return 0;
}

onnx::TensorProto to_tensor_proto(const known &k) {
    onnx::TensorProto t;
    t.set_data_type(onnx_elem_type(k.type));
    for (dim_t d : k.shape) t.add_dims(d);
    const tensor_values bytes = encode(k);
    t.set_raw_data(std::string(bytes.bytes.begin(), bytes.bytes.end()));
    return t;
}

std::optional<dims_t> tensor_proto_dims(const onnx::TensorProto &t) {
    dims_t dims(t.dims().begin(), t.dims().end());
    for (dim_t d : dims)
        if (d < 0) return std::nullopt;
    if (!checked_volume(dims)) return std::nullopt;
    return dims;
}

// ---- node attributes ---------------------------------------------------------

const onnx::AttributeProto *find_attr(const onnx::NodeProto &n, std::string_view name) {
    for (const auto &a : n.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

std::optional<std::int64_t> attr_int(const onnx::NodeProto &n, std::string_view name) {
    const auto *a = find_attr(n, name);
    if (!a || !a->has_i()) return std::nullopt;
    return a->i();
}

std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto &n, std::string_view name) {
    const auto *a = find_attr(n, name);
    if (!a) return std::nullopt;
    return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

// ---- shapes from ONNX's type information -------------------------------------

// Nothing when the rank is unknown; -1 for a symbolic or unknown dim.
std::optional<dims_t> shape_of(const onnx::TypeProto &type) {
    if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
    dims_t dims;
    for (const auto &d : type.tensor_type().shape().dim())
        dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : unknown_dim);
    return dims;
}

// Every value_info the working model holds after inference, by name.
std::unordered_map<std::string, const onnx::TypeProto *> types_by_name(const onnx::GraphProto &g) {
    std::unordered_map<std::string, const onnx::TypeProto *> types;
    for (const auto *list : {&g.input(), &g.value_info(), &g.output()})
        for (const auto &vi : *list)
            if (vi.has_type()) types.emplace(vi.name(), &vi.type());
    return types;
}

// ---- folding ------------------------------------------------------------------


dim_t volume_of(const dims_t &shape) { return checked_volume(shape).value_or(-1); }

std::optional<std::size_t> normalized_axis(std::int64_t axis, std::size_t rank) {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) return std::nullopt;
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

// Numpy broadcasting of known values: `op` of their elements gives each
// element of the result, of type `type` (nothing where anything fails).
using element_op = std::function<std::optional<long double>(const std::vector<long double> &)>;
std::optional<known> broadcast(const std::vector<const known *> &args, data_type type, const element_op &op) {
    std::size_t rank = 0;
    for (const known *a : args) rank = std::max(rank, a->shape.size());
    std::vector<dims_t> shapes;
    dims_t out(rank, 1);
    for (const known *a : args) {
        dims_t s(rank, 1);
        std::copy(a->shape.begin(), a->shape.end(), s.begin() + static_cast<std::ptrdiff_t>(rank - a->shape.size()));
        for (std::size_t i = 0; i < rank; ++i) {
            if (s[i] != out[i] && s[i] != 1 && out[i] != 1) return std::nullopt;
            if (s[i] != 1) out[i] = s[i];
        }
        shapes.push_back(std::move(s));
    }
    const dim_t n = volume_of(out);
    if (n < 0 || static_cast<std::size_t>(n) > max_folded_elements) return std::nullopt;
    known r{type, out, {}};
    std::vector<dim_t> index(rank, 0);
    std::vector<long double> operands(args.size());
    for (dim_t e = 0; e < n; ++e) {
        for (std::size_t a = 0; a < args.size(); ++a) {
            dim_t at = 0;
            for (std::size_t i = 0; i < rank; ++i) at = at * shapes[a][i] + (shapes[a][i] == 1 ? 0 : index[i]);
            operands[a] = args[a]->v[static_cast<std::size_t>(at)];
        }
        const auto x = op(operands);
        if (!x) return std::nullopt;
        const auto element = as_element(type, *x);
        if (!element) return std::nullopt;
        r.v.push_back(*element);
        for (std::size_t i = rank; i-- > 0;)
            if (++index[i] < out[i]) break;
            else index[i] = 0;
    }
    return r;
}

std::optional<known> broadcast(const known &a, const known &b,
                               const std::function<std::optional<long double>(long double, long double)> &op) {
    if (a.type != b.type) return std::nullopt;
    return broadcast({&a, &b}, a.type, [&](const std::vector<long double> &x) { return op(x[0], x[1]); });
}

std::optional<known> arithmetic(const std::string &kind, const known &a, const known &b) {
    const bool integer = is_integer(a.type);
    // Integers compute in int64 with wrap-around (as a cast to the type
    // would), division truncating toward zero as ONNX Runtime's does.
    const auto wrap = [](std::uint64_t x) { return static_cast<long double>(static_cast<std::int64_t>(x)); };
    const auto as_u64 = [](long double x) {
        return x >= 0 ? static_cast<std::uint64_t>(std::min(x, 18446744073709551615.0L)) : static_cast<std::uint64_t>(to_i64(x));
    };
    if (kind == "Add")
        return broadcast(a, b, [&](long double x, long double y) -> std::optional<long double> {
            return integer ? wrap(as_u64(x) + as_u64(y)) : x + y;
        });
    if (kind == "Sub")
        return broadcast(a, b, [&](long double x, long double y) -> std::optional<long double> {
            return integer ? wrap(as_u64(x) - as_u64(y)) : x - y;
        });
    if (kind == "Mul")
        return broadcast(a, b, [&](long double x, long double y) -> std::optional<long double> {
            return integer ? wrap(as_u64(x) * as_u64(y)) : x * y;
        });
    if (kind == "Mod" && integer) // fmod=0: the remainder takes the divisor's sign
        return broadcast(a, b, [&](long double x, long double y) -> std::optional<long double> {
            const auto p = to_i64(x), q = to_i64(y);
            if (q == 0 || (q == -1 && p == INT64_MIN)) return std::nullopt;
            std::int64_t r = p % q;
            if (r != 0 && ((r < 0) != (q < 0))) r += q;
            return static_cast<long double>(r);
        });
    if (kind == "Mod") return std::nullopt;
    return broadcast(a, b, [&](long double x, long double y) -> std::optional<long double> {
        if (!integer) return static_cast<long double>(static_cast<double>(x) / static_cast<double>(y));
        const auto p = to_i64(x), q = to_i64(y);
        if (q == 0 || (q == -1 && p == INT64_MIN)) return std::nullopt;
        return static_cast<long double>(p / q);
    });
}

std::optional<known> constant_value(const onnx::NodeProto &n) {
    if (const auto *a = find_attr(n, "value"); a && a->has_t()) {
        const auto values = tensor_proto_values(a->t());
        const auto dims = tensor_proto_dims(a->t());
        if (!values || !dims) return std::nullopt;
        return decode(*values, *dims);
    }
    if (const auto *a = find_attr(n, "value_int"); a && a->has_i())
        return known{data_type::s64, {}, {static_cast<long double>(a->i())}};
    if (const auto *a = find_attr(n, "value_float"); a && a->has_f())
        return known{data_type::f32, {}, {static_cast<long double>(a->f())}};
    if (const auto *a = find_attr(n, "value_ints")) {
        known k{data_type::s64, {static_cast<dim_t>(a->ints_size())}, {}};
        for (auto x : a->ints()) k.v.push_back(static_cast<long double>(x));
        return k;
    }
    if (const auto *a = find_attr(n, "value_floats")) {
        known k{data_type::f32, {static_cast<dim_t>(a->floats_size())}, {}};
        for (auto x : a->floats()) k.v.push_back(static_cast<long double>(x));
        return k;
    }
    return std::nullopt;
}

std::vector<std::int64_t> as_ints(const known &k) {
    std::vector<std::int64_t> out;
    for (long double x : k.v) out.push_back(to_i64(x));
    return out;
}

// Slice of known data (ONNX's clamping rules for starts and ends).
std::optional<known> slice(const known &data, const std::vector<std::int64_t> &starts,
                           const std::vector<std::int64_t> &ends, std::optional<std::vector<std::int64_t>> axes,
                           std::optional<std::vector<std::int64_t>> steps) {
    const std::size_t rank = data.shape.size();
    if (!axes) {
        axes.emplace();
        for (std::size_t i = 0; i < starts.size(); ++i) axes->push_back(static_cast<std::int64_t>(i));
    }
    if (!steps) steps = std::vector<std::int64_t>(starts.size(), 1);
    if (ends.size() != starts.size() || axes->size() != starts.size() || steps->size() != starts.size())
        return std::nullopt;
    std::vector<dim_t> first(rank, 0), step(rank, 1);
    dims_t out = data.shape;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const auto axis = normalized_axis((*axes)[i], rank);
        if (!axis || (*steps)[i] == 0) return std::nullopt;
        const dim_t dim = data.shape[*axis], s = (*steps)[i];
        dim_t b = starts[i], e = ends[i];
        first[*axis] = 0;
        step[*axis] = 1;
        if (dim == 0) { // nothing to take (and no index to clamp to)
            out[*axis] = 0;
            continue;
        }
        if (b < 0) b += dim;
        if (e < 0) e += dim;
        if (s > 0) {
            b = std::clamp<dim_t>(b, 0, dim);
            e = std::clamp<dim_t>(e, 0, dim);
            out[*axis] = e > b ? (e - b - 1) / s + 1 : 0;
        } else {
            if (s == INT64_MIN) return std::nullopt;
            b = std::clamp<dim_t>(b, 0, dim - 1);
            e = std::clamp<dim_t>(e, -1, dim - 1);
            out[*axis] = b > e ? (b - e - 1) / -s + 1 : 0;
        }
        first[*axis] = b;
        step[*axis] = s;
    }
    const dim_t n = volume_of(out);
    if (n < 0) return std::nullopt;
    known r{data.type, out, {}};
    std::vector<dim_t> index(rank, 0);
    for (dim_t e = 0; e < n; ++e) {
        dim_t source = 0;
        for (std::size_t i = 0; i < rank; ++i) source = source * data.shape[i] + first[i] + index[i] * step[i];
        r.v.push_back(data.v[static_cast<std::size_t>(source)]);
        for (std::size_t i = rank; i-- > 0;)
            if (++index[i] < out[i]) break;
            else index[i] = 0;
    }
    return r;
}

struct fold_context {
    const value_map &values;
    const std::unordered_map<std::string, const onnx::TypeProto *> &types;
    std::int64_t opset;

    const known *value(const onnx::NodeProto &n, int i) const {
        if (i >= n.input_size() || n.input(i).empty()) return nullptr;
        const auto it = values.find(n.input(i));
        return it == values.end() ? nullptr : &it->second;
    }
    bool absent(const onnx::NodeProto &n, int i) const { return i >= n.input_size() || n.input(i).empty(); }
};

// The value of `n`'s only output when every input it needs is known, for
// the shape arithmetic torch.onnx.export writes (contract 5.3's list, and
// Identity, Range, Mod, Equal, Not, Where, Expand and the family's own ops,
// which torch's F.pad and Swin's masks compute with); nothing otherwise.
std::optional<known> fold(const onnx::NodeProto &n, const fold_context &c) {
    const std::string &kind = n.op_type();
    if (n.output_size() != 1) return std::nullopt;
    if (kind == "Constant") return constant_value(n);
    if (kind == "Shape") {
        if (n.input_size() < 1) return std::nullopt;
        const auto it = c.types.find(n.input(0));
        if (it == c.types.end()) return std::nullopt;
        const auto shape = shape_of(*it->second);
        if (!shape || has_unknown_dims(*shape)) return std::nullopt;
        const auto rank = static_cast<std::int64_t>(shape->size());
        std::int64_t begin = attr_int(n, "start").value_or(0), end = attr_int(n, "end").value_or(rank);
        if (begin < 0) begin += rank;
        if (end < 0) end += rank;
        begin = std::clamp<std::int64_t>(begin, 0, rank);
        end = std::clamp<std::int64_t>(end, 0, rank);
        known k{data_type::s64, {std::max<std::int64_t>(end - begin, 0)}, {}};
        for (std::int64_t i = begin; i < end; ++i) k.v.push_back(static_cast<long double>((*shape)[static_cast<std::size_t>(i)]));
        return k;
    }
    if (kind == "ConstantOfShape") {
        const known *shape = c.value(n, 0);
        if (!shape || shape->shape.size() != 1) return std::nullopt;
        dims_t dims = as_ints(*shape);
        for (dim_t d : dims)
            if (d < 0) return std::nullopt;
        const dim_t count = volume_of(dims);
        if (count < 0 || static_cast<std::size_t>(count) > max_folded_elements) return std::nullopt;
        known fill{data_type::f32, {}, {0.0L}};
        if (const auto *a = find_attr(n, "value"); a && a->has_t()) {
            const auto values = tensor_proto_values(a->t());
            const auto k = values ? decode(*values, {}) : std::nullopt;
            if (!k || k->v.size() != 1) return std::nullopt;
            fill = *k;
        }
        return known{fill.type, dims, std::vector<long double>(static_cast<std::size_t>(count), fill.v[0])};
    }
    const known *x = c.value(n, 0);
    if (!x) return std::nullopt;
    if (kind == "Identity") return *x;
    if (kind == "Range") { // index lists (Swin's shifted-window mask)
        const known *limit = c.value(n, 1), *delta = c.value(n, 2);
        if (!limit || !delta || x->v.size() != 1 || limit->v.size() != 1 || delta->v.size() != 1 ||
            delta->v[0] == 0)
            return std::nullopt;
        const long double steps = std::ceil((limit->v[0] - x->v[0]) / delta->v[0]);
        if (!(steps <= static_cast<long double>(max_folded_elements))) return std::nullopt;
        const auto count = static_cast<std::size_t>(std::max<long double>(steps, 0));
        known r{x->type, {static_cast<dim_t>(count)}, {}};
        for (std::size_t i = 0; i < count; ++i) {
            const auto e = as_element(x->type, x->v[0] + static_cast<long double>(i) * delta->v[0]);
            if (!e) return std::nullopt;
            r.v.push_back(*e);
        }
        return r;
    }
    if (kind == "Cast") {
        const auto to = attr_int(n, "to");
        const auto type = to ? dtype_of_onnx(static_cast<int>(*to)) : std::nullopt;
        if (!type || !foldable(*type)) return std::nullopt;
        known r{*type, x->shape, {}};
        for (long double v : x->v) {
            const auto e = as_element(*type, v);
            if (!e) return std::nullopt;
            r.v.push_back(*e);
        }
        return r;
    }
    if (kind == "Add" || kind == "Sub" || kind == "Mul" || kind == "Div" ||
        (kind == "Mod" && attr_int(n, "fmod").value_or(0) == 0)) {
        const known *y = c.value(n, 1);
        if (!y) return std::nullopt;
        return arithmetic(kind, *x, *y);
    }
    if (kind == "Equal") {
        const known *y = c.value(n, 1);
        if (!y || y->type != x->type) return std::nullopt;
        return broadcast({x, y}, data_type::boolean,
                         [](const std::vector<long double> &v) -> std::optional<long double> { return v[0] == v[1]; });
    }
    if (kind == "Not" && x->type == data_type::boolean)
        return broadcast({x}, data_type::boolean,
                         [](const std::vector<long double> &v) -> std::optional<long double> { return v[0] == 0; });
    if (kind == "Where") {
        const known *a = c.value(n, 1), *b = c.value(n, 2);
        if (!a || !b || a->type != b->type) return std::nullopt;
        return broadcast({x, a, b}, a->type,
                         [](const std::vector<long double> &v) -> std::optional<long double> { return v[0] != 0 ? v[1] : v[2]; });
    }
    if (kind == "Expand") {
        const known *shape = c.value(n, 1);
        if (!shape || shape->shape.size() != 1) return std::nullopt;
        const dims_t dims = as_ints(*shape);
        for (dim_t d : dims)
            if (d < 0) return std::nullopt;
        const dim_t volume = volume_of(dims);
        if (volume < 0 || static_cast<std::size_t>(volume) > max_folded_elements) return std::nullopt;
        const known ones{x->type, dims, std::vector<long double>(static_cast<std::size_t>(volume), 0)};
        return broadcast({x, &ones}, x->type,
                         [](const std::vector<long double> &v) -> std::optional<long double> { return v[0]; });
    }
    // The family itself on known values (torch's F.pad computes its pads
    // through Reshape and Transpose).
    if (kind == "Reshape" && c.opset >= 5) {
        const known *target = c.value(n, 1);
        if (!target) return std::nullopt;
        dims_t dims = as_ints(*target);
        const bool allowzero = attr_int(n, "allowzero").value_or(0) != 0;
        std::optional<std::size_t> infer;
        dim_t product = 1;
        for (std::size_t i = 0; i < dims.size(); ++i) {
            if (dims[i] == 0 && !allowzero) {
                if (i >= x->shape.size()) return std::nullopt;
                dims[i] = x->shape[i];
            }
            if (dims[i] == -1) {
                if (infer) return std::nullopt;
                infer = i;
                continue;
            }
            if (dims[i] < 0) return std::nullopt;
            const auto next = checked_mul(product, dims[i]);
            if (!next) return std::nullopt;
            product = *next;
        }
        const auto count = static_cast<dim_t>(x->v.size());
        if (infer) {
            if (product == 0 || count % product != 0) return std::nullopt;
            dims[*infer] = count / product;
        } else if (product != count) {
            return std::nullopt;
        }
        return known{x->type, dims, x->v};
    }
    if (kind == "Flatten") {
        const auto rank = static_cast<std::int64_t>(x->shape.size());
        std::int64_t axis = attr_int(n, "axis").value_or(1);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis > rank) return std::nullopt;
        const auto split = x->shape.begin() + static_cast<std::ptrdiff_t>(axis);
        return known{x->type, {volume_of(dims_t(x->shape.begin(), split)), volume_of(dims_t(split, x->shape.end()))}, x->v};
    }
    if (kind == "Transpose") {
        const std::size_t rank = x->shape.size();
        std::vector<std::int64_t> perm = attr_ints(n, "perm").value_or(std::vector<std::int64_t>{});
        if (perm.empty())
            for (std::size_t i = rank; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
        if (perm.size() != rank) return std::nullopt;
        dims_t out(rank), source_strides(rank, 1);
        for (std::size_t i = rank; i-- > 1;) source_strides[i - 1] = source_strides[i] * x->shape[i];
        std::vector<bool> used(rank, false);
        for (std::size_t i = 0; i < rank; ++i) {
            const auto axis = normalized_axis(perm[i], rank);
            if (!axis || used[*axis]) return std::nullopt;
            used[*axis] = true;
            out[i] = x->shape[*axis];
        }
        known r{x->type, out, {}};
        std::vector<dim_t> index(rank, 0);
        for (std::size_t e = 0; e < x->v.size(); ++e) {
            dim_t at = 0;
            for (std::size_t i = 0; i < rank; ++i) at += index[i] * source_strides[static_cast<std::size_t>(perm[i] < 0 ? perm[i] + static_cast<std::int64_t>(rank) : perm[i])];
            r.v.push_back(x->v[static_cast<std::size_t>(at)]);
            for (std::size_t i = rank; i-- > 0;)
                if (++index[i] < out[i]) break;
                else index[i] = 0;
        }
        return r;
    }
    if (kind == "Gather") {
        const known *indices = c.value(n, 1);
        if (!indices || !is_integer(indices->type)) return std::nullopt;
        const auto axis = normalized_axis(attr_int(n, "axis").value_or(0), x->shape.size());
        if (!axis) return std::nullopt;
        const dim_t dim = x->shape[*axis];
        dims_t out(x->shape.begin(), x->shape.begin() + static_cast<std::ptrdiff_t>(*axis));
        out.insert(out.end(), indices->shape.begin(), indices->shape.end());
        out.insert(out.end(), x->shape.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x->shape.end());
        const dim_t outer = volume_of(dims_t(x->shape.begin(), x->shape.begin() + static_cast<std::ptrdiff_t>(*axis)));
        const dim_t inner = volume_of(dims_t(x->shape.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x->shape.end()));
        const dim_t count = volume_of(out);
        if (count < 0 || static_cast<std::size_t>(count) > max_folded_elements) return std::nullopt;
        known r{x->type, out, {}};
        for (dim_t o = 0; o < outer; ++o)
            for (long double raw : indices->v) {
                auto idx = to_i64(raw);
                if (idx < 0) idx += dim;
                if (idx < 0 || idx >= dim) return std::nullopt;
                for (dim_t i = 0; i < inner; ++i)
                    r.v.push_back(x->v[static_cast<std::size_t>((o * dim + idx) * inner + i)]);
            }
        return r;
    }
    if (kind == "Slice") {
        if (c.opset < 10) {
            const auto starts = attr_ints(n, "starts"), ends = attr_ints(n, "ends");
            if (!starts || !ends) return std::nullopt;
            return slice(*x, *starts, *ends, attr_ints(n, "axes"), std::nullopt);
        }
        const known *starts = c.value(n, 1), *ends = c.value(n, 2);
        if (!starts || !ends) return std::nullopt;
        std::optional<std::vector<std::int64_t>> axes, steps;
        for (int i : {3, 4}) {
            if (c.absent(n, i)) continue;
            const known *k = c.value(n, i);
            if (!k) return std::nullopt;
            (i == 3 ? axes : steps) = as_ints(*k);
        }
        return slice(*x, as_ints(*starts), as_ints(*ends), axes, steps);
    }
    if (kind == "Squeeze" || kind == "Unsqueeze") {
        std::optional<std::vector<std::int64_t>> axes;
        if (c.opset < 13) {
            axes = attr_ints(n, "axes");
        } else if (!c.absent(n, 1)) {
            const known *k = c.value(n, 1);
            if (!k) return std::nullopt;
            axes = as_ints(*k);
        }
        known r = *x;
        if (kind == "Squeeze") {
            std::vector<bool> drop(x->shape.size(), false);
            if (axes && !axes->empty()) {
                for (auto a : *axes) {
                    const auto axis = normalized_axis(a, x->shape.size());
                    if (!axis || x->shape[*axis] != 1) return std::nullopt;
                    drop[*axis] = true;
                }
            } else {
                for (std::size_t i = 0; i < drop.size(); ++i) drop[i] = x->shape[i] == 1;
            }
            r.shape.clear();
            for (std::size_t i = 0; i < drop.size(); ++i)
                if (!drop[i]) r.shape.push_back(x->shape[i]);
            return r;
        }
        if (!axes) return std::nullopt;
        const std::size_t rank = x->shape.size() + axes->size();
        std::vector<bool> inserted(rank, false);
        for (auto a : *axes) {
            const auto axis = normalized_axis(a, rank);
            if (!axis || inserted[*axis]) return std::nullopt;
            inserted[*axis] = true;
        }
        r.shape.clear();
        std::size_t next = 0;
        for (std::size_t i = 0; i < rank; ++i) r.shape.push_back(inserted[i] ? 1 : x->shape[next++]);
        return r;
    }
    if (kind == "Concat") {
        std::vector<const known *> parts;
        for (int i = 0; i < n.input_size(); ++i) {
            if (n.input(i).empty()) continue;
            const known *k = c.value(n, i);
            if (!k || k->type != x->type || k->shape.size() != x->shape.size()) return std::nullopt;
            parts.push_back(k);
        }
        const auto axis_attr = attr_int(n, "axis");
        const auto axis = axis_attr ? normalized_axis(*axis_attr, x->shape.size()) : std::nullopt;
        if (!axis) return std::nullopt;
        dims_t out = x->shape;
        out[*axis] = 0;
        for (const known *k : parts) {
            for (std::size_t i = 0; i < out.size(); ++i)
                if (i != *axis && k->shape[i] != out[i]) return std::nullopt;
            out[*axis] += k->shape[*axis];
        }
        const dim_t outer = volume_of(dims_t(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*axis)));
        known r{x->type, out, {}};
        for (dim_t o = 0; o < outer; ++o)
            for (const known *k : parts) {
                const auto chunk = static_cast<std::size_t>(volume_of(k->shape) / std::max<dim_t>(outer, 1));
                r.v.insert(r.v.end(), k->v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(o) * chunk),
                           k->v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(o + 1) * chunk));
            }
        return r;
    }
    return std::nullopt;
}

// The output shape of an Einsum whose input shapes are known (ONNX 1.12's
// inference gives only its rank: MaxViT's attention leaves every later
// shape unknown without it). Nothing for ellipses or disagreeing dims.
std::optional<dims_t> einsum_shape(const onnx::NodeProto &n, const std::vector<dims_t> &inputs) {
    const auto *equation = find_attr(n, "equation");
    if (!equation) return std::nullopt;
    std::string text;
    for (char ch : equation->s())
        if (ch != ' ') text.push_back(ch);
    if (text.find("...") != std::string::npos) return std::nullopt;
    const auto arrow = text.find("->");
    const std::string lhs = text.substr(0, arrow);
    std::vector<std::string> terms(1);
    for (char ch : lhs) {
        if (ch == ',') terms.emplace_back();
        else terms.back().push_back(ch);
    }
    if (terms.size() != inputs.size()) return std::nullopt;
    std::map<char, dim_t> size;
    std::map<char, int> uses;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        if (terms[t].size() != inputs[t].size()) return std::nullopt;
        for (std::size_t i = 0; i < terms[t].size(); ++i) {
            const char letter = terms[t][i];
            const dim_t d = inputs[t][i];
            ++uses[letter];
            const auto [it, inserted] = size.emplace(letter, d);
            if (!inserted && it->second != d) {
                if (it->second == 1) it->second = d; // broadcast
                else if (d != 1) return std::nullopt;
            }
        }
    }
    std::string out;
    if (arrow != std::string::npos) {
        out = text.substr(arrow + 2);
    } else { // implicit: the letters used once, in alphabetical order
        for (const auto &[letter, count] : uses)
            if (count == 1) out.push_back(letter);
    }
    dims_t dims;
    for (char letter : out) {
        const auto it = size.find(letter);
        if (it == size.end()) return std::nullopt;
        dims.push_back(it->second);
    }
    return dims;
}

// Shapes ONNX's inference leaves unknown that we can tell (Einsum), set on
// the working model's value_info; true when any was set.
bool complete_shapes(onnx::GraphProto &g, const std::unordered_map<std::string, const onnx::TypeProto *> &types) {
    std::unordered_map<std::string, onnx::ValueInfoProto *> infos;
    for (auto *list : {g.mutable_value_info(), g.mutable_output()})
        for (auto &vi : *list) infos.emplace(vi.name(), &vi);
    bool learned = false;
    for (const auto &node : g.node()) {
        if (node.op_type() != "Einsum" || node.output_size() != 1) continue;
        const auto out = types.find(node.output(0));
        if (out != types.end()) {
            const auto shape = shape_of(*out->second);
            if (shape && !has_unknown_dims(*shape)) continue;
        }
        std::vector<dims_t> inputs;
        for (const auto &in : node.input()) {
            const auto it = types.find(in);
            const auto shape = it == types.end() ? std::nullopt : shape_of(*it->second);
            if (!shape || has_unknown_dims(*shape)) break;
            inputs.push_back(*shape);
        }
        if (inputs.size() != static_cast<std::size_t>(node.input_size())) continue;
        const auto dims = einsum_shape(node, inputs);
        if (!dims) continue;
        onnx::ValueInfoProto *vi = infos.count(node.output(0)) ? infos.at(node.output(0)) : nullptr;
        if (!vi) {
            vi = g.add_value_info();
            vi->set_name(node.output(0));
            infos.emplace(node.output(0), vi);
        }
        auto *tensor = vi->mutable_type()->mutable_tensor_type();
        if (tensor->elem_type() == 0 && !node.input().empty() && types.count(node.input(0)))
            tensor->set_elem_type(types.at(node.input(0))->tensor_type().elem_type());
        tensor->clear_shape();
        auto *shape = tensor->mutable_shape();
        for (dim_t d : *dims) shape->add_dim()->set_dim_value(d);
        learned = true;
    }
    return learned;
}

// Values data propagation found (a TensorShapeProto per tensor): those whose
// every element is known, for 0-D and 1-D integer tensors.
void take_propagated(const std::unordered_map<std::string, onnx::TensorShapeProto> &generated,
                     const std::unordered_map<std::string, const onnx::TypeProto *> &types, value_map &values) {
    for (const auto &[name, data] : generated) {
        if (values.count(name)) continue;
        const auto type = types.find(name);
        if (type == types.end()) continue;
        const auto shape = shape_of(*type->second);
        const auto dtype = dtype_of_onnx(type->second->tensor_type().elem_type());
        if (!shape || shape->size() > 1 || !dtype || !is_integer(*dtype)) continue;
        if (volume_of(*shape) != data.dim_size()) continue;
        known k{*dtype, *shape, {}};
        for (const auto &d : data.dim()) {
            if (!d.has_dim_value()) break;
            k.v.push_back(static_cast<long double>(d.dim_value()));
        }
        if (static_cast<int>(k.v.size()) == data.dim_size()) values.emplace(name, std::move(k));
    }
}

// ONNX's shape inference with data propagation, then our folding, in turn
// until neither learns more: each node whose value folds is replaced by a
// Constant in the working copy, so the next inference sees through it (a
// Reshape's shape, and then every shape after that Reshape). Returns the
// values known at the end; `working` holds the final type information.
value_map infer_and_fold(onnx::ModelProto &working, std::int64_t opset, const std::string &source,
                         graph::load_warnings &warnings) {
    value_map values;
    for (const auto &init : working.graph().initializer()) {
        const auto v = tensor_proto_values(init);
        const auto dims = tensor_proto_dims(init);
        if (v && dims)
            if (auto k = decode(*v, *dims)) values.emplace(init.name(), std::move(*k));
    }
    const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
    const int passes = working.graph().node_size() + 2;
    for (int pass = 0; pass < passes; ++pass) {
        std::unordered_map<std::string, onnx::TensorShapeProto> generated;
        try {
            onnx::shape_inference::InferShapes(working, onnx::OpSchemaRegistry::Instance(), options, &generated);
        } catch (const std::exception &e) {
            // What inference learned before it stopped stands; the tensors
            // it left without a shape stay unknown.
            warnings.push_back(source + ": ONNX shape inference stopped: " + e.what());
            break;
        }
        const auto types = types_by_name(working.graph());
        take_propagated(generated, types, values);
        bool learned = complete_shapes(*working.mutable_graph(), types);
        auto &nodes = *working.mutable_graph()->mutable_node();
        for (auto &node : nodes) {
            if (node.output_size() != 1 || node.output(0).empty()) continue;
            // Known from folding or from data propagation (whose values
            // ONNX's own Reshape inference does not read): a Constant now.
            auto k = values.find(node.output(0));
            if (k == values.end()) {
                auto folded = fold(node, fold_context{values, types, opset});
                if (!folded) continue;
                k = values.emplace(node.output(0), std::move(*folded)).first;
            }
            if (node.op_type() != "Constant") {
                onnx::NodeProto constant;
                constant.set_name(node.name());
                constant.set_op_type("Constant");
                constant.add_output(node.output(0));
                auto *attr = constant.add_attribute();
                attr->set_name("value");
                attr->set_type(onnx::AttributeProto::TENSOR);
                *attr->mutable_t() = to_tensor_proto(k->second);
                node = std::move(constant);
                learned = true;
            }
        }
        if (!learned) break;
    }
    return values;
}

} // namespace reshaper::impl::onnx_detail
