#include "layout/reference.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/fail.hpp"
#include "core/status.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {
namespace {

// Where the elements of one tensor live: strides, or a blocked format.
class element_locator {
public:
    element_locator(const logical_tensor &desc, dim_t offset, const char *role)
        : dims_(desc.shape), offset_(offset) {
        if (desc.layout == layout_type::opaque) {
            format_ = parse_format_tag(desc.format, dims_.size());
        } else if (reads_as_strided(desc.layout)) {
            strides_ = *effective_strides(desc); // shape known: checked by the caller
            if (strides_.size() != dims_.size())
                fail(rule::buffer_strides, std::string("reference reshape: ") + role + " has " +
                                               std::to_string(strides_.size()) + " strides for shape " +
                                               dims_to_string(dims_));
        } else {
            fail(rule::concrete_input_layout, std::string("reference reshape: ") + role + " has layout " +
                                                     std::string(to_string(desc.layout)) +
                                                     ", expected strided, undef or opaque");
        }
    }

    dim_t element_index(const dims_t &idx) const {
        if (format_) return offset_ + blocked_offset(*format_, dims_, idx);
        dim_t e = offset_;
        for (std::size_t k = 0; k < idx.size(); ++k) e += idx[k] * strides_[k];
        return e;
    }

    // The element index after `idx` stepped in row-major order from `before`
    // (whose element index is `index`): the strides update it as an
    // odometer does; a blocked format computes it anew.
    dim_t next_index(const dims_t &idx, dim_t index, std::size_t changed_from) const {
        if (format_) return element_index(idx);
        // Dims at and after `changed_from` moved: the last changed one up by
        // one, the later ones back from their last value to 0.
        index += strides_[changed_from];
        for (std::size_t k = changed_from + 1; k < idx.size(); ++k) index -= (dims_[k] - 1) * strides_[k];
        return index;
    }

    // Whether the element index steps by one stride along the innermost dim.
    bool strided() const { return !format_; }
    dim_t innermost_stride() const { return strides_.back(); }

private:
    dims_t dims_;
    dim_t offset_;
    dims_t strides_;
    std::optional<blocked_format> format_;
};

// Steps `idx` to the next index of `dims` in row-major order; returns the
// dim that went up (the ones after it went back to 0), or idx.size() past
// the last index.
std::size_t advance(dims_t &idx, const dims_t &dims) {
    for (std::size_t k = idx.size(); k-- > 0;) {
        if (++idx[k] < dims[k]) return k;
        idx[k] = 0;
    }
    return idx.size();
}

template <std::size_t Bytes>
void copy_element(void *dst, dim_t d, const void *src, dim_t s) {
    std::memcpy(static_cast<std::uint8_t *>(dst) + d * static_cast<dim_t>(Bytes),
                static_cast<const std::uint8_t *>(src) + s * static_cast<dim_t>(Bytes), Bytes);
}

void check_descriptors(const logical_tensor &src, const logical_tensor &dst) {
    if (!src.shape_known() || !dst.shape_known())
        fail(rule::input_shape_known, "reference reshape needs known shapes, got " + dims_to_string(src.shape) +
                                          " -> " + dims_to_string(dst.shape));
    if (src.dtype != dst.dtype || element_bits(src.dtype) == 0)
        fail(rule::type_constraint,
             "reference reshape copies one dtype, got " + std::string(to_string(src.dtype)) +
                 " -> " + std::string(to_string(dst.dtype)));
    const auto src_volume = checked_volume(src.shape);
    const auto dst_volume = checked_volume(dst.shape);
    if (!src_volume || !dst_volume || *src_volume != *dst_volume)
        fail(rule::volume_mismatch, "reference reshape needs equal element counts, got " +
                                        dims_to_string(src.shape) + " -> " + dims_to_string(dst.shape));
}

} // namespace

void reference_reshape(const logical_tensor &src_desc, const void *src,
                       const logical_tensor &dst_desc, void *dst) {
    reference_reshape(src_desc, src, 0, dst_desc, dst, 0);
}

