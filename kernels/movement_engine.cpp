// run_movement: runs a movement program through its fast path's executor
// (fast_path_*.cpp) or the element walk; nothing is decided here.
#include <variant>

#include "kernels/element_walk.hpp"
#include "kernels/movement_units.hpp"

namespace reshaper::impl {

void run_movement(const movement_program &program, const void *src, void *dst) {
    const auto *from = static_cast<const byte *>(src) + program.src_offset;
    auto *to = static_cast<byte *>(dst) + program.dst_offset;
    if (const auto *w = std::get_if<element_walk_program>(&program.detail)) return run_element_walk(*w, src, dst);
    if (const auto *r = std::get_if<run_copy_program>(&program.detail)) return run_copy_runs(program, *r, from, to);
    if (const auto *t = std::get_if<transpose_program>(&program.detail)) return run_transpose(program, *t, from, to);
    if (const auto *t = std::get_if<tiny_transpose_program>(&program.detail)) return t->tiles_kernel(*t, from, to);
    if (const auto *g = std::get_if<tiny_gather_program>(&program.detail)) return g->gather(*g, from, to);
    if (const auto *g = std::get_if<row_groups_program>(&program.detail)) return run_row_groups(program, *g, from, to);
    if (const auto *q = std::get_if<packed_transpose_program>(&program.detail))
        return run_packed_transpose(program, *q, from, to);
    if (const auto *w = std::get_if<window_transpose_program>(&program.detail))
        return run_window_transpose(program, *w, from, to);
    if (const auto *b = std::get_if<blocked_transpose_program>(&program.detail))
        return run_blocked_transpose(program, *b, from, to);
    // The grouped plan carries its own offsets.
    if (const auto *g = std::get_if<grouped_transpose_plan>(&program.detail))
        return run_grouped_transpose(*g, src, dst);
}

movement_program plan_byte_copy(std::size_t bytes, const machine_facts &machine) {
    copy_plan plan;
    plan.dims = {{static_cast<dim_t>(bytes), 1, 1}};
    plan.volume = static_cast<dim_t>(bytes);
    plan.dst_increasing = true;
    return plan_movement(plan, std::size_t{8}, machine);
}

void copy_bytes(void *dst, const void *src, std::size_t bytes) {
    if (bytes == 0) return;
    run_movement(plan_byte_copy(bytes, current_machine()), src, dst);
}

} // namespace reshaper::impl
