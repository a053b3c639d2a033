// How a strided copy walks its elements: the dims put in the order the
// destination is laid out (innermost = smallest destination stride), size-1
// dims dropped and neighbours that are contiguous in both tensors merged,
// so the innermost dim is the longest run the inner loop can take at once.
#pragma once

#include <optional>
#include <vector>

#include "core/checked_math.hpp"

namespace reshaper::impl {

struct copy_dim {
    dim_t size;
    dim_t src_stride; // in elements
    dim_t dst_stride;
};

struct copy_plan {
    std::vector<copy_dim> dims; // outermost first; at least one (size 1 for a single element)
    dim_t volume = 0;
    dim_t src_offset = 0;
    dim_t dst_offset = 0;
    // The destination element index strictly increases along the walk, so a
    // cut of the walk at flat index p separates the elements below dst(p)
    // from the ones at or above it.
    bool dst_increasing = false;
};

// Throws error(invalid_arguments) when the stride counts do not match the
// dims, a dim is negative, or an element index overflows int64 or falls
// before its buffer's start.
copy_plan make_copy_plan(const dims_t &dims, const dims_t &src_strides, dim_t src_offset,
                         const dims_t &dst_strides, dim_t dst_offset);

// The element indices of the element at flat (row-major, in plan order)
// position `flat` < volume; its index over plan.dims into `index` if given.
struct element_pair {
    dim_t src;
    dim_t dst;
};
element_pair element_at(const copy_plan &plan, dim_t flat, dims_t *index = nullptr);

// A transpose-like walk (a dim other than the innermost is the source's
// contiguous one) gathers each inner run from far-apart source lines and
// pages. Walking it tile by tile (tile x tile elements of those two dims,
// the innermost still writing along the destination) keeps a tile's reads
// and writes in cache. Returns the tiled plan for the part of the walk
// whose two sizes are whole tiles plus plans for the edge strips, or
// nothing when the walk is not transpose-like or smaller than a tile.
std::vector<copy_plan> tiled_parts(const copy_plan &plan, dim_t tile);

// Packed types (see data_type.hpp) put `per_byte` elements (2 or 4) in one
// byte; two tasks of a parallel walk must never write one byte.

// Every destination row (run of the innermost dim) has unit stride and a
// length and a start that are multiples of per_byte, so no byte spans two
// rows and a cut of the walk at any multiple of per_byte leaves each byte
// to one task.
bool rows_own_their_bytes(const copy_plan &plan, dim_t per_byte);

// For destinations whose indices increase along the walk: the first cut at
// or after flat position p (0 < p < volume) such that no destination byte
// holds elements from both sides. It is below p + per_byte.
dim_t byte_safe_cut(const copy_plan &plan, dim_t p, dim_t per_byte);

// The same walk counted in bytes instead of packed elements, when every
// row moves whole bytes: the innermost dim is contiguous in both tensors,
// and every row of both starts on a byte and holds whole bytes. Nothing
// otherwise.
std::optional<copy_plan> whole_byte_plan(const copy_plan &plan, dim_t per_byte);

// The dims outside the ones a fast path loops over (the grouped
// transpose's: outside its tile), with byte strides, walked in row-major order by outer_walk (movement_units.hpp).
struct outer_dims {
    std::vector<dim_t> sizes;
    std::vector<std::ptrdiff_t> src, dst;
    std::size_t volume = 1;

    void add(const copy_dim &d, std::ptrdiff_t element_bytes);
};

} // namespace reshaper::impl
