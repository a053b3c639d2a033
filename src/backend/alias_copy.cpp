#include "backend/alias_copy.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "core/dim_merge.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/strided_copy.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {

namespace {

// The first `count` elements of a buffer, copied bytewise by a dense copy
// planned here, at compile time.
class span_copy final : public data_mover {
public:
    span_copy(data_type type, std::size_t count) : type_(type), count_(count) {
        if (type == data_type::string) return;
        const std::size_t bytes = is_packed(type) ? count / elements_per_byte(element_bits(type)) : dense_bytes(type, count);
        if (bytes > 0) bytes_ = plan_byte_copy(bytes, current_machine());
    }
    void run(const void *src, void *dst) const override {
        if (type_ == data_type::string) { // owned strings: assigned, never bytewise
            std::copy_n(static_cast<const std::string *>(src), count_, static_cast<std::string *>(dst));
            return;
        }
        auto *d = static_cast<std::uint8_t *>(dst);
        const auto *s = static_cast<const std::uint8_t *>(src);
        if (bytes_) run_movement(*bytes_, s, d);
        if (!is_packed(type_)) return;
        // The elements of a part-used last byte alone: the rest of that
        // byte is not ours.
        const std::size_t bits = element_bits(type_), per_byte = elements_per_byte(bits);
        for (std::size_t i = count_ / per_byte * per_byte; i < count_; ++i)
            store_packed(d, bits, i, load_packed(s, bits, i));
    }
    std::string describe() const override { return bytes_ ? impl::describe(*bytes_) : std::string(); }

private:
    data_type type_;
    std::size_t count_;
    std::optional<movement_program> bytes_; // the whole bytes
};

// Exactly the elements' addresses, through the strided kernel, planned here.
class address_copy final : public data_mover {
public:
    address_copy(data_type type, const dims_t &dims, const dims_t &strides)
        : program_(plan_movement(make_copy_plan(dims, strides, 0, strides, 0), type, current_machine())) {}
    void run(const void *src, void *dst) const override { run_movement(program_, src, dst); }
    std::string describe() const override { return impl::describe(program_); }

private:
    movement_program program_;
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
    return std::make_unique<address_copy>(input.dtype, dims, merged);
}

} // namespace reshaper::impl
