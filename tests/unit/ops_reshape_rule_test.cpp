// The reshape rule on its own: every named case, for each zero rule it
// applies to.
#include <gtest/gtest.h>

#include "ops/reshape_rule.hpp"
#include "ops_reshape_cases.hpp"

namespace reshaper::impl::testing {
namespace {

struct rule_param {
    reshape_case c;
    zero_rule zeros;
};

void PrintTo(const rule_param &p, std::ostream *os) {
    *os << p.c.name << (p.zeros == zero_rule::literal ? " literal" : " copy");
}

std::vector<rule_param> rule_params() {
    std::vector<rule_param> params;
    for (const reshape_case &c : reshape_cases())
        for (zero_rule z : {zero_rule::copy_from_input, zero_rule::literal})
            if (applies(c, z)) params.push_back({c, z});
    return params;
}

class ReshapeRule : public ::testing::TestWithParam<rule_param> {};

TEST_P(ReshapeRule, ResolvesOrNamesTheRule) {
    const auto &[c, zeros] = GetParam();
    const reshape_resolution r = resolve_target_shape(c.input, c.target, zeros);
    if (c.expected) {
        ASSERT_TRUE(r.ok()) << r.diagnostic.message;
        EXPECT_EQ(*r.dims, *c.expected);
        return;
    }
    ASSERT_FALSE(r.ok()) << "resolved to " << dims_to_string(*r.dims);
    EXPECT_EQ(r.diagnostic.code(), status::invalid_shape);
    EXPECT_EQ(to_string(r.diagnostic.rule), c.rule) << r.diagnostic.message;
    EXPECT_NE(r.diagnostic.message.find(c.message), std::string::npos) << r.diagnostic.message;
    EXPECT_NE(r.diagnostic.message.find("[" + c.rule + "]"), std::string::npos)
        << r.diagnostic.message;
}

INSTANTIATE_TEST_SUITE_P(Cases, ReshapeRule, ::testing::ValuesIn(rule_params()),
                         [](const auto &info) {
                             return info.param.c.name +
                                    (info.param.zeros == zero_rule::literal ? "_literal"
                                                                            : "_copy");
                         });

TEST(ReshapeRuleZeros, CopiedZeroTakesTheInputDimLiteralZeroDoesNot) {
    const auto copied = resolve_target_shape({0, 3}, {0, 3}, zero_rule::copy_from_input);
    ASSERT_TRUE(copied.ok());
    EXPECT_EQ(*copied.dims, (dims_t{0, 3}));
    // With the input dim 2, a copied 0 is 2 while a literal 0 stays 0 (and
    // then the volumes differ).
    EXPECT_EQ(*resolve_target_shape({2, 3}, {0, 3}, zero_rule::copy_from_input).dims,
              (dims_t{2, 3}));
    EXPECT_EQ(resolve_target_shape({2, 3}, {0, 3}, zero_rule::literal).diagnostic.rule,
              rule::volume_mismatch);
}

TEST(ReshapeRuleZeros, LiteralZeroBeyondInputRankIsFine) {
    const auto r = resolve_target_shape({0}, {1, 1, 0}, zero_rule::literal);
    ASSERT_TRUE(r.ok()) << r.diagnostic.message;
    EXPECT_EQ(*r.dims, (dims_t{1, 1, 0}));
}

TEST(ReshapeRuleZeros, ZeroVolumeBesideZeroIsNoOverflow) {
    // The product of the non-zero dims would overflow, but the volume is 0.
    const auto r = resolve_target_shape({0}, {std::int64_t{1} << 62, 8, 0}, zero_rule::literal);
    ASSERT_TRUE(r.ok()) << r.diagnostic.message;
}

TEST(ReshapeRuleMessages, NameTheShapeAndTheInput) {
    const auto r = resolve_target_shape({2, 3, 4}, {5, 5}, zero_rule::literal);
    EXPECT_EQ(r.diagnostic.message,
              "shape [5,5] resolves to [5,5] of volume 25, but input [2,3,4] has volume 24 "
              "[volume_mismatch]");
}

} // namespace
} // namespace reshaper::impl::testing
