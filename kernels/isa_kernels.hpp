// The per-SIMD-level building blocks of the data-movement engine: a
// register-tile transpose per element size and a (streaming) run copy.
// One table per level; `transpose_engine` composes them into whole moves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_isa.hpp"

namespace reshaper::impl {

// Rows of every tile are one cache line: a tile of elements of E bytes is
// T x T elements with T = tile_bytes / E.
inline constexpr std::ptrdiff_t tile_bytes = 64;

// Transposes one whole tile: source row r (T elements) starts at
// src + r * src_pitch; destination row c receives element c of every
// source row, in order, at dst + c * dst_pitch. With `stream` the rows are
// written with non-temporal stores; the caller then guarantees that every
// destination row is 64-byte aligned and calls store_fence() before the
// data is read by another thread.
using tile_transpose_fn = void (*)(const std::uint8_t *src, std::ptrdiff_t src_pitch,
                                   std::uint8_t *dst, std::ptrdiff_t dst_pitch, bool stream);

// Copies `bytes` from src to dst (not overlapping); with `stream`, the
// 64-byte-aligned body of the destination is written with non-temporal
// stores (any alignment is accepted).
using run_copy_fn = void (*)(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes,
                             bool stream);

struct isa_kernels {
    cpu_isa isa;
    tile_transpose_fn tile[5]; // by log2 of the element size: 1, 2, 4, 8, 16 bytes
    run_copy_fn copy;
};

// The table of a level; the level must not exceed detected_cpu_isa().
const isa_kernels &kernels_for(cpu_isa isa);

// Orders this thread's streaming stores before its later stores (sfence).
void store_fence();

// Per level; defined in isa_kernels_<level>.cpp, each compiled for its ISA.
const isa_kernels &scalar_kernels();
const isa_kernels &avx2_kernels();
const isa_kernels &avx512_kernels();

} // namespace reshaper::impl
