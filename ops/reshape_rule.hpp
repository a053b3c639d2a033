// The reshape rule: one implementation of target-shape resolution shared by
// every reshape op and version. Pure: dims in, dims or a diagnostic out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_math.hpp"
#include "core/fail.hpp"
#include "core/graph.hpp"
#include "core/rules.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

// How a 0 in the requested shape is read.
//   copy_from_input: special_zero=true (oneDNN) / allowzero=0 (ONNX)
//   literal:         special_zero=false (oneDNN) / allowzero=1 (ONNX)
enum class zero_rule { copy_from_input, literal };

// Why a requested shape was rejected: the rule (tests assert it) and a
// message naming the values involved that ends with the rule's id, as an
// error's does; fail(d.rule, label + ": " + d.message) throws it as one.
struct reshape_diagnostic {
    impl::rule rule{};
    std::string message;

    status code() const { return info(rule).code; }
};

// A violation of `r` as a value (the message gets " [id]" at its end).
inline reshape_diagnostic diagnose(impl::rule r, std::string message) {
    return {r, with_rule_id(r, std::move(message))};
}

struct reshape_resolution {
    std::optional<dims_t> dims; // set on success; may hold unknown_dim
    reshape_diagnostic diagnostic; // meaningful when !dims

    bool ok() const { return dims.has_value(); }
};

// Resolves `requested` against `input_dims` (which may hold unknown_dim).
// Rules (ids in brackets): at most one -1 [single_minus_one]; no value below
// -1 [value_range]; a copied 0 needs an input dim at its index
// [zero_index_in_rank]; with literal zeros, 0 and -1 together are an error
// [zero_with_minus_one]; -1 resolves from the remaining volume and is an
// error when that volume is 0 [ambiguous_minus_one]; volumes must match
// [volume_mismatch]; an empty request is a scalar (input volume 1); any
// product that overflows int64 [overflow]. Unknown input dims stay unknown in
// the output unless the rule fixes them; an unknown dim that a 0 copies
// cancels out of the -1's equation ({?,4} with [0,-1] gives {?,4}).
reshape_resolution resolve_target_shape(const dims_t &input_dims,
                                        const std::vector<std::int64_t> &requested,
                                        zero_rule zeros);

} // namespace reshaper::impl
