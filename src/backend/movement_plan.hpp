// The data-movement plan of a reshape, decided once at compile time and
// independent of oneDNN: is the output a view of the input (alias), and if
// not, which copy steps move the data. Every step describes its source and
// destination in the same dims, so one reorder primitive or one strided copy
// performs it. Only the chain's first input and last output matter here.
#pragma once

#include <string>
#include <vector>

#include "core/logical_tensor.hpp"
#include "layout/blocked_views.hpp"
#include "layout/chain_view.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {

// One side of a step, in the step's dims.
struct step_side {
    dims_t strides;     // element strides, when format is empty
    std::string format; // oneDNN blocked format tag (opaque layouts)
    bool temporary = false; // a dense temporary, not the partition's buffer
    // Which temporary: a chain whose dims do not nest hands its data from
    // one temporary to the other (0 or 1; see movement_plan::temporaries).
    std::size_t slot = 0;

    bool opaque() const { return !format.empty(); }
};

struct movement_step {
    dims_t dims;
    step_side src;
    step_side dst;
};

struct movement_plan {
    bool alias = false;
    // The output as compiled: resolved shape, layout chosen for `any`.
    logical_tensor output;
    // The copy steps, in order; empty for an alias and for zero volume.
    std::vector<movement_step> steps;
    // Dims of the dense temporary when steps go through one (every
    // temporary holds the whole tensor), and how many the steps use.
    dims_t temporary_dims;
    std::size_t temporaries = 0;
    // When not an alias: why the output cannot be a view of the input (the
    // view rule's reason, naming the dims that break it).
    std::string why_not_alias;
    // For a chain that permutes axes: how it was composed ("chain composed:
    // [2,3,4] viewed as [2,4,3] strides [12,1,4] read as [2,4,3]", per
    // segment), for the plan's text.
    std::string composition;
};

// `input`: known shape, layout strided/undef (strides or dense) or opaque.
// `output`: shape known and of the input's volume; layout any (undef reads
// as any), strided or opaque. Throws error(invalid_arguments) for
// strides that cannot be a buffer (negative, wrong rank, output elements
// that share an address where the plan writes them: an alias writes
// nothing, so a view of a broadcast input may share addresses, as PyTorch's
// does) and for an input layout of `any`; error(invalid_shape) when the
// volumes differ or strides overflow int64. An alias whenever the view rule
// gives the output (any, or strided with the view's strides in every dim of
// size > 1: same_strided_layout); every plan that is no alias says why.
//
// `explain`: whether to write the plan's words (why_not_alias,
// composition). compile plans without them and plans again with them only
// when a report or a verbose line asks (issue 7: a 100,000-op graph's
// plans were a third text nobody read).
movement_plan plan_movement(const logical_tensor &input, const logical_tensor &output, bool explain = true);

// The plan of a chain of reshapes and permutations (the ops' transforms, in
// order; see layout/chain_view.hpp) from `input` to `output`, whose shape is
// the chain's last: an alias when the output can view the memory of the
// input through the whole chain (always when every step is a view, as
// PyTorch makes them: an output of layout any then gets PyTorch's strides,
// see stepwise_view_strides), else one strided step from the input to the
// output (a transpose), or, where the chain's dims do not nest in memory or
// a layout is padded, steps through dense temporaries. A chain without
// permutations is plan_movement's. Throws as plan_movement does.
movement_plan plan_chain_movement(const logical_tensor &input,
                                  const std::vector<chain_step> &steps,
                                  const logical_tensor &output, bool explain = true);

// "[6,4] strides [4,1] -> [1,6]" per step; "view strides [..]" for an alias.
std::string describe(const movement_plan &plan);

// Drops size-1 dims and merges neighbours that are contiguous in both
// strided sides (keeps at least one dim). Exposed for tests.
void coalesce_step(movement_step &step);

// A step with one padded blocked side (nChw16c over 13 channels) and one
// strided side as strided boxes (layout/blocked_views.hpp's
// padded_as_boxes); nothing for anything else (both sides blocked, a
// padded dim with two levels of blocks, a zero dim).
std::optional<padded_boxes> padded_step_as_boxes(const movement_step &step);

} // namespace reshaper::impl
