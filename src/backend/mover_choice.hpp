// Which mover executes a plan that is not an alias: our own kernel or
// oneDNN's reorder. Decided by measurement (benchmarks/movement_bench.cpp,
// docs/performance.md), encoded here as rules, each with its reason.
#pragma once

#include <string>

#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "backend/kernel_movement.hpp"
#include "backend/movement_plan.hpp"
#include "core/data_type.hpp"

namespace reshaper::impl {

struct mover_choice {
    lowering_kind kind = lowering_kind::kernel;
    std::string why; // one phrase, for the lowering details and verbose lines
};

// `plan` is not an alias (a zero-volume plan has no steps: no fast path).
//  - CPU, every step strided and taken by a fast path of the kernel (run
//    copy or tiled transpose, streaming stores): kernel; it measured 2-10x
//    faster than oneDNN's reorder on those layouts for every dtype.
//  - otherwise, a dtype oneDNN's reorder moves bit-exactly: reorder (it
//    takes padded blocked formats and the GPU; for element-by-element
//    gathers it measured no slower than our walk).
//  - otherwise: kernel (the only mover for that dtype).
// `planned`: plan_kernel_steps(type, plan), which the kernel mover takes too.
mover_choice choose_mover(engine_kind engine, data_type type, const movement_plan &plan,
                          const std::vector<kernel_step_plan> &planned);

} // namespace reshaper::impl
