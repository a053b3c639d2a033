// rarely_set: a logical tensor's strides and format held on the heap only
// when given, read as the plain value.
#include <gtest/gtest.h>

#include <string>

#include "core/logical_tensor.hpp"
#include "core/rarely_set.hpp"

namespace reshaper::impl {
namespace {

TEST(RarelySet, UnsetReadsAsEmptyAndEqualsAnEmptyValue) {
    rarely_set<dims_t> s;
    EXPECT_TRUE(s.empty());
    EXPECT_EQ(s.size(), 0u);
    EXPECT_TRUE(s.get().empty());
    EXPECT_EQ(s, dims_t{});
    EXPECT_EQ(s, rarely_set<dims_t>(dims_t{}));
    EXPECT_EQ(s.begin(), s.end());
}

TEST(RarelySet, HoldsWhatIsSetAndForgetsAnEmptyValue) {
    rarely_set<dims_t> s = dims_t{8, 1};
    EXPECT_FALSE(s.empty());
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0], 8);
    EXPECT_EQ(s[1], 1);
    EXPECT_EQ(s, (dims_t{8, 1}));
    EXPECT_FALSE(s == (dims_t{1, 8}));
    const dims_t &read = s; // the conversion callers taking a dims_t use
    EXPECT_EQ(read, (dims_t{8, 1}));
    s = dims_t{};
    EXPECT_TRUE(s.empty());
    EXPECT_EQ(s, rarely_set<dims_t>());
    s.set().push_back(3);
    EXPECT_EQ(s, dims_t{3});
    s.clear();
    EXPECT_TRUE(s.empty());
}

TEST(RarelySet, TakesABraceListAsItsValue) {
    // As a designated initializer and an assignment give it.
    const logical_tensor one{.dtype = data_type::f32, .shape = {1}, .strides = {1}, .format = {}, .values = {}};
    EXPECT_EQ(one.strides, dims_t{1});
    rarely_set<dims_t> s = {4, 1};
    EXPECT_EQ(s, (dims_t{4, 1}));
    s = {};
    EXPECT_TRUE(s.empty());
    EXPECT_EQ(s, rarely_set<dims_t>());
    s = {2};
    EXPECT_EQ(s, dims_t{2});
}

TEST(RarelySet, CopiesAreIndependentAndMovesEmptyTheSource) {
    rarely_set<std::string> a = std::string("nChw16c");
    rarely_set<std::string> b = a;
    b.set() += "x";
    EXPECT_EQ(a, std::string("nChw16c"));
    EXPECT_EQ(b, std::string("nChw16cx"));
    rarely_set<std::string> c = std::move(b);
    EXPECT_EQ(c, std::string("nChw16cx"));
    EXPECT_TRUE(b.empty()); // NOLINT(bugprone-use-after-move): moved-from is unset
    a = c;
    EXPECT_EQ(a, c);
}

TEST(RarelySet, TensorsWithAndWithoutGivenFieldsCompareByValue) {
    logical_tensor x;
    x.shape = {4, 8};
    logical_tensor y = x;
    EXPECT_EQ(x, y);
    y.strides = dims_t{8, 1};
    EXPECT_FALSE(x == y);
    y.strides = dims_t{};
    EXPECT_EQ(x, y);
    y.format = std::string("nChw8c");
    EXPECT_FALSE(x == y);
    // Strides and format live outside the tensor: its size is the graph's.
    EXPECT_LE(sizeof(logical_tensor), 96u);
}

} // namespace
} // namespace reshaper::impl
