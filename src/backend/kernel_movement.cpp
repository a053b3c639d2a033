#include "backend/kernel_movement.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <cstring>

#include "core/line_aligned.hpp"
#include "core/status.hpp"
#include "layout/element_walk.hpp"
#include "layout/memory_layout.hpp"
#include "kernels/movement_program.hpp"

namespace reshaper::impl {

namespace {

class kernel_movement final : public data_mover {
public:
    kernel_movement(const kernel_movement &) = delete; // direct_ points into planned_
    kernel_movement &operator=(const kernel_movement &) = delete;
    kernel_movement(data_type type, std::vector<movement_step> steps, std::vector<kernel_step_plan> planned,
                    std::size_t temp_elements, std::size_t temporaries)
        : type_(type), steps_(std::move(steps)), planned_(std::move(planned)), temp_elements_(temp_elements),
          temporaries_(temporaries), direct_(find_direct_program()) {}

    void run(const void *src, void *dst) const override {
        // One planned program from the input to the output (a 4 KiB
        // transpose): straight to its executor, no temporaries set up.
        if (direct_) return run_movement(*direct_, src, dst);
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
            if (!planned.planned) {
                // Planning threw at compile time: again here, to report it.
                kernel_step_plan again = plan_kernel_step(type_, step, current_machine());
                run_step(step, again, from, to);
            } else {
                run_step(step, planned, from, to);
            }
        }
    }

    std::string describe() const override { return describe_kernel_steps(planned_); }
    const movement_program *direct_program() const override { return direct_; }

private:
    // The program every run goes straight to, decided at compile time: the
    // one step's, when it moves the input into the output with no
    // temporary, was planned, and cannot find the output already in place
    // (run_step's early return); null otherwise.
    const movement_program *find_direct_program() const {
        if (steps_.size() != 1 || temporaries_ != 0) return nullptr;
        const movement_step &step = steps_[0];
        const kernel_step_plan &planned = planned_[0];
        if (step.src.temporary || step.dst.temporary || !planned.planned || planned.boxes || planned.walk ||
            !planned.program || same_strided_layout(step.dims, step.src.strides, step.dst.strides))
            return nullptr;
        return &*planned.program;
    }

    void run_step(const movement_step &step, const kernel_step_plan &planned, void *from, void *to) const {
        if (planned.boxes) {
            copy_boxes(planned, from, to);
        } else if (planned.walk) {
            padded_copy(*planned.walk, from, to);
        } else if (planned.program) {
            if (from == to && same_strided_layout(step.dims, step.src.strides, step.dst.strides))
                return; // every element already where it goes
            run_movement(*planned.program, from, to);
        }
        // Else nothing to move: a step of no elements.
    }

    // A padded blocked step as strided copies of its boxes, then zeroes
    // (empty strings) into the padding, read from one element at stride 0;
    // or the last block's valid part (and its padding, into a padded
    // destination) at once (padded_edge).
    void copy_boxes(const kernel_step_plan &planned, void *from, void *to) const {
        for (const movement_program &box : planned.box_copies) run_movement(box, from, to);
        if (planned.edge) return run_padded_edge(*planned.edge, from, to);
        // padding_zero_run zero elements of any dtype (16 bytes at most each).
        static const std::string no_string[padding_zero_run];
        alignas(64) static const std::uint8_t zero_bytes[padding_zero_run * 16] = {};
        const void *zero = type_ == data_type::string ? static_cast<const void *>(no_string)
                                                      : static_cast<const void *>(zero_bytes);
        for (const movement_program &box : planned.box_padding) run_movement(box, zero, to);
    }

