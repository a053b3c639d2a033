// Run grids: short runs in the caches copied two dims at a time. The calls
// of a run copy go along one outer dim (`along`); a grid also takes, at
// each step of it, the runs across a second, short one (`across`: the
// attention heads), so that one tensor is walked in its own order while a
// call still covers many runs (docs/performance.md, "Why the kernels are
// tuned as they are").
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_isa.hpp"

namespace reshaper::impl {

// Copies along_count x across_count runs of run_bytes: the run at (i, j)
// from src + i * src_along + j * src_across to dst + i * dst_along +
// j * dst_across, i outer, j inner. Ordinary stores; runs do not overlap.
using run_grid_fn = void (*)(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                             const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                             std::size_t run_bytes, std::size_t along_count, std::size_t across_count);

// The grid kernel of `isa` (the AVX2 level's, which the AVX-512 one
// calls for all but one-vector runs; the scalar level copies each run with
// memcpy).
run_grid_fn run_grid_kernel(cpu_isa isa);

void copy_run_grid_scalar(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                          const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                          std::size_t run_bytes, std::size_t along_count, std::size_t across_count);
#if defined(RESHAPER_X86_KERNELS)
void copy_run_grid_avx2(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                        const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                        std::size_t run_bytes, std::size_t along_count, std::size_t across_count);
void copy_run_grid_avx512(std::uint8_t *dst, std::ptrdiff_t dst_along, std::ptrdiff_t dst_across,
                          const std::uint8_t *src, std::ptrdiff_t src_along, std::ptrdiff_t src_across,
                          std::size_t run_bytes, std::size_t along_count, std::size_t across_count);
#endif

} // namespace reshaper::impl
