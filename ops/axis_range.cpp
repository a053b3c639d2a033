#include "ops/axis_range.hpp"

namespace reshaper::impl {

std::optional<std::size_t> axis_bounds::normalize(std::int64_t value) const {
    if (value >= 0) {
        if (value < count) return static_cast<std::size_t>(value);
        return std::nullopt;
    }
    // value >= -wrap keeps value + wrap >= 0, and wrap <= count keeps it below count.
    if (negatives == negative_axes::count_from_back && value >= -wrap)
        return static_cast<std::size_t>(value + wrap);
    return std::nullopt;
}

std::string axis_bounds::range_text() const {
    if (count <= 0) return "empty (no axis to name)";
    const std::int64_t low = negatives == negative_axes::count_from_back ? -wrap : 0;
    // append, not "[" + to_string(..): GCC 12 warns falsely (-Wrestrict) on
    // the insert that operator+ makes of it.
    return std::string("[").append(std::to_string(low)).append(", ").append(std::to_string(count - 1)).append("]");
}

} // namespace reshaper::impl
