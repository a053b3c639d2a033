// Reshape ops built in C++ for the tests that make graphs by hand (the
// partitioner's and the backend's): one maker per op kind, with the
// attributes their schemas require.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.hpp"

namespace reshaper::impl::testing {

inline op static_reshape(std::int64_t id, tensor_id in, tensor_id out, std::vector<std::int64_t> target,
                         bool special_zero = false) {
    op o;
    o.id = id;
    o.name = "reshape_" + std::to_string(id);
    o.kind = "StaticReshape";
    o.attrs["shape"] = std::move(target);
    o.attrs["special_zero"] = special_zero;
    o.inputs = {in};
    o.outputs = {out};
    return o;
}

// A DynamicReshape: the target shape comes from the tensor `shape` at execute.
inline op dynamic_reshape(std::int64_t id, std::string name, tensor_id data, tensor_id shape, tensor_id out) {
    op o;
    o.id = id;
    o.name = std::move(name);
    o.kind = "DynamicReshape";
    o.attrs["special_zero"] = false;
    o.inputs = {data, shape};
    o.outputs = {out};
    return o;
}

} // namespace reshaper::impl::testing
