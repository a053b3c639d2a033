// The tensor type sets of ONNX's schemas (onnx/defs/schema.cc:
// all_tensor_types and its _ir4 ... _ir13 successors), in the project's dtype
// names. Each set extends the one before; every ai.onnx schema of the family
// (Reshape, Transpose, Squeeze, Unsqueeze, Flatten) takes its T from here, so
// a type joins all of them in one place.
#pragma once

#include <vector>

#include "core/data_type.hpp"

namespace reshaper::impl {

struct onnx_type_sets {
    std::vector<data_type> floats; // f16 f32 f64: Reshape-1, Flatten-1
    std::vector<data_type> all;    // every tensor type of IR 3 (no bf16)
    std::vector<data_type> ir4;    // + bf16
    std::vector<data_type> ir9;    // + the four float8 types
    std::vector<data_type> ir10;   // + int4, uint4
    std::vector<data_type> ir11;   // + float4e2m1
    std::vector<data_type> ir12;   // + float8e8m0
    std::vector<data_type> ir13;   // + int2, uint2 (s2, u2)
};

const onnx_type_sets &onnx_types();

} // namespace reshaper::impl
