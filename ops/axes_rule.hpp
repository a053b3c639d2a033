// The axes rule: one implementation of size-1 axis removal and insertion,
// shared by every Squeeze and Unsqueeze version. Pure: dims and the axes in,
// the output dims or a diagnostic out. Both keep the elements in row-major
// order, so either op is a reshape to the dims this rule gives.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/checked_math.hpp"
#include "ops/axis_range.hpp"
#include "ops/reshape_rule.hpp"

namespace reshaper::impl {

struct axes_resolution {
    // The output dims; nothing when even the output rank is unknown (every
    // size-1 dim removed from an input with unknown dims), or on failure.
    std::optional<dims_t> dims;
    std::optional<reshape_diagnostic> failure;

    bool ok() const { return !failure; }
};

// Squeeze: removes the input dims at `axes`, each in [0, r-1] (negative:
// [-r, -1] counting from the back, with count_from_back) [axis_range], none
// named twice [axis_duplicate], each of size 1 [squeeze_not_one]; an unknown
// dim at a listed axis is removed unchecked (execute, with the real dims,
// checks it). Axes are a set: their order does not matter, and [] removes
// nothing. No axes (nothing): every dim of size 1 goes.
axes_resolution remove_axes(const dims_t &input_dims,
                            const std::optional<std::vector<std::int64_t>> &axes,
                            negative_axes negatives);

// Unsqueeze: inserts a dim of size 1 at each of `axes`, positions in the
// output of rank R = r + axes.size(): each in [0, R-1] (negative: [-R, -1]
// from the back of the output) [axis_range], none named twice
// [axis_duplicate]. The input dims fill the other positions in order. Axes
// are a set; [] changes nothing.
axes_resolution insert_axes(const dims_t &input_dims, const std::vector<std::int64_t> &axes,
                            negative_axes negatives);

} // namespace reshaper::impl
