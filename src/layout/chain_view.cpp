// compose_chain keeps, while it walks the chain, the tensor reached so far
// as (view, current): a strided view of the segment's source buffer, kept
// as coarse as its strides allow (merge_contiguous_dims), whose elements
// read in row-major order as the current dims are the tensor. A reshape
// only replaces the current dims: whether it is a view matters only when a
// permutation has to move the dims it made (or at the end, to the caller
// that asks the view rule for the output). A permutation needs every
// current dim to be a run of whole view dims; where a current dim cuts a
// view dim, the view dim is split first (splitting a strided dim is always
// a view). Then the permutation reorders those runs with their strides.
// Where no split does it (a current dim cuts across view dims whose
// strides do not nest), the segment ends and the next starts from its
// dense output.
//
// Because the view is coarsened by its strides, dims that a permutation
// brought together merge whenever their strides nest ([5,4] strides [2,10]
// transposed is [4,5] strides [10,2]: one dim of 20 at stride 2), and a
// broadcast dim (stride 0) stays a dim of its own: the decision is made on
// the memory, as PyTorch's view makes it.
#include "layout/chain_view.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "core/dim_merge.hpp"
#include "core/fail.hpp"
#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "layout/view_strides.hpp"

namespace reshaper::impl {
namespace {

// For each of `current`'s dims, the run [first, last) of `view`'s dims it
// covers; nothing unless every current dim is a product of whole view dims
// (size-1 current dims cover empty runs; `view` has no size-1 dims).
using dim_runs = std::vector<std::pair<std::size_t, std::size_t>>;
std::optional<dim_runs> runs_of(const dims_t &view, const dims_t &current) {
    dim_runs runs;
    runs.reserve(current.size());
    std::size_t next = 0;
    for (dim_t c : current) {
        const std::size_t first = next;
        dim_t product = 1;
        while (product < c && next < view.size()) {
            product *= view[next++]; // bounded by c: volumes are int64-safe
            if (c % product != 0) return std::nullopt;
        }
        if (product != c) return std::nullopt;
        runs.emplace_back(first, next);
    }
    if (next != view.size()) return std::nullopt;
    return runs;
}

std::string chain_error(const std::string &what) {
    return "compose_chain: " + what;
}

bool is_permutation_of(const std::vector<std::size_t> &p, std::size_t rank) {
    if (p.size() != rank) return false;
    std::vector<bool> seen(rank, false);
    for (std::size_t a : p) {
        if (a >= rank || seen[a]) return false;
        seen[a] = true;
    }
    return true;
}

void check_permutation(const chain_step &step, const dims_t &current) {
    if (!is_permutation_of(step.permutation, current.size()) || step.output_dims.size() != current.size())
        fail(rule::chain_composition,
             chain_error("permutation " +
                         dims_to_string(dims_t(step.permutation.begin(), step.permutation.end())) +
                         " does not permute the " + std::to_string(current.size()) + " dims of " +
                         dims_to_string(current)));
}

struct walk_state {
    dims_t input;   // the segment's input dims
    dims_t dims;    // the view: no size-1 dims, no neighbours that nest
    dims_t strides;
    dims_t current;

    static walk_state starting_at(const dims_t &input, dims_t source_dims, dims_t source_strides) {
        walk_state s{input, std::move(source_dims), std::move(source_strides), input};
        s.coarsen();
        return s;
    }

    void coarsen() {
        merge_contiguous_dims(dims, {&strides});
        if (dims.size() == 1 && dims[0] == 1) { // a single element: no dims at all
            dims.clear();
            strides.clear();
        }
    }

    // Splits view dims so that every current dim is a run of whole view
    // dims; then the run of each current dim, or nothing when no split
    // does it.
    std::optional<dim_runs> refine_to_current() {
        if (auto runs = runs_of(dims, current)) return runs;
        const auto r = common_refinement(dims, current);
        if (!r) return std::nullopt;
        dims_t new_dims, new_strides;
        std::size_t cursor = 0;
        for (std::size_t k = 0; k < dims.size(); ++k) {
            dims_t pieces;
            for (dim_t left = dims[k]; left > 1; left /= (*r)[cursor++]) pieces.push_back((*r)[cursor]);
            // A split of one strided dim is always a view of it.
            const view_result split = compute_view_strides({dims[k]}, {strides[k]}, pieces);
            if (!split.strides) // strides whose buffer overflows int64
                fail(rule::overflow,
                     "compose_chain: splitting a dim of " + std::to_string(dims[k]) + " at stride " +
                         std::to_string(strides[k]) + " into " + dims_to_string(pieces) + ": " +
                         std::string(describe(split.failure)));
            new_dims.insert(new_dims.end(), pieces.begin(), pieces.end());
            new_strides.insert(new_strides.end(), split.strides->begin(), split.strides->end());
        }
        dims = std::move(new_dims);
        strides = std::move(new_strides);
        return runs_of(dims, current).value();
    }

