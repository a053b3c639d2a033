#include "ops/flatten_rule.hpp"

#include <algorithm>
#include <string>

namespace reshaper::impl {
namespace {

reshape_resolution violation(rule r, std::string message) { return {std::nullopt, diagnose(r, std::move(message))}; }

} // namespace

reshape_resolution resolve_flatten(const dims_t &input_dims, std::int64_t axis,
                                   negative_axes negatives) {
    const auto rank = static_cast<std::int64_t>(input_dims.size());
    const auto input_text = [&] {
        return "input " + dims_to_string(input_dims) + " of rank " + std::to_string(rank);
    };
    // rank + 1 cut points, wrapping by the rank: -1 cuts before the last dim.
    const axis_bounds bounds{rank + 1, rank, negatives};
    const auto cut = bounds.normalize(axis);
    if (!cut)
        return violation(rule::axis_range, "axis " + std::to_string(axis) + " is outside " +
                                           bounds.range_text() + " for " + input_text());
    dims_t out;
    for (const auto &[begin, end] : {std::pair<std::size_t, std::size_t>{0, *cut},
                                     std::pair<std::size_t, std::size_t>{*cut, input_dims.size()}}) {
        const dims_t group(input_dims.begin() + static_cast<std::ptrdiff_t>(begin),
                           input_dims.begin() + static_cast<std::ptrdiff_t>(end));
        // A known 0 decides the product whatever the unknown dims are.
        if (std::find(group.begin(), group.end(), 0) != group.end()) {
            out.push_back(0);
        } else if (has_unknown_dims(group)) {
            out.push_back(unknown_dim);
        } else if (const auto volume = checked_volume(group)) {
            out.push_back(*volume);
        } else {
            const std::string side = begin == 0 ? "rows" : "columns";
            return violation(rule::overflow, "the product of dims " + dims_to_string(group) + " of " +
                                             input_text() + " (the " + side + " at axis " +
                                             std::to_string(*cut) + ") overflows int64");
        }
    }
    return {std::move(out), {}};
}

} // namespace reshaper::impl
