#include "backend/mover_choice.hpp"

#include <algorithm>

#include <oneapi/dnnl/dnnl_types.h>

#include "backend/dnnl_mapping.hpp"
#include "kernels/strided_copy.hpp"

namespace reshaper::impl {

namespace {

// The fast path every step takes, or none when a step has none (or two
// steps take different ones: then "mixed" is not worth naming apart).
fast_path common_fast_path(data_type type, const movement_plan &plan, const std::vector<kernel_step_plan> &planned) {
    fast_path common = fast_path::none;
    for (std::size_t k = 0; k < plan.steps.size(); ++k) {
        const movement_step &step = plan.steps[k];
        fast_path p = fast_path::none;
        if (step.src.opaque() || step.dst.opaque()) {
            // A padded blocked side: as fast as its largest strided box
            // (the whole blocks); the edge boxes are the smaller part.
            const std::optional<padded_boxes> &boxes = planned[k].boxes;
            if (!boxes) return fast_path::none;
            const auto volume = [](const strided_box &b) { return checked_volume(b.dims).value_or(0); };
            const strided_box *largest = &*std::max_element(
                boxes->copies.begin(), boxes->copies.end(),
                [&](const strided_box &x, const strided_box &y) { return volume(x) < volume(y); });
            p = strided_copy_path(type, largest->dims, largest->src_strides, largest->dst_strides);
        } else if (planned[k].program) {
            p = planned[k].program->path;
        } else if (planned[k].copy) {
            p = planned_copy_path(type, *planned[k].copy); // nothing to move
        } else {
            p = strided_copy_path(type, step.dims, step.src.strides, step.dst.strides); // says what is wrong
        }
        if (p == fast_path::none) return fast_path::none;
        common = common == fast_path::none || common == p ? p : fast_path::transpose;
    }
    return common;
}

// Whether oneDNN's reorder moves the bits of every step. 2-byte elements have
// no oneDNN type whose reorder only copies: a strided step goes as byte pairs
// (u8), but a blocked side cannot be written that way, and bf16 -> bf16
// converts through f32 in some kernels (oneDNN 2.6.3's simple:any reorder,
// which nchw -> nChw8c gets on an AVX2 machine, quiets signalling NaNs,
// flushes denormals to zero and turns -0 into +0). Our kernel moves those
// steps instead.
bool reorder_moves_bits(data_type type, const movement_plan &plan) {
    if (!dnnl_reorder_type(type)) return false;
    if (element_bits(type) != 16) return true;
    return std::none_of(plan.steps.begin(), plan.steps.end(),
                        [](const movement_step &step) { return step.src.opaque() || step.dst.opaque(); });
}

} // namespace

mover_choice choose_mover(engine_kind engine, data_type type, const movement_plan &plan,
                          const std::vector<kernel_step_plan> &planned) {
    // oneDNN's memory descriptors hold at most DNNL_MAX_NDIMS dims: a longer
    // step is the kernel's whatever it measures.
    const bool within_onednn_rank = std::all_of(plan.steps.begin(), plan.steps.end(), [](const movement_step &step) {
        return step.dims.size() <= static_cast<std::size_t>(DNNL_MAX_NDIMS);
    });
    // The GPU has no mover but oneDNN's.
    const bool reorder_takes =
        engine == engine_kind::gpu ? dnnl_reorder_type(type).has_value() : reorder_moves_bits(type, plan);
    if (engine == engine_kind::cpu) {
        if (const fast_path p = common_fast_path(type, plan, planned); p != fast_path::none)
            return {lowering_kind::kernel,
                    std::string(to_string(p)) +
                        (!within_onednn_rank ? " (oneDNN declined: its reorder takes at most " +
                                                   std::to_string(DNNL_MAX_NDIMS) + " dims)"
                         : reorder_takes    ? ", measured faster than oneDNN's reorder"
                                            : "")};
    }
    if (reorder_takes)
        return {lowering_kind::reorder, engine == engine_kind::gpu
                                            ? "the GPU engine moves data through oneDNN"
                                            : "no fast path of the kernel fits this layout"};
    if (dnnl_reorder_type(type))
        return {lowering_kind::kernel, "oneDNN's reorder does not move 2-byte elements into or out of a "
                                       "blocked layout bit-exactly"};
    return {lowering_kind::kernel, "oneDNN's reorder does not take this dtype"};
}

} // namespace reshaper::impl
