// compose_chain keeps, while it walks the chain, the tensor reached so far
// as (fine, order, current): the input read as the fine dims, permuted by
// order, read in row-major order as the current dims. A reshape only
// replaces the current dims. A permutation needs every current dim to be a
// run of whole permuted fine dims; where a current dim cuts a fine dim, the
// fine dim is split first (the coarsest common refinement of the two). Then
// the permutation just reorders those runs. Where no refinement exists
// (the current dims cut across permuted fine dims that do not nest), the
// segment ends and the next starts from its dense output.
#include "layout/chain_view.hpp"

#include <numeric>
#include <optional>
#include <string>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "layout/view_strides.hpp"

namespace reshaper::impl {
namespace {

dims_t without_unit_dims(const dims_t &dims) {
    dims_t out;
    for (dim_t d : dims)
        if (d != 1) out.push_back(d);
    return out;
}

// For each of `coarse`'s dims, the run [first, last) of `fine`'s dims it
// covers; nothing unless every coarse dim is a product of whole fine dims
// (size-1 coarse dims cover empty runs; `fine` has no size-1 dims).
using dim_runs = std::vector<std::pair<std::size_t, std::size_t>>;
std::optional<dim_runs> runs_of(const dims_t &fine, const dims_t &coarse) {
    dim_runs runs;
    runs.reserve(coarse.size());
    std::size_t next = 0;
    for (dim_t c : coarse) {
        const std::size_t first = next;
        dim_t product = 1;
        while (product < c && next < fine.size()) {
            product *= fine[next++]; // bounded by c: volumes are int64-safe
            if (c % product != 0) return std::nullopt;
        }
        if (product != c) return std::nullopt;
        runs.emplace_back(first, next);
    }
    if (next != fine.size()) return std::nullopt;
    return runs;
}

// The coarsest dims refining both `a` and `b` (no size-1 dims in either;
// equal volumes), or nothing when their boundaries do not nest.
std::optional<dims_t> refinement_of(const dims_t &a, const dims_t &b) {
    dims_t out;
    std::size_t i = 0, j = 0;
    dim_t ra = 1, rb = 1;
    for (;;) {
        if (ra == 1 && i < a.size()) ra = a[i++];
        if (rb == 1 && j < b.size()) rb = b[j++];
        if (ra == 1 && rb == 1) break;
        if (ra == 1 || rb == 1) return std::nullopt;
        const dim_t m = std::min(ra, rb);
        if (ra % m != 0 || rb % m != 0) return std::nullopt;
        out.push_back(m);
        ra /= m;
        rb /= m;
    }
    return out;
}

struct walk_state {
    dims_t input;                    // the segment's input dims
    dims_t fine;
    std::vector<std::size_t> order;
    dims_t current;

    static walk_state starting_at(const dims_t &input, const dims_t &source) {
        walk_state s{input, without_unit_dims(source), {}, input};
        s.order.resize(s.fine.size());
        std::iota(s.order.begin(), s.order.end(), std::size_t{0});
        return s;
    }

    dims_t permuted() const {
        dims_t g;
        g.reserve(order.size());
        for (std::size_t k : order) g.push_back(fine[k]);
        return g;
    }

    // Splits fine dims so that every current dim is a run of whole permuted
    // fine dims; then the run of each current dim, or nothing when no split
    // does it.
    std::optional<dim_runs> refine_to_current() {
        const dims_t g = permuted();
        if (auto runs = runs_of(g, current)) return runs;
        const auto r = refinement_of(g, without_unit_dims(current));
        if (!r) return std::nullopt;
        // The pieces each permuted dim splits into, keyed by its fine index.
        std::vector<dims_t> pieces(fine.size());
        std::size_t cursor = 0;
        for (std::size_t p = 0; p < g.size(); ++p) {
            dim_t left = g[p];
            while (left > 1) {
                pieces[order[p]].push_back((*r)[cursor]);
                left /= (*r)[cursor++];
            }
        }
        std::vector<std::size_t> first_new(fine.size());
        dims_t new_fine;
        for (std::size_t f = 0; f < fine.size(); ++f) {
            first_new[f] = new_fine.size();
            new_fine.insert(new_fine.end(), pieces[f].begin(), pieces[f].end());
        }
        std::vector<std::size_t> new_order;
        for (std::size_t f : order)
            for (std::size_t k = 0; k < pieces[f].size(); ++k) new_order.push_back(first_new[f] + k);
        fine = std::move(new_fine);
        order = std::move(new_order);
        return runs_of(permuted(), current).value();
    }

