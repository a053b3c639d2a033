#include "io/graph_json.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <system_error>

#include <tbb/global_control.h>

#include "core/element_codec.hpp"
#include "core/fail.hpp"
#include "core/limits.hpp"
#include "io/json_dom.hpp"

namespace reshaper::impl {
namespace {

// Ordered objects (ojson, io/json_dom.hpp) keep a file's key order, so extra
// fields stay verbatim and written files list fields in oneDNN's order.
// Deeper input is refused while parsing (RESHAPER_MAX_JSON_DEPTH), before
// anything recurses over it (dumping and copying JSON values recurse). Real
// files nest 7 levels.

std::string dump(const ojson &j, int indent = -1) {
    return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

// A JSON value, shortened for messages.
std::string excerpt(json_view j) {
    constexpr std::size_t limit = 80;
    std::string s = dump(unboxed(to_ojson(j)));
    if (s.size() > limit) s = s.substr(0, limit) + "...";
    return s;
}

std::string in_quotes(std::string_view s) {
    std::string out(1, '"');
    out.append(s).push_back('"');
    return out;
}

// Where a field is read from: the prefix of messages and the op to blame.
// Its text is made only for a message: a large file's fields are read by
// the million and almost never fail (issue 7).
struct context {
    enum class form { text, op_at_index, op_id, op, port, tensor, attr };
    form shape = form::text;
    std::string_view text;          // form text; port: "input" or "output"; attr: its name
    std::int64_t number = 0;        // an index, an id or a port's position
    const op *blamed = nullptr;     // form op and the places inside it
    const context *outer = nullptr; // port, tensor and attr: where they are

    static context of(std::string_view text) { return {form::text, text}; }
    static context of_op(const op &o) { return {form::op, {}, 0, &o}; }
    context port(bool output, std::size_t position) const {
        return {form::port, output ? "output" : "input", static_cast<std::int64_t>(position), blamed, this};
    }
    context tensor(tensor_id id) const { return {form::tensor, {}, id, blamed, this}; }
    context attr(std::string_view name) const { return {form::attr, name, 0, blamed, this}; }

    std::string where() const {
        switch (shape) {
        case form::text: break;
        case form::op_at_index: return "op at index " + std::to_string(number) + " of \"graph\"";
        case form::op_id: return "op " + std::to_string(number);
        case form::op: return describe(blamed->ref());
        case form::port: return std::string(text) + " " + std::to_string(number) + " of " + outer->where();
        case form::tensor: return "tensor " + std::to_string(number) + " at " + outer->where();
        case form::attr: return outer->where() + ": attr " + std::string(text);
        }
        return std::string(text);
    }
    std::optional<op_ref> blame() const { return blamed ? std::optional<op_ref>(blamed->ref()) : std::nullopt; }

    // fail() with the place in front of the message and its op to blame.
    [[noreturn]] void fail(rule r, const std::string &what) const { impl::fail(r, where() + ": " + what, blame()); }
};

// ---- scalar fields ---------------------------------------------------------

// An integer-valued JSON number (2 and 2.0 alike) as int64; nothing for
// anything else, fractions and integers outside int64.
std::optional<std::int64_t> exact_int64(json_view j) {
    if (j.type() == json_tree::kind::unsigned_integer) {
        const auto u = j.unsigned_integer();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(u);
    }
    if (j.type() == json_tree::kind::integer) return j.integer();
    if (j.type() == json_tree::kind::floating) {
        const auto [d, beyond] = *number_of(j);
        if (beyond == 0 && std::isfinite(d) && d == std::floor(d) && d >= -0x1p63 && d < 0x1p63)
            return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

std::optional<json_view> find_field(json_view object, std::string_view key) { return object.find(key); }

json_view require_field(json_view object, std::string_view key, const context &ctx) {
    if (auto f = object.find(key)) return *f;
    ctx.fail(rule::required_field, "missing field " + in_quotes(key));
}

[[noreturn]] void wrong_json_type(json_view v, std::string_view field, std::string_view expected,
                                  const context &ctx) {
    ctx.fail(rule::field_type,
             "field " + in_quotes(field) + " must be " + std::string(expected) + ", got " + excerpt(v));
}

std::int64_t as_int(json_view v, std::string_view field, const context &ctx) {
    if (auto i = exact_int64(v)) return *i;
    wrong_json_type(v, field, "an integer within int64", ctx);
}

std::int64_t as_id(json_view v, std::string_view field, const context &ctx) {
    auto i = exact_int64(v);
    if (!i || *i < 0) wrong_json_type(v, field, "a non-negative integer", ctx);
    return *i;
}

std::string_view as_string(json_view v, std::string_view field, const context &ctx) {
    if (!v.is_string()) wrong_json_type(v, field, "a string", ctx);
    return v.string();
}

json_view as_array(json_view v, std::string_view field, const context &ctx) {
    if (!v.is_array()) wrong_json_type(v, field, "an array", ctx);
    return v;
}

dims_t as_int_list(json_view v, std::string_view field, const context &ctx) {
    dims_t out;
    out.reserve(as_array(v, field, ctx).size());
    for (json_view e : v.elements()) {
        const auto i = exact_int64(e);
        if (!i) as_int(e, std::string(field) + "[" + std::to_string(out.size()) + "]", ctx); // throws
        out.push_back(*i);
    }
    return out;
}

// ---- floats ----------------------------------------------------------------

// JSON has no NaN or inf: they travel as strings.
std::optional<json_number> float_from_json(json_view j) {
    if (j.is_number()) return number_of(j);
    if (j.is_string()) {
        const std::string_view s = j.string();
        if (s == "nan") return json_number{std::numeric_limits<double>::quiet_NaN()};
        if (s == "inf") return json_number{std::numeric_limits<double>::infinity()};
        if (s == "-inf") return json_number{-std::numeric_limits<double>::infinity()};
    }
    return std::nullopt;
}

// The shortest decimal that reads back as `f` (0.1f is written 0.1, not
// 0.10000000149011612); the float's exact value if that fails.
double shortest_decimal(float f) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
    double d = 0;
    if (ec == std::errc() && std::from_chars(buf, end, d).ec == std::errc() &&
        static_cast<float>(d) == f && std::signbit(d) == std::signbit(f))
        return d;
    return f;
}

ojson float_to_json(double v, bool single_precision) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    return single_precision ? shortest_decimal(static_cast<float>(v)) : v;
}

// A JSON number or special string as an f32; nothing when it is neither or
// a finite number too large for f32.
std::optional<float> f32_from_json(json_view j) {
    const auto d = float_from_json(j);
    if (!d) return std::nullopt;
    const auto f =
        std::bit_cast<float>(static_cast<std::uint32_t>(*encode_float(data_type::f32, d->value, d->beyond)));
    if (std::isinf(f) && std::isfinite(d->value)) return std::nullopt;
    return f;
}

// ---- values ----------------------------------------------------------------

[[noreturn]] void bad_value(json_view v, std::size_t index, data_type t, std::string_view why) {
    fail(rule::value_fits_dtype,
         "values[" + std::to_string(index) + "] = " + excerpt(v) + " cannot be held by dtype " +
             std::string(to_string(t)) + ": " + std::string(why));
}

std::uint64_t integer_bits(json_view v, std::size_t index, data_type t) {
    std::optional<std::uint64_t> bits;
    if (v.is_boolean() && t == data_type::boolean) {
        bits = v.boolean() ? 1 : 0;
    } else if (v.type() == json_tree::kind::unsigned_integer) {
        bits = encode_unsigned(t, v.unsigned_integer());
    } else if (v.type() == json_tree::kind::integer) {
        bits = encode_signed(t, v.integer());
    } else if (v.type() == json_tree::kind::floating) {
        const auto [d, beyond] = *number_of(v);
        if (beyond != 0 || d != std::floor(d)) bad_value(v, index, t, "not an integer");
        if (d >= -0x1p63 && d < 0x1p63) bits = encode_signed(t, static_cast<std::int64_t>(d));
        else if (d >= 0 && d < 0x1p64) bits = encode_unsigned(t, static_cast<std::uint64_t>(d));
    } else {
        bad_value(v, index, t, "not an integer");
    }
    if (!bits) bad_value(v, index, t, "out of range");
    return *bits;
}

// `t` is the tensor's dtype, whose component the value becomes.
std::uint64_t float_bits(json_view v, std::size_t index, data_type t) {
    const auto d = float_from_json(v);
    if (!d) bad_value(v, index, t, "not a number");
    const auto bits = encode_float(component_type(t), d->value, d->beyond);
    if (!bits) bad_value(v, index, t, "the format has no such value");
    return *bits;
}

tensor_values values_from(json_view list, data_type type, std::size_t count) {
    if (!list.is_array())
        fail(rule::field_type, "values must be an array, got " + excerpt(list));
    if (list.size() != count)
        fail(rule::values_count, "values hold " + std::to_string(list.size()) +
                                     " elements, the shape has " + std::to_string(count));
    tensor_values out;
    out.type = type;
    out.count = count;
    if (type == data_type::string) {
        out.strings.reserve(count);
        std::size_t i = 0;
        for (json_view v : list.elements()) {
            if (!v.is_string()) bad_value(v, i, type, "not a string");
            out.strings.emplace_back(v.string());
            ++i;
        }
        return out;
    }
    if (type == data_type::undef)
        fail(rule::value_fits_dtype, "values need a defined dtype, got undef");
    out.bytes.assign(dense_bytes(type, count), 0);
    const data_type part = component_type(type);
    std::size_t i = 0;
    for (json_view v : list.elements()) {
        if (is_complex(type)) {
            if (!v.is_array() || v.size() != 2) bad_value(v, i, type, "not a [re, im] pair");
            auto pair = v.elements().begin();
            store_bits(part, out.bytes.data(), 2 * i, float_bits(*pair, i, type));
            store_bits(part, out.bytes.data(), 2 * i + 1, float_bits(*++pair, i, type));
        } else if (is_floating_point(type)) {
            store_bits(type, out.bytes.data(), i, float_bits(v, i, type));
        } else {
            store_bits(type, out.bytes.data(), i, integer_bits(v, i, type));
        }
        ++i;
    }
    return out;
}

ojson element_to_json(data_type t, const std::uint8_t *bytes, std::size_t index) {
    const std::uint64_t bits = load_bits(t, bytes, index);
    if (is_floating_point(t)) return float_to_json(decode_float(t, bits), t == data_type::f32);
    if (is_signed_integer(t)) return decode_signed(t, bits);
    return decode_unsigned(t, bits);
}

ojson values_to_ojson(const tensor_values &v) {
    ojson list = ojson::array();
    if (v.type == data_type::string) {
        if (v.strings.size() != v.count)
            fail(rule::tensor_values_size, "values hold " + std::to_string(v.strings.size()) + " strings for " +
                                               std::to_string(v.count) + " elements");
        for (const auto &s : v.strings) list.push_back(s);
        return list;
    }
    if (v.type == data_type::undef || v.bytes.size() < dense_bytes(v.type, v.count))
        fail(rule::tensor_values_size,
             "values of dtype " + std::string(to_string(v.type)) + " hold " +
                 std::to_string(v.bytes.size()) + " bytes for " + std::to_string(v.count) + " elements");
    const data_type part = component_type(v.type);
    for (std::size_t i = 0; i < v.count; ++i) {
        if (is_complex(v.type))
            list.push_back({element_to_json(part, v.bytes.data(), 2 * i),
                            element_to_json(part, v.bytes.data(), 2 * i + 1)});
        else
            list.push_back(element_to_json(v.type, v.bytes.data(), i));
    }
    return list;
}

// ---- attributes ------------------------------------------------------------

std::optional<attribute_value> attribute_from_json(attr_kind kind, json_view v) {
    switch (kind) {
    case attr_kind::boolean: {
        if (v.is_boolean()) return v.boolean();
        const auto i = exact_int64(v);
        if (i && (*i == 0 || *i == 1)) return *i == 1;
        return std::nullopt;
    }
    case attr_kind::s64:
        if (auto i = exact_int64(v)) return *i;
        return std::nullopt;
    case attr_kind::s64_list: {
        if (!v.is_array()) return std::nullopt;
        std::vector<std::int64_t> list;
        list.reserve(v.size());
        for (json_view e : v.elements()) {
            const auto i = exact_int64(e);
            if (!i) return std::nullopt;
            list.push_back(*i);
        }
        return list;
    }
    case attr_kind::f32:
        if (auto f = f32_from_json(v)) return *f;
        return std::nullopt;
    case attr_kind::f32_list: {
        if (!v.is_array()) return std::nullopt;
        std::vector<float> list;
        list.reserve(v.size());
        for (json_view e : v.elements()) {
            const auto f = f32_from_json(e);
            if (!f) return std::nullopt;
            list.push_back(*f);
        }
        return list;
    }
    case attr_kind::string:
        if (v.is_string()) return std::string(v.string());
        return std::nullopt;
    }
    return std::nullopt;
}

attribute_value read_attribute(std::string_view name, json_view j, const context &op_ctx) {
    const context ctx = op_ctx.attr(name);
    if (!j.is_object())
        ctx.fail(rule::field_type,
                 "must be an object {\"type\": ..., \"value\": ...}, got " + excerpt(j));
    const std::string_view type = as_string(require_field(j, "type", ctx), "type", ctx);
    const json_view value = require_field(j, "value", ctx);
    const auto kind = attr_kind_from_string(type);
    if (!kind)
        ctx.fail(rule::known_attr_type,
                 "unknown type " + in_quotes(type) + " (bool, s64, s64[], f32, f32[], string)");
    auto parsed = attribute_from_json(*kind, value);
    if (!parsed)
        ctx.fail(rule::attr_value_type, "type " + std::string(type) + " cannot hold value " + excerpt(value));
    return std::move(*parsed);
}

ojson attribute_to_json(const attribute_value &v) {
    ojson value;
    switch (kind_of(v)) {
    case attr_kind::boolean: value = std::get<bool>(v) ? 1 : 0; break;
    case attr_kind::s64: value = std::get<std::int64_t>(v); break;
    case attr_kind::s64_list: value = std::get<std::vector<std::int64_t>>(v); break;
    case attr_kind::f32: value = float_to_json(std::get<float>(v), true); break;
    case attr_kind::f32_list:
        value = ojson::array();
        for (float f : std::get<std::vector<float>>(v)) value.push_back(float_to_json(f, true));
        break;
    case attr_kind::string: value = std::get<std::string>(v); break;
    }
    ojson j = ojson::object();
    j["type"] = std::string(to_string(kind_of(v)));
    j["value"] = std::move(value);
    return j;
}

// ---- logical tensors -------------------------------------------------------

void check_shape(const dims_t &shape, data_type dtype, const context &ctx) {
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < unknown_dim)
            ctx.fail(rule::dims_at_least_minus_one,
                     "shape " + dims_to_string(shape) + " has " + std::to_string(shape[i]) + " at index " +
                         std::to_string(i) + "; dims must be >= -1");
    if (has_unknown_dims(shape)) return;
    const auto volume = checked_volume(shape);
    if (!volume || !checked_mul(*volume, static_cast<dim_t>(element_bits(dtype))))
        ctx.fail(rule::volume_fits,
                 "the size of shape " + dims_to_string(shape) + " in bits overflows int64");
}

// The strides to store: empty for dense, unknown or ignored ones (see header).
dims_t read_strides(std::optional<json_view> field, const logical_tensor &lt, const context &ctx) {
    if (lt.layout != layout_type::strided || !field) return {};
    dims_t strides = as_int_list(*field, "stride", ctx);
    if (strides.empty()) return {};
    if (strides.size() != lt.shape.size())
        ctx.fail(rule::stride_rank,
                 "stride " + dims_to_string(strides) + " has " + std::to_string(strides.size()) +
                     " entries for shape " + dims_to_string(lt.shape) + " of rank " +
                     std::to_string(lt.shape.size()));
    for (dim_t s : strides) {
        if (s < unknown_dim)
            ctx.fail(rule::strides_at_least_minus_one,
                     "stride " + dims_to_string(strides) + " has " + std::to_string(s) +
                         "; strides must be >= 0, or -1 for unknown");
        if (s == unknown_dim) return {};
    }
    return strides;
}

logical_tensor read_tensor(json_view j, const context &place) {
    if (!j.is_object())
        place.fail(rule::field_type, "a logical tensor must be an object, got " + excerpt(j));
    logical_tensor lt;
    lt.id = as_id(require_field(j, "id", place), "id", place);
    const context ctx = place.tensor(lt.id);

    const std::string_view dtype = as_string(require_field(j, "dtype", ctx), "dtype", ctx);
    const auto type = data_type_from_string(dtype);
    if (!type) ctx.fail(rule::known_dtype, "unknown dtype " + in_quotes(dtype));
    lt.dtype = *type;

    lt.shape = as_int_list(require_field(j, "shape", ctx), "shape", ctx);
    check_shape(lt.shape, lt.dtype, ctx);
    // The report's and a dump's mark of a tensor of unknown rank (as read
    // from an ONNX model); any other ndims just restates the shape.
    if (const auto f = find_field(j, "ndims")) {
        const std::int64_t ndims = as_int(*f, "ndims", ctx);
        if (ndims == -1 && lt.shape.empty())
            lt.rank_known = false;
        else if (ndims != static_cast<std::int64_t>(lt.shape.size()))
            ctx.fail(rule::ndims_shape,
                     "ndims " + std::to_string(ndims) + " disagrees with shape " + dims_to_string(lt.shape) +
                         " (-1, with shape [], is an unknown rank)");
    }

    if (const auto f = find_field(j, "layout_type")) {
        const std::string_view name = as_string(*f, "layout_type", ctx);
        const auto layout = layout_type_from_string(name);
        if (!layout)
            ctx.fail(rule::known_layout,
                     "unknown layout_type " + in_quotes(name) + " (strided, any, undef, opaque)");
        lt.layout = *layout;
    }
    if (const auto f = find_field(j, "property_type")) {
        const std::string_view name = as_string(*f, "property_type", ctx);
        const auto property = property_type_from_string(name);
        if (!property)
            ctx.fail(rule::known_property,
                     "unknown property_type " + in_quotes(name) + " (undef, variable, constant)");
        lt.property = *property;
    }
    lt.strides = read_strides(find_field(j, "stride"), lt, ctx);
    if (const auto f = find_field(j, "format"); f && lt.layout == layout_type::opaque)
        lt.format = as_string(*f, "format", ctx);

    if (const auto f = find_field(j, "values")) {
        if (!lt.shape_known())
            ctx.fail(rule::values_need_known_shape,
                     "values given for shape " + dims_to_string(lt.shape) + " with unknown dims");
        try {
            lt.values = values_from(*f, lt.dtype, static_cast<std::size_t>(*checked_volume(lt.shape)));
        } catch (const error &e) {
            fail(e.rule_id(), ctx.where() + ": " + e.what(), ctx.blame()); // its rule, in context
        }
    }
    return lt;
}

ojson tensor_to_ojson(const logical_tensor &lt) {
    ojson j = ojson::object();
    j["id"] = lt.id;
    j["dtype"] = std::string(to_string(lt.dtype));
    j["shape"] = lt.shape;
    if (!lt.rank_known) j["ndims"] = -1; // oneDNN's unknown ndims: [] is no scalar here
    dims_t strides;
    if (lt.layout == layout_type::strided)
        strides = lt.strides.empty() ? dense_strides(lt.shape).value_or(dims_t{}) : lt.strides;
    j["stride"] = strides;
    j["layout_type"] = std::string(to_string(lt.layout));
    j["property_type"] = std::string(to_string(lt.property));
    if (lt.layout == layout_type::opaque && !lt.format.empty()) j["format"] = lt.format;
    if (lt.values) j["values"] = values_to_ojson(*lt.values);
    return j;
}

// Each tensor once, merged over its producer and consumers (see header).
// Tensors are named where they are met: a port of an op, given by the
// op's index in `ops` (the op being read is the next one).
class tensor_table {
public:
    explicit tensor_table(const std::vector<op> &ops) : ops_(&ops) {}

