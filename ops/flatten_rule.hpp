// The flatten rule: ONNX Flatten (every version) as the reshape it is, to
// [d_0 * ... * d_(axis-1), d_axis * ... * d_(r-1)]. Pure: dims and the axis
// in, the two dims or a diagnostic out.
#pragma once

#include <cstdint>

#include "core/checked_math.hpp"
#include "ops/axis_range.hpp"
#include "ops/reshape_rule.hpp"

namespace reshaper::impl {

// `axis` cuts the r input dims into rows and columns: a value in [0, r]
// (negative: [-r, -1], + r, with count_from_back) [axis_range]. Each output
// dim is the product of its group (1 when empty); a group with an unknown dim
// is unknown, unless a known 0 makes it 0; a known product must fit int64
// [overflow]. Rank 0 takes only axis 0 (the sheet's decision): [1, 1].
reshape_resolution resolve_flatten(const dims_t &input_dims, std::int64_t axis,
                                   negative_axes negatives);

} // namespace reshaper::impl
