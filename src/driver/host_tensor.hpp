// Host memory for one logical tensor in its real layout, with guard zones
// on both sides so that a write outside the tensor's extent is caught.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/line_aligned.hpp"
#include "core/logical_tensor.hpp"

namespace reshaper::driver {

// The elements of a tensor described by `desc` at `data`, in row-major
// order of the logical index.
impl::tensor_values read_row_major(const impl::logical_tensor &desc, const void *data);

class host_tensor {
public:
    // Throws impl::error(out_of_memory) above the driver's memory budget.
    explicit host_tensor(const impl::logical_tensor &desc);

    const impl::logical_tensor &desc() const { return desc_; }
    void *data();
    const void *data() const;
    bool guards_intact() const;
    // Bytes of the tensor's extent, guards excluded (0 for string tensors).
    std::size_t buffer_bytes() const;
    bool same_contents(const host_tensor &other) const; // every byte / string, guards included

    // Row-major values written into the real layout.
    void fill_from(const impl::tensor_values &values);
    // Deterministic pseudo-random contents (the whole extent) from `seed`.
    void fill_random(std::uint64_t seed);
    // The elements in row-major order of the logical index.
    impl::tensor_values row_major() const;

private:
    impl::logical_tensor desc_;
    // Guards of a whole line each side: the tensor starts on a line, as a
    // framework's buffer does (perf mode measures what callers see).
    impl::line_aligned_bytes bytes_;
    std::vector<std::string> strings_;
};

} // namespace reshaper::driver