    // `place` is a port of the op being read (context::port).
    void add(logical_tensor lt, const context &place) {
        const bool is_output = place.text == "output";
        const port_place here{ops_->size(), is_output, static_cast<std::size_t>(place.number)};
        const std::size_t at = position(lt.id);
        if (at == none) {
            index(lt.id, met_.size());
            const tensor_id id = lt.id;
            met_.emplace_back(id, std::move(lt));
            places_.push_back(place_seen{here, is_output, {}});
            return;
        }
        logical_tensor &seen_lt = met_[at].second;
        place_seen &seen = places_[at];
        const auto seen_where = [&] { return where(seen.place, *place.blamed); };
        const auto disagree = [&](const std::string &what, const std::string &a, const std::string &b) {
            fail(rule::tensor_agreement,
                 "tensor " + std::to_string(lt.id) + " has " + what + " " + a + " at " + seen_where() +
                     " but " + b + " at " + place.where(),
                 place.blame());
        };
        if (seen_lt.dtype != lt.dtype)
            disagree("dtype", std::string(to_string(seen_lt.dtype)), std::string(to_string(lt.dtype)));
        // Contract section 1: only a shape may differ; a layout or property
        // conflict stays an error, as a dtype conflict does. Layout any or
        // undef and property undef state nothing, so they conflict with
        // nothing (the producer's description stands, below).
        const auto stated = [](layout_type l) { return l == layout_type::strided || l == layout_type::opaque; };
        if (stated(seen_lt.layout) && stated(lt.layout) && seen_lt.layout != lt.layout)
            disagree("layout_type", std::string(to_string(seen_lt.layout)), std::string(to_string(lt.layout)));
        if (seen_lt.property != property_type::undef && lt.property != property_type::undef &&
            seen_lt.property != lt.property)
            disagree("property_type", std::string(to_string(seen_lt.property)),
                     std::string(to_string(lt.property)));
        if (seen_lt.layout == layout_type::opaque && lt.layout == layout_type::opaque && seen_lt.format != lt.format)
            disagree("format", in_quotes(seen_lt.format), in_quotes(lt.format));
        if (auto merged = merge_known_dims(seen_lt.shape, lt.shape)) {
            // One shape, so one layout: the strides must address the same
            // memory (an empty list is dense row-major, comparable once
            // every dim is known; strides of size-1 dims address nothing).
            if (seen_lt.layout == layout_type::strided && lt.layout == layout_type::strided &&
                seen_lt.strides != lt.strides) {
                const auto dense = dense_strides(*merged);
                const dims_t a = seen_lt.strides.empty() && dense ? *dense : seen_lt.strides;
                const dims_t b = lt.strides.empty() && dense ? *dense : lt.strides;
                if (!a.empty() && !b.empty() && !same_strided_layout(*merged, a, b))
                    disagree("stride", dims_to_string(a) + " for shape " + dims_to_string(*merged),
                             dims_to_string(b));
            }
            seen_lt.shape = std::move(*merged);
        } else {
            // Contract section 1: the producer's shape stands (benchdnn
            // re-infers consumers' shapes), with a warning; two consumers of
            // a graph input that disagree stay an error (see take()).
            const std::string note = "tensor " + std::to_string(lt.id) + " has shape " +
                                     dims_to_string(seen_lt.shape) + " at " + seen_where() + " but " +
                                     dims_to_string(lt.shape) + " at " + place.where();
            if (is_output && !seen.from_output) {
                if (seen_lt.values) disagree("shape", dims_to_string(seen_lt.shape), dims_to_string(lt.shape));
                seen_lt.shape = lt.shape;
                seen.place = here;
            }
            seen.conflicts.push_back(note);
        }
        if (seen_lt.values && lt.values && *seen_lt.values != *lt.values)
            disagree("values", "(" + std::to_string(seen_lt.values->count) + " elements)",
                     "other values");
        if (!seen_lt.values) seen_lt.values = std::move(lt.values);
        if (is_output && !seen.from_output) {
            seen_lt.layout = lt.layout;
            seen_lt.strides = std::move(lt.strides);
            seen_lt.format = std::move(lt.format);
            seen_lt.property = lt.property;
            seen.from_output = true;
        }
    }

