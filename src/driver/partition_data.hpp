// The data a partition runs on in check and perf modes: its inputs'
// buffers filled from the graph's values (or generated), its outputs'
// buffers, and the pointers execute takes.
#pragma once

#include <vector>

#include "backend/compiled_partition.hpp"
#include "core/graph.hpp"
#include "driver/host_tensor.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::driver {

// One buffer per compiled input, holding the graph tensor's values where it
// has them, the shape the graph says a shape input gives, else
// deterministic pseudo-random data.
std::vector<host_tensor> make_inputs(const impl::graph &g, const impl::partition &part,
                                     const std::vector<impl::logical_tensor> &descs);
// Output buffers for the compiled outputs.
std::vector<host_tensor> make_outputs(const impl::compiled_partition &cp);

std::vector<const void *> input_pointers(const std::vector<host_tensor> &ts);
std::vector<void *> output_pointers(std::vector<host_tensor> &ts);

// An alias lowering's output buffers for running in place: the buffers of
// the inputs its in-place pairs name, in output order.
std::vector<void *> in_place_outputs(const impl::compiled_partition &cp, std::vector<host_tensor> &inputs);

// The data input among a compiled partition's inputs (compile found it).
std::size_t data_position(const impl::graph &g, const impl::partition &part);

} // namespace reshaper::driver
