#include "driver/host_tensor.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <unistd.h>

#include "core/fail.hpp"
#include "core/limits.hpp"
#include "core/status.hpp"
#include "backend/buffer_size.hpp"
#include "layout/reference.hpp"

namespace reshaper::driver {
namespace {

using impl::dim_t;
using impl::error;
using impl::fail;
using impl::rule;
using impl::status;

constexpr std::size_t guard_bytes = impl::cache_line_bytes;
constexpr std::size_t guard_strings = 4;
constexpr std::uint8_t guard_byte = 0xA5;
const std::string guard_string = "\x01guard";

// Bytes one tensor may take. A check holds about seven copies of a partition's
// data at once (inputs, their pristine copy, the reference, outputs, the
// in-place run, row-major reads), so one tensor gets a twelfth of this
// machine's memory, and never more than 16 GiB: beyond that the system would
// kill the driver instead of letting it report.
// RESHAPER_MAX_TENSOR_BYTES (core/limits.hpp) lowers that cap.
// Worked out once: the driver's environment does not change while it runs
// (reading it for every tensor was 3% of checking 10,000 small partitions).
dim_t memory_budget() {
    static const dim_t budget = [] {
        constexpr dim_t cap = dim_t{16} << 30;
        dim_t machine = cap;
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
        if (pages > 0 && page > 0)
            if (const auto physical = impl::checked_mul(pages, page)) machine = std::min(cap, *physical / 12);
        const std::uint64_t limit = impl::current_limits().max_tensor_bytes;
        return limit < static_cast<std::uint64_t>(machine) ? static_cast<dim_t>(limit) : machine;
    }();
    return budget;
}

std::uint64_t splitmix64(std::uint64_t &state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

[[noreturn]] void too_large(const impl::logical_tensor &lt, std::size_t bytes) {
    fail(rule::memory_limit,
         "tensor " + std::to_string(lt.id) + " with shape " + impl::dims_to_string(lt.shape) +
             " needs " + impl::format_bytes(bytes) + ", more than the driver's memory budget of " +
             impl::format_bytes(static_cast<std::uint64_t>(memory_budget())) +
             " per tensor (a twelfth of this machine's memory, at most 16 GiB or "
             "RESHAPER_MAX_TENSOR_BYTES)");
}

// Bytes the tensor's memory spans, padding included.
std::size_t extent_bytes(const impl::logical_tensor &lt) {
    if (!lt.shape_known())
        fail(rule::input_shape_known, "tensor " + std::to_string(lt.id) + " has unknown dims " +
                                          impl::dims_to_string(lt.shape) + ": give concrete shapes to execute it");
    const auto bytes = impl::buffer_bytes(lt);
    if (!bytes)
        fail(rule::overflow, "tensor " + std::to_string(lt.id) + " with shape " + impl::dims_to_string(lt.shape) +
                                 " and strides " + impl::dims_to_string(lt.strides) +
                                 " has a negative stride or a size beyond int64");
    if (*bytes > static_cast<std::size_t>(memory_budget())) too_large(lt, *bytes);
    return *bytes;
}

impl::logical_tensor dense_like(const impl::logical_tensor &lt) {
    impl::logical_tensor dense;
    dense.id = lt.id;
    dense.dtype = lt.dtype;
    dense.shape = lt.shape;
    dense.layout = impl::layout_type::strided;
    return dense;
}

} // namespace

host_tensor::host_tensor(const impl::logical_tensor &desc) : desc_(desc) {
    const std::size_t bytes = extent_bytes(desc_);
    if (desc_.dtype == impl::data_type::string) {
        strings_.assign(bytes / sizeof(std::string) + 2 * guard_strings, guard_string);
    } else {
        bytes_.assign(bytes + 2 * guard_bytes, guard_byte);
        std::memset(bytes_.data() + guard_bytes, 0, bytes);
    }
}

void *host_tensor::data() {
    return strings_.empty() ? static_cast<void *>(bytes_.data() + guard_bytes)
                            : static_cast<void *>(strings_.data() + guard_strings);
}

const void *host_tensor::data() const { return const_cast<host_tensor *>(this)->data(); }

std::size_t host_tensor::buffer_bytes() const {
    return strings_.empty() && bytes_.size() >= 2 * guard_bytes ? bytes_.size() - 2 * guard_bytes : 0;
}

bool host_tensor::guards_intact() const {
    if (!strings_.empty()) {
        for (std::size_t i = 0; i < guard_strings; ++i)
            if (strings_[i] != guard_string || strings_[strings_.size() - 1 - i] != guard_string)
                return false;
        return true;
    }
    // Compared as blocks: a byte loop was 6% of checking a [4,8] transpose
    // (callgrind: 725 instructions a call, 72 now).
    static const auto guard = [] {
        std::array<std::uint8_t, guard_bytes> g;
        g.fill(guard_byte);
        return g;
    }();
    return std::memcmp(bytes_.data(), guard.data(), guard_bytes) == 0 &&
           std::memcmp(bytes_.data() + bytes_.size() - guard_bytes, guard.data(), guard_bytes) == 0;
}

bool host_tensor::same_contents(const host_tensor &other) const {
    return bytes_ == other.bytes_ && strings_ == other.strings_;
}

void host_tensor::fill_from(const impl::tensor_values &values) {
    // The reference reads one value per element: fewer would be read past.
    if (values.count != static_cast<std::size_t>(impl::checked_volume(desc_.shape).value_or(0)))
        fail(rule::values_count,
             "tensor " + std::to_string(desc_.id) + " with shape " +
                 impl::dims_to_string(desc_.shape) + " cannot be filled from " +
                 std::to_string(values.count) + " values");
    const void *src = values.type == impl::data_type::string
                          ? static_cast<const void *>(values.strings.data())
                          : static_cast<const void *>(values.bytes.data());
    impl::reference_reshape(dense_like(desc_), src, desc_, data());
    // A layout that maps several elements to one address (a zero stride)
    // holds their values only when they are equal: read them back.
    const impl::tensor_values held = row_major();
    if (held == values) return;
    std::size_t first = 0;
    if (values.type == impl::data_type::string) {
        while (held.strings[first] == values.strings[first]) ++first;
    } else {
        while (held.bytes[first] == values.bytes[first]) ++first;
        first = first * 8 / impl::element_bits(values.type);
    }
    fail(rule::values_fit_layout,
         "tensor " + std::to_string(desc_.id) + " with shape " + impl::dims_to_string(desc_.shape) +
             " and strides " + impl::dims_to_string(desc_.strides) +
             " cannot hold its values: its layout gives several elements one address, and "
             "values[" + std::to_string(first) + "] differs from the value sharing its address");
}

void host_tensor::fill_random(std::uint64_t seed) {
    std::uint64_t state = seed;
    if (!strings_.empty()) {
        for (std::size_t i = guard_strings; i + guard_strings < strings_.size(); ++i)
            {
            std::string &element = strings_[i];
            element.assign(1, 's');
            element.append(std::to_string(splitmix64(state) % 1000000));
        }
        return;
    }
    // Eight bytes a draw.
    const std::size_t end = bytes_.size() - guard_bytes;
    std::size_t i = guard_bytes;
    for (; i + 8 <= end; i += 8) { // whole draws: a fixed-size copy, inlined
        const std::uint64_t bits = splitmix64(state);
        std::memcpy(bytes_.data() + i, &bits, 8);
    }
    if (i < end) {
        const std::uint64_t bits = splitmix64(state);
        std::memcpy(bytes_.data() + i, &bits, end - i);
    }
}

impl::tensor_values host_tensor::row_major() const { return read_row_major(desc_, data()); }

impl::tensor_values read_row_major(const impl::logical_tensor &desc, const void *data) {
    impl::tensor_values v;
    v.type = desc.dtype;
    v.count = static_cast<std::size_t>(impl::checked_volume(desc.shape).value_or(0));
    // A dense row-major tensor's bytes are its values in row-major order.
    if (v.type != impl::data_type::string && !impl::is_packed(v.type) && impl::reads_as_strided(desc.layout) &&
        (desc.strides.empty() || impl::dense_strides(desc.shape) == desc.strides)) {
        const auto *from = static_cast<const std::uint8_t *>(data);
        v.bytes.assign(from, from + impl::dense_bytes(v.type, v.count));
        return v;
    }
    void *dst;
    if (v.type == impl::data_type::string) {
        v.strings.resize(v.count);
        dst = v.strings.data();
    } else {
        v.bytes.assign(impl::dense_bytes(v.type, v.count), 0);
        dst = v.bytes.data();
    }
    impl::reference_reshape(desc, data, dense_like(desc), dst);
    return v;
}

} // namespace reshaper::driver
