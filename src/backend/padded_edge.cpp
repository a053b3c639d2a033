#include "backend/padded_edge.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/line_aligned.hpp"
#include "kernels/copy_plan.hpp"

namespace reshaper::impl {
namespace {

// A chunk's staged block: within L1 beside the source rows it reads.
constexpr std::size_t staged_bytes = std::size_t{16} << 10;

// What either edge's plan holds alike: `valid` rows of a `block`, along
// `cols` (its positions) and at most one `outer` dim, from `plan`'s
// offsets, staged a chunk of positions (a buffer's worth) at a time.
padded_edge_plan edge_frame(std::ptrdiff_t e, dim_t valid, dim_t block, const copy_dim &cols, const copy_dim *outer,
                            const copy_plan &plan) {
    padded_edge_plan edge_plan;
    edge_plan.element_bytes = static_cast<std::size_t>(e);
    edge_plan.valid = valid;
    edge_plan.block = block;
    edge_plan.positions = cols.size;
    if (outer) {
        edge_plan.outer = outer->size;
        edge_plan.src_outer = outer->src_stride * e;
        edge_plan.dst_outer = outer->dst_stride * e;
    }
    edge_plan.src_offset = plan.src_offset * e;
    edge_plan.dst_offset = plan.dst_offset * e;
    edge_plan.chunk = std::max<dim_t>(1, static_cast<dim_t>(staged_bytes) / (block * e));
    edge_plan.chunk = std::min(edge_plan.chunk, edge_plan.positions);
    return edge_plan;
}

// Out of a padded blocked source: the valid copy's dims are the valid rows
// (source stride 1, fewer than the block), the positions (a block apart in
// the source, destination stride 1) and at most one outer dim.
std::optional<padded_edge_plan> plan_source_edge(std::size_t bits, const strided_box &edge,
                                                 const machine_facts &machine) {
    const auto e = static_cast<std::ptrdiff_t>(bits / 8);
    const copy_plan plan = make_copy_plan(edge.dims, edge.src_strides, edge.src_offset, edge.dst_strides,
                                          edge.dst_offset);
    const copy_dim *rows = nullptr, *cols = nullptr, *outer = nullptr;
    for (const copy_dim &d : plan.dims) {
        if (d.src_stride == 1 && !rows) rows = &d;
        else if (d.dst_stride == 1 && !cols) cols = &d;
        else if (!outer) outer = &d;
        else return std::nullopt;
    }
    if (!rows || !cols || cols->src_stride <= rows->size || cols->src_stride * e > tile_bytes) return std::nullopt;
    // Valid rows of half a line keep the boxes: the tiled transpose's half
    // tiles, with the next step prefetched, measured faster than staging
    // (docs/performance.md, "A padded blocked source's last block").
    if (2 * rows->size * e == tile_bytes) return std::nullopt;
    padded_edge_plan edge_plan = edge_frame(e, rows->size, cols->src_stride, *cols, outer, plan);
    edge_plan.blocked_source = true;
    edge_plan.dst_row = rows->dst_stride * e;
    const dim_t block = edge_plan.block;
    // Into the buffer with ordinary stores (it stays in L1); out of it
    // streamed, as the step is.
    machine_facts in_cache = machine, streamed = machine;
    in_cache.threads = streamed.threads = 1;
    in_cache.transpose_streaming_bytes = in_cache.copy_streaming_bytes = ~std::size_t{0};
    streamed.transpose_streaming_bytes = streamed.copy_streaming_bytes = 0;
    const dim_t chunk = edge_plan.chunk, valid = edge_plan.valid, dst_row = rows->dst_stride;
    const auto programs = [&](dim_t count, movement_program &in, movement_program &out) {
        in = plan_movement(make_copy_plan({count, block}, {block, 1}, 0, {1, chunk}, 0), bits, in_cache);
        out = plan_movement(make_copy_plan({valid, count}, {chunk, 1}, 0, {dst_row, 1}, 0), bits, streamed);
    };
    programs(chunk, edge_plan.whole, edge_plan.out_whole);
    if (edge_plan.positions % chunk > 0) {
        programs(edge_plan.positions % chunk, edge_plan.rest, edge_plan.out_rest);
        edge_plan.has_rest = true;
    }
    return edge_plan;
}

} // namespace

std::optional<padded_edge_plan> plan_padded_edge(data_type type, const padded_boxes &boxes, blocked_end blocked,
                                                 const machine_facts &machine) {
    const std::size_t bits = element_bits(type);
    if (type == data_type::string || bits < 8 || bits % 8 != 0 || boxes.copies.empty()) return std::nullopt;
    if (blocked == blocked_end::source)
        return boxes.padding.empty() ? plan_source_edge(bits, boxes.copies.back(), machine) : std::nullopt;
    if (boxes.padding.size() != 1) return std::nullopt;
    const strided_box &edge = boxes.copies.back(), &pad = boxes.padding[0];
    if (edge.dims.size() != pad.dims.size() || edge.dst_strides != pad.dst_strides) return std::nullopt;
    // The one dim where the valid part and the padding differ: the padded
    // block, contiguous in the destination, the padding right after it.
    std::size_t p = edge.dims.size();
    for (std::size_t d = 0; d < edge.dims.size(); ++d)
        if (edge.dims[d] != pad.dims[d]) {
            if (p != edge.dims.size()) return std::nullopt;
            p = d;
        }
    if (p == edge.dims.size() || edge.dst_strides[p] != 1 || pad.dst_offset != edge.dst_offset + edge.dims[p])
        return std::nullopt;
    const dim_t valid = edge.dims[p], block = edge.dims[p] + pad.dims[p];
    const auto e = static_cast<std::ptrdiff_t>(bits / 8);
    if (block * e > tile_bytes) return std::nullopt;
    // The rest as valid rows (destination stride 1), positions (source
    // stride 1, a block apart in the destination) and at most one outer dim.
    const copy_plan plan = make_copy_plan(edge.dims, edge.src_strides, edge.src_offset, edge.dst_strides,
                                          edge.dst_offset);
    const copy_dim *rows = nullptr, *cols = nullptr, *outer = nullptr;
    for (const copy_dim &d : plan.dims) {
        if (d.dst_stride == 1 && d.size == valid && !rows) rows = &d;
        else if (d.src_stride == 1 && d.dst_stride == block && !cols) cols = &d;
        else if (!outer) outer = &d;
        else return std::nullopt;
    }
    if (!rows || !cols) return std::nullopt;
    padded_edge_plan edge_plan = edge_frame(e, valid, block, *cols, outer, plan);
    edge_plan.src_row = rows->src_stride * e;
    // The chunks' transposes stream, as the step does (planned only then).
    machine_facts one = machine;
    one.threads = 1;
    one.transpose_streaming_bytes = 0;
    const auto chunk_program = [&](dim_t count) {
        return plan_movement(make_copy_plan({count, block}, {1, edge_plan.chunk}, 0, {block, 1}, 0), bits, one);
    };
    edge_plan.whole = chunk_program(edge_plan.chunk);
    const dim_t last = edge_plan.positions % edge_plan.chunk;
    if (last > 0) {
        edge_plan.rest = chunk_program(last);
        edge_plan.has_rest = true;
    }
    return edge_plan;
}

void run_padded_edge(const padded_edge_plan &plan, const void *src, void *dst) {
    const auto e = static_cast<std::ptrdiff_t>(plan.element_bytes);
    const std::ptrdiff_t pitch = plan.chunk * e;
    // The staged block.
    thread_local line_aligned_bytes staged;
    const auto bytes = static_cast<std::size_t>(plan.block * pitch);
    if (staged.size() < bytes) staged.resize(bytes);
    auto *buffer = staged.data();
    const auto *from = static_cast<const std::uint8_t *>(src) + plan.src_offset;
    auto *to = static_cast<std::uint8_t *>(dst) + plan.dst_offset;
    if (plan.blocked_source) {
        for (dim_t o = 0; o < plan.outer; ++o)
            for (dim_t k = 0; k < plan.positions; k += plan.chunk) {
                const bool whole = plan.positions - k >= plan.chunk;
                run_movement(whole ? plan.whole : plan.rest, from + o * plan.src_outer + k * plan.block * e, buffer);
                // The next chunk's source into L2 while this one streams out
                // (integer addresses: a prefetch never faults, past the
                // buffer's end too); one chunk ahead into L2 measured best.
                const auto next = reinterpret_cast<std::uintptr_t>(from + o * plan.src_outer) +
                                  static_cast<std::uintptr_t>((k + plan.chunk) * plan.block * e);
                for (std::uintptr_t line = 0; line < static_cast<std::uintptr_t>(plan.chunk * plan.block * e);
                     line += static_cast<std::uintptr_t>(tile_bytes))
                    __builtin_prefetch(reinterpret_cast<const void *>(next + line), 0, 2);
                run_movement(whole ? plan.out_whole : plan.out_rest, buffer, to + o * plan.dst_outer + k * e);
            }
        return;
    }
    // Into a padded destination: rows past the valid ones stay zero.
    std::memset(buffer + plan.valid * pitch, 0, static_cast<std::size_t>((plan.block - plan.valid) * pitch));
    for (dim_t o = 0; o < plan.outer; ++o)
        for (dim_t k = 0; k < plan.positions; k += plan.chunk) {
            const dim_t count = std::min(plan.chunk, plan.positions - k);
            const std::uint8_t *rows = from + o * plan.src_outer + k * e;
            for (dim_t r = 0; r < plan.valid; ++r)
                std::memcpy(buffer + r * pitch, rows + r * plan.src_row, static_cast<std::size_t>(count * e));
            run_movement(count == plan.chunk ? plan.whole : plan.rest, buffer,
                         to + o * plan.dst_outer + k * plan.block * e);
        }
}

} // namespace reshaper::impl
