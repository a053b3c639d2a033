#include "backend/kernel_movement.hpp"

#include <optional>
#include <string>
#include <vector>

#include <cstring>

#include "core/line_aligned.hpp"
#include "core/status.hpp"
#include "layout/memory_layout.hpp"
#include "layout/reference.hpp"
#include "kernels/strided_copy.hpp"

namespace reshaper::impl {

namespace {

class kernel_movement final : public data_mover {
public:
    kernel_movement(data_type type, std::vector<movement_step> steps, std::vector<kernel_step_plan> planned,
                    std::size_t temp_elements, std::size_t temporaries)
        : type_(type), steps_(std::move(steps)), planned_(std::move(planned)), temp_elements_(temp_elements),
          temporaries_(temporaries) {}

    void run(const void *src, void *dst) const override {
        // The temporaries are per run: concurrent runs never share them.
        line_aligned_bytes temp_bytes[2]; // line-aligned: streamed like any output
        std::vector<std::string> temp_strings[2];
        void *temp[2] = {nullptr, nullptr};
        for (std::size_t k = 0; k < temporaries_; ++k) {
            if (type_ == data_type::string) {
                temp_strings[k].resize(temp_elements_);
                temp[k] = temp_strings[k].data();
            } else {
                temp_bytes[k].resize(dense_bytes(type_, temp_elements_));
                temp[k] = temp_bytes[k].data();
            }
        }
        for (std::size_t k = 0; k < steps_.size(); ++k) {
            const movement_step &step = steps_[k];
            void *from = step.src.temporary ? temp[step.src.slot] : const_cast<void *>(src);
            void *to = step.dst.temporary ? temp[step.dst.slot] : dst;
            const kernel_step_plan &planned = planned_[k];
            if (planned.boxes)
                copy_boxes(*planned.boxes, from, to);
            else if (step.src.opaque() || step.dst.opaque())
                padded_copy(step, from, to);
            else if (planned.copy) {
                if (planned.copy->volume == 0 ||
                    (from == to && same_strided_layout(step.dims, step.src.strides, step.dst.strides)))
                    continue; // every element already where it goes
                run_movement(*planned.program, from, to);
            } else
                strided_copy(type_, step.dims, strided_tensor{from, 0, step.src.strides},
                             strided_tensor{to, 0, step.dst.strides});
        }
    }

    std::string describe() const override { return describe_kernel_steps(planned_); }

private:
    // A padded blocked step as strided copies of its boxes, then zeroes
    // (empty strings) into the padding, read from one element at stride 0.
    void copy_boxes(const padded_boxes &boxes, void *from, void *to) const {
        for (const strided_box &b : boxes.copies)
            strided_copy(type_, b.dims, strided_tensor{from, b.src_offset, b.src_strides},
                         strided_tensor{to, b.dst_offset, b.dst_strides});
        // padding_zero_run zero elements of any dtype (16 bytes at most each).
        static const std::string no_string[padding_zero_run];
        alignas(64) static const std::uint8_t zero_bytes[padding_zero_run * 16] = {};
        void *zero = type_ == data_type::string ? static_cast<void *>(const_cast<std::string *>(no_string))
                                                : static_cast<void *>(const_cast<std::uint8_t *>(zero_bytes));
        for (const strided_box &b : boxes.padding)
            strided_copy(type_, b.dims, strided_tensor{zero, 0, b.src_strides},
                         strided_tensor{to, b.dst_offset, b.dst_strides});
    }

    // A step with a padded blocked side (a dim not a multiple of its block,
    // which no strided view describes): the element walk, each element's
    // place given by blocked_offset. A padded destination first has its
    // whole buffer zeroed, padding included, as oneDNN's reorder leaves it
    // (empty strings for string).
    void padded_copy(const movement_step &step, const void *from, void *to) const {
        const auto side_tensor = [&](const step_side &side) {
            logical_tensor lt;
            lt.dtype = type_;
            lt.shape = step.dims;
            if (side.opaque()) {
                lt.layout = layout_type::opaque;
                lt.format = side.format;
            } else {
                lt.layout = layout_type::strided;
                lt.strides = side.strides;
            }
            return lt;
        };
        const logical_tensor src_lt = side_tensor(step.src), dst_lt = side_tensor(step.dst);
        if (step.dst.opaque()) {
            const auto elements = static_cast<std::size_t>(
                blocked_size(parse_format_tag(step.dst.format, step.dims.size()), step.dims));
            if (type_ == data_type::string) {
                auto *strings = static_cast<std::string *>(to);
                for (std::size_t i = 0; i < elements; ++i) strings[i].clear();
            } else {
                std::memset(to, 0, dense_bytes(type_, elements));
            }
        }
        reference_reshape(src_lt, from, dst_lt, to);
    }

    data_type type_;
    std::vector<movement_step> steps_;
    std::vector<kernel_step_plan> planned_; // per step
    std::size_t temp_elements_;
    std::size_t temporaries_; // 0, 1 or 2
};

} // namespace

std::vector<kernel_step_plan> plan_kernel_steps(data_type type, const movement_plan &plan) {
    std::vector<kernel_step_plan> planned;
    planned.reserve(plan.steps.size());
    const machine_facts machine = current_machine();
    for (const movement_step &step : plan.steps) {
        kernel_step_plan p;
        if (step.src.opaque() || step.dst.opaque()) {
            p.boxes = padded_step_as_boxes(step);
        } else if (element_bits(type) != 0) {
            try {
                p.copy = make_copy_plan(step.dims, step.src.strides, 0, step.dst.strides, 0);
                if (p.copy->volume > 0) p.program = plan_movement(*p.copy, type, machine);
            } catch (const error &) {
                // Left unplanned: moving the step reports the error, as before.
            }
        }
        planned.push_back(std::move(p));
    }
    return planned;
}

std::string describe_kernel_steps(const std::vector<kernel_step_plan> &steps) {
    std::string text;
    for (const kernel_step_plan &step : steps) {
        if (!step.program) continue;
        if (!text.empty()) text += "; ";
        text += describe(*step.program);
    }
    return text;
}

std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan,
                                                 std::vector<kernel_step_plan> steps) {
    std::size_t temp_elements = 0;
    if (plan.temporaries > 0)
        temp_elements = static_cast<std::size_t>(checked_volume(plan.temporary_dims).value());
    return std::make_unique<kernel_movement>(type, plan.steps, std::move(steps), temp_elements, plan.temporaries);
}

std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan) {
    return make_kernel_movement(type, plan, plan_kernel_steps(type, plan));
}

} // namespace reshaper::impl
