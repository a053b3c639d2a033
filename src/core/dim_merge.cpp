#include "core/dim_merge.hpp"

namespace reshaper::impl {

void merge_contiguous_dims(dims_t &sizes, std::initializer_list<dims_t *> stride_lists) {
    std::size_t kept = 0; // dims [0, kept) are the merged result so far
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        if (sizes[k] == 1) continue;
        bool merges = kept > 0;
        for (const dims_t *strides : stride_lists)
            merges = merges && checked_mul((*strides)[k], sizes[k]) == (*strides)[kept - 1];
        if (merges) {
            // Never overflows: the merged dim is at most the tensor's volume.
            sizes[kept - 1] = *checked_mul(sizes[kept - 1], sizes[k]);
            for (dims_t *strides : stride_lists) (*strides)[kept - 1] = (*strides)[k];
            continue;
        }
        sizes[kept] = sizes[k];
        for (dims_t *strides : stride_lists) (*strides)[kept] = (*strides)[k];
        ++kept;
    }
    if (kept == 0) {
        sizes.assign(1, 1);
        for (dims_t *strides : stride_lists) strides->assign(1, 1);
        return;
    }
    sizes.resize(kept);
    for (dims_t *strides : stride_lists) strides->resize(kept);
}

} // namespace reshaper::impl