    bool contains(tensor_id id) const { return position(id) != none; }
    void reserve(std::size_t tensors) {
        met_.reserve(tensors);
        places_.reserve(tensors);
    }

    // Throws for shapes that disagree where no producer decides (the
    // lowest id's first, its warnings in id order too).
    tensor_map take(std::vector<std::string> &warnings) {
        std::vector<std::size_t> order(met_.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        const auto by_id = [&](std::size_t a, std::size_t b) { return met_[a].first < met_[b].first; };
        if (!std::is_sorted(order.begin(), order.end(), by_id)) std::sort(order.begin(), order.end(), by_id);
        for (std::size_t i : order) {
            logical_tensor &lt = met_[i].second;
            const place_seen &e = places_[i];
            for (const std::string &note : e.conflicts) {
                if (!e.from_output)
                    fail(rule::tensor_agreement, note + ", and no op produces it");
                warnings.push_back(with_rule_id(rule::tensor_agreement,
                                                note + "; the producer's shape " + dims_to_string(lt.shape) + " stands"));
            }
            // A dim filled in by another place can make given strides dense
            // (exactly: strides that differ in a size-1 dim are kept as
            // given, for what is handed on).
            if (!lt.strides.empty() && dense_strides(lt.shape) == lt.strides) lt.strides.clear();
        }
        return tensor_map::from_unsorted(std::move(met_));
    }

private:
    struct port_place {
        std::size_t op_index;
        bool output;
        std::size_t position;
    };
    // Where a tensor was met: kept beside the tensors, which become the
    // graph's as they are (one map of every tensor, not two, at the peak).
    struct place_seen {
        port_place place;
        bool from_output;
        std::vector<std::string> conflicts; // shapes that did not merge
    };

    // "input 0 of op 3 't3' StaticTranspose"; `current` is the op being read.
    std::string where(const port_place &p, const op &current) const {
        const context of_op = context::of_op(p.op_index < ops_->size() ? (*ops_)[p.op_index] : current);
        return of_op.port(p.output, p.position).where();
    }

    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    // Where a tensor stands in met_: ids (never negative: as_id) up to a
    // few times the count met index an array, as graph files number them;
    // farther ones a hash map (an array would be as long as the id).
    std::size_t position(tensor_id id) const {
        const auto key = static_cast<std::uint64_t>(id);
        if (key < direct_.size() && direct_[key] != 0) return direct_[key] - 1;
        if (sparse_.empty()) return none;
        const auto it = sparse_.find(id);
        return it == sparse_.end() ? none : it->second;
    }
    void index(tensor_id id, std::size_t at) {
        const auto key = static_cast<std::uint64_t>(id);
        if (key < 4 * static_cast<std::uint64_t>(met_.size()) + 1024 && at < UINT32_MAX) {
            if (key >= direct_.size()) direct_.resize(std::max<std::size_t>(key + 1, 2 * direct_.size()), 0);
            direct_[key] = static_cast<std::uint32_t>(at + 1);
        } else {
            sparse_.emplace(id, at);
        }
    }

    const std::vector<op> *ops_;
    // Each tensor and where it was met, in the order met.
    std::vector<tensor_map::value_type> met_;
    std::vector<place_seen> places_;
    std::vector<std::uint32_t> direct_; // id -> position + 1; 0: not there
    std::unordered_map<tensor_id, std::size_t> sparse_;
};

// ---- ops and graphs ----------------------------------------------------------

op read_op(json_view j, std::size_t index, tensor_table &tensors) {
    const context at_index{context::form::op_at_index, {}, static_cast<std::int64_t>(index)};
    if (!j.is_object()) at_index.fail(rule::field_type, "must be an object, got " + excerpt(j));
    op o;
    o.id = as_id(require_field(j, "id", at_index), "id", at_index);
    const context with_id{context::form::op_id, {}, o.id};
    if (const auto f = find_field(j, "name")) o.name = as_string(*f, "name", with_id);
    o.kind = as_string(require_field(j, "kind", with_id), "kind", with_id);
    const context ctx = context::of_op(o);

    if (const auto f = find_field(j, "domain")) o.domain = as_string(*f, "domain", ctx);
    if (const auto f = find_field(j, "version")) o.version = as_int(*f, "version", ctx);
    if (const auto f = find_field(j, "attrs")) {
        if (!f->is_object()) wrong_json_type(*f, "attrs", "an object", ctx);
        f->for_each_member([&](std::string_view key, json_view value) {
            o.attrs[std::string(key)] = read_attribute(key, value, ctx);
        });
    }

    const auto read_side = [&](const char *field, bool outputs, std::vector<tensor_id> &ids) {
        const json_view list = as_array(require_field(j, field, ctx), field, ctx);
        ids.reserve(list.size());
        std::unordered_set<tensor_id> listed; // of a long list of outputs
        constexpr std::size_t scan_limit = 16;
        const auto listed_before = [&](tensor_id id) {
            if (ids.size() < scan_limit) return std::find(ids.begin(), ids.end(), id) != ids.end();
            if (listed.empty()) listed.insert(ids.begin(), ids.end());
            return !listed.insert(id).second;
        };
        std::size_t i = 0;
        for (json_view e : list.elements()) {
            const context place = ctx.port(outputs, i++);
            logical_tensor lt = read_tensor(e, place);
            if (outputs && listed_before(lt.id))
                place.fail(rule::unique_outputs,
                           "tensor " + std::to_string(lt.id) + " is listed twice among the outputs");
            ids.push_back(lt.id);
            tensors.add(std::move(lt), place);
        }
    };
    read_side("inputs", false, o.inputs);
    read_side("outputs", true, o.outputs);
    return o;
}

// Contract section 1: a port naming a tensor no op uses is ignored, with a
// warning (real benchdnn files have them).
std::vector<tensor_id> read_ports(json_view v, const char *field, const tensor_table &tensors,
                                  const context &ctx, std::vector<std::string> &warnings) {
    std::vector<tensor_id> ids;
    const json_view list = as_array(v, field, ctx);
    std::size_t i = 0;
    for (json_view e : list.elements()) {
        const std::string item = std::string(field) + "[" + std::to_string(i++) + "]";
        const tensor_id id = as_id(e, item, ctx);
        if (tensors.contains(id))
            ids.push_back(id);
        else
            warnings.push_back(with_rule_id(rule::port_tensor_exists,
                                            item + " names tensor " + std::to_string(id) + ", which no op uses: ignored"));
    }
    return ids;
}

// A JSON access the checks missed, and memory running out, as the errors
// reading gives for them.
template <typename F>
auto reading(F &&f) {
    try {
        return f();
    } catch (const ojson::exception &e) {
        fail(rule::field_type, std::string("unexpected JSON structure: ") + e.what());
    } catch (const std::bad_alloc &) {
        fail(rule::memory_limit, "out of memory while reading the graph");
    }
}

// The graph of a file, built from the ops of "graph" as the parser hands
// them over one by one (json_dom.hpp: streamed_array), then from the other
// top-level fields. Errors come out as a reader of the whole DOM would give
// them: a syntax or nesting error anywhere first (the parser meets it, so
// an op's error waits until the text is read), then the top level's shape,
// the op limit, the first bad op, and the other fields.
class graph_builder {
public:
    // `text_bytes`: the size of the text being read, 0 when unknown.
    explicit graph_builder(std::size_t text_bytes = 0) : text_bytes_(text_bytes) {}

