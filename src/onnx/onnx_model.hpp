// ONNX models in (interface contract, section 5.3): a model read with ONNX's
// own protobuf classes, its shapes inferred by ONNX's shape inference with
// data propagation and by our folding of the shape arithmetic that
// propagation does not follow, as a graph of ai.onnx ops.
//
// Numbering: op ids are the nodes' positions; tensor ids the positions of
// the names in first appearance order (graph inputs, initializers, then node
// outputs). Initializers and Constant outputs are constant tensors; a tensor
// an op of the family reads besides its data (Reshape's shape, the axes of
// Squeeze and Unsqueeze) carries its values whenever they are known, folded
// ones included, so such a Reshape is claimed as one with a constant shape.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.hpp"

namespace onnx {
class TensorProto;
}

namespace reshaper::impl {

// dim_param name -> value (ONNX Runtime's free dimension override).
using free_dim_bindings = std::map<std::string, std::int64_t, std::less<>>;

struct onnx_import {
    graph g;
    // Symbolic dims (dim_param) of the graph inputs that no binding covers,
    // sorted: a model with any cannot be compiled for every partition.
    std::vector<std::string> unbound_dims;
};

// Reads a serialized ModelProto. Throws error(invalid_graph, rule onnx_model)
// for bytes that are no model, error(invalid_arguments, free_dim_value) for
// a negative binding. `source` names the model in messages.
onnx_import read_onnx_model(std::string_view bytes, const free_dim_bindings &free_dims,
                            const std::string &engine_kind = "cpu", const std::string &source = "ONNX model");
// The same from a file (unreadable: invalid_arguments, file_readable).
onnx_import read_onnx_file(const std::string &path, const free_dim_bindings &free_dims,
                           const std::string &engine_kind = "cpu");

// Whether a path names an ONNX model (ends in ".onnx").
bool is_onnx_path(std::string_view path);

// Throws error(invalid_arguments, free_dims_bound) naming the unbound dims,
// when there are any (`what`: the model's name for the message).
void require_bound_dims(const onnx_import &model, const std::string &what);

// The project's dtype of an ONNX TensorProto element type; nothing for
// types it has no name for.
std::optional<data_type> dtype_of_onnx(int elem_type);

// A TensorProto's elements, row-major, as the project holds tensor values
// (raw_data or the typed fields). Nothing for external data, types without
// a project dtype, and contents that disagree with the dims.
std::optional<tensor_values> tensor_proto_values(const onnx::TensorProto &t);
// The same from a serialized TensorProto (an ONNX test's input_0.pb),
// with its dims; throws error(invalid_graph, onnx_model) for bytes that are
// no tensor.
struct onnx_tensor {
    dims_t shape;
    tensor_values values;
};
onnx_tensor read_onnx_tensor(std::string_view bytes);

} // namespace reshaper::impl
