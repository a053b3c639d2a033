#include "ops/permutation_rule.hpp"

namespace reshaper::impl {

permutation_resolution resolve_permutation(const dims_t &input_dims,
                                           const std::vector<std::int64_t> &order,
                                           negative_axes negatives, const std::string &name) {
    const std::size_t rank = input_dims.size();
    // Message parts, built only when a rule fails.
    const auto order_text = [&] { return name + " " + dims_to_string(order); };
    const auto input_text = [&] {
        return "input " + dims_to_string(input_dims) + " of rank " + std::to_string(rank);
    };
    permutation_resolution r;
    if (order.empty()) {
        for (std::size_t i = rank; i-- > 0;) r.permutation.push_back(i);
    } else {
        if (order.size() != rank) {
            r.diagnostic = diagnose(rule::perm_length, order_text() + " has " +
                                                        std::to_string(order.size()) +
                                                        " entries, but " + input_text() +
                                                        " needs one per axis");
            return r;
        }
        const axis_bounds bounds{static_cast<std::int64_t>(rank), static_cast<std::int64_t>(rank),
                                 negatives};
        // A value invalid on its own is reported before any repeat.
        for (std::size_t i = 0; i < rank; ++i) {
            const auto axis = bounds.normalize(order[i]);
            if (!axis) {
                r.diagnostic = diagnose(rule::axis_range, order_text() + " has " + std::to_string(order[i]) +
                                      " at index " + std::to_string(i) + ", outside " +
                                      bounds.range_text() + " for " + input_text());
                return r;
            }
            r.permutation.push_back(*axis);
        }
        std::vector<std::optional<std::size_t>> named_at(rank);
        for (std::size_t i = 0; i < rank; ++i) {
            auto &first = named_at[r.permutation[i]];
            if (first) {
                r.diagnostic = diagnose(rule::axis_duplicate, order_text() + " names axis " +
                                          std::to_string(r.permutation[i]) + " twice (at indices " +
                                          std::to_string(*first) + " and " + std::to_string(i) +
                                          "), so it is not a permutation of " + input_text());
                return r;
            }
            first = i;
        }
    }
    dims_t out(rank);
    for (std::size_t i = 0; i < rank; ++i) out[i] = input_dims[r.permutation[i]];
    r.dims = std::move(out);
    return r;
}

} // namespace reshaper::impl
