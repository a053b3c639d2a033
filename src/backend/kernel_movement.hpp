// The kernel lowering's executable: the plan's steps run by our own strided
// copy (kernels/), for every dtype, through a dense host temporary when the
// plan has two steps.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "backend/data_mover.hpp"
#include "backend/movement_plan.hpp"
#include "backend/padded_edge.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/movement_program.hpp"
#include "layout/blocked_views.hpp"
#include "layout/element_walk.hpp"

namespace reshaper::impl {

// Steps between strided sides run as strided copies (kernels/). A step with
// a padded blocked side (which no single strided view describes) runs as
// the strided copies of its boxes (padded_step_as_boxes: whole blocks and
// the last block's valid part) and zeroes the destination's padding, as
// oneDNN's reorder leaves it; what has no boxes (both sides blocked, two
// levels of blocks on a padded dim) walks the elements
// (layout/element_walk.hpp) after zeroing the whole destination. Every dtype moves
// every layout.
std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan);

// A padded blocked step that has no boxes, walked element by element
// (layout/element_walk.hpp): both layouts as digits, and how many elements
// of the destination's buffer are zeroed first (0 unless it is padded).
struct padded_walk_plan {
    digit_layout src, dst;
    std::size_t zeroed_elements = 0;
};

// A step as the kernel moves it, worked out once at compile time for both
// the choice of mover (mover_choice) and the kernel mover: a strided step's
// copy plan and its movement program (fast path, tiles, walk, threads,
// stores: none where the planner rejects the step: moving it says why), a
// padded blocked step's boxes (none where it has none: the element walk).
struct kernel_step_plan {
    std::optional<copy_plan> copy;
    std::optional<movement_program> program; // of `copy`, where its volume is not 0
    std::optional<padded_boxes> boxes;
    // The boxes' programs, in order (those of no elements left out): the
    // copies, then the padding's zeroes, read from one element at stride 0.
    std::vector<movement_program> box_copies, box_padding;
    // A padded destination's last block, valid part and padding written
    // at once (backend/padded_edge.hpp); then neither is in the boxes'
    // programs above.
    std::optional<padded_edge_plan> edge;
    // A padded step without boxes: its two layouts as digits.
    std::optional<padded_walk_plan> walk;
    // Whether all of the above was planned; where planning threw, the run
    // plans again and reports the error.
    bool planned = false;
};
// "tiled transpose: 16x16 tiles ...; run copy: ...": the strided steps'
// movement programs in words (describe), for the plan text.
std::string describe_kernel_steps(const std::vector<kernel_step_plan> &steps);
std::vector<kernel_step_plan> plan_kernel_steps(data_type type, const movement_plan &plan);
// One step's plan on `machine`. Throws what moving the step would: an
// element type no kernel moves, strides make_copy_plan refuses, a blocked
// buffer that overflows.
kernel_step_plan plan_kernel_step(data_type type, const movement_step &step, const machine_facts &machine);
// The mover of those steps (plan_kernel_steps of the same plan).
std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan,
                                                 std::vector<kernel_step_plan> steps);

} // namespace reshaper::impl
