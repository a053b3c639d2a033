// The copy an alias lowering makes when the caller gives the output its own
// buffer: the output is a view with the input's element addresses, so the
// elements are copied address for address - one memcpy over the span when
// the elements fill it, a strided copy of just the elements otherwise (gaps
// in a sliced input are never written).
#pragma once

#include <memory>

#include "backend/data_mover.hpp"
#include "core/logical_tensor.hpp"

namespace reshaper::impl {

// `input`: the partition's data input (strided, or opaque: its whole buffer).
std::unique_ptr<data_mover> make_alias_copy(const logical_tensor &input);

} // namespace reshaper::impl