    // A step with a padded blocked side that has no boxes (both sides
    // blocked, two levels of blocks on a padded dim): the element walk
    // (layout/element_walk.hpp), in the destination's memory order. A
    // padded destination first has its whole buffer zeroed, padding
    // included, as oneDNN's reorder leaves it (empty strings for string).
    void padded_copy(const padded_walk_plan &walk_plan, const void *from, void *to) const {
        const digit_layout &src = walk_plan.src, &dst = walk_plan.dst;
        if (walk_plan.zeroed_elements > 0) {
            const std::size_t elements = walk_plan.zeroed_elements;
            if (type_ == data_type::string) {
                auto *strings = static_cast<std::string *>(to);
                for (std::size_t i = 0; i < elements; ++i) strings[i].clear();
            } else {
                std::memset(to, 0, dense_bytes(type_, elements));
            }
        }
        const std::size_t bits = element_bits(type_);
        const auto walk = [&](auto move_element) { walk_elements(dst, src, move_element); };
        if (type_ == data_type::string) {
            const auto *in = static_cast<const std::string *>(from);
            auto *out = static_cast<std::string *>(to);
            walk([&](dim_t d, dim_t s) { out[d] = in[s]; });
        } else if (is_packed(type_)) {
            walk([&](dim_t d, dim_t s) {
                store_packed(to, bits, static_cast<std::size_t>(d), load_packed(from, bits, static_cast<std::size_t>(s)));
            });
        } else {
            const auto *in = static_cast<const std::uint8_t *>(from);
            auto *out = static_cast<std::uint8_t *>(to);
            // A fixed size per element size, so each copy is one load and store.
            const auto walk_of = [&](auto bytes) {
                constexpr std::size_t n = decltype(bytes)::value;
                walk([&](dim_t d, dim_t s) { std::memcpy(out + d * dim_t{n}, in + s * dim_t{n}, n); });
            };
            switch (bits / 8) {
            case 1: walk_of(std::integral_constant<std::size_t, 1>{}); break;
            case 2: walk_of(std::integral_constant<std::size_t, 2>{}); break;
            case 4: walk_of(std::integral_constant<std::size_t, 4>{}); break;
            case 8: walk_of(std::integral_constant<std::size_t, 8>{}); break;
            case 16: walk_of(std::integral_constant<std::size_t, 16>{}); break;
            default: {
                const auto n = static_cast<dim_t>(bits / 8);
                walk([&](dim_t d, dim_t s) { std::memcpy(out + d * n, in + s * n, static_cast<std::size_t>(n)); });
            }
            }
        }
    }

    data_type type_;
    std::vector<movement_step> steps_;
    std::vector<kernel_step_plan> planned_; // per step
    std::size_t temp_elements_;
    std::size_t temporaries_; // 0, 1 or 2
    const movement_program *direct_; // into planned_, or null
};

} // namespace

kernel_step_plan plan_kernel_step(data_type type, const movement_step &step, const machine_facts &machine) {
    kernel_step_plan p;
    const auto program_of = [&](const dims_t &dims, dim_t src_offset, const dims_t &src_strides, dim_t dst_offset,
                                const dims_t &dst_strides) -> std::optional<movement_program> {
        movable_element_bits(type); // undef: says so
        const copy_plan plan = make_copy_plan(dims, src_strides, src_offset, dst_strides, dst_offset);
        if (plan.volume == 0) return std::nullopt;
        return plan_movement(plan, type, machine);
    };
    if (step.src.opaque() || step.dst.opaque()) {
        p.boxes = padded_step_as_boxes(step);
        if (p.boxes) {
            // Only where the step streams: in the caches the padding's
            // second pass finds its lines there.
            const std::size_t step_bytes = static_cast<std::size_t>(checked_volume(step.dims).value_or(0)) *
                                           std::max<std::size_t>(1, element_bits(type) / 8);
            if (step_bytes >= machine.transpose_streaming_bytes)
                p.edge = plan_padded_edge(type, *p.boxes,
                                          step.src.opaque() ? blocked_end::source : blocked_end::destination, machine);
            for (std::size_t k = 0; k < p.boxes->copies.size(); ++k) {
                if (p.edge && k + 1 == p.boxes->copies.size()) break; // the edge's
                const strided_box &b = p.boxes->copies[k];
                if (auto program = program_of(b.dims, b.src_offset, b.src_strides, b.dst_offset, b.dst_strides))
                    p.box_copies.push_back(std::move(*program));
            }
            if (!p.edge)
                for (const strided_box &b : p.boxes->padding)
                    if (auto program = program_of(b.dims, 0, b.src_strides, b.dst_offset, b.dst_strides))
                        p.box_padding.push_back(std::move(*program));
        } else {
            const std::size_t rank = step.dims.size();
            const auto layout_of = [&](const step_side &side) {
                return side.opaque() ? digit_layout::blocked(parse_format_tag(side.format, rank), step.dims)
                                     : digit_layout::strided(step.dims, side.strides);
            };
            const std::size_t zeroed =
                step.dst.opaque()
                    ? static_cast<std::size_t>(blocked_size(parse_format_tag(step.dst.format, rank), step.dims))
                    : 0;
            p.walk = padded_walk_plan{layout_of(step.src), layout_of(step.dst), zeroed};
        }
    } else {
        p.copy = make_copy_plan(step.dims, step.src.strides, 0, step.dst.strides, 0);
        p.program = program_of(step.dims, 0, step.src.strides, 0, step.dst.strides);
    }
    p.planned = true;
    return p;
}

std::vector<kernel_step_plan> plan_kernel_steps(data_type type, const movement_plan &plan) {
    std::vector<kernel_step_plan> planned;
    planned.reserve(plan.steps.size());
    const machine_facts machine = current_machine();
    for (const movement_step &step : plan.steps) {
        try {
            planned.push_back(plan_kernel_step(type, step, machine));
        } catch (const error &) {
            // Left unplanned: moving the step plans it again and reports the error.
            planned.emplace_back();
        }
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