    void start() {
        ops_seen_ = 0;
        failure_ = nullptr;
        g_.ops.clear();
        tensors_ = tensor_table(g_.ops);
        op_ids_.clear();
        // Room for the ops and tensors a text of this size holds at twice
        // the usual density (an op of a graph file takes 300-400 bytes of
        // text, a tensor half of that): no growth by doubling, which held
        // the tensors twice over for a moment while the text was held too,
        // the peak of reading a large file. Room not filled is never
        // touched, so never resident.
        g_.ops.reserve(text_bytes_ / 150);
        tensors_.reserve(text_bytes_ / 75);
    }

    void add(json_view j) {
        const std::size_t index = ops_seen_++;
        // Past the limit or a bad op, the ops are only counted (the limit's
        // error names the count; the first error wins).
        if (failure_ || ops_seen_ > max_ops_) return;
        try {
            reading([&] {
                op o = read_op(j, index, tensors_);
                if (id_repeats(o.id))
                    fail(rule::unique_op_id,
                         describe(o.ref()) + ": op id " + std::to_string(o.id) +
                             " is used twice",
                         o.ref());
                g_.ops.push_back(std::move(o));
                return 0;
            });
        } catch (...) {
            failure_ = std::current_exception();
        }
    }

    // `root` is the DOM of the whole text with "graph" read already, or
    // else `streamed` is false and its elements are read now.
    graph finish(json_view root, bool streamed) {
        return reading([&] {
            const context ctx = context::of("graph file");
            if (!root.is_object())
                ctx.fail(rule::top_level_object, std::string("must hold a JSON object, got ") + root.type_name());
            const json_view ops = as_array(require_field(root, "graph", ctx), "graph", ctx);
            if (!streamed) {
                start();
                for (json_view j : ops.elements()) add(j);
            }
            if (ops_seen_ > max_ops_)
                ctx.fail(rule::max_ops,
                         "\"graph\" holds " + std::to_string(ops_seen_) + " ops, more than the limit of " +
                             std::to_string(max_ops_) + " (RESHAPER_MAX_OPS)");
            if (failure_) std::rethrow_exception(failure_);
            root.for_each_member([&](std::string_view key, json_view value) {
                if (key == "version") g_.version = as_string(value, key, ctx);
                else if (key == "engine_kind") g_.engine_kind = as_string(value, key, ctx);
                else if (key == "fpmath_mode") g_.fpmath_mode = as_string(value, key, ctx);
                else if (key == "input_ports")
                    g_.input_ports = read_ports(value, "input_ports", tensors_, ctx, g_.warnings);
                else if (key == "output_ports")
                    g_.output_ports = read_ports(value, "output_ports", tensors_, ctx, g_.warnings);
                else if (key != "graph") g_.extra_fields[std::string(key)] = dump(unboxed(to_ojson(value)));
            });
            g_.tensors = tensors_.take(g_.warnings);
            return std::move(g_);
        });
    }

private:
    // Files number their ops in increasing order: an id above every earlier
    // one needs no look-up, and the set is made at the first that is not.
    bool id_repeats(std::int64_t id) {
        if (op_ids_.empty()) {
            if (g_.ops.empty() || id > g_.ops.back().id) return false;
            for (const op &o : g_.ops) op_ids_.insert(o.id);
        }
        return !op_ids_.insert(id).second;
    }

