// The view rule (PyTorch's Tensor.view): can a reshape of a strided tensor
// be expressed as a strided view of the same buffer, and with which strides?
// One small pure function; every lowering decision asks it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/checked_math.hpp"

namespace reshaper::impl {

enum class view_failure {
    none,
    volume_mismatch,       // the element counts differ
    spans_non_contiguous,  // an output dim spans input dims that are not
                           // contiguous with each other
    overflow,              // a stride product overflows int64
};

std::string_view describe(view_failure f); // the one text of each reason

struct view_result {
    std::optional<dims_t> strides; // the view's strides, when it exists
    view_failure failure = view_failure::none;
};

// Strides of `new_sizes` over the buffer of a tensor with `old_sizes` and
// `old_strides` (element strides, all dims known), or why none exists.
// Unknown sizes or a stride count that does not match are the caller's
// mistake: error(invalid_arguments).
view_result compute_view_strides(const dims_t &old_sizes, const dims_t &old_strides,
                                 const dims_t &new_sizes);

// Why no view exists, in words that name the dims: for
// spans_non_contiguous, the output dim that spans input dims which are not
// contiguous with each other, and the stride that breaks it ("output dim 1
// (size 6) spans input dims 0 and 1, which are not contiguous: input dim 0
// has stride 1, a view needs 3 (= 3 * 1)"); otherwise describe(failure).
// Same preconditions as compute_view_strides; "" when the view exists.
std::string explain_view_failure(const dims_t &old_sizes, const dims_t &old_strides,
                                 const dims_t &new_sizes);

} // namespace reshaper::impl
