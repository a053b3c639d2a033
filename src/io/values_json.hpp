// A tensor's "values" and the float fields of graph files: JSON numbers (and
// the strings "nan", "inf", "-inf") into element encodings, each rounded
// once from its number's text (core/element_codec.hpp), and back. Internal
// to src/io.
#pragma once

#include <cstddef>
#include <optional>

#include "core/logical_tensor.hpp"
#include "io/json_dom.hpp"

namespace reshaper::impl::graph_io {

// A JSON number or special string as an f32; nothing when it is neither or
// a finite number too large for f32.
std::optional<float> f32_from_json(json_view j);
// NaN and inf as the strings; with `single_precision`, the shortest decimal
// that reads back as the f32.
ojson float_to_json(double v, bool single_precision);

// See values_from_json and values_to_json (io/graph_json.hpp).
tensor_values values_from(json_view list, data_type type, std::size_t count);
ojson values_to_ojson(const tensor_values &v);

} // namespace reshaper::impl::graph_io