    std::uint64_t max_ops_ = current_limits().max_ops;
    std::size_t text_bytes_;
    graph g_;
    tensor_table tensors_{g_.ops};
    std::unordered_set<std::int64_t> op_ids_; // once the ids are out of order
    std::size_t ops_seen_ = 0;
    std::exception_ptr failure_; // of the first op that failed
};

ojson op_to_ojson(const op &o, const graph &g) {
    ojson j = ojson::object();
    j["id"] = o.id;
    j["name"] = o.name;
    j["kind"] = o.kind;
    if (!o.domain.empty()) j["domain"] = o.domain;
    if (o.version) j["version"] = *o.version;
    ojson attrs = ojson::object();
    for (const auto &[name, value] : o.attrs) attrs[name] = attribute_to_json(value);
    j["attrs"] = std::move(attrs);
    const auto side = [&](const std::vector<tensor_id> &ids) {
        ojson list = ojson::array();
        for (tensor_id id : ids) {
            auto it = g.tensors.find(id);
            if (it == g.tensors.end())
                fail(rule::tensor_exists,
                     describe(o.ref()) + " names tensor " + std::to_string(id) +
                         ", which the graph does not hold",
                     o.ref());
            list.push_back(tensor_to_ojson(it->second));
        }
        return list;
    };
    j["inputs"] = side(o.inputs);
    j["outputs"] = side(o.outputs);
    return j;
}

[[noreturn]] void too_large(const std::string &what, std::uint64_t limit) {
    fail(rule::max_graph_bytes, what + " is larger than the limit of " + format_bytes(limit) +
                                    " (RESHAPER_MAX_GRAPH_BYTES)");
}

} // namespace

namespace {
// Ops read on a second thread while the parser goes on through the text:
// the parser copies each streamed op into a batch (its DOM is reused for
// the next op as soon as the call returns) and hands full batches over;
// the second thread reads them into the graph builder in the order they
// came, so the graph and the first error are those of reading in turn.
// Measured on 100,000 single-op partitions (29 MiB), one thread: parsing
// took 160 ms of the read and building the ops 135 ms.
class op_reading_pipeline {
public:
    // Ops per batch; batches waiting at most before the parser waits (each
    // holds the DOM of its ops, some 2 KB an op: not the whole graph's).
    explicit op_reading_pipeline(graph_builder &builder, std::size_t batch_ops = 256, std::size_t max_waiting = 8)
        : builder_(builder), batch_ops_(std::max<std::size_t>(1, batch_ops)), max_waiting_(max_waiting) {}
    op_reading_pipeline(const op_reading_pipeline &) = delete;
    op_reading_pipeline &operator=(const op_reading_pipeline &) = delete;
    ~op_reading_pipeline() { stop(); }

