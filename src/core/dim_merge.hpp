// The one dim-merging (coalescing) rule, used by the copy plans of the
// kernels, the movement plan's steps, the alias copy and the composition of
// chains (layout/chain_view), which is why it lives in core.
#pragma once

#include <initializer_list>

#include "core/checked_math.hpp"

namespace reshaper::impl {

// Drops size-1 dims (they add no address) and merges each dim into its
// outer neighbour when, in every stride list, one step of the outer dim
// spans the inner dim exactly (outer stride == inner stride * inner size):
// the pair then walks the same addresses as one dim of their product. The
// order is kept (sort first when any order will do). At least one dim
// remains: size 1, stride 1 in every list, so a loop always has an
// innermost dim. Every list has one stride per dim.
void merge_contiguous_dims(dims_t &sizes, std::initializer_list<dims_t *> stride_lists);

} // namespace reshaper::impl
