#include "ops/reshape_rule.hpp"

#include <algorithm>

namespace reshaper::impl {
namespace {

// Carries a diagnostic from the depth of the rule to resolve_target_shape,
// which turns it into a value. Never leaves this file.
struct rule_violation {
    reshape_diagnostic diagnostic;
};

[[noreturn]] void violated(rule r, std::string message) {
    throw rule_violation{diagnose(r, std::move(message))};
}

// The volume of dims that may hold unknown (negative) dims.
struct partial_volume {
    dim_t known = 1;    // product of the known dims (0 when one of them is 0)
    bool exact = true;  // no unknown dim can change it

    std::string describe() const {
        return exact ? "volume " + std::to_string(known)
                     : "a volume that is a multiple of " + std::to_string(known);
    }
};

// `what()` names the dims in the overflow message ("input [2,3]").
template <typename Describe>
partial_volume volume_of(const dims_t &dims, const Describe &what) {
    // A known 0 makes the volume 0 whatever the other dims are, even when
    // their product would overflow.
    if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return {0, true};
    const bool has_unknown = has_unknown_dims(dims);
    partial_volume v{1, !has_unknown};
    for (dim_t d : dims) {
        if (d < 0) continue;
        auto next = checked_mul(v.known, d);
        if (!next) {
            // An unknown dim may still be 0; only a known volume overflows.
            if (has_unknown) return {1, false};
            violated(rule::overflow, "volume of " + what() + " overflows int64 (" + std::to_string(v.known) +
                                 " * " + std::to_string(d) + ")");
        }
        v.known = *next;
    }
    return v;
}

// Equal volumes, checked as far as the known dims allow: an exact non-zero
// volume must be a multiple of the other side's known product.
bool volumes_can_match(const partial_volume &a, const partial_volume &b) {
    if (a.exact && b.exact) return a.known == b.known;
    if (a.exact) return a.known == 0 || a.known % b.known == 0;
    if (b.exact) return b.known == 0 || b.known % a.known == 0;
    return true;
}

dims_t resolve(const dims_t &input, const std::vector<std::int64_t> &requested, zero_rule zeros) {
    // Message parts, built only when a rule fails: this runs for every op at
    // inference and for every run-time shape at execute.
    const auto shape = [&] { return "shape " + dims_to_string(requested); };
    const auto input_text = [&] { return "input " + dims_to_string(input); };

    // A value invalid on its own is reported before any rule between values.
    for (std::size_t i = 0; i < requested.size(); ++i)
        if (requested[i] < -1)
            violated(rule::value_range, shape() + " has " + std::to_string(requested[i]) + " at index " +
                                    std::to_string(i) + "; values must be >= -1");
    std::optional<std::size_t> minus_one;
    for (std::size_t i = 0; i < requested.size(); ++i) {
        if (requested[i] == -1) {
            if (minus_one)
                violated(rule::single_minus_one, shape() + " has more than one -1 (at indices " +
                                             std::to_string(*minus_one) + " and " +
                                             std::to_string(i) + ")");
            minus_one = i;
        }
    }

    dims_t out(requested.begin(), requested.end());
    std::optional<std::size_t> literal_zero;
    // Indices whose unknown input dim a 0 copies: the same unknown stands on
    // both sides of the volume equation, so it cancels out of it.
    std::vector<bool> cancels(requested.size(), false);
    for (std::size_t i = 0; i < requested.size(); ++i) {
        if (requested[i] != 0) continue;
        if (zeros == zero_rule::literal) {
            if (!literal_zero) literal_zero = i;
            continue;
        }
        if (i >= input.size())
            violated(rule::zero_index_in_rank, shape() + " has 0 at index " + std::to_string(i) +
                                           " to copy input dim " + std::to_string(i) + ", but " +
                                           input_text() + " has rank " +
                                           std::to_string(input.size()));
        out[i] = input[i] < 0 ? unknown_dim : input[i];
        cancels[i] = input[i] < 0;
    }
    if (literal_zero && minus_one)
        violated(rule::zero_with_minus_one, shape() + " has both a literal 0 (at index " +
                                        std::to_string(*literal_zero) + ") and -1 (at index " +
                                        std::to_string(*minus_one) +
                                        "), so the -1 cannot be resolved");

    const partial_volume in_volume = volume_of(input, input_text);
    if (minus_one) {
        // The -1 solves (input dims) = (other dims) * x with the cancelling
        // unknowns left out of both sides (OpenVINO and ONNX do the same):
        // {?,4} with [0,-1] gives {?,4}. Were that unknown 0, the -1 would be
        // ambiguous, so a valid input never contradicts the result.
        dims_t in_kept, others_kept;
        for (std::size_t i = 0; i < input.size(); ++i)
            if (i >= cancels.size() || !cancels[i]) in_kept.push_back(input[i]);
        for (std::size_t i = 0; i < out.size(); ++i)
            if (i != *minus_one && !cancels[i]) others_kept.push_back(out[i]);
        const bool cancelled = in_kept.size() != input.size();
        const auto in_kept_text = [&] {
            return cancelled ? input_text() + " without the copied unknown dims" : input_text();
        };
        const partial_volume in_part = volume_of(in_kept, in_kept_text);
        const partial_volume rest = volume_of(others_kept, shape);
        if (rest.known == 0) {
            dims_t others = out;
            others.erase(others.begin() + static_cast<std::ptrdiff_t>(*minus_one));
            violated(rule::ambiguous_minus_one,
                 shape() + " leaves volume 0 for the -1 at index " + std::to_string(*minus_one) +
                     " (other dims " + dims_to_string(others) + "), so any value would fit");
        }
        if (in_part.exact && rest.exact) {
            if (in_part.known % rest.known != 0)
                violated(rule::volume_mismatch, shape() + " cannot hold " + in_kept_text() + " of " +
                                         in_part.describe() + ": the other dims' volume " +
                                         std::to_string(rest.known) + " does not divide it");
            out[*minus_one] = in_part.known / rest.known;
        } else {
            out[*minus_one] = unknown_dim; // never guessed from unknown dims
        }
    }

    const partial_volume out_volume = volume_of(out, shape);
    if (!volumes_can_match(in_volume, out_volume))
        violated(rule::volume_mismatch, shape() + " resolves to " + dims_to_string(out) + " of " +
                                 out_volume.describe() + ", but " + input_text() + " has " +
                                 in_volume.describe());
    return out;
}

} // namespace

reshape_resolution resolve_target_shape(const dims_t &input_dims,
                                        const std::vector<std::int64_t> &requested,
                                        zero_rule zeros) {
    try {
        return {resolve(input_dims, requested, zeros), {}};
    } catch (const rule_violation &v) {
        return {std::nullopt, v.diagnostic};
    }
}

} // namespace reshaper::impl
