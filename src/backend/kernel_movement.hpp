// The kernel lowering's executable: the plan's steps run by our own strided
// copy (kernels/), for every dtype, through a dense host temporary when the
// plan has two steps.
#pragma once

#include <memory>

#include "backend/data_mover.hpp"
#include "backend/movement_plan.hpp"

namespace reshaper::impl {

// Steps between strided sides run as strided copies (kernels/); a step with
// an opaque side (a blocked format with padding, which no strided view
// describes) walks the elements through blocked_offset and zeroes a padded
// destination's padding first, as oneDNN's reorder does: every dtype moves
// every layout.
std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan);

} // namespace reshaper::impl