    // `runs`: refine_to_current's.
    void permute(const std::vector<std::size_t> &permutation, const dim_runs &runs) {
        std::vector<std::size_t> new_order;
        dims_t new_current;
        new_order.reserve(order.size());
        new_current.reserve(current.size());
        for (std::size_t axis : permutation) {
            for (std::size_t p = runs[axis].first; p < runs[axis].second; ++p)
                new_order.push_back(order[p]);
            new_current.push_back(current[axis]);
        }
        order = std::move(new_order);
        current = std::move(new_current);
    }

    composed_view finish() && { return composed_view{std::move(input), std::move(fine), std::move(order), std::move(current)}; }
};

bool is_permutation_of(const std::vector<std::size_t> &p, std::size_t rank) {
    if (p.size() != rank) return false;
    std::vector<bool> seen(rank, false);
    for (std::size_t a : p) {
        if (a >= rank || seen[a]) return false;
        seen[a] = true;
    }
    return true;
}

} // namespace

dims_t composed_view::permuted_dims() const {
    dims_t g;
    for (std::size_t k : order) g.push_back(fine_dims[k]);
    return g;
}

bool composed_view::keeps_order() const {
    for (std::size_t k = 0; k < order.size(); ++k)
        if (order[k] != k) return false;
    return true;
}

std::vector<composed_view> compose_chain(const dims_t &input_dims, const dims_t &source_dims,
                                         const std::vector<chain_step> &steps) {
    const auto volume = checked_volume(input_dims);
    if (!volume || *volume <= 0 || has_unknown_dims(input_dims) ||
        checked_volume(source_dims) != volume ||
        !runs_of(without_unit_dims(source_dims), input_dims))
        throw error(status::invalid_arguments,
                    "compose_chain: input " + dims_to_string(input_dims) + " read as " +
                        dims_to_string(source_dims) +
                        " needs known dims of positive volume that the source refines [chain_composition]");
    std::vector<composed_view> segments;
    walk_state state = walk_state::starting_at(input_dims, source_dims);
    for (const chain_step &step : steps) {
        if (!step.permutation.empty()) {
            if (!is_permutation_of(step.permutation, state.current.size()) ||
                step.output_dims.size() != state.current.size())
                throw error(status::invalid_arguments,
                            "compose_chain: permutation " + dims_to_string(dims_t(step.permutation.begin(), step.permutation.end())) +
                                " does not permute the " + std::to_string(state.current.size()) +
                                " dims of " + dims_to_string(state.current) + " [chain_composition]");
            auto runs = state.refine_to_current();
            if (!runs) {
                // The dims do not nest: the segment ends in a dense temporary.
                segments.push_back(std::move(state).finish());
                const dims_t &reached = segments.back().output_dims;
                state = walk_state::starting_at(reached, reached);
                runs = state.refine_to_current(); // one fine dim per dim: always
            }
            state.permute(step.permutation, runs.value());
            if (state.current != step.output_dims)
                throw error(status::invalid_arguments,
                            "compose_chain: permuting gives " + dims_to_string(state.current) +
                                ", the step says " + dims_to_string(step.output_dims) + " [chain_composition]");
        } else {
            if (checked_volume(step.output_dims) != volume || has_unknown_dims(step.output_dims))
                throw error(status::invalid_arguments,
                            "compose_chain: reshape to " + dims_to_string(step.output_dims) +
                                " changes the volume " + std::to_string(*volume) + " [chain_composition]");
            state.current = step.output_dims;
        }
    }
    segments.push_back(std::move(state).finish());
    return segments;
}

dims_t permuted_strides(const composed_view &view, const dims_t &source_dims,
                        const dims_t &source_strides) {
    const auto fine = compute_view_strides(source_dims, source_strides, view.fine_dims);
    if (!fine.strides)
        throw error(status::invalid_arguments,
                    "permuted_strides: " + dims_to_string(view.fine_dims) + " does not refine " +
                        dims_to_string(source_dims) + " [chain_composition]");
    dims_t strides;
    for (std::size_t k : view.order) strides.push_back((*fine.strides)[k]);
    return strides;
}

} // namespace reshaper::impl
