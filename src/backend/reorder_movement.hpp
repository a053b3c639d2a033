// The reorder lowering's executable: each step of the plan is one oneDNN
// reorder primitive, created at compile time and kept. Runs on the CPU
// engine over the caller's buffers directly, on a GPU engine through device
// memory the host buffers are copied into and out of.
#pragma once

#include <memory>

#include <dnnl.hpp>

#include "backend/data_mover.hpp"
#include "backend/engine.hpp"
#include "backend/movement_plan.hpp"

namespace reshaper::impl {

// `input_bytes` / `output_bytes`: the buffers' spans (see buffer_size.hpp),
// used to stage host buffers on a GPU. Throws error(unimplemented) when
// oneDNN cannot create a step's reorder (format, rank or type it lacks).
std::unique_ptr<data_mover> make_reorder_movement(std::shared_ptr<const engine> eng,
                                                  dnnl::memory::data_type type,
                                                  const movement_plan &plan,
                                                  std::size_t input_bytes,
                                                  std::size_t output_bytes);

} // namespace reshaper::impl
