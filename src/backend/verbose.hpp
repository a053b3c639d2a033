// RESHAPER_VERBOSE=1: one line on stderr per partition compiled and per
// execute, in the spirit of ONEDNN_VERBOSE:
//   reshaper_verbose,compile,cpu,partition 0,StaticReshape-1,alias,f32:[2,3]:[3,1]->f32:[6]:[1],view strides [1],0.012
// (event, engine, partition id, op kinds, lowering, src -> dst with strides
// or format, details, time in ms).
#pragma once

#include <string>
#include <string_view>

#include "core/logical_tensor.hpp"
#include "core/verbose_log.hpp"

namespace reshaper::impl {

// "f32:[2,3]:[3,1]", "f32:[1,32,4,4]:nChw16c", "f32:[2,3]:any".
std::string verbose_tensor(const logical_tensor &lt);

} // namespace reshaper::impl
