#include "layout/blocked_views.hpp"

#include "core/checked_math.hpp"

namespace reshaper::impl {

std::optional<std::pair<dims_t, dims_t>> blocked_as_strided(const blocked_format &format,
                                                           const dims_t &dims) {
    const std::size_t rank = dims.size();
    // Per dim: its inner blocks' sizes (outermost first) and their product.
    std::vector<dims_t> blocks(rank);
    dims_t product(rank, 1);
    for (const auto &[d, size] : format.inner_blocks) {
        if (d < 0 || static_cast<std::size_t>(d) >= rank || size <= 0) return std::nullopt;
        blocks[d].push_back(size);
        auto p = checked_mul(product[d], size);
        if (!p) return std::nullopt;
        product[d] = *p;
    }
    for (std::size_t d = 0; d < rank; ++d)
        if (dims[d] <= 0 || dims[d] % product[d] != 0) return std::nullopt; // padding
    // Physical strides, innermost first: the inner blocks, then the outer dims.
    std::vector<dims_t> strides(rank); // per dim: outer stride, then its blocks'
    for (std::size_t d = 0; d < rank; ++d) strides[d].assign(blocks[d].size() + 1, 0);
    std::vector<std::size_t> seen(rank, 0);
    dim_t stride = 1;
    for (std::size_t b = format.inner_blocks.size(); b-- > 0;) {
        const auto [d, size] = format.inner_blocks[b];
        // the last listed block of a dim is its innermost
        strides[d][blocks[d].size() - seen[d]++] = stride;
        auto next = checked_mul(stride, size);
        if (!next) return std::nullopt;
        stride = *next;
    }
    if (format.outer_order.size() != rank) return std::nullopt;
    for (std::size_t k = rank; k-- > 0;) {
        const int d = format.outer_order[k];
        strides[d][0] = stride;
        auto next = checked_mul(stride, dims[d] / product[d]);
        if (!next) return std::nullopt;
        stride = *next;
    }
    std::pair<dims_t, dims_t> result;
    for (std::size_t d = 0; d < rank; ++d) {
        result.first.push_back(dims[d] / product[d]);
        result.first.insert(result.first.end(), blocks[d].begin(), blocks[d].end());
        result.second.insert(result.second.end(), strides[d].begin(), strides[d].end());
    }
    return result;
}

std::optional<padded_boxes> padded_as_boxes(const dims_t &dims, const blocked_format &format,
                                            const dims_t &plain_strides, blocked_end blocked) {
    const bool blocked_src = blocked == blocked_end::source;
    const std::size_t rank = dims.size();
    if (plain_strides.size() != rank || format.outer_order.size() != rank) return std::nullopt;
    std::vector<dims_t> blocks(rank);
    for (const auto &[d, size] : format.inner_blocks) {
        if (d < 0 || static_cast<std::size_t>(d) >= rank) return std::nullopt;
        blocks[d].push_back(size);
    }
    // The buffer is the unpadded layout of the padded dims.
    dims_t padded(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        if (dims[d] <= 0) return std::nullopt;
        dim_t product = 1;
        for (dim_t b : blocks[d]) product *= b; // parsing checked that this fits
        padded[d] = (dims[d] + product - 1) / product * product;
        if (padded[d] != dims[d] && blocks[d].size() != 1) return std::nullopt;
    }
    const auto fine = blocked_as_strided(format, padded);
    if (!fine) return std::nullopt;

    // Per dim, the ranges a box may take: its fine dims with their blocked
    // and plain strides, and where the range starts on each side.
    struct range {
        dims_t dims, blocked_strides, plain_strides;
        dim_t blocked_offset = 0, plain_offset = 0;
    };
    std::vector<std::vector<range>> valid(rank), pad(rank);
    std::vector<range> whole(rank); // the padded extent (for padding boxes)
    std::size_t at = 0;             // dim d's first fine dim
    for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t n = blocks[d].size() + 1;
        range all;
        all.dims.assign(fine->first.begin() + at, fine->first.begin() + at + n);
        all.blocked_strides.assign(fine->second.begin() + at, fine->second.begin() + at + n);
        dim_t s = plain_strides[d];
        all.plain_strides.assign(n, 0);
        for (std::size_t k = n; k-- > 0;) {
            all.plain_strides[k] = s;
            s *= all.dims[k]; // within the plain buffer's own extent: no overflow
        }
        at += n;
        whole[d] = all;
        if (padded[d] == dims[d]) {
            valid[d].push_back(all);
            continue;
        }
        const dim_t block = blocks[d][0], whole_blocks = dims[d] / block, rest = dims[d] % block;
        if (whole_blocks > 0) {
            range full = all;
            full.dims = {whole_blocks, block};
            valid[d].push_back(full);
        }
        range tail = all; // rest > 0: the dim is padded
        tail.dims = {1, rest};
        tail.blocked_offset = whole_blocks * all.blocked_strides[0];
        tail.plain_offset = whole_blocks * block * plain_strides[d];
        valid[d].push_back(tail);
        range padding = all;
        padding.dims = {1, block - rest};
        padding.blocked_offset = whole_blocks * all.blocked_strides[0] + rest * all.blocked_strides[1];
        pad[d].push_back(padding);
    }

    const auto box_of = [&](const std::vector<const range *> &parts) {
        strided_box box;
        dim_t blocked_offset = 0, plain_offset = 0;
        dims_t blocked_strides, plain;
        for (const range *r : parts) {
            box.dims.insert(box.dims.end(), r->dims.begin(), r->dims.end());
            blocked_strides.insert(blocked_strides.end(), r->blocked_strides.begin(), r->blocked_strides.end());
            plain.insert(plain.end(), r->plain_strides.begin(), r->plain_strides.end());
            blocked_offset += r->blocked_offset;
            plain_offset += r->plain_offset;
        }
        box.src_offset = blocked_src ? blocked_offset : plain_offset;
        box.dst_offset = blocked_src ? plain_offset : blocked_offset;
        box.src_strides = blocked_src ? blocked_strides : plain;
        box.dst_strides = blocked_src ? plain : blocked_strides;
        return box;
    };
    padded_boxes result;
    // Every combination of one valid range per dim.
    std::vector<std::size_t> pick(rank, 0);
    for (;;) {
        std::vector<const range *> parts(rank);
        for (std::size_t d = 0; d < rank; ++d) parts[d] = &valid[d][pick[d]];
        result.copies.push_back(box_of(parts));
        std::size_t d = rank;
        while (d-- > 0 && ++pick[d] == valid[d].size()) pick[d] = 0;
        if (d == static_cast<std::size_t>(-1)) break;
    }
    if (!blocked_src)
        for (std::size_t d = 0; d < rank; ++d)
            for (const range &p : pad[d]) {
                std::vector<const range *> parts(rank);
                for (std::size_t e = 0; e < rank; ++e) parts[e] = e == d ? &p : &whole[e];
                strided_box box = box_of(parts);
                // Zeroes from a run of them: along the destination's
                // contiguous dim (the innermost block), so the padding of
                // each block is one short run, not an element walk.
                box.src_strides.assign(box.dims.size(), 0);
                for (std::size_t k = 0; k < box.dims.size(); ++k)
                    if (box.dst_strides[k] == 1 && box.dims[k] <= padding_zero_run) box.src_strides[k] = 1;
                box.src_offset = 0;
                result.padding.push_back(std::move(box));
            }
    return result;
}

} // namespace reshaper::impl
