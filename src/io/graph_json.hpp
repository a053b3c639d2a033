// oneDNN Graph's serialized JSON format (interface contract, section 1):
// read into a graph, write back out. Reading checks structure only (types of
// fields, dtype/layout names, tensor agreement between producer and
// consumers); op semantics are checked by the registry (validate_graph).
//
// Normalisations, so that write-then-read gives an equal graph:
// - strides are stored empty when they are the dense row-major ones, when
//   any of them is -1 (unknown: the backend picks dense) and for layouts
//   other than strided; empty strides are written as the dense strides of a
//   known shape, else [] (as oneDNN does);
// - a tensor repeated at its producer and consumers is stored once: dtype
//   must agree, and layout and property where both places state one
//   (layout any and undef, property undef state none; strides and formats
//   of one shape must agree too); a shape may differ, with a warning, when
//   a producer decides (a -1 dim is filled from the other place); layout,
//   strides and property are the producer's, values come from whichever
//   place has them (two places with different values are an error);
// - float values and f32 attributes that JSON cannot hold are written as the
//   strings "nan", "inf", "-inf", which the reader accepts too.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/graph.hpp"

namespace reshaper::impl {

// Throws error(invalid_graph) for malformed JSON (with the parser's line and
// column) and any structural problem, error(invalid_graph_op) for an
// attribute of unknown type or whose value does not fit its type,
// error(invalid_data_type) for an unknown dtype or a value the dtype cannot
// hold, error(invalid_shape) for dims below -1, a stride list of the wrong
// length or a values list of the wrong size. Messages name the op, the
// field and the value.
graph read_graph_json(std::string_view text);
graph read_graph_file(const std::string &path); // unreadable -> invalid_arguments

namespace detail {
// The same graph and errors as read_graph_json, from a DOM of the whole
// text (as files were read before issue 7): tests compare the two.
graph read_graph_json_whole(std::string_view text);
// The same, with the ops read on a TBB worker `batch_ops` at a time
// (io/op_pipeline.hpp; read_graph_json does so for large texts when two
// threads may run).
graph read_graph_json_pipelined(std::string_view text, std::size_t batch_ops);
// The same, with the ops parsed side by side `ops_per_task` a task
// (io/parallel_read.hpp; read_graph_json and read_graph_file do so for
// large texts when two threads may run), falling back to reading in turn
// as they do; the file's text is read in place.
graph read_graph_json_side_by_side(std::string_view text, std::size_t ops_per_task);
graph read_graph_file_side_by_side(const std::string &path, std::size_t ops_per_task);
} // namespace detail

// Pretty JSON (indent 2) unless `indent` < 0, fields in the order of
// oneDNN's files. Extensions (domain, version, values, format) are written
// only when used. Tensors are written where ops use them (a tensor no op
// names is not written). Throws error(invalid_graph) when an op names a
// tensor the graph does not hold.
std::string write_graph_json(const graph &g, int indent = 2);

// A logical tensor's JSON form (as in graph files), shared with the
// driver's report; `values` included when present.
nlohmann::json logical_tensor_to_json(const logical_tensor &lt);
// Row-major values as a flat JSON list: numbers, strings for string,
// [re, im] pairs for complex ("nan"/"inf"/"-inf" for such floats).
nlohmann::json values_to_json(const tensor_values &values);
// The inverse, from JSON text, for `count` elements of `type`: throws
// error(invalid_graph) for malformed text, error(invalid_graph)
// when `list` is not an array, error(invalid_shape) when it holds another
// number of elements and error(invalid_data_type) for an element the type
// cannot hold (not a number, not an integer for an integer type, out of an
// integer type's range; see core/element_codec.hpp for float rounding).
tensor_values values_from_json(std::string_view list, data_type type, std::size_t count);

} // namespace reshaper::impl
