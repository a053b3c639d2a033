// The reshape rule against a brute-force oracle: every input shape up to
// rank 3 (dims 0..3) with every target up to length 3 over a set of values,
// for both zero rules. The oracle reads the rules literally and finds the -1
// by trying every value, so it shares no arithmetic with the rule.
#include <gtest/gtest.h>

#include <functional>

#include "ops/reshape_rule.hpp"

namespace reshaper::impl {
namespace {

struct oracle_answer {
    std::optional<dims_t> dims;
    std::string rule;
};

std::int64_t product(const dims_t &d) {
    std::int64_t p = 1;
    for (auto x : d) p *= x; // small dims only: cannot overflow here
    return p;
}

oracle_answer oracle(const dims_t &input, const std::vector<std::int64_t> &target, zero_rule z) {
    const bool copy = z == zero_rule::copy_from_input;
    int minus_ones = 0;
    bool literal_zero = false;
    for (std::size_t i = 0; i < target.size(); ++i)
        if (target[i] < -1) return {std::nullopt, "value_range"};
    for (std::size_t i = 0; i < target.size(); ++i) minus_ones += target[i] == -1;
    if (minus_ones > 1) return {std::nullopt, "single_minus_one"};
    dims_t out(target.begin(), target.end());
    for (std::size_t i = 0; i < target.size(); ++i) {
        if (target[i] != 0) continue;
        if (!copy) {
            literal_zero = true;
        } else if (i >= input.size()) {
            return {std::nullopt, "zero_index_in_rank"};
        } else {
            out[i] = input[i];
        }
    }
    if (literal_zero && minus_ones) return {std::nullopt, "zero_with_minus_one"};
    const std::int64_t volume = product(input);
    auto slot = std::find(out.begin(), out.end(), -1);
    if (slot == out.end())
        return product(out) == volume ? oracle_answer{out, ""}
                                      : oracle_answer{std::nullopt, "volume_mismatch"};
    dims_t rest = out;
    rest.erase(rest.begin() + (slot - out.begin()));
    if (product(rest) == 0) return {std::nullopt, "ambiguous_minus_one"};
    for (std::int64_t x = 0; x <= volume; ++x) {
        *slot = x;
        if (product(out) == volume) return {out, ""};
    }
    return {std::nullopt, "volume_mismatch"};
}

template <typename F>
void for_each_dims(std::size_t max_rank, const std::vector<std::int64_t> &values, F f) {
    dims_t d;
    std::function<void()> rec = [&] {
        f(d);
        if (d.size() == max_rank) return;
        for (auto v : values) {
            d.push_back(v);
            rec();
            d.pop_back();
        }
    };
    rec();
}

TEST(ReshapeRuleOracle, AgreesOnEveryShapeUpToRankThree) {
    std::size_t checked = 0, resolved = 0;
    for_each_dims(3, {0, 1, 2, 3}, [&](const dims_t &input) {
        for_each_dims(3, {-2, -1, 0, 1, 2, 3, 4, 6}, [&](const dims_t &target) {
            for (zero_rule z : {zero_rule::copy_from_input, zero_rule::literal}) {
                const oracle_answer want = oracle(input, target, z);
                const reshape_resolution got = resolve_target_shape(input, target, z);
                ++checked;
                const std::string where = "input " + dims_to_string(input) + " target " +
                                          dims_to_string(target) +
                                          (z == zero_rule::literal ? " literal" : " copy");
                if (want.dims) {
                    ++resolved;
                    ASSERT_TRUE(got.ok()) << where << ": " << got.diagnostic.message;
                    ASSERT_EQ(*got.dims, *want.dims) << where;
                } else {
                    ASSERT_FALSE(got.ok()) << where << " resolved to "
                                           << dims_to_string(*got.dims);
                    ASSERT_EQ(to_string(got.diagnostic.rule), want.rule)
                        << where << ": " << got.diagnostic.message;
                }
            }
        });
    });
    // Both outcomes are well represented.
    EXPECT_GT(resolved, 1000u);
    EXPECT_GT(checked - resolved, 1000u);
}

TEST(ReshapeRuleOracle, UnknownInputDimsNeverContradictAnyConcreteValue) {
    // Replacing one input dim by unknown: the result must be compatible with
    // every concrete value that dim could take (a known output dim must be
    // what each successful concrete input gives), and an error must hold for
    // every concrete value.
    for_each_dims(3, {0, 1, 2, 3}, [&](const dims_t &input) {
        for (std::size_t u = 0; u < input.size(); ++u) {
            dims_t partial = input;
            partial[u] = unknown_dim;
            for_each_dims(2, {-1, 0, 1, 2, 3, 6}, [&](const dims_t &target) {
                for (zero_rule z : {zero_rule::copy_from_input, zero_rule::literal}) {
                    const reshape_resolution got = resolve_target_shape(partial, target, z);
                    const std::string where = "input " + dims_to_string(partial) + " target " +
                                              dims_to_string(target);
                    for (std::int64_t value = 0; value <= 6; ++value) {
                        dims_t concrete = partial;
                        concrete[u] = value;
                        const oracle_answer want = oracle(concrete, target, z);
                        if (!got.ok()) {
                            ASSERT_FALSE(want.dims.has_value())
                                << where << " rejected (" << got.diagnostic.message
                                << ") but dim " << u << "=" << value << " works";
                            continue;
                        }
                        if (!want.dims) continue;
                        for (std::size_t i = 0; i < got.dims->size(); ++i) {
                            if ((*got.dims)[i] == unknown_dim) continue;
                            ASSERT_EQ((*got.dims)[i], (*want.dims)[i])
                                << where << " dim " << u << "=" << value;
                        }
                    }
                }
            });
        }
    });
}

} // namespace
} // namespace reshaper::impl
