#include "kernels/copy_plan.hpp"

#include <algorithm>
#include <string>

#include "core/fail.hpp"
#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "core/dim_merge.hpp"

namespace reshaper::impl {
namespace {

[[noreturn]] void malformed(const std::string &why, const dims_t &dims, const dims_t &src_strides,
                            const dims_t &dst_strides) {
    fail(rule::buffer_strides, "strided copy of dims " + dims_to_string(dims) + " (source strides " +
                                   dims_to_string(src_strides) + ", destination strides " +
                                   dims_to_string(dst_strides) + "): " + why);
}

// Lowest and highest element index a tensor reaches, or nothing on overflow.
std::optional<std::pair<dim_t, dim_t>> element_range(const std::vector<copy_dim> &dims,
                                                     dim_t offset, bool dst) {
    dim_t lo = offset, hi = offset;
    for (const auto &d : dims) {
        const auto reach = checked_mul(d.size - 1, dst ? d.dst_stride : d.src_stride);
        if (!reach) return std::nullopt;
        const auto moved = checked_add(*reach >= 0 ? hi : lo, *reach);
        if (!moved) return std::nullopt;
        (*reach >= 0 ? hi : lo) = *moved;
    }
    return std::make_pair(lo, hi);
}

bool increasing_along_walk(const std::vector<copy_dim> &dims) {
    dim_t inner_span = 0; // highest dst index reached by the dims inside, relative
    for (std::size_t k = dims.size(); k-- > 0;) {
        if (dims[k].dst_stride <= inner_span) return false;
        // Positive terms whose sum is bounded by the checked highest index.
        inner_span += (dims[k].size - 1) * dims[k].dst_stride;
    }
    return true;
}

} // namespace

copy_plan make_copy_plan(const dims_t &dims, const dims_t &src_strides, dim_t src_offset,
                         const dims_t &dst_strides, dim_t dst_offset) {
    if (src_strides.size() != dims.size() || dst_strides.size() != dims.size())
        malformed("one stride per dim is needed", dims, src_strides, dst_strides);
    if (has_unknown_dims(dims)) malformed("dims must be known", dims, src_strides, dst_strides);
    const auto volume = checked_volume(dims);
    if (!volume) malformed("the element count overflows int64", dims, src_strides, dst_strides);

    copy_plan plan;
    plan.volume = *volume;
    plan.src_offset = src_offset;
    plan.dst_offset = dst_offset;
    plan.dims.reserve(dims.size());
    for (std::size_t k = 0; k < dims.size(); ++k)
        if (dims[k] != 1) plan.dims.push_back({dims[k], src_strides[k], dst_strides[k]});
    if (plan.volume == 0) return plan;

    for (bool dst : {false, true}) {
        const auto range = element_range(plan.dims, dst ? dst_offset : src_offset, dst);
        if (!range) malformed("an element index overflows int64", dims, src_strides, dst_strides);
        if (range->first < 0)
            malformed(std::string("the ") + (dst ? "destination" : "source") +
                          " reaches before its buffer's start",
                      dims, src_strides, dst_strides);
    }

    // Walk in the destination's memory order: writes stream, reads gather.
    // Few dims: a stable insertion sort, with no temporary buffer
    // (std::stable_sort allocates one; this runs at every compile).
    const auto outer_first = [](const copy_dim &a, const copy_dim &b) { return a.dst_stride > b.dst_stride; };
    if (plan.dims.size() <= 16) {
        for (std::size_t k = 1; k < plan.dims.size(); ++k)
            for (std::size_t j = k; j > 0 && outer_first(plan.dims[j], plan.dims[j - 1]); --j)
                std::swap(plan.dims[j - 1], plan.dims[j]);
    } else {
        std::stable_sort(plan.dims.begin(), plan.dims.end(), outer_first);
    }
    dims_t sizes, src, dst;
    sizes.reserve(plan.dims.size());
    src.reserve(plan.dims.size());
    dst.reserve(plan.dims.size());
    for (const auto &d : plan.dims) {
        sizes.push_back(d.size);
        src.push_back(d.src_stride);
        dst.push_back(d.dst_stride);
    }
    merge_contiguous_dims(sizes, {&src, &dst});
    plan.dims.clear();
    for (std::size_t k = 0; k < sizes.size(); ++k) plan.dims.push_back({sizes[k], src[k], dst[k]});
    plan.dst_increasing = increasing_along_walk(plan.dims);
    return plan;
}

element_pair element_at(const copy_plan &plan, dim_t flat, dims_t *index) {
    element_pair e{plan.src_offset, plan.dst_offset};
    if (index) index->assign(plan.dims.size(), 0);
    for (std::size_t k = plan.dims.size(); k-- > 0;) {
        const dim_t i = flat % plan.dims[k].size;
        flat /= plan.dims[k].size;
        if (index) (*index)[k] = i;
        e.src += i * plan.dims[k].src_stride;
        e.dst += i * plan.dims[k].dst_stride;
    }
    return e;
}

std::vector<copy_plan> tiled_parts(const copy_plan &plan, dim_t tile) {
    const std::size_t inner = plan.dims.size() - 1;
    std::size_t k = 0; // the source's contiguous dim
    while (k < inner && plan.dims[k].src_stride != 1) ++k;
    if (k == inner || plan.dims[k].size < tile || plan.dims[inner].size < tile) return {};

    const copy_dim across = plan.dims[k], along = plan.dims[inner];
    const auto across_dst_step = checked_mul(tile, across.dst_stride);
    const auto along_src_step = checked_mul(tile, along.src_stride);
    const auto along_dst_step = checked_mul(tile, along.dst_stride);
    if (!across_dst_step || !along_src_step || !along_dst_step) return {};
    const dim_t across_whole = across.size / tile * tile, along_whole = along.size / tile * tile;
    auto part = [&](dim_t across_size, dim_t along_size, dim_t across_from, dim_t along_from) {
        copy_plan p = plan;
        p.dims[k].size = across_size;
        p.dims[inner].size = along_size;
        // Offsets stay inside the checked element ranges of the whole walk.
        p.src_offset += across_from * across.src_stride + along_from * along.src_stride;
        p.dst_offset += across_from * across.dst_stride + along_from * along.dst_stride;
        p.volume = plan.volume / across.size / along.size * across_size * along_size;
        p.dst_increasing = increasing_along_walk(p.dims);
        return p;
    };

    copy_plan whole = part(across_whole, along_whole, 0, 0);
    whole.dims.erase(whole.dims.begin() + static_cast<std::ptrdiff_t>(k));
    whole.dims.pop_back();
    whole.dims.push_back({across_whole / tile, tile, *across_dst_step}); // source stride 1
    whole.dims.push_back({along_whole / tile, *along_src_step, *along_dst_step});
    whole.dims.push_back({tile, across.src_stride, across.dst_stride});
    whole.dims.push_back({tile, along.src_stride, along.dst_stride});
    whole.dst_increasing = increasing_along_walk(whole.dims);

    std::vector<copy_plan> parts{std::move(whole)};
    if (along_whole < along.size) // the columns past the last whole tile, every row
        parts.push_back(part(across.size, along.size - along_whole, 0, along_whole));
    if (across_whole < across.size) // the rows past the last whole tile
        parts.push_back(part(across.size - across_whole, along_whole, across_whole, 0));
    return parts;
}

bool rows_own_their_bytes(const copy_plan &plan, dim_t per_byte) {
    const std::size_t inner = plan.dims.size() - 1;
    if (plan.dims[inner].dst_stride != 1 || plan.dims[inner].size % per_byte != 0) return false;
    if (plan.dst_offset % per_byte != 0) return false;
    for (std::size_t k = 0; k < inner; ++k)
        if (plan.dims[k].dst_stride % per_byte != 0) return false;
    return true;
}

// The destination indices increase along the walk, so a cut at q is safe
// when dst(q - 1) lies in an earlier byte than dst(q): every element after
// q lies at or past dst(q)'s byte. Each unsafe step stays in dst(q)'s byte,
// which holds per_byte elements, so a safe cut comes within per_byte - 1
// steps (or the walk ends).
dim_t byte_safe_cut(const copy_plan &plan, dim_t p, dim_t per_byte) {
    dim_t before = element_at(plan, p - 1).dst / per_byte;
    for (; p < plan.volume; ++p) {
        const dim_t at = element_at(plan, p).dst / per_byte;
        if (at != before) return p;
        before = at;
    }
    return p;
}

std::optional<copy_plan> whole_byte_plan(const copy_plan &plan, dim_t per_byte) {
    const copy_dim &run = plan.dims.back();
    if (run.src_stride != 1 || run.dst_stride != 1 || run.size % per_byte != 0 ||
        plan.src_offset % per_byte != 0 || plan.dst_offset % per_byte != 0)
        return std::nullopt;
    copy_plan bytes = plan;
    for (std::size_t k = 0; k + 1 < plan.dims.size(); ++k) {
        const copy_dim &d = plan.dims[k];
        if (d.src_stride % per_byte != 0 || d.dst_stride % per_byte != 0) return std::nullopt;
        bytes.dims[k] = {d.size, d.src_stride / per_byte, d.dst_stride / per_byte};
    }
    bytes.dims.back().size = run.size / per_byte;
    bytes.volume = plan.volume / per_byte;
    bytes.src_offset = plan.src_offset / per_byte;
    bytes.dst_offset = plan.dst_offset / per_byte;
    bytes.dst_increasing = increasing_along_walk(bytes.dims);
    return bytes;
}

} // namespace reshaper::impl
