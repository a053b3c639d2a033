// The schema tables of the data-movement family beside the reshapes
// (ops/reshape_schemas.hpp), one file per op family. The registry is built
// from these lists.
#pragma once

#include <vector>

#include "ops/op_schema.hpp"

namespace reshaper::impl {

std::vector<op_schema> make_transpose_schemas(); // ops/transpose_schemas.cpp
std::vector<op_schema> make_squeeze_schemas();   // ops/squeeze_schemas.cpp (and Unsqueeze)
std::vector<op_schema> make_flatten_schemas();   // ops/flatten_schemas.cpp

} // namespace reshaper::impl
