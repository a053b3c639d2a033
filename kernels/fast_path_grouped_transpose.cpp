// The grouped transpose's executor (kernels/grouped_transpose.hpp): runs a
// plan made by plan_grouped_transpose (grouped_transpose_planner.cpp), and
// the portable level's gather kernel.
#include "kernels/grouped_transpose.hpp"

#include <algorithm>
#include <cstring>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "kernels/isa_kernels.hpp"
#include "kernels/movement_program.hpp"
#include "kernels/movement_units.hpp"

namespace reshaper::impl {
namespace {

// The next tile's source lines go to every cache level (docs/performance.md).
constexpr int prefetch_level = 3;

// The portable level: one element at a time, through memcpy of a
// constant size (plain loads and stores).
template <std::size_t N>
void gather_runs_portable(const byte *buffer, const std::int32_t *gather, dim_t run, const std::int32_t *run_base,
                          const std::ptrdiff_t *run_offset, dim_t runs, byte *dst, bool /*stream*/) {
    for (dim_t r = 0; r < runs; ++r) {
        const byte *base = buffer + static_cast<std::ptrdiff_t>(run_base[r]) * static_cast<std::ptrdiff_t>(N);
        byte *to = dst + run_offset[r];
        for (dim_t j = 0; j < run; ++j)
            std::memcpy(to + j * static_cast<dim_t>(N), base + static_cast<std::ptrdiff_t>(gather[j]) * static_cast<std::ptrdiff_t>(N), N);
    }
}

// A tile's source runs into the buffer, back to back. Runs of one to four
// lines (the usual ones) take a copy of constant size.
template <std::size_t Bytes>
void read_fixed_runs(const byte *src, const std::ptrdiff_t *offset, std::size_t count, byte *buffer) {
    for (std::size_t i = 0; i < count; ++i) std::memcpy(buffer + i * Bytes, src + offset[i], Bytes);
}

void read_runs(const byte *src, const std::ptrdiff_t *offset, std::size_t count, std::size_t bytes, byte *buffer) {
    switch (bytes) {
    case 64: return read_fixed_runs<64>(src, offset, count, buffer);
    case 128: return read_fixed_runs<128>(src, offset, count, buffer);
    case 256: return read_fixed_runs<256>(src, offset, count, buffer);
    }
    for (std::size_t i = 0; i < count; ++i) std::memcpy(buffer + i * bytes, src + offset[i], bytes);
}
} // namespace

micro_transpose_fn grouped_micro_kernel(cpu_isa isa, int log2e, dim_t lanes, dim_t along_lanes) {
    if (along_lanes == 0) along_lanes = lanes;
#if defined(RESHAPER_X86_KERNELS)
    if (isa >= cpu_isa::avx2) return avx2_grouped_micro_kernel(log2e, lanes, along_lanes);
#else
    (void)isa;
#endif
    (void)log2e;
    (void)lanes;
    (void)along_lanes;
    return nullptr;
}

micro_transpose_fn grouped_shared_lanes_kernel(cpu_isa isa, int log2e, int swaps) {
#if defined(RESHAPER_X86_KERNELS)
    if (isa >= cpu_isa::avx2) return avx2_grouped_shared_lanes_kernel(log2e, swaps);
#else
    (void)isa;
#endif
    (void)log2e;
    (void)swaps;
    return nullptr;
}

gather_runs_fn grouped_gather_kernel(cpu_isa isa, int log2e) {
#if defined(RESHAPER_X86_KERNELS)
    if (isa >= cpu_isa::avx2)
        if (gather_runs_fn f = avx2_grouped_gather_kernel(log2e)) return f;
#else
    (void)isa;
#endif
    switch (log2e) {
    case 0: return &gather_runs_portable<1>;
    case 1: return &gather_runs_portable<2>;
    case 2: return &gather_runs_portable<4>;
    case 3: return &gather_runs_portable<8>;
    case 4: return &gather_runs_portable<16>;
    case 5: return &gather_runs_portable<32>;
    }
    return nullptr;
}

grouped_tile_schedule schedule_grouped_tiles(const grouped_transpose_plan &g) {
    grouped_tile_schedule s;
    const std::size_t source_runs = g.source_run_offset.size();
    s.prefetch_lines_per_run = (static_cast<std::size_t>(g.source_run) * g.element_bytes + 63) / 64 + 1;
    const std::size_t lines = source_runs * s.prefetch_lines_per_run;
    // Half the lines go among each stage's slices.
    s.slices = std::max(min_grouped_tile_slices, (lines + 2 * max_prefetch_burst_lines - 1) / (2 * max_prefetch_burst_lines));
    s.units = g.micro_kernel ? static_cast<dim_t>(g.micro_block_source.size() * g.micro_along_steps.size())
                             : static_cast<dim_t>(g.destination_run_offset.size());
    const dim_t unit_slices = std::max<dim_t>(1, std::min<dim_t>(s.units, static_cast<dim_t>(s.slices)));
    s.units_per_slice = std::max<dim_t>(1, (s.units + unit_slices - 1) / unit_slices);
    // The slices made (fewer than asked where they do not divide: 11 units
    // make 6 slices of 2).
    const auto slices_made = std::max<std::size_t>(1, static_cast<std::size_t>((s.units + s.units_per_slice - 1) / s.units_per_slice));
    s.staged_writer = g.micro_kernel && g.stream && g.write_staged;
    const std::size_t staged_runs = g.destination_run_offset.size();
    const bool staged_sliced = s.staged_writer && staged_runs >= min_sliced_staged_runs;
    const std::size_t staged_count = std::min(staged_runs, s.slices);
    s.staged_per_slice = staged_sliced ? (staged_runs + staged_count - 1) / staged_count : std::max<std::size_t>(staged_runs, 1);
    const std::size_t staged_slices = (staged_runs + s.staged_per_slice - 1) / s.staged_per_slice;
    const std::size_t runs_ahead_in_units = staged_sliced ? source_runs / 2 : source_runs;
    s.runs_ahead_per_slice = (runs_ahead_in_units + slices_made - 1) / slices_made;
    s.runs_ahead_per_staged_slice =
        staged_slices == 0 ? 0 : (source_runs - runs_ahead_in_units + staged_slices - 1) / staged_slices;
    return s;
}

void run_grouped_transpose(const grouped_transpose_plan &g, const void *src, void *dst) {
    const gather_runs_fn gather = g.gather_kernel;
    const micro_transpose_fn micro = g.micro_kernel;
    const auto *from = static_cast<const byte *>(src) + g.src_offset;
    auto *to = static_cast<byte *>(dst) + g.dst_offset;
    const std::size_t tile_bytes_total = static_cast<std::size_t>(g.tile) * g.element_bytes;
    const std::size_t run_bytes = static_cast<std::size_t>(g.source_run) * g.element_bytes;
    const std::size_t destination_run_bytes = static_cast<std::size_t>(g.destination_run) * g.element_bytes;
    const isa_kernels &k = kernels_for(g.isa);
    // Tiles [begin, end) of the outer walk.
    auto move_tiles = [&](std::size_t begin, std::size_t end) {
        // The tile's buffer, with room for the gathers' overreach or the
        // joined tiles' carry, and 64 bytes before it that the staged
        // writer may read (write_staged_fn), zeroed so that no byte read is
        // indeterminate.
        alignas(64) byte storage[grouped_task_buffer_bytes + 64];
        std::memset(storage, 0, 64);
        byte *const buffer = storage + 64;
        outer_walk walk(g.outer, begin);
        // The next tile's source lines are prefetched while this tile's
        // destination runs are written, a share per slice of units, so its
        // reads come from the cache (docs/performance.md, "The grouped
        // transpose's prefetch").
        const std::size_t source_runs = g.source_run_offset.size();
        // Units of the second stage: micro blocks at each along step (the
        // step outer), else destination runs.
        const auto blocks = static_cast<dim_t>(g.micro_block_source.size());
        const std::ptrdiff_t *store = g.stream ? g.micro_store_staged.data() : g.micro_store.data();
        const std::ptrdiff_t *block_offset = g.stream ? g.micro_block_staged.data() : g.micro_block_offset.data();
        const auto across_steps = static_cast<dim_t>(g.micro_across_steps.size());
        const auto e = static_cast<dim_t>(g.element_bytes);
        const byte *pre = g.micro_pre.empty() ? nullptr : g.micro_pre.data();
        const byte *post = g.micro_post.empty() ? nullptr : g.micro_post.data();
        // Micro units [u, end): blocks of one along step per call.
        auto micro_units = [&](dim_t u, dim_t end, const byte *tile_src, byte *tile_dst) {
            while (u < end) {
                const dim_t step = u / blocks, first = u % blocks, count = std::min(end - u, blocks - first);
                const dim_t along = g.micro_along_steps[static_cast<std::size_t>(step)];
                micro(tile_src, g.micro_load.data() + along, store, g.micro_block_source.data() + first,
                      block_offset + first, count, g.micro_across_steps.data(), across_steps, tile_dst + along * e,
                      false, pre, post);
                u += count;
            }
        };
        // The slices and prefetch shares (made with the plan).
        const grouped_tile_schedule &schedule = g.schedule;
        const std::size_t run_lines = schedule.prefetch_lines_per_run;
        const dim_t units = schedule.units, units_per_slice = schedule.units_per_slice;
        const std::size_t runs_ahead_per_slice = schedule.runs_ahead_per_slice;
        const bool staged_writer = schedule.staged_writer;
        const std::size_t staged_runs = g.destination_run_offset.size();
        const std::size_t staged_per_slice = schedule.staged_per_slice;
        const std::size_t runs_ahead_per_staged_slice = schedule.runs_ahead_per_staged_slice;
        // Each staged run's partial last line, kept for the next tile of
        // a joined walk (the plan's joined_tiles) in the buffer, past the
        // staged tile (carry_offset): no allocation per task.
        const std::size_t joined = staged_writer ? g.joined_tiles : 0;
        byte *const carry = joined > 1 ? buffer + g.carry_offset : nullptr;
        // Large moves stored directly (the plan's prefetch_destination):
        // the next tile's destination runs are prefetched too, a share
        // before each slice of units, so that the stores find their lines
        // in the cache instead of each waiting for its line to be read
        // (docs/performance.md, "The grouped transpose's destination
        // prefetch").
        const std::size_t destination_runs = g.destination_run_offset.size();
        const std::size_t unit_slices = static_cast<std::size_t>((units + units_per_slice - 1) / units_per_slice);
        const std::size_t destination_runs_per_slice =
            g.prefetch_destination ? (destination_runs + unit_slices - 1) / std::max<std::size_t>(1, unit_slices) : 0;
        for (std::size_t t = begin; t < end; ++t) {
            const std::ptrdiff_t here_src = walk.src(), here_dst = walk.dst();
            walk.next();
            if (!micro) read_runs(from + here_src, g.source_run_offset.data(), source_runs, run_bytes, buffer);
            const bool ahead = t + 1 < end;
            // Integer addresses: a prefetch never faults, but a pointer
            // formed past the tensor would be undefined.
            const auto next = reinterpret_cast<std::uintptr_t>(from) + static_cast<std::uintptr_t>(walk.src());
            std::size_t prefetched = 0;
            // The next `count` runs of the next tile's source.
            auto prefetch_ahead = [&](std::size_t count) {
                if (!ahead) return;
                for (std::size_t i = 0; i < count && prefetched < source_runs; ++i, ++prefetched) {
                    const std::uintptr_t first = (next + static_cast<std::uintptr_t>(g.source_run_offset[prefetched])) & ~std::uintptr_t{63};
                    for (std::size_t l = 0; l < run_lines; ++l)
                        __builtin_prefetch(reinterpret_cast<const void *>(first + l * 64), 0, prefetch_level);
                }
            };
            const auto next_dst = reinterpret_cast<std::uintptr_t>(to) + static_cast<std::uintptr_t>(walk.dst());
            std::size_t destination_prefetched = 0;
            // The next `count` runs of the next tile's destination, every
            // line they touch.
            auto prefetch_destination_ahead = [&](std::size_t count) {
                if (!ahead) return;
                for (std::size_t i = 0; i < count && destination_prefetched < destination_runs; ++i, ++destination_prefetched) {
                    const std::uintptr_t at = next_dst + static_cast<std::uintptr_t>(g.destination_run_offset[destination_prefetched]);
                    const std::uintptr_t last = (at + destination_run_bytes - 1) & ~std::uintptr_t{63};
                    for (std::uintptr_t line = at & ~std::uintptr_t{63}; line <= last; line += 64)
                        __builtin_prefetch(reinterpret_cast<const void *>(line), 1, prefetch_level);
                }
            };
            for (dim_t r = 0; r < units; r += units_per_slice) {
                prefetch_destination_ahead(destination_runs_per_slice);
                if (micro)
                    micro_units(r, std::min(r + units_per_slice, units), from + here_src, g.stream ? buffer : to + here_dst);
                else
                    gather(buffer, g.gather.data(), g.destination_run, g.destination_run_base.data() + r,
                           g.destination_run_offset.data() + r, std::min(units_per_slice, units - r), to + here_dst,
                           g.stream);
                prefetch_ahead(runs_ahead_per_slice);
            }
            if (staged_writer) {
                // The walk's innermost index is t's remainder by its size:
                // tiles join the one before and after along it, within
                // this range of tiles.
                const std::size_t along_join = joined > 1 ? t % joined : 0;
                const bool head_joined = joined > 1 && along_join > 0 && t > begin;
                const bool tail_joined = joined > 1 && along_join + 1 < joined && ahead;
                for (std::size_t r = 0; r < staged_runs; r += staged_per_slice) {
                    g.write_staged(buffer + r * destination_run_bytes, destination_run_bytes,
                                   g.destination_run_offset.data() + r, std::min(staged_per_slice, staged_runs - r),
                                   to + here_dst, carry ? carry + r * 64 : nullptr, head_joined,
                                   tail_joined);
                    prefetch_ahead(runs_ahead_per_staged_slice);
                }
            } else if (micro && g.stream) {
                for (std::size_t r = 0; r < g.destination_run_offset.size(); ++r)
                    k.copy(to + here_dst + g.destination_run_offset[r], buffer + r * destination_run_bytes,
                           destination_run_bytes, true);
            }
        }
        if (g.stream) store_fence();
    };
    const std::size_t total = g.outer.volume * tile_bytes_total;
    if (total < parallel_threshold_bytes || g.outer.volume == 1 || oneapi::tbb::this_task_arena::max_concurrency() == 1) {
        move_tiles(0, g.outer.volume);
        return;
    }
    const std::size_t grain = std::max<std::size_t>(1, parallel_task_bytes / tile_bytes_total);
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, g.outer.volume, grain),
                              [&](const oneapi::tbb::blocked_range<std::size_t> &r) { move_tiles(r.begin(), r.end()); });
}

} // namespace reshaper::impl
