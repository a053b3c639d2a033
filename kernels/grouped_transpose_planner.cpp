// The grouped transpose's planner (kernels/grouped_transpose.hpp): the
// blocks, the tables of a tile's runs, the outer walk and the level's
// kernels, made once per copy. Its executor is fast_path_grouped_transpose.cpp.
#include "kernels/grouped_transpose.hpp"

#include <algorithm>

namespace reshaper::impl {
namespace {

// Runs no longer than this are grown no further: a source run of 256
// bytes is four lines read back to back, a destination run of 512 bytes
// eight lines streamed in one go; longer runs leave fewer dims to the
// other block within the tile's buffer.
constexpr std::size_t max_source_run_bytes = 256;
constexpr std::size_t max_destination_run_bytes = 512;
// Large streamed moves whose destination runs grew to this or more (past
// their cap, to the tile floor) are planned again with source runs up to
// max_balanced_source_run_bytes (plan_grouped_transpose).
constexpr std::size_t min_unbalanced_destination_run_bytes = std::size_t{4} << 10;
constexpr std::size_t max_balanced_source_run_bytes = std::size_t{1} << 10;
// Tiles of large moves grow to at least this (docs/performance.md, "The
// grouped transpose's tile floor"): moves of at least
// large_grouped_move_bytes.
constexpr std::size_t min_grouped_tile_bytes = std::size_t{8} << 10;
constexpr std::size_t large_grouped_move_bytes = std::size_t{1} << 20;

// The next dim that extends a block dense in one tensor: the unused dim
// whose stride (source or destination) equals the block's volume.
int next_dense_dim(const copy_plan &plan, const std::vector<bool> &in_block, dim_t volume, bool source) {
    for (std::size_t d = plan.dims.size(); d-- > 0;) {
        if (in_block[d]) continue;
        if ((source ? plan.dims[d].src_stride : plan.dims[d].dst_stride) == volume) return static_cast<int>(d);
    }
    return -1;
}

// A dim of the tile for the micro blocks (dims of 4 and 8 split into 2s).
struct fine_dim {
    dim_t size;
    dim_t src, dst;          // element strides
    std::ptrdiff_t staged;   // bytes
};

// Visits every index over `dims` (mixed radix, the first innermost).
template <typename Visit>
void for_each_fine_index(const std::vector<fine_dim> &dims, Visit &&visit) {
    std::vector<dim_t> index(dims.size(), 0);
    for (;;) {
        visit(index);
        std::size_t k = 0;
        for (; k < dims.size(); ++k) {
            if (++index[k] < dims[k].size) break;
            index[k] = 0;
        }
        if (k == dims.size()) return;
    }
}

// A micro kernel's blocks in a tile: one at every index over the fine dims
// in neither `across` nor `along` (`e`-byte elements), the destination's
// innermost first, so that consecutive blocks complete the same
// destination lines.
void add_micro_blocks(grouped_transpose_plan &g, const std::vector<fine_dim> &fine,
                      const std::vector<std::size_t> &across, const std::vector<std::size_t> &along, dim_t e) {
    const auto in = [](const std::vector<std::size_t> &set, std::size_t k) {
        return std::find(set.begin(), set.end(), k) != set.end();
    };
    std::vector<fine_dim> rest;
    for (std::size_t k = 0; k < fine.size(); ++k)
        if (!in(across, k) && !in(along, k)) rest.push_back(fine[k]);
    std::stable_sort(rest.begin(), rest.end(), [](const fine_dim &x, const fine_dim &y) { return x.dst < y.dst; });
    for_each_fine_index(rest, [&](const std::vector<dim_t> &index) {
        std::ptrdiff_t from = 0, offset = 0, staged = 0;
        for (std::size_t k = 0; k < rest.size(); ++k) {
            from += index[k] * rest[k].src * e;
            offset += index[k] * rest[k].dst * e;
            staged += index[k] * rest[k].staged;
        }
        g.micro_block_source.push_back(from);
        g.micro_block_offset.push_back(offset);
        g.micro_block_staged.push_back(staged);
    });
}

// Shared lanes (the header's micro_swaps; the kernel is
// grouped_shared_lanes_avx2.cpp): `across` are the fine dims of the
// source's first `lanes` elements (source order), `along` the
// destination's. The lanes in the middle of a block hold the shared dims
// first (in the destination's order), then the source's other lane dims,
// which stage j swaps (position W - K + j) with register bit j, the
// destination's j-th other lane dim; the post permutation then puts the
// lanes in the destination's order. Sets the plan's micro fields where
// the level has a kernel for it and every lane dim is a dim of 2.
void plan_shared_lanes(grouped_transpose_plan &g, const std::vector<fine_dim> &fine, const std::vector<std::size_t> &across,
                       const std::vector<std::size_t> &along, dim_t lanes, cpu_isa isa) {
    const auto e = static_cast<dim_t>(g.element_bytes);
    int w = 0;
    while ((dim_t{1} << w) < lanes) ++w;
    if (static_cast<int>(across.size()) != w || static_cast<int>(along.size()) != w) return;
    for (std::size_t k : across)
        if (fine[k].size != 2) return;
    for (std::size_t k : along)
        if (fine[k].size != 2) return;
    const auto in = [](const std::vector<std::size_t> &set, std::size_t k) {
        return std::find(set.begin(), set.end(), k) != set.end();
    };
    std::vector<std::size_t> shared, source_only, destination_only;
    for (std::size_t k : along) (in(across, k) ? shared : destination_only).push_back(k);
    for (std::size_t k : across)
        if (!in(along, k)) source_only.push_back(k);
    const int swaps = static_cast<int>(source_only.size());
    if (swaps < 1 || swaps >= w) return;
    int log2e = 0;
    while ((dim_t{1} << log2e) < e) ++log2e;
    const micro_transpose_fn kernel = grouped_shared_lanes_kernel(isa, log2e, swaps);
    if (!kernel) return;
    // The middle order, lane position -> fine dim.
    std::vector<std::size_t> middle = shared;
    middle.insert(middle.end(), source_only.begin(), source_only.end());
    // Index vectors: output lane m takes input lane from[m]; 256-bit
    // vectors by 32-bit units, 128-bit ones by bytes.
    const std::size_t vector_bytes = static_cast<std::size_t>(lanes * e);
    const auto encode = [&](const std::vector<int> &from) {
        bool identity = true;
        for (std::size_t m = 0; m < from.size(); ++m) identity = identity && from[m] == static_cast<int>(m);
        std::vector<std::uint8_t> index;
        if (identity) return index;
        const std::size_t unit = vector_bytes == 32 ? 4 : 1;
        for (std::size_t b = 0; b < vector_bytes; b += unit) {
            const std::size_t lane = b / static_cast<std::size_t>(e), within = b % static_cast<std::size_t>(e);
            const std::size_t source_byte = static_cast<std::size_t>(from[lane]) * static_cast<std::size_t>(e) + within;
            const std::size_t value = source_byte / unit;
            for (std::size_t u = 0; u < unit; ++u) index.push_back(u == 0 ? static_cast<std::uint8_t>(value) : 0);
        }
        return index;
    };
    std::vector<int> pre(static_cast<std::size_t>(w)), post(static_cast<std::size_t>(w));
    for (int m = 0; m < w; ++m)
        pre[static_cast<std::size_t>(m)] = static_cast<int>(std::find(across.begin(), across.end(), middle[static_cast<std::size_t>(m)]) - across.begin());
    // After the swaps the middle lanes hold the shared dims, then the
    // destination's other lane dims.
    std::vector<std::size_t> after = shared;
    after.insert(after.end(), destination_only.begin(), destination_only.end());
    for (int i = 0; i < w; ++i)
        post[static_cast<std::size_t>(i)] = static_cast<int>(std::find(after.begin(), after.end(), along[static_cast<std::size_t>(i)]) - after.begin());
    // Lane bits to lane permutations (lane index = sum of bit i at 2^i).
    const auto lane_order = [&](const std::vector<int> &bit_from) {
        std::vector<int> from(static_cast<std::size_t>(lanes));
        for (int m = 0; m < lanes; ++m) {
            int source = 0;
            for (int i = 0; i < w; ++i)
                if (m >> i & 1) source |= 1 << bit_from[static_cast<std::size_t>(i)];
            from[static_cast<std::size_t>(m)] = source;
        }
        return from;
    };
    g.micro_lanes = lanes;
    g.micro_swaps = swaps;
    g.micro_kernel = kernel;
    g.micro_pre = encode(lane_order(pre));
    g.micro_post = encode(lane_order(post));
    const int registers = 1 << swaps;
    for (int r = 0; r < registers; ++r) {
        std::ptrdiff_t load = 0, store = 0, staged = 0;
        for (int j = 0; j < swaps; ++j) {
            if (!(r >> j & 1)) continue;
            load += fine[destination_only[static_cast<std::size_t>(j)]].src * e;
            store += fine[source_only[static_cast<std::size_t>(j)]].dst * e;
            staged += fine[source_only[static_cast<std::size_t>(j)]].staged;
        }
        g.micro_load.push_back(load);
        g.micro_store.push_back(store);
        g.micro_store_staged.push_back(staged);
    }
    add_micro_blocks(g, fine, across, along, e);
}

} // namespace

// The blocks of a grouped transpose (see the header), or nothing.
std::optional<grouped_blocks> choose_grouped_blocks(const copy_plan &plan, std::size_t element_bytes, bool streamed,
                                                    std::size_t max_source_run) {
    if (max_source_run == 0) max_source_run = max_source_run_bytes;
    if (plan.volume <= 1 || plan.dims.empty() || !(element_bytes == 1 || element_bytes == 2 || element_bytes == 4 ||
                                                   element_bytes == 8 || element_bytes == 16 || element_bytes == 32))
        return std::nullopt;
    for (const copy_dim &d : plan.dims)
        if (d.dst_stride <= 0 || d.src_stride < 0) return std::nullopt;
    const auto e = static_cast<dim_t>(element_bytes);
    const std::size_t n = plan.dims.size();
    grouped_blocks g;
    g.in_source.assign(n, false);
    g.in_destination.assign(n, false);
    // Grows a block by its next dense dim when the run and the tile stay
    // within their limits (`min_bytes`: grow whatever the tile, up to there).
    auto grow = [&](bool source, std::size_t max_run_bytes, std::size_t min_bytes,
                    std::size_t max_tile_bytes = max_grouped_tile_bytes) {
        auto &block = source ? g.in_source : g.in_destination;
        dim_t &run = source ? g.source_run : g.destination_run;
        const int d = next_dense_dim(plan, block, run, source);
        if (d < 0) return false;
        const dim_t size = plan.dims[static_cast<std::size_t>(d)].size;
        const bool shared = (source ? g.in_destination : g.in_source)[static_cast<std::size_t>(d)];
        const dim_t new_tile = shared ? g.tile : g.tile * size;
        const bool below_min = static_cast<std::size_t>(run * e) < min_bytes;
        if (!below_min && (static_cast<std::size_t>(run * size * e) > max_run_bytes ||
                           static_cast<std::size_t>(new_tile * e) > max_tile_bytes))
            return false;
        if (static_cast<std::size_t>(new_tile * e) > max_grouped_buffer_bytes) return false;
        block[static_cast<std::size_t>(d)] = true;
        (source ? g.source_block : g.destination_block).push_back(static_cast<std::size_t>(d));
        run *= size;
        g.tile = new_tile;
        return true;
    };
    while (static_cast<std::size_t>(g.destination_run * e) < min_grouped_run_bytes &&
           grow(false, max_destination_run_bytes, min_grouped_run_bytes)) {
    }
    while (static_cast<std::size_t>(g.source_run * e) < min_grouped_run_bytes &&
           grow(true, max_source_run, min_grouped_run_bytes)) {
    }
    // Both blocks must reach a line (or be the whole tensor).
    const bool destination_short = static_cast<std::size_t>(g.destination_run * e) < min_grouped_run_bytes &&
                                   g.destination_run != plan.volume;
    const bool source_short = static_cast<std::size_t>(g.source_run * e) < min_grouped_run_bytes &&
                              g.source_run != plan.volume;
    if (destination_short || source_short) return std::nullopt;
    // Then longer runs, the destination's first, while the tile fits.
    for (bool grew = true; grew;) {
        grew = grow(false, max_destination_run_bytes, 0);
        grew = grow(true, max_source_run, 0) || grew;
    }
    // Tiles still under min_grouped_tile_bytes in a large move: the
    // destination's runs grow past their cap (each tile costs its walk,
    // prefetch and calls; f32 rank 12 of 4s had 65536 tiles of 1 KiB).
    if (static_cast<std::size_t>(plan.volume * e) >= large_grouped_move_bytes) {
        while (static_cast<std::size_t>(g.tile * e) < min_grouped_tile_bytes && grow(false, max_grouped_tile_bytes, 0)) {
        }
        // Streamed: destination runs that end inside a line (dims of 3)
        // grow by their neighbours, up to a tile of
        // max_grouped_buffer_bytes, so that fewer lines are written in
        // parts (each part an ordinary store, its line read first). Moves
        // stored directly keep their short runs: the tile's lines then stay
        // in L1 beside the next tile's prefetched ones (docs/performance.md,
        // "The grouped transpose's destination prefetch").
        while (streamed && static_cast<std::size_t>(g.destination_run * e) % 64 != 0 &&
               grow(false, max_grouped_buffer_bytes, 0, max_grouped_buffer_bytes)) {
        }
    }
    return g;
}

std::optional<widened_copy> widen_shared_inner_dim(const copy_plan &plan, std::size_t element_bytes) {
    std::size_t shared = plan.dims.size();
    for (std::size_t d = 0; d < plan.dims.size(); ++d)
        if (plan.dims[d].src_stride == 1 && plan.dims[d].dst_stride == 1 && plan.dims[d].size > 1) shared = d;
    if (shared == plan.dims.size()) return std::nullopt;
    const dim_t size = plan.dims[shared].size;
    const std::size_t bytes = element_bytes * static_cast<std::size_t>(size);
    if (!(bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16 || bytes == 32)) return std::nullopt;
    if (plan.src_offset % size != 0 || plan.dst_offset % size != 0) return std::nullopt;
    widened_copy w;
    w.element_bytes = bytes;
    w.plan.volume = plan.volume / size;
    w.plan.src_offset = plan.src_offset / size;
    w.plan.dst_offset = plan.dst_offset / size;
    w.plan.dst_increasing = plan.dst_increasing;
    for (std::size_t d = 0; d < plan.dims.size(); ++d) {
        if (d == shared) continue;
        const copy_dim &c = plan.dims[d];
        if (c.src_stride % size != 0 || c.dst_stride % size != 0) return std::nullopt;
        copy_dim wide = c;
        wide.src_stride = c.src_stride / size;
        wide.dst_stride = c.dst_stride / size;
        w.plan.dims.push_back(wide);
    }
    if (w.plan.dims.empty()) w.plan.dims.push_back(copy_dim{1, 0, 0});
    return w;
}

copy_plan split_long_dims(const copy_plan &plan, std::size_t element_bytes) {
    // Blocks are made of small dims; a larger factor would not fit them anyway.
    constexpr dim_t max_peeled_factor = 16;
    const auto most = static_cast<dim_t>(max_grouped_buffer_bytes / std::max<std::size_t>(element_bytes, 1));
    copy_plan split = plan;
    split.dims.clear();
    for (const copy_dim &d : plan.dims) {
        // Factors peeled from the inside, innermost first.
        std::vector<dim_t> factors;
        dim_t rest = d.size, peeled = 1;
        while (peeled < most) {
            dim_t p = 2;
            while (p <= max_peeled_factor && p < rest && rest % p != 0) ++p;
            if (p > max_peeled_factor || p >= rest) break; // no small factor left (or rest prime): left whole
            factors.push_back(p);
            peeled *= p;
            rest /= p;
        }
        split.dims.push_back({rest, d.src_stride * peeled, d.dst_stride * peeled});
        for (std::size_t k = factors.size(); k-- > 0;) {
            peeled /= factors[k];
            split.dims.push_back({factors[k], d.src_stride * peeled, d.dst_stride * peeled});
        }
    }
    return split;
}

namespace {
// `blocks` (found on `plan`), or where their tiles stay under the floor in
// a large move because no run could grow by its whole next dim (bf16 rank
// 12 of 4s: a dim of 16 past 2 KiB tiles would make 32 KiB ones), the
// blocks of split_long_dims(plan), whose runs grow by part of that dim,
// where their tiles are larger (docs/performance.md, "High rank on the
// Zen 3 EPYC, hr6"). Streamed moves only: moves stored directly keep
// their short runs in small tiles, whose lines stay in L1 beside the next
// tile's (the destination prefetch; measured on an Intel Xeon).
grouped_blocks_choice with_tile_floor(const copy_plan &plan, std::size_t element_bytes, bool streamed,
                                      grouped_blocks blocks, std::size_t max_source_run) {
    if (streamed && static_cast<std::size_t>(plan.volume) * element_bytes >= large_grouped_move_bytes &&
        static_cast<std::size_t>(blocks.tile) * element_bytes < min_grouped_tile_bytes) {
        copy_plan split = split_long_dims(plan, element_bytes);
        if (split.dims.size() != plan.dims.size())
            if (std::optional<grouped_blocks> finer = choose_grouped_blocks(split, element_bytes, streamed, max_source_run);
                finer && finer->tile > blocks.tile)
                return {std::move(split), std::move(finer)};
    }
    return {plan, std::move(blocks)};
}
} // namespace

grouped_blocks_choice choose_grouped_blocks_or_split(const copy_plan &plan, std::size_t element_bytes, bool streamed,
                                                     std::size_t max_source_run) {
    if (std::optional<grouped_blocks> blocks = choose_grouped_blocks(plan, element_bytes, streamed, max_source_run))
        return with_tile_floor(plan, element_bytes, streamed, std::move(*blocks), max_source_run);
    copy_plan split = split_long_dims(plan, element_bytes);
    std::optional<grouped_blocks> blocks = choose_grouped_blocks(split, element_bytes, streamed, max_source_run);
    return {std::move(split), std::move(blocks)};
}

namespace {
// plan_grouped_transpose with source runs up to `max_source_run` bytes.
std::optional<grouped_transpose_plan> plan_with_source_cap(const copy_plan &given, std::size_t original_element_bytes,
                                                           cpu_isa isa, std::size_t streaming_bytes,
                                                           std::size_t max_source_run) {
    const bool streamed = static_cast<std::size_t>(given.volume) * original_element_bytes >= streaming_bytes;
    // Long dims split where the blocks cannot be made otherwise (as
    // grouped_transpose_pays decides); the blocks found on the chosen plan
    // are kept for it.
    const grouped_blocks_choice chosen = choose_grouped_blocks_or_split(given, original_element_bytes, streamed, max_source_run);
    const copy_plan &original = chosen.plan;
    // A dim innermost on both sides moves as part of a wider element
    // (docs/performance.md, "The grouped transpose's shared inner dim").
    const std::optional<widened_copy> widened = widen_shared_inner_dim(original, original_element_bytes);
    std::optional<grouped_blocks> blocks;
    grouped_blocks_choice wide_choice;
    if (widened)
        if (std::optional<grouped_blocks> b = choose_grouped_blocks(widened->plan, widened->element_bytes, streamed, max_source_run)) {
            wide_choice = with_tile_floor(widened->plan, widened->element_bytes, streamed, std::move(*b), max_source_run);
            blocks = wide_choice.blocks;
        }
    const bool wide = blocks.has_value();
    if (!wide) blocks = chosen.blocks;
    if (!blocks) return std::nullopt;
    const copy_plan &plan = wide ? wide_choice.plan : original;
    const std::size_t element_bytes = wide ? widened->element_bytes : original_element_bytes;
    const auto e = static_cast<dim_t>(element_bytes);
    const std::size_t n = plan.dims.size();
    grouped_transpose_plan g;
    g.element_bytes = element_bytes;
    g.source_block = blocks->source_block;
    g.destination_block = blocks->destination_block;
    g.source_run = blocks->source_run;
    g.destination_run = blocks->destination_run;
    g.tile = blocks->tile;
    const std::vector<bool> &in_source = blocks->in_source, &in_destination = blocks->in_destination;

    // Gather indices, in the buffer: (offset within the source run) +
    // source_run * (index over the destination block's dims outside the
    // source block, mixed radix innermost first). (Gathering from the
    // source itself, its lines prefetched a tile ahead into L1 or L2,
    // measured slower than copying the runs into a buffer first:
    // each gather then reaches up to 8 lines on as many pages.)
    std::vector<dim_t> buffer_weight(n, 0);
    std::vector<std::size_t> row_dims; // destination-block dims outside the source block
    dim_t rows = 1;
    for (std::size_t d : g.source_block) buffer_weight[d] = plan.dims[d].src_stride;
    for (std::size_t d : g.destination_block)
        if (!in_source[d]) {
            buffer_weight[d] = g.source_run * rows;
            rows *= plan.dims[d].size;
            row_dims.push_back(d);
        }
    std::vector<std::size_t> run_dims; // source-block dims outside the destination block
    for (std::size_t d : g.source_block)
        if (!in_destination[d]) run_dims.push_back(d);

    // Visits every index over `dims` (mixed radix, the first innermost).
    auto for_each_index = [&](const std::vector<std::size_t> &dims, auto &&visit) {
        std::vector<dim_t> index(dims.size(), 0);
        for (;;) {
            visit(index);
            std::size_t k = 0;
            for (; k < dims.size(); ++k) {
                if (++index[k] < plan.dims[dims[k]].size) break;
                index[k] = 0;
            }
            if (k == dims.size()) return;
        }
    };
    for_each_index(row_dims, [&](const std::vector<dim_t> &index) {
        std::ptrdiff_t offset = 0;
        for (std::size_t k = 0; k < row_dims.size(); ++k) offset += index[k] * plan.dims[row_dims[k]].src_stride * e;
        g.source_run_offset.push_back(offset);
    });
    for_each_index(run_dims, [&](const std::vector<dim_t> &index) {
        std::ptrdiff_t offset = 0;
        dim_t base = 0;
        for (std::size_t k = 0; k < run_dims.size(); ++k) {
            offset += index[k] * plan.dims[run_dims[k]].dst_stride * e;
            base += index[k] * buffer_weight[run_dims[k]];
        }
        g.destination_run_offset.push_back(offset);
        g.destination_run_base.push_back(static_cast<std::int32_t>(base));
    });
    // Destination-block dims innermost first: the run's elements in order.
    for_each_index(g.destination_block, [&](const std::vector<dim_t> &index) {
        dim_t at = 0;
        for (std::size_t k = 0; k < g.destination_block.size(); ++k) at += index[k] * buffer_weight[g.destination_block[k]];
        g.gather.push_back(static_cast<std::int32_t>(at));
    });

    // Micro blocks: the tile's elements whose source offsets within the
    // source run are below L (contiguous) against those whose destination
    // offsets within the run are, where those are different dims. Dims of
    // 4 and 8 are split into dims of 2 for this (a dim of 4 at stride s is
    // dims of 2 at strides s and 2s on both sides), so that dims of 4 make
    // blocks of 8 with a dim of 2, or with half of another dim of 4. The
    // micro kernels load their vectors from the source itself (L elements
    // contiguous there), so the tile needs no buffer.
    // Blocks of the widest vector first, then of half of it (4 x 4 f32,
    // 2 x 2 8-byte elements, in 128-bit vectors) where the widest blocks'
    // dims are shared.
    if (const dim_t widest = micro_lanes_for(element_bytes); widest > 0) {
        // Where each dim moves a destination element in the staged tile
        // (its runs back to back, run dims in the order of
        // destination_run_offset).
        std::vector<std::ptrdiff_t> staged_weight(n, 0);
        for (std::size_t d : g.destination_block) staged_weight[d] = plan.dims[d].dst_stride * e;
        std::ptrdiff_t run_weight = g.destination_run * e;
        for (std::size_t d : run_dims) {
            staged_weight[d] = run_weight;
            run_weight *= plan.dims[d].size;
        }
        std::vector<fine_dim> fine;
        for (std::size_t d = 0; d < n; ++d) {
            if (!in_source[d] && !in_destination[d]) continue;
            const copy_dim &c = plan.dims[d];
            if (c.size == 4 || c.size == 8) {
                for (dim_t step = 1; step < c.size; step *= 2)
                    fine.push_back({2, c.src_stride * step, c.dst_stride * step, staged_weight[d] * step});
            } else {
                fine.push_back({c.size, c.src_stride, c.dst_stride, staged_weight[d]});
            }
        }
        // The dims making the first L elements on one side, or nothing.
        auto inner_dims = [&](bool source, dim_t lanes) {
            std::vector<std::size_t> dims;
            dim_t volume = 1;
            while (volume < lanes) {
                std::size_t k = 0;
                while (k < fine.size() && (source ? fine[k].src : fine[k].dst) != volume) ++k;
                if (k == fine.size()) return std::vector<std::size_t>{};
                volume *= fine[k].size;
                dims.push_back(k);
            }
            return volume == lanes ? dims : std::vector<std::size_t>{};
        };
        for (const dim_t lanes : {widest, element_bytes >= 4 ? widest / 2 : dim_t{0}}) {
        if (lanes < 2 || g.micro_lanes > 0 || g.source_run % lanes != 0 || g.destination_run % lanes != 0) continue;
        const std::vector<std::size_t> across = inner_dims(true, lanes);
        std::vector<std::size_t> along = inner_dims(false, lanes);
        const auto in = [](const std::vector<std::size_t> &set, std::size_t k) {
            return std::find(set.begin(), set.end(), k) != set.end();
        };
        const auto disjoint_from_across = [&](const std::vector<std::size_t> &dims) {
            return std::none_of(across.begin(), across.end(), [&](std::size_t k) { return in(dims, k); });
        };
        if (!across.empty() && !along.empty() && disjoint_from_across(along)) {
            g.micro_lanes = lanes;
            // 2-byte elements: blocks of 2L along where the destination's
            // first 2L elements are other dims than the across ones too and
            // the level has the kernel (micro_along_lanes: each store a
            // 256-bit vector, half the stores).
            if (element_bytes == 2 && g.destination_run % (2 * lanes) == 0 &&
                grouped_micro_kernel(isa, 1, lanes, 2 * lanes)) {
                if (std::vector<std::size_t> longer = inner_dims(false, 2 * lanes);
                    !longer.empty() && disjoint_from_across(longer)) {
                    along = std::move(longer);
                    g.micro_along_lanes = 2 * lanes;
                }
            }
            std::vector<fine_dim> along_dims, across_dims;
            for (std::size_t k : along) along_dims.push_back(fine[k]);
            for (std::size_t k : across) across_dims.push_back(fine[k]);
            for_each_fine_index(along_dims, [&](const std::vector<dim_t> &index) {
                std::ptrdiff_t at = 0;
                for (std::size_t k = 0; k < along_dims.size(); ++k) at += index[k] * along_dims[k].src * e;
                g.micro_load.push_back(at);
            });
            for_each_fine_index(across_dims, [&](const std::vector<dim_t> &index) {
                std::ptrdiff_t at = 0, staged = 0;
                for (std::size_t k = 0; k < across_dims.size(); ++k) {
                    at += index[k] * across_dims[k].dst * e;
                    staged += index[k] * across_dims[k].staged;
                }
                g.micro_store.push_back(at);
                g.micro_store_staged.push_back(staged);
            });
            add_micro_blocks(g, fine, across, along, e);
        }
        }
        // Else shared lanes of the widest vectors (dims of 2 and 4; after
        // the half-width transposes, which the planner tests pin).
        if (g.micro_lanes == 0 && g.source_run % widest == 0 && g.destination_run % widest == 0) {
            const std::vector<std::size_t> across = inner_dims(true, widest), along = inner_dims(false, widest);
            if (!across.empty() && !along.empty()) plan_shared_lanes(g, fine, across, along, widest, isa);
        }
        // Else axes longer than L (see the header: dims of 3): one block
        // whole and the other's inner dims up to the first it holds, the
        // pair with the fewest L x L blocks per element (a dim shared by
        // both blocks then sits in the longer axis), each axis at least L
        // elements.
        if (g.micro_lanes == 0) {
            const auto volume = [&](const std::vector<std::size_t> &dims) {
                dim_t v = 1;
                for (std::size_t d : dims) v *= plan.dims[d].size;
                return v;
            };
            // The block's inner dims up to the first of `taken`.
            const auto prefix = [&](const std::vector<std::size_t> &block, const std::vector<std::size_t> &taken) {
                std::vector<std::size_t> dims;
                for (std::size_t d : block) {
                    if (std::find(taken.begin(), taken.end(), d) != taken.end()) break;
                    dims.push_back(d);
                }
                return dims;
            };
            // L-element steps covering `length` (the last one overlapping).
            const auto step_count = [](dim_t length, dim_t lanes) { return (length + lanes - 1) / lanes; };
            // The pair of blocks chosen so far, the width L it was tried at,
            // and its L x L blocks per element.
            std::vector<std::size_t> across, along;
            dim_t lanes = 0;
            double best = 0;
            // 1-byte elements whose axes stop short of 16 (a dim of 3 and
            // one of 3 or 4 before the first the other block holds) take
            // 8 x 8 blocks where the level has them: else every tile is
            // gathered byte by byte.
            const dim_t narrower = element_bytes == 1 && grouped_micro_kernel(isa, 0, 8) ? 8 : 0;
            for (const dim_t tried : {widest, narrower}) {
                if (tried == 0 || !across.empty()) continue;
                for (const bool whole_source : {true, false}) {
                    const std::vector<std::size_t> a = whole_source ? g.source_block : prefix(g.source_block, g.destination_block);
                    const std::vector<std::size_t> b = whole_source ? prefix(g.destination_block, a) : g.destination_block;
                    const dim_t la = volume(a), lb = volume(b);
                    if (la < tried || lb < tried) continue;
                    const double blocks_per_element =
                        static_cast<double>(step_count(la, tried) * step_count(lb, tried)) / static_cast<double>(la * lb);
                    if (across.empty() || blocks_per_element < best) {
                        across = a;
                        along = b;
                        lanes = tried;
                        best = blocks_per_element;
                    }
                }
            }
            const dim_t across_length = volume(across), along_length = volume(along);
            if (!across.empty()) {
                g.micro_lanes = lanes;
                // The steps of an axis: every `width` elements, the last
                // one ending at the axis' end.
                const auto steps = [&](dim_t length, dim_t width) {
                    std::vector<dim_t> at;
                    for (dim_t s = 0; s + width <= length; s += width) at.push_back(s);
                    if (at.back() + width < length) at.push_back(length - width);
                    return at;
                };
                // Along steps of 2L where the axis is that long and the
                // level has the kernel (2-byte elements: each store a
                // 256-bit vector; micro_along_lanes).
                int log2e = 0;
                while ((std::size_t{1} << log2e) < element_bytes) ++log2e;
                const bool wide = along_length >= 2 * lanes && grouped_micro_kernel(isa, log2e, lanes, 2 * lanes);
                g.micro_along_lanes = wide ? 2 * lanes : lanes;
                g.micro_along_steps = steps(along_length, g.micro_along_lanes);
                g.micro_across_steps = steps(across_length, lanes);
                for_each_index(along, [&](const std::vector<dim_t> &index) {
                    std::ptrdiff_t at = 0;
                    for (std::size_t k = 0; k < along.size(); ++k) at += index[k] * plan.dims[along[k]].src_stride * e;
                    g.micro_load.push_back(at);
                });
                for_each_index(across, [&](const std::vector<dim_t> &index) {
                    std::ptrdiff_t at = 0, staged = 0;
                    for (std::size_t k = 0; k < across.size(); ++k) {
                        at += index[k] * plan.dims[across[k]].dst_stride * e;
                        staged += index[k] * staged_weight[across[k]];
                    }
                    g.micro_store.push_back(at);
                    g.micro_store_staged.push_back(staged);
                });
                // The tile's other dims, the destination's innermost first
                // (as above).
                std::vector<std::size_t> rest;
                for (std::size_t d = 0; d < n; ++d)
                    if ((in_source[d] || in_destination[d]) && std::find(across.begin(), across.end(), d) == across.end() &&
                        std::find(along.begin(), along.end(), d) == along.end())
                        rest.push_back(d);
                std::stable_sort(rest.begin(), rest.end(),
                                 [&](std::size_t x, std::size_t y) { return plan.dims[x].dst_stride < plan.dims[y].dst_stride; });
                for_each_index(rest, [&](const std::vector<dim_t> &index) {
                    std::ptrdiff_t from = 0, offset = 0, staged = 0;
                    for (std::size_t k = 0; k < rest.size(); ++k) {
                        from += index[k] * plan.dims[rest[k]].src_stride * e;
                        offset += index[k] * plan.dims[rest[k]].dst_stride * e;
                        staged += index[k] * staged_weight[rest[k]];
                    }
                    g.micro_block_source.push_back(from);
                    g.micro_block_offset.push_back(offset);
                    g.micro_block_staged.push_back(staged);
                });
            }
        }
    }

    // The outer walk goes in the source's order (the smallest source
    // stride innermost), so that consecutive tiles read neighbouring
    // source memory: a tile's runs lie on many pages, and the next tile's
    // lie beside them.
    std::vector<std::size_t> outer_dims;
    for (std::size_t d = 0; d < n; ++d)
        if (!in_source[d] && !in_destination[d]) outer_dims.push_back(d);
    std::stable_sort(outer_dims.begin(), outer_dims.end(), [&](std::size_t a, std::size_t b) {
            return plan.dims[a].src_stride > plan.dims[b].src_stride;
        });
    // Destination runs that end inside a line (dims of 3): the dim that
    // continues them goes innermost, so that the next tile completes
    // their partial lines while those are still in the cache (else each
    // is read from memory, written, and read and written again by a tile
    // far along the walk). The source's next lines are then a few tiles
    // away, in L2.
    if (static_cast<std::size_t>(g.destination_run * e) % 64 != 0) {
        if (const int next = next_dense_dim(plan, in_destination, g.destination_run, false); next >= 0) {
            const auto at = std::find(outer_dims.begin(), outer_dims.end(), static_cast<std::size_t>(next));
            if (at != outer_dims.end()) std::rotate(at, at + 1, outer_dims.end());
        }
    }
    for (std::size_t d : outer_dims) g.outer.add(plan.dims[d], e);
    const auto destination_run_bytes = static_cast<std::ptrdiff_t>(g.destination_run * e);
    const auto staged_tile_bytes = static_cast<std::size_t>(g.tile * e);
    const std::size_t carry_offset = (staged_tile_bytes + 63) & ~std::size_t{63};
    const std::size_t carry_bytes = g.destination_run_offset.size() * 64; // a line per staged run
    if (destination_run_bytes % 64 != 0 && destination_run_bytes >= 64 && !g.outer.sizes.empty() &&
        g.outer.dst.back() == destination_run_bytes && carry_offset + carry_bytes <= grouped_task_buffer_bytes) {
        g.joined_tiles = static_cast<std::size_t>(g.outer.sizes.back());
        g.carry_offset = carry_offset;
    }
    g.src_offset = plan.src_offset * e;
    g.dst_offset = plan.dst_offset * e;
    g.stream = streamed;
    g.prefetch_destination = !streamed && static_cast<std::size_t>(plan.volume * e) >= large_grouped_move_bytes;
    // The level's kernels, chosen here once: the executor only calls them.
    g.isa = isa;
    int log2e = 0;
    while ((std::size_t{1} << log2e) < element_bytes) ++log2e;
    g.gather_kernel = grouped_gather_kernel(isa, log2e);
    if (g.micro_swaps == 0)
        g.micro_kernel = g.micro_lanes > 0 ? grouped_micro_kernel(isa, log2e, g.micro_lanes, g.micro_along_lanes) : nullptr;
#if defined(RESHAPER_X86_KERNELS)
    if (g.micro_kernel && isa >= cpu_isa::avx2) g.write_staged = avx2_grouped_write_staged();
#endif
    g.schedule = schedule_grouped_tiles(g);
    return g;
}
} // namespace

std::optional<grouped_transpose_plan> plan_grouped_transpose(const copy_plan &given, std::size_t element_bytes,
                                                             cpu_isa isa, std::size_t streaming_bytes) {
    std::optional<grouped_transpose_plan> g = plan_with_source_cap(given, element_bytes, isa, streaming_bytes, 0);
    // Large streamed moves whose tiles reached their size through long
    // destination runs alone (the tile floor grew them past their cap)
    // read a tile from many short source runs (the bench's f32 rank 12 of
    // 4s: 64 runs of 256 bytes into four of 4 KiB; u8 rank 12 of 4s as
    // 4-byte elements: 256 runs of one line): the plan with source runs up
    // to max_balanced_source_run_bytes instead where its tiles are no
    // smaller, read fewer source runs each and keep the micro blocks
    // (docs/performance.md, "High rank, highrank8"). Shorter destination
    // runs stay as they are: longer source runs measured slower there.
    const auto bytes = [](const grouped_transpose_plan &p, dim_t elements) {
        return static_cast<std::size_t>(elements) * p.element_bytes;
    };
    if (!g || !g->stream || static_cast<std::size_t>(given.volume) * element_bytes < large_grouped_move_bytes ||
        bytes(*g, g->destination_run) < min_unbalanced_destination_run_bytes ||
        bytes(*g, g->source_run) >= max_balanced_source_run_bytes)
        return g;
    std::optional<grouped_transpose_plan> balanced =
        plan_with_source_cap(given, element_bytes, isa, streaming_bytes, max_balanced_source_run_bytes);
    if (balanced && (balanced->micro_kernel || !g->micro_kernel) && bytes(*balanced, balanced->tile) >= bytes(*g, g->tile) &&
        balanced->tile / balanced->source_run < g->tile / g->source_run)
        return balanced;
    return g;
}

bool grouped_transpose_pays(const copy_plan &plan, std::size_t element_bytes, dim_t transpose_rows,
                            dim_t transpose_columns) {
    const auto line = static_cast<dim_t>(min_grouped_run_bytes);
    const auto e = static_cast<dim_t>(element_bytes);
    // High-rank plans (many small dims left after coalescing) whose
    // transposed sides reach a line only through a coalesced dim (a dim of
    // 16 or 9 where two dims kept their order): the tiled and window
    // transposes' tiles stay mostly empty there up to a few lines, where
    // the grouped transpose fills its blocks (docs/performance.md, "High
    // rank, highrank5").
    const dim_t reach = plan.dims.size() >= min_high_rank_dims ? max_high_rank_side_lines * line : line;
    if (transpose_rows * e >= reach || transpose_columns * e >= reach) return false;
    // Below a page the plan's tables cost more than the element walk saves.
    if (plan.volume * e < static_cast<dim_t>(min_grouped_bytes)) return false;
    // Whether blocks exist does not depend on streaming (only how far runs grow).
    return choose_grouped_blocks_or_split(plan, element_bytes, false).blocks.has_value();
}

} // namespace reshaper::impl
