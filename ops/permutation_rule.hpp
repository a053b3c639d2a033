// The permutation rule: one implementation of axis-permutation resolution
// shared by every transpose op and version (StaticTranspose-1, ONNX
// Transpose 1..25). Pure: dims and the requested order in, the permuted dims
// or a diagnostic out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_math.hpp"
#include "ops/axis_range.hpp"
#include "ops/reshape_rule.hpp"

namespace reshaper::impl {

struct permutation_resolution {
    std::optional<dims_t> dims; // set on success: the input dims permuted, unknown ones too
    // Output axis i is input axis permutation[i]; as many entries as the
    // input has axes (none for a scalar). Meaningful when ok().
    std::vector<std::size_t> permutation;
    reshape_diagnostic diagnostic; // meaningful when !dims

    bool ok() const { return dims.has_value(); }
};

// Resolves `order` (named `name` in messages: "order", "perm") against
// `input_dims`. An empty order reverses the axes (oneDNN's `order = []`, and
// ONNX's absent or empty `perm`). Otherwise, rules (ids in brackets): the
// order has one entry per input axis [perm_length]; every entry names an axis,
// negative ones counting from the back only with count_from_back
// [axis_range]; no axis is named twice after that [axis_duplicate]. Unknown
// and zero dims move like any other.
permutation_resolution resolve_permutation(const dims_t &input_dims,
                                           const std::vector<std::int64_t> &order,
                                           negative_axes negatives,
                                           const std::string &name = "perm");

} // namespace reshaper::impl