    // The streamed array opens (again, after a restart or for a repeated
    // key): the ops read so far are done with before the builder starts over.
    void start() {
        stop();
        builder_.start();
        try {
            worker_ = std::thread([this] { read_batches(); });
        } catch (const std::system_error &) {
            // No thread to be had: the ops are read in turn, as without.
        }
    }

    void element(json_view op) {
        if (!worker_.joinable()) return builder_.add(op);
        filling_.roots.push_back(filling_.tree.append_copy(op));
        if (filling_.roots.size() >= batch_ops_) hand_over();
    }

    // Every op handed over and read; rethrows what the second thread could
    // not keep as the builder's failure (memory for a batch).
    void finish() {
        stop();
        if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    }

private:
    struct batch {
        json_tree tree;
        std::vector<std::size_t> roots; // one per op, in order
        void clear() {
            tree.clear();
            roots.clear();
        }
    };

    void hand_over() {
        if (filling_.roots.empty()) return;
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return waiting_.size() < max_waiting_ || !reading_; });
        if (!reading_) { // the second thread failed (finish() says so): nothing more is read
            filling_.clear();
            return;
        }
        waiting_.push_back(std::move(filling_));
        filling_ = batch{};
        if (!spare_.empty()) {
            filling_ = std::move(spare_.back());
            spare_.pop_back();
        }
        lock.unlock();
        ready_.notify_one();
    }

