#include "kernels/strided_copy.hpp"

#include "kernels/copy_plan.hpp"

namespace reshaper::impl {

void strided_copy(data_type type, const dims_t &dims, const strided_tensor &src,
                  const strided_tensor &dst) {
    movable_element_bits(type);
    const copy_plan plan = make_copy_plan(dims, src.strides, src.offset, dst.strides, dst.offset);
    if (plan.volume == 0) return;
    if (src.data == dst.data && src.offset == dst.offset && src.strides == dst.strides) return;
    run_movement(plan_movement(plan, type, current_machine()), src.data, dst.data);
}

fast_path strided_copy_path(data_type type, const dims_t &dims, const dims_t &src_strides,
                            const dims_t &dst_strides) {
    if (type == data_type::string) return fast_path::none;
    return planned_copy_path(type, make_copy_plan(dims, src_strides, 0, dst_strides, 0));
}

fast_path planned_copy_path(data_type type, const copy_plan &plan) {
    const std::size_t bits = element_bits(type);
    if (type == data_type::string) return fast_path::none;
    return bits < 8 ? choose_packed_fast_path(plan, bits) : choose_fast_path(plan, bits / 8);
}

} // namespace reshaper::impl
