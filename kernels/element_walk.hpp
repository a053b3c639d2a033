// The element walk: every element moved by its own copy along the
// coalesced copy plan, for what no fast path takes (strings, gathers with
// no contiguous destination dim, transposes too short to tile, packed rows
// that do not start on bytes). plan_element_walk cuts the walk into parts
// and chunks; the element kind's walk (element_walk_kind_of) runs a part.
#pragma once

#include "core/data_type.hpp"
#include "kernels/movement_program.hpp"

namespace reshaper::impl {

struct element_walk_kind {
    element_walk_fn walk = nullptr;
    dim_t per_byte = 1; // elements per byte: 2 or 4 for packed kinds
    dim_t grain = 0;    // elements per parallel task
    dim_t tile = 0;     // tile side of transpose-like walks (tiled_parts)
};
// The kind of elements of `element_bits` (std::string ones with `strings`).
// Throws error(invalid_data_type) for an element size no kind moves.
element_walk_kind element_walk_kind_of(std::size_t element_bits, bool strings);

void run_element_walk(const element_walk_program &program, const void *src, void *dst);

} // namespace reshaper::impl
