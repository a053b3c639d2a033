// oneDNN Graph's serialized JSON format (interface contract, section 1):
// read into a graph, write back out. Reading checks structure only (types of
// fields, dtype/layout names, tensor agreement between producer and
// consumers); op semantics are checked by the registry (validate_graph).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/graph.hpp"

namespace reshaper::impl {

// Throws error(invalid_graph / invalid_data_type / invalid_shape /
// invalid_arguments) with a message naming the field and the value.
graph read_graph_json(std::string_view text);
graph read_graph_file(const std::string &path); // unreadable -> invalid_arguments

// Pretty JSON (indent 2) unless `indent` < 0. Extensions (domain, version,
// values, format) are written only when used.
std::string write_graph_json(const graph &g, int indent = 2);

// A logical tensor's JSON form (as in graph files), shared with the
// driver's report; `values` included when present.
nlohmann::json logical_tensor_to_json(const logical_tensor &lt);
// Row-major values as a flat JSON list: numbers, strings for string,
// [re, im] pairs for complex.
nlohmann::json values_to_json(const tensor_values &values);
// The inverse, for `count` elements of `type`; throws error(invalid_graph)
// on a wrong count or a value the type cannot hold.
tensor_values values_from_json(const nlohmann::json &list, data_type type, std::size_t count);

} // namespace reshaper::impl
