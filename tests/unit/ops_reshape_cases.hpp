// The named reshape cases: each runs against the rule itself
// (ops_reshape_rule_test.cpp) and through every op x version
// (ops_reshape_ops_test.cpp). Expected dims are worked out by hand.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ops/reshape_rule.hpp"

namespace reshaper::impl::testing {

enum class zeros_in_case { copy, literal, either };

struct reshape_case {
    std::string name;
    dims_t input;
    std::vector<std::int64_t> target;
    zeros_in_case zeros;
    std::optional<dims_t> expected; // on success
    std::string rule;               // on failure: the rule id
    std::string message;            // on failure: a message substring
};

inline void PrintTo(const reshape_case &c, std::ostream *os) { *os << c.name; }

inline bool applies(const reshape_case &c, zero_rule z) {
    return c.zeros == zeros_in_case::either ||
           (c.zeros == zeros_in_case::copy) == (z == zero_rule::copy_from_input);
}

inline const std::vector<reshape_case> &reshape_cases() {
    constexpr std::int64_t big = std::int64_t{1} << 62;
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    using z = zeros_in_case;
    static const std::vector<reshape_case> cases{
        // Results.
        {"seed_copy_zero_and_minus_one", {3, 4, 5}, {0, -1}, z::copy, dims_t{3, 20}, "", ""},
        {"reorder_dims", {2, 3, 4}, {4, 3, 2}, z::either, dims_t{4, 3, 2}, "", ""},
        {"minus_one_first", {2, 3, 4}, {-1, 4}, z::either, dims_t{6, 4}, "", ""},
        {"copy_all_but_minus_one", {2, 3, 4}, {0, 0, -1}, z::copy, dims_t{2, 3, 4}, "", ""},
        {"scalar_to_one", {}, {1}, z::either, dims_t{1}, "", ""},
        {"scalar_to_one_by_one", {}, {1, 1}, z::either, dims_t{1, 1}, "", ""},
        {"scalar_to_minus_one", {}, {-1}, z::either, dims_t{1}, "", ""},
        {"one_by_one_to_scalar", {1, 1}, {}, z::either, dims_t{}, "", ""},
        {"one_to_scalar", {1}, {}, z::either, dims_t{}, "", ""},
        {"literal_zero_keeps_empty", {2, 0, 3}, {0, 5}, z::literal, dims_t{0, 5}, "", ""},
        {"copied_zero_keeps_empty", {2, 0, 3}, {0, 0, 3}, z::copy, dims_t{2, 0, 3}, "", ""},
        {"minus_one_on_empty_input", {0, 3}, {-1, 3}, z::either, dims_t{0, 3}, "", ""},
        {"volume_above_2_pow_31", {65536, 65536}, {-1}, z::either, dims_t{4294967296}, "", ""},
        {"split_above_2_pow_31", {4294967296}, {65536, -1}, z::either, dims_t{65536, 65536}, "",
         ""},
        {"int64_max_volume", {max}, {-1, 7}, z::either, dims_t{1317624576693539401, 7}, "", ""},
        // A copied unknown dim stands on both sides of the volume equation and
        // cancels, so the -1 resolves (OpenVINO's and ONNX's inference agree).
        {"partial_copied_unknown_cancels_for_minus_one", {-1, 4}, {0, -1}, z::copy,
         dims_t{-1, 4}, "", ""},
        {"partial_copied_unknown_beside_ones", {-1, 1, 1}, {0, -1}, z::copy, dims_t{-1, 1}, "",
         ""},
        {"partial_copied_unknowns_cancel_inside", {2, -1, 3}, {0, 0, 1, -1}, z::copy,
         dims_t{2, -1, 1, 3}, "", ""},
        {"partial_uncopied_unknown_keeps_minus_one_unknown", {-1, 1, 2}, {-1, 0}, z::copy,
         dims_t{-1, 1}, "", ""},
        {"partial_two_unknowns_one_copied", {-1, -1, 4}, {0, -1}, z::copy, dims_t{-1, -1}, "",
         ""},
        {"partial_copied_known_dim", {-1, 4}, {2, 0}, z::copy, dims_t{2, 4}, "", ""},
        {"partial_copied_unknown_dim", {-1, 4}, {0, 2, 2}, z::copy, dims_t{-1, 2, 2}, "", ""},
        {"partial_minus_one_beside_known", {-1, 6}, {-1, 4}, z::either, dims_t{-1, 4}, "", ""},
        {"partial_known_zero_gives_volume_0", {-1, 0}, {-1}, z::either, dims_t{0}, "", ""},
        {"partial_input_fits_target", {-1, 4}, {8, 2}, z::either, dims_t{8, 2}, "", ""},
        // Only an unknown dim of 0 makes this input valid, but it may be 0.
        {"partial_input_known_dims_beyond_int64", {-1, 4294967296, 4294967296}, {-1},
         z::either, dims_t{-1}, "", ""},

        // Rule violations.
        {"two_minus_ones", {2, 3, 4}, {2, -1, -1}, z::either, std::nullopt, "single_minus_one",
         "shape [2,-1,-1] has more than one -1 (at indices 1 and 2)"},
        {"value_below_minus_one", {2, 3}, {2, -7}, z::either, std::nullopt, "value_range",
         "-7"},
        {"copied_zero_beyond_rank", {2, 3}, {0, 0, 0}, z::copy, std::nullopt,
         "zero_index_in_rank", "0 at index 2"},
        {"literal_zero_with_minus_one", {2, 0, 3}, {0, -1}, z::literal, std::nullopt,
         "zero_with_minus_one", "literal 0 (at index 0) and -1 (at index 1)"},
        {"minus_one_beside_copied_zero", {1, 0}, {1, 0, -1}, z::copy, std::nullopt,
         "ambiguous_minus_one", "volume 0 for the -1 at index 2"},
        {"minus_one_beside_zero_volume", {2, 0, 3}, {0, 0, -1}, z::copy, std::nullopt,
         "ambiguous_minus_one", "other dims [2,0]"},
        {"volume_mismatch", {2, 3, 4}, {5, 5}, z::either, std::nullopt, "volume_mismatch",
         "volume 25"},
        {"volume_mismatch_with_copied_zero", {2, 3, 4}, {0, 5}, z::copy, std::nullopt,
         "volume_mismatch", "[2,5] of volume 10"},
        {"volume_mismatch_with_literal_zero", {2, 3}, {0, 6}, z::literal, std::nullopt,
         "volume_mismatch", "volume 0"},
        {"minus_one_does_not_divide", {2, 3, 4}, {5, -1}, z::either, std::nullopt,
         "volume_mismatch", "5 does not divide"},
        {"scalar_from_two_elements", {2}, {}, z::either, std::nullopt, "volume_mismatch",
         "input [2] has volume 2"},
        {"scalar_to_two_elements", {}, {2}, z::either, std::nullopt, "volume_mismatch",
         "input [] has volume 1"},
        {"target_volume_overflows", {4}, {big, 4}, z::either, std::nullopt, "overflow",
         "4611686018427387904 * 4"},
        {"overflow_beside_minus_one", {3}, {-1, big, 4}, z::either, std::nullopt, "overflow",
         "4611686018427387904 * 4"},
        {"input_volume_overflows", {4294967296, 4294967296}, {-1}, z::either, std::nullopt,
         "overflow", "input [4294967296,4294967296]"},
        {"partial_copied_unknown_rest_does_not_divide", {-1, 6}, {0, 4, -1}, z::copy,
         std::nullopt, "volume_mismatch", "4 does not divide"},
        {"partial_input_cannot_fit", {-1, 3}, {4}, z::either, std::nullopt, "volume_mismatch",
         "multiple of 3"},
        {"partial_empty_input_cannot_fit", {-1, 0}, {5}, z::either, std::nullopt,
         "volume_mismatch", "volume 5"},
    };
    return cases;
}

} // namespace reshaper::impl::testing
