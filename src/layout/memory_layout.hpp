// Where each element of a tensor lives, for every layout a logical tensor can
// have: strided (element strides) and opaque blocked oneDNN format tags
// ("nChw16c", "ABcd16a16b", "aBcd8b"). Independent of oneDNN, so the
// reference implementation and the tests can check the reorder lowering.
#pragma once

#include <optional>
#include <string>

#include "core/checked_math.hpp"
#include "core/logical_tensor.hpp"

namespace reshaper::impl {

// A parsed blocked format tag. Letter k ('a'+k) names dim k. Upper case in
// the outer part means the dim is blocked; each inner block is a size and
// the dim it blocks.
struct blocked_format {
    std::string tag;
    std::vector<int> outer_order;                 // dim indices, outermost first
    std::vector<std::pair<int, dim_t>> inner_blocks; // (dim, block), outermost first
};

// Parses oneDNN-style tags, including oneDNN's named aliases of ranks 1-6
// (x, nc, nchw, nhwc, nChw16c, ncdhw, OIhw16i16o, goidhw, ...). Throws
// error(invalid_graph) naming the tag when it is not understood or does not
// fit `rank`.
blocked_format parse_format_tag(const std::string &tag, std::size_t rank);

// Element index of the logical index `idx` of a tensor with `dims` in
// `format` (padded dims are rounded up to the block). Both throw
// error(invalid_arguments) when the rank does not fit the format and
// error(invalid_shape) when the padded buffer overflows int64.
dim_t blocked_offset(const blocked_format &format, const dims_t &dims, const dims_t &idx);

// Elements the buffer of such a tensor occupies (with padding); the dims
// must be known (else error(invalid_arguments)).
dim_t blocked_size(const blocked_format &format, const dims_t &dims);

// Whether the elements of a strided tensor (`dims`, `strides` >= 0) lie at
// distinct addresses, by a sufficient condition: ordered by stride, each
// dim steps over everything the smaller ones span. `shared` when that
// fails (a broadcast's stride 0, overlapping strides), `overflow` when the
// extent passes int64; a zero dim is `distinct` (no element at all).
enum class element_addresses { distinct, shared, overflow };
element_addresses classify_addresses(const dims_t &dims, const dims_t &strides);

} // namespace reshaper::impl
