#include "backend/kernel_movement.hpp"

#include <string>
#include <vector>

#include "core/status.hpp"
#include "kernels/strided_copy.hpp"

namespace reshaper::impl {

namespace {

class kernel_movement final : public data_mover {
public:
    kernel_movement(data_type type, std::vector<movement_step> steps, std::size_t temp_elements,
                    std::size_t temporaries)
        : type_(type), steps_(std::move(steps)), temp_elements_(temp_elements),
          temporaries_(temporaries) {}

    void run(const void *src, void *dst) const override {
        // The temporaries are per run: concurrent runs never share them.
        std::vector<std::uint8_t> temp_bytes[2];
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
        for (const auto &step : steps_) {
            void *from = step.src.temporary ? temp[step.src.slot] : const_cast<void *>(src);
            void *to = step.dst.temporary ? temp[step.dst.slot] : dst;
            strided_copy(type_, step.dims, strided_tensor{from, 0, step.src.strides},
                         strided_tensor{to, 0, step.dst.strides});
        }
    }

private:
    data_type type_;
    std::vector<movement_step> steps_;
    std::size_t temp_elements_;
    std::size_t temporaries_; // 0, 1 or 2
};

} // namespace

std::unique_ptr<data_mover> make_kernel_movement(data_type type, const movement_plan &plan,
                                                 const std::string &why_not_reorder) {
    for (const auto &step : plan.steps)
        for (const step_side *side : {&step.src, &step.dst})
            if (side->opaque())
                throw error(status::unimplemented,
                            "blocked format " + side->format + " with padding (a dim that is "
                            "not a multiple of its block) for dtype " +
                                std::string(to_string(type)) +
                                ": only oneDNN's reorder moves padded layouts, and " +
                                why_not_reorder);
    std::size_t temp_elements = 0;
    if (plan.temporaries > 0)
        temp_elements = static_cast<std::size_t>(checked_volume(plan.temporary_dims).value());
    return std::make_unique<kernel_movement>(type, plan.steps, temp_elements, plan.temporaries);
}

} // namespace reshaper::impl