    void stop() {
        if (!worker_.joinable()) return;
        std::exception_ptr handing_over;
        try {
            hand_over();
        } catch (...) {
            handing_over = std::current_exception();
        }
        {
            std::lock_guard lock(mutex_);
            closing_ = true;
        }
        ready_.notify_one();
        worker_.join();
        if (!failure_) failure_ = handing_over;
        closing_ = false;
        reading_ = true;
        waiting_.clear();
        filling_.clear();
    }

    void read_batches() {
        try {
            for (;;) {
                batch b;
                {
                    std::unique_lock lock(mutex_);
                    ready_.wait(lock, [&] { return !waiting_.empty() || closing_; });
                    if (waiting_.empty()) return;
                    b = std::move(waiting_.front());
                    waiting_.pop_front();
                }
                room_.notify_one();
                for (std::size_t root : b.roots) builder_.add(json_view(b.tree, root));
                b.clear();
                std::lock_guard lock(mutex_);
                spare_.push_back(std::move(b));
            }
        } catch (...) {
            std::lock_guard lock(mutex_);
            failure_ = std::current_exception();
            reading_ = false; // the parser must not wait for room any more
            room_.notify_one();
        }
    }

    graph_builder &builder_;
    const std::size_t batch_ops_, max_waiting_;
    batch filling_; // the parser's
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    std::deque<batch> waiting_;
    std::vector<batch> spare_;
    bool closing_ = false, reading_ = true;
    std::exception_ptr failure_;
    std::thread worker_;
};

// Texts from this size on are read through the pipeline when two threads
// may run (tbb::global_control, as reshaper-run --threads sets it): below,
// a thread's start costs more than it saves.
constexpr std::size_t pipelined_text_bytes = std::size_t{1} << 20;

bool pipelined(std::size_t text_bytes) {
    return text_bytes >= pipelined_text_bytes &&
           tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) > 1;
}

