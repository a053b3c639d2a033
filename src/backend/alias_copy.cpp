#include "backend/alias_copy.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/dim_merge.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/strided_copy.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {

namespace {

// The first `count` elements of a buffer, copied bytewise.
class span_copy final : public data_mover {
public:
    span_copy(data_type type, std::size_t count) : type_(type), count_(count) {}
    void run(const void *src, void *dst) const override {
        if (type_ == data_type::string) { // owned strings: assigned, never bytewise
            std::copy_n(static_cast<const std::string *>(src), count_, static_cast<std::string *>(dst));
            return;
        }
        auto *d = static_cast<std::uint8_t *>(dst);
        const auto *s = static_cast<const std::uint8_t *>(src);
        if (!is_packed(type_)) {
            copy_bytes(d, s, dense_bytes(type_, count_));
            return;
        }
        // Whole bytes, then the elements of a part-used last byte alone:
        // the rest of that byte is not ours.
        const std::size_t bits = element_bits(type_), per_byte = elements_per_byte(bits);
        const std::size_t whole = count_ / per_byte;
        copy_bytes(d, s, whole);
        for (std::size_t i = whole * per_byte; i < count_; ++i)
            store_packed(d, bits, i, load_packed(s, bits, i));
    }

private:
    data_type type_;
    std::size_t count_;
};

// Exactly the elements' addresses, through the strided kernel.
class address_copy final : public data_mover {
public:
    address_copy(data_type type, dims_t dims, dims_t strides)
        : type_(type), dims_(std::move(dims)), strides_(std::move(strides)) {}
    void run(const void *src, void *dst) const override {
        strided_copy(type_, dims_, strided_tensor{const_cast<void *>(src), 0, strides_},
                     strided_tensor{dst, 0, strides_});
    }

private:
    data_type type_;
    dims_t dims_, strides_;
};

class nothing_to_copy final : public data_mover {
public:
    void run(const void *, void *) const override {}
};

} // namespace

std::unique_ptr<data_mover> make_alias_copy(const logical_tensor &input) {
    const auto volume = checked_volume(input.shape);
    if (volume == 0) return std::make_unique<nothing_to_copy>();
    if (input.layout == layout_type::opaque) {
        // A blocked buffer is dense: copy all of it, padding included.
        const dim_t elements =
            blocked_size(parse_format_tag(input.format, input.shape.size()), input.shape);
        return std::make_unique<span_copy>(input.dtype, static_cast<std::size_t>(elements));
    }
    const dims_t strides = effective_strides(input).value(); // known shape, strided or undef
    // The set of addresses: size-1 and stride-0 dims add none; order the
    // rest by stride and merge runs that are contiguous.
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < input.shape.size(); ++k)
        if (input.shape[k] > 1 && strides[k] > 0) order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return strides[a] > strides[b]; });
    dims_t dims, merged;
    for (std::size_t k : order) {
        dims.push_back(input.shape[k]);
        merged.push_back(strides[k]);
    }
    merge_contiguous_dims(dims, {&merged});
    if (dims.size() == 1 && merged[0] == 1)
        return std::make_unique<span_copy>(input.dtype, static_cast<std::size_t>(dims[0]));
    return std::make_unique<address_copy>(input.dtype, std::move(dims), std::move(merged));
}

} // namespace reshaper::impl
