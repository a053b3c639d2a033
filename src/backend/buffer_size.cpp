#include "backend/buffer_size.hpp"

#include "layout/memory_layout.hpp"

namespace reshaper::impl {
namespace {

// The number of elements a strided tensor's buffer spans: offset of the last
// element + 1 (0 for zero volume). Nothing on negative strides or overflow.
std::optional<dim_t> strided_span_elements(const dims_t &dims, const dims_t &strides) {
    if (dims.size() != strides.size()) return std::nullopt;
    for (dim_t d : dims)
        if (d == 0) return 0;
    dim_t last = 0;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] < 0 || strides[k] < 0) return std::nullopt;
        auto step = checked_mul(dims[k] - 1, strides[k]);
        if (!step) return std::nullopt;
        auto sum = checked_add(last, *step);
        if (!sum) return std::nullopt;
        last = *sum;
    }
    return checked_add(last, 1);
}

std::optional<std::size_t> bytes_of_elements(data_type t, dim_t count) {
    // count * bits must fit before dense_bytes may compute with it.
    if (!checked_mul(count, static_cast<dim_t>(element_bits(t)))) return std::nullopt;
    return dense_bytes(t, static_cast<std::size_t>(count));
}
} // namespace

std::optional<std::size_t> buffer_bytes(const logical_tensor &lt) {
    if (!lt.shape_known() || lt.dtype == data_type::undef) return std::nullopt;
    switch (lt.layout) {
    case layout_type::any: return std::nullopt;
    case layout_type::opaque: {
        if (!checked_volume(lt.shape)) return std::nullopt;
        const auto format = parse_format_tag(lt.format, lt.shape.size());
        return bytes_of_elements(lt.dtype, blocked_size(format, lt.shape));
    }
    case layout_type::undef:
    case layout_type::strided: break;
    }
    // Dense (no strides given): the span is the volume, without building
    // the dense strides (a compile asks this of every boundary tensor).
    const auto span = lt.strides.empty() ? checked_volume(lt.shape) : strided_span_elements(lt.shape, lt.strides);
    if (!span) return std::nullopt;
    return bytes_of_elements(lt.dtype, *span);
}

} // namespace reshaper::impl
