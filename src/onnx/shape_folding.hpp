// The ONNX layer's shape work (src/onnx/onnx_model.cpp reads models with it):
// ONNX's shape inference with data propagation run in turn with our folding
// of the shape arithmetic it does not follow, and the protobuf helpers both
// halves share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/graph.hpp"

namespace reshaper::impl::onnx_detail {

// A value folding knows: a small tensor of an integer, bool, f32 or f64 type,
// row-major (a long double holds every int64 and uint64 exactly).
struct known {
    data_type type = data_type::undef;
    dims_t shape;
    std::vector<long double> v;
};
using value_map = std::unordered_map<std::string, known>;

// Infers `model`'s shapes in place (ONNX's inference with data propagation,
// in turn with folding: each node whose value folds becomes a Constant, and
// Einsum outputs get their shapes, until neither learns more). Returns the
// values known at the end (initializers, Constants, folded); what stopped
// ONNX's inference goes to `warnings`.
value_map infer_and_fold(onnx::ModelProto &model, std::int64_t opset, const std::string &source,
                         graph::load_warnings &warnings);

// The known value as tensor values of its type.
tensor_values encode(const known &k);
// A tensor's shape from ONNX's type information: nothing for an unknown
// rank, -1 for a symbolic or unknown dim.
std::optional<dims_t> shape_of(const onnx::TypeProto &type);
// Every typed value_info of a graph (inputs, value_info, outputs) by name.
std::unordered_map<std::string, const onnx::TypeProto *> types_by_name(const onnx::GraphProto &g);
// A TensorProto's dims; nothing when one is negative or the volume overflows.
std::optional<dims_t> tensor_proto_dims(const onnx::TensorProto &t);
const onnx::AttributeProto *find_attr(const onnx::NodeProto &n, std::string_view name);

} // namespace reshaper::impl::onnx_detail
