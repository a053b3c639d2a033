// Axis values of the data-movement family (transpose orders, squeeze and
// unsqueeze axes, the flatten axis): which values name a position, and how a
// negative one is read. Shared by the permutation, axes and flatten rules so
// that `axis_range` means one thing everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace reshaper::impl {

// oneDNN and ONNX from version 11 let a negative axis count from the back;
// ONNX before 11 (and ONNX Transpose in every version) does not.
enum class negative_axes { rejected, count_from_back };

// The positions an axis value may name: [0, count-1], and with
// count_from_back also [-wrap, -1], read as value + wrap. `wrap` is the rank
// the value counts back from; it differs from `count` only for Flatten,
// whose axis names one of rank + 1 cut points but wraps by the rank.
struct axis_bounds {
    std::int64_t count = 0;
    std::int64_t wrap = 0;
    negative_axes negatives = negative_axes::rejected;

    // The position `value` names, or nothing when it is out of range.
    std::optional<std::size_t> normalize(std::int64_t value) const;
    // "[-3, 2]", "[0, 2]", or "empty" when no value is valid: for messages.
    std::string range_text() const;
};

} // namespace reshaper::impl
