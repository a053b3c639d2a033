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
    EXPECT_EQ(all_data_types().size(), 26u);
    EXPECT_FALSE(data_type_from_string("float32").has_value());
    EXPECT_EQ(data_type_from_string("s2"), data_type::s2);
    EXPECT_EQ(data_type_from_string("u2"), data_type::u2);
}

TEST(DataType, PackedTypesTakeHalfAByte) {
    EXPECT_EQ(dense_bytes(data_type::s4, 3), 2u);
    EXPECT_EQ(dense_bytes(data_type::f4_e2m1, 4), 2u);
    EXPECT_EQ(dense_bytes(data_type::c128, 2), 32u);
    EXPECT_TRUE(is_packed(data_type::u4));
    EXPECT_TRUE(is_packed(data_type::f4_e2m1));
    EXPECT_FALSE(is_packed(data_type::s8));
    EXPECT_FALSE(is_packed(data_type::undef));
}

TEST(DataType, TwoBitTypesTakeAQuarterByte) {
    for (data_type t : {data_type::s2, data_type::u2}) {
        EXPECT_EQ(element_bits(t), 2u);
        EXPECT_TRUE(is_packed(t));
        EXPECT_TRUE(is_integer(t));
        EXPECT_FALSE(is_floating_point(t));
        EXPECT_EQ(dense_bytes(t, 0), 0u);
        EXPECT_EQ(dense_bytes(t, 1), 1u);
        EXPECT_EQ(dense_bytes(t, 4), 1u);
        EXPECT_EQ(dense_bytes(t, 5), 2u);
        EXPECT_EQ(dense_bytes(t, 4001), 1001u);
    }
}

// The contract's layout: four to a byte, lowest bit pair first; storing
// keeps the other three elements of the byte.
TEST(DataType, PackedElementsAreLowestBitsFirst) {
    std::uint8_t bytes[2] = {0xE4, 0x00}; // 0b11'10'01'00: elements 0, 1, 2, 3
    for (std::size_t e = 0; e < 4; ++e) EXPECT_EQ(load_packed(bytes, 2, e), e);
    store_packed(bytes, 2, 5, 0x3);
    store_packed(bytes, 2, 1, 0x6); // only the low two bits count: 2
    EXPECT_EQ(bytes[0], 0xE8);
    EXPECT_EQ(bytes[1], 0x0C);
    EXPECT_EQ(load_packed(bytes, 4, 1), 0xEu);
    store_packed(bytes, 4, 2, 0xA);
    EXPECT_EQ(bytes[1], 0x0A);
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
    tensor_values s2{data_type::s2, 5, {0x9E, 0x01}, {}}; // 0b10'01'11'10, 0b01
    EXPECT_EQ(values_as_int64(s2), (std::vector<std::int64_t>{-2, -1, 1, -2, 1}));
    tensor_values u2{data_type::u2, 5, {0x9E, 0x01}, {}};
    EXPECT_EQ(values_as_int64(u2), (std::vector<std::int64_t>{2, 3, 1, 2, 1}));
}

// Issue 25: the one layout equality ignores the strides that address no
// memory (size-1 dims, zero-volume tensors) and compares every other.
TEST(LogicalTensor, StridedLayoutsAreEqualWhenTheyAddressTheSameMemory) {
    EXPECT_TRUE(same_strided_layout({1, 16, 32, 32}, {1024, 1024, 32, 1}, {16384, 1024, 32, 1}));
    EXPECT_TRUE(same_strided_layout({8, 1, 96}, {0, 96, 1}, {0, 5, 1}));
    EXPECT_TRUE(same_strided_layout({1, 1}, {3, 9}, {0, 0}));
    EXPECT_TRUE(same_strided_layout({}, {}, {}));
    EXPECT_FALSE(same_strided_layout({1, 16, 32, 32}, {1024, 1024, 32, 1}, {1024, 1024, 33, 1}));
    EXPECT_FALSE(same_strided_layout({2, 3}, {3, 1}, {1, 2}));
    EXPECT_FALSE(same_strided_layout({8, 96}, {0, 1}, {96, 1})); // broadcast is another layout
    // Zero volume: no element, every stride list alike.
    EXPECT_TRUE(same_strided_layout({0, 4}, {4, 1}, {1, 7}));
    EXPECT_TRUE(same_strided_layout({3, 0, 2}, {0, 0, 0}, {2, 2, 1}));
    // An unknown dim may be larger than 1: its stride counts.
    EXPECT_FALSE(same_strided_layout({-1, 4}, {4, 1}, {8, 1}));
    EXPECT_TRUE(same_strided_layout({-1, 1}, {4, 1}, {4, 9}));
    // Lists of another length than the rank compare as they are.
    EXPECT_FALSE(same_strided_layout({1, 4}, {4, 1}, {1}));
    EXPECT_TRUE(same_strided_layout({1, 4}, {1}, {1}));
}
