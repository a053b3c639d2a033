#include <gtest/gtest.h>

#include "core/checked_math.hpp"
#include "core/data_type.hpp"
#include "core/logical_tensor.hpp"

using namespace reshaper::impl;

TEST(DataType, EveryNameRoundTrips) {
    for (data_type t : all_data_types()) {
        auto back = data_type_from_string(to_string(t));
        ASSERT_TRUE(back.has_value()) << to_string(t);
        EXPECT_EQ(*back, t);
    }
    EXPECT_EQ(all_data_types().size(), 24u);
    EXPECT_FALSE(data_type_from_string("float32").has_value());
}

TEST(DataType, PackedTypesTakeHalfAByte) {
    EXPECT_EQ(dense_bytes(data_type::s4, 3), 2u);
    EXPECT_EQ(dense_bytes(data_type::f4_e2m1, 4), 2u);
    EXPECT_EQ(dense_bytes(data_type::c128, 2), 32u);
    EXPECT_TRUE(is_packed_4bit(data_type::u4));
    EXPECT_FALSE(is_packed_4bit(data_type::u8));
}

TEST(CheckedMath, DetectsOverflowInsteadOfWrapping) {
    EXPECT_EQ(checked_mul(1ll << 31, 4), std::optional<dim_t>(1ll << 33));
    EXPECT_FALSE(checked_mul(1ll << 32, 1ll << 31).has_value());
    EXPECT_FALSE(checked_volume({1ll << 40, 1ll << 30}).has_value());
    EXPECT_EQ(checked_volume({}), std::optional<dim_t>(1));
}

TEST(CheckedMath, AZeroDimMakesTheVolumeZeroWhereverItStands) {
    // The exact product is 0: no partial product may report an overflow,
    // whichever order the dims come in.
    EXPECT_EQ(checked_volume({0, 1ll << 62, 4}), std::optional<dim_t>(0));
    EXPECT_EQ(checked_volume({1ll << 62, 4, 0}), std::optional<dim_t>(0));
    EXPECT_EQ(checked_volume({1ll << 62, 0, 4}), std::optional<dim_t>(0));
}

TEST(LogicalTensor, DenseStridesTreatZeroDimsAsOne) {
    EXPECT_EQ(dense_strides({2, 3, 4}), std::optional<dims_t>({12, 4, 1}));
    EXPECT_EQ(dense_strides({2, 0, 4}), std::optional<dims_t>({4, 4, 1}));
    EXPECT_FALSE(dense_strides({2, -1}).has_value());
}

TEST(LogicalTensor, MergingPartialShapesFillsUnknownDimsFromEitherSide) {
    EXPECT_EQ(merge_known_dims({-1, 3, 4}, {2, 3, -1}), std::optional<dims_t>({2, 3, 4}));
    EXPECT_EQ(merge_known_dims({-1, -1}, {-1, 5}), std::optional<dims_t>({-1, 5}));
    EXPECT_EQ(merge_known_dims({}, {}), std::optional<dims_t>(dims_t{}));
    EXPECT_FALSE(merge_known_dims({2, 3}, {2, 4}).has_value()); // a known dim differs
    EXPECT_FALSE(merge_known_dims({2, 3}, {-1, 3, 1}).has_value()); // ranks differ
}

TEST(LogicalTensor, ShapeValuesWidenFromEveryIntegerType) {
    tensor_values v{data_type::s4, 3, {0xF2, 0x07}, {}};
    EXPECT_EQ(values_as_int64(v), (std::vector<std::int64_t>{2, -1, 7}));
}
