// The kernel lowering's executable: the plan's steps run by our own strided
// copy (kernels/), for every dtype, through a dense host temporary when the
// plan has two steps.
#pragma once

#include <memory>

#include "backend/data_mover.hpp"
#include "backend/movement_plan.hpp"

namespace reshaper::impl {

// Throws error(unimplemented) naming the dtype and format when a step has an
// opaque side (a blocked format with padding): those only oneDNN moves.
// `why_not_reorder` says why oneDNN's reorder is not moving it instead.
std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan,
                                                 const std::string &why_not_reorder);

} // namespace reshaper::impl
