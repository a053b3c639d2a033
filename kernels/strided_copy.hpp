// Our own data-movement kernels, for every dtype (the ones oneDNN's reorder
// lacks in particular): copy a strided tensor into another strided tensor of
// the same dims, element by element, in parallel with oneTBB.
#pragma once

#include <cstddef>

#include "core/checked_math.hpp"
#include "core/data_type.hpp"
#include "kernels/movement_program.hpp"

namespace reshaper::impl {

// A strided tensor in memory. `data` points at the buffer's start; element
// (i0, i1, ...) lives at element index offset + sum(i_k * strides[k]).
// Element indices count elements: for packed types (4- and 2-bit) element e
// is where load_packed finds it (data_type.hpp); for string, `data` is a
// std::string array and copying assigns strings.
struct strided_tensor {
    void *data = nullptr;
    dim_t offset = 0;
    dims_t strides;
};

// dst[i] = src[i] for every index i of `dims`. Dims are coalesced first and
// the innermost contiguous run is the vectorisable inner loop. Runs in the
// calling thread's oneTBB arena. Source and destination must not overlap
// (unless identical, which is a no-op). Throws error(invalid_data_type) for
// undef and error(invalid_arguments) as make_copy_plan does.
void strided_copy(data_type type, const dims_t &dims, const strided_tensor &src,
                  const strided_tensor &dst);

// The fast path strided_copy takes for such a copy (none: the element
// walk). Throws as make_copy_plan does.
fast_path strided_copy_path(data_type type, const dims_t &dims, const dims_t &src_strides,
                            const dims_t &dst_strides);
// The same for a plan made already (make_copy_plan of those dims and strides).
fast_path planned_copy_path(data_type type, const copy_plan &plan);

} // namespace reshaper::impl