// `owned`, when given, holds `text` and is released once the text is read,
// before the graph is finished (a file's text is its size again in memory).
// `pipeline_batch`: ops per batch of the pipeline, which 0 leaves to the
// text's size and the threads.
graph read_streamed(std::string_view text, std::string *owned, std::size_t pipeline_batch = 0) {
    const resource_limits limits = current_limits();
    if (text.size() > limits.max_graph_bytes)
        too_large("the graph's JSON text (" + std::to_string(text.size()) + " bytes)", limits.max_graph_bytes);
    graph_builder builder(text.size());
    std::optional<op_reading_pipeline> pipeline;
    if (pipeline_batch > 0) pipeline.emplace(builder, pipeline_batch, 2);
    else if (pipelined(text.size())) pipeline.emplace(builder);
    const streamed_array ops{"graph", [&] { pipeline ? pipeline->start() : builder.start(); },
                             [&](json_view j) { pipeline ? pipeline->element(j) : builder.add(j); }};
    // A text of our own is read in place (then dropped: the tree holds what is left to read).
    const json_tree tree = owned ? parse_json_tree_in_place(*owned, limits.max_json_depth, &ops)
                                 : parse_json_tree(text, limits.max_json_depth, &ops);
    if (pipeline) pipeline->finish();
    if (owned) std::string().swap(*owned);
    return builder.finish(tree.root(), true);
}
} // namespace

graph read_graph_json(std::string_view text) { return read_streamed(text, nullptr); }

namespace detail {
graph read_graph_json_pipelined(std::string_view text, std::size_t batch_ops) {
    return read_streamed(text, nullptr, std::max<std::size_t>(1, batch_ops));
}

graph read_graph_json_whole(std::string_view text) {
    const resource_limits limits = current_limits();
    if (text.size() > limits.max_graph_bytes)
        too_large("the graph's JSON text (" + std::to_string(text.size()) + " bytes)", limits.max_graph_bytes);
    const json_tree tree = parse_json_tree(text, limits.max_json_depth);
    return graph_builder().finish(tree.root(), false);
}
} // namespace detail

graph read_graph_file(const std::string &path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        fail(rule::file_readable, "cannot read graph file '" + path + "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(rule::file_readable, "cannot read graph file '" + path + "': " +
                                      std::generic_category().message(errno));
    // Read in chunks: JSON text never holds a NUL byte, so an endless stream
    // such as /dev/zero stops at its first chunk instead of filling memory.
    const std::uint64_t limit = current_limits().max_graph_bytes;
    std::string text;
    // A regular file's size is known: one allocation of exactly that, not a
    // doubling string (whose last growth held twice the file at its peak).
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size <= limit)
        text.reserve(static_cast<std::size_t>(size));
    std::array<char, 1 << 16> chunk;
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
        const auto n = static_cast<std::size_t>(in.gcount());
        if (text.size() + n > limit) too_large("graph file '" + path + "'", limit);
        if (const void *nul = std::memchr(chunk.data(), 0, n))
            fail(rule::json_syntax,
                 "malformed JSON: graph file '" + path + "' holds a NUL byte at offset " +
                     std::to_string(text.size() + static_cast<std::size_t>(
                                                      static_cast<const char *>(nul) -
                                                      chunk.data())));
        text.append(chunk.data(), n);
    }
    if (in.bad()) fail(rule::file_readable, "cannot read graph file '" + path + "'");
    return read_streamed(text, &text);
}

std::string write_graph_json(const graph &g, int indent) {
    ojson j = ojson::object();
    j["version"] = g.version;
    j["engine_kind"] = g.engine_kind;
    j["fpmath_mode"] = g.fpmath_mode;
    for (const auto &[key, text] : g.extra_fields) {
        // Our reader: nlohmann's own is quadratic in an object's keys.
        ojson value;
        try {
            value = unboxed(parse_json(text, current_limits().max_json_depth));
        } catch (const error &) {
            fail(rule::json_syntax, "extra field " + in_quotes(key) + " holds invalid JSON text");
        }
        j[key] = std::move(value);
    }
    if (g.input_ports) j["input_ports"] = *g.input_ports;
    if (g.output_ports) j["output_ports"] = *g.output_ports;
    ojson ops = ojson::array();
    for (const op &o : g.ops) ops.push_back(op_to_ojson(o, g));
    j["graph"] = std::move(ops);
    return dump(j, indent < 0 ? -1 : indent);
}

nlohmann::json logical_tensor_to_json(const logical_tensor &lt) { return nlohmann::json(tensor_to_ojson(lt)); }

nlohmann::json values_to_json(const tensor_values &values) { return nlohmann::json(values_to_ojson(values)); }

tensor_values values_from_json(const nlohmann::json &list, data_type type, std::size_t count) {
    // Through its text: the one reader of values reads a json_tree.
    return values_from(parse_json_tree(list.dump(), current_limits().max_json_depth).root(), type, count);
}

} // namespace reshaper::impl
