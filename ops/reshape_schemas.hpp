// Every reshape schema, as table rows (ops/reshape_schemas.cpp). The registry
// is built from this list.
#pragma once

#include <vector>

#include "ops/op_schema.hpp"

namespace reshaper::impl {

std::vector<op_schema> make_reshape_schemas();

} // namespace reshaper::impl
