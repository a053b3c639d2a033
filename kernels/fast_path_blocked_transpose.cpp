// The blocked transpose's planner and executor (kernels/blocked_transpose.hpp).
#include <algorithm>

#include "kernels/blocked_transpose.hpp"
#include "kernels/movement_units.hpp"

namespace reshaper::impl {
namespace {

// Outer dims inside a column are few (ABcd16a16b's a: 16); their offsets
// are tabled at plan time up to this many positions.
constexpr std::size_t max_inner_positions = 4096;

void sort_by_source_stride(std::vector<copy_dim> &dims) {
    std::stable_sort(dims.begin(), dims.end(),
                     [](const copy_dim &a, const copy_dim &b) { return a.src_stride > b.src_stride; });
}

// The bytes of a unit's source when its dims (given innermost-last or in
// any order) tile a dense block, else 0.
std::size_t dense_bytes_of(std::vector<copy_dim> dims, std::ptrdiff_t e) {
    std::sort(dims.begin(), dims.end(), [](const copy_dim &a, const copy_dim &b) { return a.src_stride < b.src_stride; });
    dim_t extent = 1;
    for (const copy_dim &d : dims) {
        if (d.size == 1) continue;
        if (d.src_stride != extent) return 0;
        extent *= d.size;
    }
    return static_cast<std::size_t>(extent * e);
}

} // namespace

std::optional<blocked_transpose_program> plan_blocked_transpose(const copy_plan &plan, std::size_t element_bytes,
                                                                const isa_kernels &kernels) {
    if (!has_element_size_class(element_bytes) || plan.dims.size() < 2) return std::nullopt;
    const auto e = static_cast<std::ptrdiff_t>(element_bytes);
    const dim_t t = tile_bytes / e;
    const copy_dim &cols = plan.dims.back();
    int k = -1;
    for (std::size_t d = 0; d + 1 < plan.dims.size(); ++d)
        if (plan.dims[d].src_stride == 1) k = static_cast<int>(d);
    if (k < 0 || cols.dst_stride != 1) return std::nullopt;
    const copy_dim &rows = plan.dims[static_cast<std::size_t>(k)];
    // Whole tiles both ways, one side a single tile (a blocked inner block).
    if (rows.size % t != 0 || cols.size % t != 0 || (rows.size != t && cols.size != t)) return std::nullopt;
    std::vector<copy_dim> outer, inner;
    bool dest_order_reads_in_order = true;
    dim_t last_src = -1;
    for (std::size_t d = 0; d + 1 < plan.dims.size(); ++d) {
        if (static_cast<int>(d) == k) continue;
        const copy_dim &dim = plan.dims[d];
        if (dim.size == 1) continue;
        if (dim.src_stride < cols.src_stride) {
            inner.push_back(dim);
            dest_order_reads_in_order = false;
        } else {
            outer.push_back(dim);
            if (last_src >= 0 && dim.src_stride > last_src) dest_order_reads_in_order = false;
            last_src = dim.src_stride;
        }
    }
    if (dest_order_reads_in_order) return std::nullopt; // the tiled transpose's walk reads in order already
    // One tile of columns that an outer dim continues in the destination
    // (abcd -> ABcd16a16b: `a` after `b` in each destination row): that dim
    // becomes the columns' tiles, so a unit's tiles write neighbouring
    // lines of each destination row.
    dim_t col_tiles = cols.size / t;
    std::ptrdiff_t tile_src_col = t * cols.src_stride * e;
    bool into_blocks = false;
    if (cols.size == t)
        for (auto d = outer.begin(); d != outer.end(); ++d)
            if (d->dst_stride == t) {
                col_tiles = d->size;
                tile_src_col = d->src_stride * e;
                outer.erase(d);
                into_blocks = true;
                break;
            }
    sort_by_source_stride(outer);
    sort_by_source_stride(inner);
    blocked_transpose_program b;
    for (const copy_dim &d : outer) b.outer.add(d, e);
    for (const copy_dim &d : inner) b.inner.add(d, e);
    if (b.inner.volume > max_inner_positions) return std::nullopt;
    b.tile = kernels.tile[element_size_class(element_bytes)];
    b.e = e;
    b.t = t;
    b.row_tiles = rows.size / t;
    b.col_tiles = col_tiles;
    b.tile_src_col = tile_src_col;
    b.src_pitch = cols.src_stride * e;
    b.dst_pitch = rows.dst_stride * e;
    b.step_tiles = std::min<dim_t>(b.col_tiles, into_blocks ? kernels.blocked_columns.into_blocks
                                                            : kernels.blocked_columns.out_of_blocks);
    std::vector<copy_dim> unit = inner;
    unit.push_back(rows);
    unit.push_back(copy_dim{t, cols.src_stride, cols.dst_stride});
    b.tile_src_bytes = dense_bytes_of(unit, e);
    b.prefetch_locality =
        kernels.walk[streamed_row_reach(b.dst_pitch)][element_size_class(element_bytes)].prefetch_locality;
    b.aligned_lines = b.dst_pitch % tile_bytes == 0;
    for (const std::ptrdiff_t s : b.outer.dst) b.aligned_lines = b.aligned_lines && s % tile_bytes == 0;
    for (const std::ptrdiff_t s : b.inner.dst) b.aligned_lines = b.aligned_lines && s % tile_bytes == 0;
    return b;
}

namespace {
template <int Locality>
void run_blocked(const movement_program &p, const blocked_transpose_program &b, const byte *src, byte *dst) {
    const bool stream =
        p.stream && b.aligned_lines && reinterpret_cast<std::uintptr_t>(dst) % static_cast<std::uintptr_t>(tile_bytes) == 0;
    // The inner dims' positions, in the source's order.
    std::vector<std::ptrdiff_t> inner_src, inner_dst;
    inner_src.reserve(b.inner.volume);
    inner_dst.reserve(b.inner.volume);
    {
        outer_walk in(b.inner, 0);
        for (std::size_t i = 0; i < b.inner.volume; ++i, in.next()) {
            inner_src.push_back(in.src());
            inner_dst.push_back(in.dst());
        }
    }
    const auto steps = static_cast<std::size_t>((b.col_tiles + b.step_tiles - 1) / b.step_tiles);
    const std::ptrdiff_t step_src = b.step_tiles * b.tile_src_col, step_dst = b.step_tiles * b.t * b.e;
    const std::ptrdiff_t tile_src_col = b.tile_src_col, tile_dst_row = b.t * b.dst_pitch, tile_side = b.t * b.e;
    for_units(p.split, p.stream, [&](std::size_t begin, std::size_t end) {
        outer_walk at(b.outer, begin / steps), ahead(b.outer, begin / steps);
        std::size_t step = begin % steps;
        if (step + 1 == steps) ahead.next();
        for (std::size_t u = begin; u < end; ++u) {
            const byte *from = src + at.src() + static_cast<std::ptrdiff_t>(step) * step_src;
            byte *to = dst + at.dst() + static_cast<std::ptrdiff_t>(step) * step_dst;
            const dim_t cols = std::min<dim_t>(b.step_tiles, b.col_tiles - static_cast<dim_t>(step) * b.step_tiles);
            const dim_t calls = cols * b.row_tiles * static_cast<dim_t>(b.inner.volume);
            // The next unit's source, a share per tile (none after the last).
            line_prefetch next{};
            int per_call = 0;
            if (b.tile_src_bytes > 0 && u + 1 < end) {
                const std::size_t next_step = step + 1 == steps ? 0 : step + 1;
                // Integer addresses: prefetches never fault (line_prefetch).
                const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(src) +
                                             static_cast<std::uintptr_t>(ahead.src() +
                                                                         static_cast<std::ptrdiff_t>(next_step) * step_src);
                // Each of its column tiles' source: a dense block, tile_src_col apart.
                const std::uintptr_t line = first / tile_bytes * tile_bytes;
                const auto row_lines =
                    static_cast<std::ptrdiff_t>((first + b.tile_src_bytes - line + tile_bytes - 1) / tile_bytes);
                const dim_t next_cols =
                    std::min<dim_t>(b.step_tiles, b.col_tiles - static_cast<dim_t>(next_step) * b.step_tiles);
                next = line_prefetch{line, b.tile_src_col, row_lines, next_cols, 0, 0};
                per_call = static_cast<int>((row_lines * next_cols + calls - 1) / calls);
            }
            for (std::size_t i = 0; i < inner_src.size(); ++i)
                for (dim_t r = 0; r < b.row_tiles; ++r)
                    for (dim_t c = 0; c < cols; ++c) {
                        if (per_call > 0) next.issue<Locality>(per_call);
                        b.tile(from + c * tile_src_col + inner_src[i] + r * tile_side, b.src_pitch,
                               to + c * tile_side + inner_dst[i] + r * tile_dst_row, b.dst_pitch, stream);
                    }
            if (++step == steps) {
                step = 0;
                at.next();
            }
            if (step + 1 == steps) ahead.next();
        }
    });
}

} // namespace

void run_blocked_transpose(const movement_program &p, const blocked_transpose_program &b, const byte *src,
                           byte *dst) {
    switch (b.prefetch_locality) {
    case 0: run_blocked<0>(p, b, src, dst); return;
    case 1: run_blocked<1>(p, b, src, dst); return;
    case 2: run_blocked<2>(p, b, src, dst); return;
    default: run_blocked<3>(p, b, src, dst); return;
    }
}

} // namespace reshaper::impl
