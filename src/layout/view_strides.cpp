// The view rule, as PyTorch's Tensor.view applies it, in two steps:
//
//  1. Walk the input dims from the innermost outwards and cut them into
//     chunks that are contiguous among themselves: dim d-1 continues the
//     chunk when its stride is the chunk's base stride (the stride of its
//     innermost dim) times the chunk's element count so far. Dims of size 1
//     never end a chunk: their stride is never used.
//  2. Walk the output dims from the innermost outwards too; they must cover
//     the chunks in order, each group multiplying to exactly one chunk's
//     element count. An output dim's stride is its chunk's base stride times
//     the element count of the output dims already placed in that chunk;
//     output dims of size 1 join the chunk being filled and get the stride
//     the next dim would get.
//
// Zero-element tensors have no addresses to preserve: every target of zero
// volume is a view (dense strides, or the input's own strides when the
// shape is unchanged, as PyTorch does). A scalar input views as any
// all-ones shape with strides 1.
#include "layout/view_strides.hpp"

#include <string>
#include <vector>

#include "core/fail.hpp"
#include "core/logical_tensor.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

std::string_view describe(view_failure f) {
    switch (f) {
    case view_failure::none: return "the reshape is a view";
    case view_failure::volume_mismatch:
        return "the input and output element counts differ";
    case view_failure::spans_non_contiguous:
        return "an output dim spans input dims that are not contiguous with each other";
    case view_failure::overflow: return "a stride or element count overflows int64";
    }
    return "unknown view failure";
}

namespace {

view_result fail(view_failure f) { return view_result{std::nullopt, f}; }

// Whether the next-outer input dim (size, stride) extends a chunk of
// `count` elements starting at stride `base`. A product that overflows
// cannot equal a stride, so it ends the chunk.
bool continues_chunk(dim_t size, dim_t stride, dim_t count, dim_t base) {
    if (size == 1) return true;
    const auto contiguous_stride = checked_mul(count, base);
    return contiguous_stride && *contiguous_stride == stride;
}

} // namespace

view_result compute_view_strides(const dims_t &old_sizes, const dims_t &old_strides,
                                 const dims_t &new_sizes) {
    if (old_strides.size() != old_sizes.size() || has_unknown_dims(old_sizes) ||
        has_unknown_dims(new_sizes))
        impl::fail(rule::buffer_strides, "view rule needs known sizes and one stride per dim, got sizes " +
                                             dims_to_string(old_sizes) + " strides " + dims_to_string(old_strides) +
                                             " -> " + dims_to_string(new_sizes));
    const auto old_volume = checked_volume(old_sizes);
    const auto new_volume = checked_volume(new_sizes);
    if (!old_volume || !new_volume) return fail(view_failure::overflow);
    if (*old_volume != *new_volume) return fail(view_failure::volume_mismatch);

    if (old_sizes.empty()) return view_result{dims_t(new_sizes.size(), 1)};
    if (*old_volume == 0) {
        if (old_sizes == new_sizes) return view_result{old_strides};
        auto strides = dense_strides(new_sizes); // zero-size dims count as 1
        if (!strides) return fail(view_failure::overflow);
        return view_result{std::move(strides)};
    }

    dims_t new_strides(new_sizes.size());
    std::size_t placed = new_sizes.size(); // output dims [placed, end) have strides
    dim_t chunk_base = old_strides.back();
    dim_t chunk_count = 1; // elements of the input dims in the current chunk
    dim_t view_count = 1;  // elements of the output dims placed in it
    for (std::size_t d = old_sizes.size(); d-- > 0;) {
        chunk_count *= old_sizes[d]; // divides old_volume: cannot overflow
        if (d > 0 && continues_chunk(old_sizes[d - 1], old_strides[d - 1], chunk_count, chunk_base))
            continue;
        // The chunk ends at d: cover it with output dims.
        while (placed > 0 && (view_count < chunk_count || new_sizes[placed - 1] == 1)) {
            const auto stride = checked_mul(view_count, chunk_base);
            if (!stride) return fail(view_failure::overflow);
            new_strides[--placed] = *stride;
            view_count *= new_sizes[placed]; // bounded by the volume
        }
        if (view_count != chunk_count) return fail(view_failure::spans_non_contiguous);
        if (d > 0) {
            chunk_base = old_strides[d - 1];
            chunk_count = 1;
            view_count = 1;
        }
    }
    if (placed != 0) return fail(view_failure::spans_non_contiguous);
    return view_result{std::move(new_strides)};
}

std::string explain_view_failure(const dims_t &old_sizes, const dims_t &old_strides,
                                 const dims_t &new_sizes) {
    const view_result v = compute_view_strides(old_sizes, old_strides, new_sizes);
    if (v.strides) return "";
    if (v.failure != view_failure::spans_non_contiguous) return std::string(describe(v.failure));
    // The chunk boundaries, as element counts from the innermost dim (step 1
    // of the rule): boundary b lies between input dims outer[b] and inner[b].
    struct boundary {
        dim_t count;          // elements inside it
        std::size_t outer;    // the input dim that does not continue the chunk
        std::size_t inner;    // the chunk's outermost dim
        dim_t needed_stride;  // the stride that would have continued it
    };
    std::vector<boundary> boundaries;
    dim_t chunk_base = old_strides.back(), chunk_count = 1, total = 1;
    for (std::size_t d = old_sizes.size(); d-- > 1;) {
        chunk_count *= old_sizes[d];
        total *= old_sizes[d];
        if (continues_chunk(old_sizes[d - 1], old_strides[d - 1], chunk_count, chunk_base)) continue;
        const auto needed = checked_mul(chunk_count, chunk_base);
        boundaries.push_back({total, d - 1, d, needed ? *needed : -1});
        chunk_base = old_strides[d - 1];
        chunk_count = 1;
    }
    // Step 2 fails at the output dim whose elements run across a boundary.
    dim_t placed = 1;
    for (std::size_t k = new_sizes.size(); k-- > 0;) {
        const dim_t next = placed * new_sizes[k]; // bounded by the volume
        for (const boundary &b : boundaries)
            if (placed < b.count && b.count < next) {
                const std::string needed =
                    b.needed_stride < 0 ? "one that overflows int64"
                                        : std::to_string(b.needed_stride);
                return "output dim " + std::to_string(k) + " (size " + std::to_string(new_sizes[k]) +
                       ") spans input dims " + std::to_string(b.outer) + " and " +
                       std::to_string(b.inner) + ", which are not contiguous: input dim " +
                       std::to_string(b.outer) + " has stride " +
                       std::to_string(old_strides[b.outer]) + ", a view needs " + needed;
            }
        placed = next;
    }
    return std::string(describe(v.failure));
}

} // namespace reshaper::impl
