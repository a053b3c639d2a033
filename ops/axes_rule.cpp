#include "ops/axes_rule.hpp"

#include <string>

namespace reshaper::impl {
namespace {

axes_resolution violation(rule r, std::string message) { return {std::nullopt, diagnose(r, std::move(message))}; }

// Marks the positions `axes` name among `bounds.count`; a failure for a value
// out of range or a position named twice (after normalisation: with R = 5,
// -1 and 4 are one position). `context()` describes the dims in messages,
// which are built only when a rule fails: this runs at every execute too.
template <typename Context>
std::optional<axes_resolution> mark_axes(const std::vector<std::int64_t> &axes,
                                         const axis_bounds &bounds, const Context &context,
                                         std::vector<bool> &marked) {
    const auto axes_text = [&] { return "axes " + dims_to_string(axes); };
    std::vector<std::size_t> positions;
    positions.reserve(axes.size());
    // A value invalid on its own is reported before any repeat.
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto position = bounds.normalize(axes[i]);
        if (!position)
            return violation(rule::axis_range, axes_text() + " has " + std::to_string(axes[i]) +
                                               " at index " + std::to_string(i) + ", outside " +
                                               bounds.range_text() + " for " + context());
        positions.push_back(*position);
    }
    marked.assign(static_cast<std::size_t>(bounds.count), false);
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (marked[positions[i]]) {
            std::size_t first = 0;
            while (positions[first] != positions[i]) ++first;
            return violation(rule::axis_duplicate, axes_text() + " names axis " +
                                                   std::to_string(positions[i]) +
                                                   " twice (at indices " + std::to_string(first) +
                                                   " and " + std::to_string(i) + ") for " + context());
        }
        marked[positions[i]] = true;
    }
    return std::nullopt;
}

} // namespace

axes_resolution remove_axes(const dims_t &input_dims,
                            const std::optional<std::vector<std::int64_t>> &axes,
                            negative_axes negatives) {
    const auto input_text = [&] {
        return "input " + dims_to_string(input_dims) + " of rank " + std::to_string(input_dims.size());
    };
    dims_t out;
    if (!axes) {
        // Which dims are 1 decides the rank: an unknown one leaves it open.
        if (has_unknown_dims(input_dims)) return {};
        for (dim_t d : input_dims)
            if (d != 1) out.push_back(d);
        return {std::move(out), std::nullopt};
    }
    const auto rank = static_cast<std::int64_t>(input_dims.size());
    std::vector<bool> removed;
    if (auto failed = mark_axes(*axes, {rank, rank, negatives}, input_text, removed))
        return std::move(*failed);
    for (std::size_t i = 0; i < input_dims.size(); ++i) {
        if (!removed[i]) {
            out.push_back(input_dims[i]);
        } else if (input_dims[i] >= 0 && input_dims[i] != 1) {
            return violation(rule::squeeze_not_one,
                             "axes " + dims_to_string(*axes) + " remove axis " + std::to_string(i) +
                                 " of size " + std::to_string(input_dims[i]) + " from " +
                                 input_text() + "; only dims of size 1 can be removed");
        }
    }
    return {std::move(out), std::nullopt};
}

axes_resolution insert_axes(const dims_t &input_dims, const std::vector<std::int64_t> &axes,
                            negative_axes negatives) {
    // Values count in the output's rank, which the number of axes sets: a
    // list longer than int64 can count cannot exist in memory.
    const auto out_rank = static_cast<std::int64_t>(input_dims.size() + axes.size());
    const auto context = [&] {
        return "an output of rank " + std::to_string(out_rank) + " (input " +
               dims_to_string(input_dims) + " and " + std::to_string(axes.size()) + " new axes)";
    };
    std::vector<bool> inserted;
    if (auto failed = mark_axes(axes, {out_rank, out_rank, negatives}, context, inserted))
        return std::move(*failed);
    dims_t out;
    out.reserve(static_cast<std::size_t>(out_rank));
    std::size_t next_input = 0;
    for (std::size_t p = 0; p < inserted.size(); ++p)
        out.push_back(inserted[p] ? 1 : input_dims[next_input++]);
    return {std::move(out), std::nullopt};
}

} // namespace reshaper::impl