    // `runs`: refine_to_current's.
    void permute(const std::vector<std::size_t> &permutation, const dim_runs &runs) {
        dims_t new_dims, new_strides, new_current;
        for (std::size_t axis : permutation) {
            for (std::size_t p = runs[axis].first; p < runs[axis].second; ++p) {
                new_dims.push_back(dims[p]);
                new_strides.push_back(strides[p]);
            }
            new_current.push_back(current[axis]);
        }
        dims = std::move(new_dims);
        strides = std::move(new_strides);
        current = std::move(new_current);
        coarsen();
    }

    composed_view finish() && {
        return composed_view{std::move(input), std::move(dims), std::move(strides), std::move(current)};
    }
};

} // namespace

std::optional<dims_t> stepwise_view_strides(const dims_t &dims, const dims_t &strides,
                                            const std::vector<chain_step> &steps) {
    dims_t current = dims, current_strides = strides;
    for (const chain_step &step : steps) {
        if (step.permutation.empty()) {
            view_result v = compute_view_strides(current, current_strides, step.output_dims);
            if (!v.strides) return std::nullopt;
            current_strides = std::move(*v.strides);
        } else {
            check_permutation(step, current);
            dims_t permuted;
            for (std::size_t axis : step.permutation) permuted.push_back(current_strides[axis]);
            current_strides = std::move(permuted);
        }
        current = step.output_dims;
    }
    return current_strides;
}

std::vector<composed_view> compose_chain(const dims_t &input_dims, const dims_t &source_dims,
                                         const dims_t &source_strides,
                                         const std::vector<chain_step> &steps) {
    const auto volume = checked_volume(input_dims);
    if (!volume || *volume <= 0 || has_unknown_dims(input_dims) ||
        checked_volume(source_dims) != volume || source_strides.size() != source_dims.size())
        fail(rule::chain_composition,
             chain_error("input " + dims_to_string(input_dims) + " read as " +
                         dims_to_string(source_dims) + " strides " + dims_to_string(source_strides) +
                         " needs known dims of positive volume and one stride per source dim"));
    std::vector<composed_view> segments;
    walk_state state = walk_state::starting_at(input_dims, source_dims, source_strides);
    for (const chain_step &step : steps) {
        if (step.permutation.empty()) {
            if (checked_volume(step.output_dims) != volume || has_unknown_dims(step.output_dims))
                fail(rule::chain_composition,
                     chain_error("reshape to " + dims_to_string(step.output_dims) + " changes the volume " +
                                 std::to_string(*volume)));
            state.current = step.output_dims;
            continue;
        }
        check_permutation(step, state.current);
        auto runs = state.refine_to_current();
        if (!runs) {
            // The view cannot address the current dims: the segment ends in
            // a dense temporary, which the next one reads.
            segments.push_back(std::move(state).finish());
            const dims_t &reached = segments.back().output_dims;
            state = walk_state::starting_at(reached, reached, dense_strides(reached).value());
            runs = state.refine_to_current(); // one dense view dim: always
        }
        state.permute(step.permutation, runs.value());
        if (state.current != step.output_dims)
            fail(rule::chain_composition,
                 chain_error("permuting gives " + dims_to_string(state.current) + ", the step says " +
                             dims_to_string(step.output_dims)));
    }
    segments.push_back(std::move(state).finish());
    return segments;
}

std::optional<dims_t> common_refinement(const dims_t &a, const dims_t &b) {
    dims_t out;
    std::size_t i = 0, j = 0;
    dim_t ra = 1, rb = 1; // what is left of a[i-1] / b[j-1]
    for (;;) {
        while (ra == 1 && i < a.size()) ra = a[i++];
        while (rb == 1 && j < b.size()) rb = b[j++];
        if (ra == 1 || rb == 1) break;
        if (ra <= 0 || rb <= 0) return std::nullopt;
        const dim_t m = std::min(ra, rb);
        if (ra % m != 0 || rb % m != 0) return std::nullopt;
        out.push_back(m);
        ra /= m;
        rb /= m;
    }
    if (ra != 1 || rb != 1) return std::nullopt; // volumes differ
    return out;
}

} // namespace reshaper::impl
