// How many bytes a tensor's buffer spans: what a caller (the driver, the C
// API) must allocate for a logical tensor with a concrete layout.
#pragma once

#include <cstddef>
#include <optional>

#include "core/logical_tensor.hpp"

namespace reshaper::impl {

// Strided (or undef, read as strided): (offset of the last element + 1) times
// the element size (packed 4-bit types round up to whole bytes); 0 for a
// zero-volume tensor. Opaque: the blocked size with padding (throws
// error(invalid_graph) for a format tag that does not parse and
// error(invalid_shape) when the padded size overflows int64). Nothing when
// the shape is unknown, the layout is `any`, a stride is negative or
// another product overflows.
std::optional<std::size_t> buffer_bytes(const logical_tensor &lt);

} // namespace reshaper::impl