void reference_reshape(const logical_tensor &src_desc, const void *src, dim_t src_offset,
                       const logical_tensor &dst_desc, void *dst, dim_t dst_offset) {
    check_descriptors(src_desc, dst_desc);
    const element_locator from(src_desc, src_offset, "source");
    const element_locator to(dst_desc, dst_offset, "destination");
    const data_type type = src_desc.dtype;
    const std::size_t bits = element_bits(type), bytes = bits / 8;

    dims_t src_idx(src_desc.shape.size(), 0), dst_idx(dst_desc.shape.size(), 0);
    dim_t s = from.element_index(src_idx), d = to.element_index(dst_idx);
    // One element moved per step, the same way throughout: the way is
    // chosen once (per element, the choice was most of a small tensor's time).
    // Both strided: along the innermost dims both element indices step by
    // one stride, so runs up to where either index leaves its innermost dim
    // go without an odometer step per element (which, with the move, was
    // 7% of checking 10,000 single-transpose partitions: callgrind).
    const bool runs = from.strided() && to.strided() && !src_idx.empty() && !dst_idx.empty();
    const auto walk = [&](auto move_element) {
        dim_t n = *checked_volume(src_desc.shape);
        if (n <= 0) return;
        for (;;) {
            if (runs) {
                const dim_t run = std::min({n, src_desc.shape.back() - src_idx.back(),
                                            dst_desc.shape.back() - dst_idx.back()});
                const dim_t s_step = from.innermost_stride(), d_step = to.innermost_stride();
                for (dim_t r = 0; r < run; ++r) move_element(d + r * d_step, s + r * s_step);
                n -= run;
                if (n == 0) break;
                // Onto the run's last element, whose successor the odometers find.
                src_idx.back() += run - 1;
                dst_idx.back() += run - 1;
                s += (run - 1) * s_step;
                d += (run - 1) * d_step;
            } else {
                move_element(d, s);
                if (--n == 0) break;
            }
            s = from.next_index(src_idx, s, advance(src_idx, src_desc.shape));
            d = to.next_index(dst_idx, d, advance(dst_idx, dst_desc.shape));
        }
    };
    if (type == data_type::string) {
        walk([&](dim_t to_at, dim_t from_at) {
            static_cast<std::string *>(dst)[to_at] = static_cast<const std::string *>(src)[from_at];
        });
    } else if (is_packed(type)) {
        walk([&](dim_t to_at, dim_t from_at) {
            store_packed(dst, bits, static_cast<std::size_t>(to_at),
                         load_packed(src, bits, static_cast<std::size_t>(from_at)));
        });
    } else {
        switch (bytes) {
        case 1: walk([&](dim_t to_at, dim_t from_at) { copy_element<1>(dst, to_at, src, from_at); }); break;
        case 2: walk([&](dim_t to_at, dim_t from_at) { copy_element<2>(dst, to_at, src, from_at); }); break;
        case 4: walk([&](dim_t to_at, dim_t from_at) { copy_element<4>(dst, to_at, src, from_at); }); break;
        case 8: walk([&](dim_t to_at, dim_t from_at) { copy_element<8>(dst, to_at, src, from_at); }); break;
        case 16: walk([&](dim_t to_at, dim_t from_at) { copy_element<16>(dst, to_at, src, from_at); }); break;
        default:
            walk([&](dim_t to_at, dim_t from_at) {
                std::memcpy(static_cast<std::uint8_t *>(dst) + to_at * static_cast<dim_t>(bytes),
                            static_cast<const std::uint8_t *>(src) + from_at * static_cast<dim_t>(bytes), bytes);
            });
        }
    }
}

tensor_values reference_chain(const tensor_values &input, const dims_t &input_dims,
                              const std::vector<chain_step> &steps) {
    tensor_values values = input;
    dims_t dims = input_dims;
    for (const chain_step &step : steps) {
        if (!step.permutation.empty()) {
            // Output axis i is input axis permutation[i]: read the dense
            // input through its strides permuted, write densely.
            const dims_t strides = dense_strides(dims).value();
            logical_tensor from;
            from.dtype = values.type;
            for (std::size_t axis : step.permutation) {
                from.shape.push_back(dims.at(axis));
                from.strides.set().push_back(strides.at(axis));
            }
            logical_tensor to;
            to.dtype = values.type;
            to.shape = from.shape;
            tensor_values next = values;
            if (values.type == data_type::string)
                reference_reshape(from, values.strings.data(), to, next.strings.data());
            else
                reference_reshape(from, values.bytes.data(), to, next.bytes.data());
            values = std::move(next);
        }
        dims = step.output_dims;
    }
    return values;
}

std::vector<std::size_t> reference_order(const dims_t &input_dims, const std::vector<chain_step> &steps) {
    tensor_values indices;
    indices.type = data_type::s64;
    indices.count = static_cast<std::size_t>(checked_volume(input_dims).value());
    indices.bytes.resize(indices.count * sizeof(std::int64_t));
    for (std::size_t i = 0; i < indices.count; ++i) {
        const auto index = static_cast<std::int64_t>(i);
        std::memcpy(indices.bytes.data() + i * sizeof index, &index, sizeof index);
    }
    const tensor_values moved = reference_chain(indices, input_dims, steps);
    std::vector<std::size_t> order(moved.count);
    for (std::size_t i = 0; i < moved.count; ++i) {
        std::int64_t index = 0;
        std::memcpy(&index, moved.bytes.data() + i * sizeof index, sizeof index);
        order[i] = static_cast<std::size_t>(index);
    }
    return order;
}

tensor_values reference_gather(const tensor_values &input, const std::vector<std::size_t> &order) {
    tensor_values out;
    out.type = input.type;
    out.count = order.size();
    if (input.type == data_type::string) {
        out.strings.reserve(order.size());
        for (std::size_t from : order) out.strings.push_back(input.strings.at(from));
        return out;
    }
    const std::size_t bits = element_bits(input.type);
    if (is_packed(input.type)) {
        out.bytes = input.bytes; // the last byte's spare bits, as reference_chain keeps them
        for (std::size_t i = 0; i < order.size(); ++i)
            store_packed(out.bytes.data(), bits, i, load_packed(input.bytes.data(), bits, order[i]));
        return out;
    }
    out.bytes.resize(dense_bytes(input.type, out.count));
    // A copy of a fixed size per element (a call of memcpy each was most of
    // the gather's time).
    const auto gather = [&](auto bytes) {
        for (std::size_t i = 0; i < order.size(); ++i)
            std::memcpy(out.bytes.data() + i * bytes, input.bytes.data() + order[i] * bytes, bytes);
    };
    switch (bits / 8) {
    case 1: gather(std::integral_constant<std::size_t, 1>()); break;
    case 2: gather(std::integral_constant<std::size_t, 2>()); break;
    case 4: gather(std::integral_constant<std::size_t, 4>()); break;
    case 8: gather(std::integral_constant<std::size_t, 8>()); break;
    case 16: gather(std::integral_constant<std::size_t, 16>()); break;
    default: gather(bits / 8);
    }
    return out;
}

} // namespace reshaper::impl
