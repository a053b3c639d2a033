#include "io/tensor_json.hpp"
#include "core/fail.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "io/values_json.hpp"

namespace reshaper::impl::graph_io {
namespace {

void check_shape(const dims_t &shape, data_type dtype, const context &ctx) {
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < unknown_dim)
            ctx.fail(rule::dims_at_least_minus_one, "shape " + dims_to_string(shape) + " has " + std::to_string(shape[i]) + " at index " +
                         std::to_string(i) + "; dims must be >= -1");
    if (has_unknown_dims(shape)) return;
    const auto volume = checked_volume(shape);
    if (!volume || !checked_mul(*volume, static_cast<dim_t>(element_bits(dtype))))
        ctx.fail(rule::volume_fits, "the size of shape " + dims_to_string(shape) + " in bits overflows int64");
}

// The strides to store: empty for dense, unknown or ignored ones (see header).
dims_t read_strides(std::optional<json_view> field, const logical_tensor &lt, const context &ctx) {
    if (lt.layout != layout_type::strided || !field) return {};
    dims_t strides = as_int_list(*field, "stride", ctx);
    if (strides.empty()) return {};
    if (strides.size() != lt.shape.size())
        ctx.fail(rule::stride_rank, "stride " + dims_to_string(strides) + " has " + std::to_string(strides.size()) +
                     " entries for shape " + dims_to_string(lt.shape) + " of rank " +
                     std::to_string(lt.shape.size()));
    for (dim_t s : strides) {
        if (s < unknown_dim)
            ctx.fail(rule::strides_at_least_minus_one, "stride " + dims_to_string(strides) + " has " + std::to_string(s) +
                         "; strides must be >= 0, or -1 for unknown");
        if (s == unknown_dim) return {};
    }
    return strides;
}

// The members read_tensor reads (most files give no ndims, format or values).
struct tensor_fields {
    std::optional<json_view> id, dtype, shape, ndims, layout_type, property_type, stride, format, values;
};
constexpr json_view::member_slot<tensor_fields> tensor_members[] = {
        {"id", &tensor_fields::id},         {"dtype", &tensor_fields::dtype},
        {"shape", &tensor_fields::shape},   {"stride", &tensor_fields::stride},
        {"layout_type", &tensor_fields::layout_type}, {"property_type", &tensor_fields::property_type},
        {"ndims", &tensor_fields::ndims},   {"format", &tensor_fields::format},
        {"values", &tensor_fields::values}};

} // namespace

logical_tensor read_tensor(json_view j, const context &place) {
    if (!j.is_object())
        place.fail(rule::field_type, "a logical tensor must be an object, got " + excerpt(j));
    const auto fields = j.take_members(tensor_members);
    logical_tensor lt;
    lt.id = as_id(require_field(fields.id, "id", place), "id", place);
    const context ctx = place.tensor(lt.id);

    const std::string_view dtype = as_string(require_field(fields.dtype, "dtype", ctx), "dtype", ctx);
    const auto type = data_type_from_string(dtype);
    if (!type) ctx.fail(rule::known_dtype, "unknown dtype " + in_quotes(dtype));
    lt.dtype = *type;

    lt.shape = as_int_list(require_field(fields.shape, "shape", ctx), "shape", ctx);
    check_shape(lt.shape, lt.dtype, ctx);
    // The report's and a dump's mark of a tensor of unknown rank (as read
    // from an ONNX model); any other ndims just restates the shape.
    if (const auto &f = fields.ndims) {
        const std::int64_t ndims = as_int(*f, "ndims", ctx);
        if (ndims == -1 && lt.shape.empty())
            lt.rank_known = false;
        else if (ndims != static_cast<std::int64_t>(lt.shape.size()))
            ctx.fail(rule::ndims_shape, "ndims " + std::to_string(ndims) + " disagrees with shape " + dims_to_string(lt.shape) +
                         " (-1, with shape [], is an unknown rank)");
    }

    if (const auto &f = fields.layout_type) {
        const std::string_view name = as_string(*f, "layout_type", ctx);
        const auto layout = layout_type_from_string(name);
        if (!layout)
            ctx.fail(rule::known_layout, "unknown layout_type " + in_quotes(name) + " (strided, any, undef, opaque)");
        lt.layout = *layout;
    }
    if (const auto &f = fields.property_type) {
        const std::string_view name = as_string(*f, "property_type", ctx);
        const auto property = property_type_from_string(name);
        if (!property)
            ctx.fail(rule::known_property, "unknown property_type " + in_quotes(name) + " (undef, variable, constant)");
        lt.property = *property;
    }
    lt.strides = read_strides(fields.stride, lt, ctx);
    if (const auto &f = fields.format; f && lt.layout == layout_type::opaque)
        lt.format = std::string(as_string(*f, "format", ctx));

    if (const auto &f = fields.values) {
        if (!lt.shape_known())
            ctx.fail(rule::values_need_known_shape, "values given for shape " + dims_to_string(lt.shape) + " with unknown dims");
        try {
            lt.values = values_from(*f, lt.dtype, static_cast<std::size_t>(*checked_volume(lt.shape)));
        } catch (const error &e) {
            throw error(e.rule_id(), ctx.where() + ": " + e.what(), ctx.blame());
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
        strides = lt.strides.empty() ? dense_strides(lt.shape).value_or(dims_t{}) : lt.strides.get();
    j["stride"] = strides;
    j["layout_type"] = std::string(to_string(lt.layout));
    j["property_type"] = std::string(to_string(lt.property));
    if (lt.layout == layout_type::opaque && !lt.format.empty()) j["format"] = lt.format;
    if (lt.values) j["values"] = values_to_ojson(*lt.values);
    return j;
}

} // namespace reshaper::impl::graph_io
