// The reference reshape on small cases whose results are worked out by hand
// in each test: strided and blocked layouts, every dtype class (whole-byte
// elements of 1..16 bytes, packed nibbles and bit pairs, strings).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "layout/reference.hpp"

using namespace reshaper::impl;

namespace {

logical_tensor strided(data_type t, dims_t shape, dims_t strides = {}) {
    logical_tensor lt;
    lt.dtype = t;
    lt.shape = std::move(shape);
    lt.strides = std::move(strides);
    return lt;
}

logical_tensor opaque(data_type t, dims_t shape, std::string format) {
    logical_tensor lt = strided(t, std::move(shape));
    lt.layout = layout_type::opaque;
    lt.format = std::move(format);
    return lt;
}

// The bytes of element number `e` of a whole-byte dtype: all distinct.
std::vector<std::uint8_t> element_bytes(std::size_t bytes, int e) {
    std::vector<std::uint8_t> v(bytes);
    for (std::size_t b = 0; b < bytes; ++b) v[b] = static_cast<std::uint8_t>(e * 17 + b + 1);
    return v;
}

} // namespace

// src: [2,3] viewed with row stride 4 in a buffer of 8 elements (a slice);
// dst: [3,2] stored column-major (strides [1,3]).
// Row-major src elements: buffer ids 0 1 2 4 5 6. dst (p,q) <- src element
// 2p+q, stored at p+3q: buffer [0,2,5,1,4,6].
TEST(ReferenceReshape, EveryWholeByteDtypeMovesEveryByte) {
    for (data_type t : all_data_types()) {
        if (is_packed(t) || t == data_type::string) continue;
        const std::size_t bytes = element_bits(t) / 8;
        std::vector<std::uint8_t> src(8 * bytes), dst(6 * bytes, 0xEE);
        for (int e = 0; e < 8; ++e) {
            auto v = element_bytes(bytes, e);
            std::memcpy(src.data() + e * bytes, v.data(), bytes);
        }
        reference_reshape(strided(t, {2, 3}, {4, 1}), src.data(), strided(t, {3, 2}, {1, 3}),
                          dst.data());
        const int expected_ids[6] = {0, 2, 5, 1, 4, 6};
        for (int pos = 0; pos < 6; ++pos) {
            const auto want = element_bytes(bytes, expected_ids[pos]);
            EXPECT_EQ(std::memcmp(dst.data() + pos * bytes, want.data(), bytes), 0)
                << to_string(t) << " element " << pos;
        }
    }
}

TEST(ReferenceReshape, DenseWhenStridesAreEmptyAndScalars) {
    const std::vector<float> src{1, 2, 3, 4, 5, 6};
    std::vector<float> dst(6, 0);
    reference_reshape(strided(data_type::f32, {2, 3}), src.data(),
                      strided(data_type::f32, {6}), dst.data());
    EXPECT_EQ(dst, src);

    const double one = 2.5;
    double out = 0;
    reference_reshape(strided(data_type::f64, {}), &one, strided(data_type::f64, {1, 1}), &out);
    EXPECT_EQ(out, 2.5);
}

// A layout nobody stated (undef) reads as strided, as the backend reads it:
// its strides, or dense row-major without them.
TEST(ReferenceReshape, ReadsAnUndefLayoutAsStrided) {
    const std::vector<float> column_major{1, 4, 2, 5, 3, 6}; // [2,3] with strides [1,2]
    logical_tensor src = strided(data_type::f32, {2, 3}, {1, 2});
    src.layout = layout_type::undef;
    std::vector<float> dst(6, 0);
    reference_reshape(src, column_major.data(), strided(data_type::f32, {6}), dst.data());
    EXPECT_EQ(dst, (std::vector<float>{1, 2, 3, 4, 5, 6}));

    logical_tensor dense = strided(data_type::f32, {3, 2});
    dense.layout = layout_type::undef;
    std::vector<float> back(6, 0);
    reference_reshape(strided(data_type::f32, {6}), dst.data(), dense, back.data());
    EXPECT_EQ(back, dst);
}

TEST(ReferenceReshape, ZeroVolumeWritesNothing) {
    std::vector<std::int32_t> dst(4, 7);
    reference_reshape(strided(data_type::s32, {0, 3}), nullptr,
                      strided(data_type::s32, {3, 0}), dst.data());
    EXPECT_EQ(dst, std::vector<std::int32_t>(4, 7));
}

// nChw8c [1,10,2,1] -> dense [20]: logical element (c,h) is number 2c+h and
// sits at ((c/8)*2 + h)*8 + c%8 in the blocked buffer (2 blocks of 8 c).
TEST(ReferenceReshape, ReadsAndWritesBlockedLayouts) {
    std::vector<std::int32_t> blocked(32, -1);
    for (int c = 0; c < 10; ++c)
        for (int h = 0; h < 2; ++h) blocked[((c / 8) * 2 + h) * 8 + c % 8] = 2 * c + h;
    std::vector<std::int32_t> dense(20, 0);
    reference_reshape(opaque(data_type::s32, {1, 10, 2, 1}, "nChw8c"), blocked.data(),
                      strided(data_type::s32, {20}), dense.data());
    for (int k = 0; k < 20; ++k) EXPECT_EQ(dense[k], k);

    // And back: the padding of the blocked buffer is left alone.
    std::vector<std::int32_t> again(32, -5);
    reference_reshape(strided(data_type::s32, {20}), dense.data(),
                      opaque(data_type::s32, {1, 10, 2, 1}, "aBcd8b"), again.data());
    for (int i = 0; i < 32; ++i) EXPECT_EQ(again[i], blocked[i] == -1 ? -5 : blocked[i]) << i;
}

// Elements 0..15 are the values 0..15, two per byte, low nibble first.
TEST(ReferenceReshape, PackedTypesMoveNibblesAtOddOffsets) {
    const std::vector<std::uint8_t> src{0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};
    for (data_type t : {data_type::s4, data_type::u4, data_type::f4_e2m1}) {
        // Five elements from element 1 into a buffer of 0xF nibbles at offset 0:
        // values 1..5; the high nibble of the last byte is not touched.
        std::vector<std::uint8_t> dst(3, 0xFF);
        reference_reshape(strided(t, {5}), src.data(), 1, strided(t, {5}), dst.data(), 0);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x21, 0x43, 0xF5})) << to_string(t);

        // Into offset 1: the low nibble of the first byte is not touched.
        std::fill(dst.begin(), dst.end(), 0xFF);
        reference_reshape(strided(t, {5}), src.data(), 1, strided(t, {5}), dst.data(), 1);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x1F, 0x32, 0x54})) << to_string(t);

        // [3] with stride 3 from element 2: values 2, 5, 8 at offset 3.
        std::fill(dst.begin(), dst.end(), 0x00);
        reference_reshape(strided(t, {3}, {3}), src.data(), 2, strided(t, {3}), dst.data(), 3);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x00, 0x20, 0x85})) << to_string(t);

        // [2,3] read column-major ((i,j) at i+2j): row-major order is
        // 0 2 4 1 3 5, written densely as [3,2] into 3 bytes.
        std::fill(dst.begin(), dst.end(), 0x00);
        reference_reshape(strided(t, {2, 3}, {1, 2}), src.data(), 0, strided(t, {3, 2}),
                          dst.data(), 0);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x20, 0x14, 0x53})) << to_string(t);
    }
}

// 2-bit elements, four per byte, lowest bit pair first. The source's
// elements 0..15 hold 0 1 2 3, 3 2 1 0, 1 3 0 2, 2 0 3 1.
TEST(ReferenceReshape, TwoBitTypesMoveBitPairsAtAnyOffset) {
    const std::vector<std::uint8_t> src{0xE4, 0x1B, 0x8D, 0x72};
    for (data_type t : {data_type::s2, data_type::u2}) {
        // Five elements from element 1 (1 2 3 3 2) into a buffer of 3s at
        // offset 0: the last three elements of byte 1 are not touched.
        std::vector<std::uint8_t> dst(3, 0xFF);
        reference_reshape(strided(t, {5}), src.data(), 1, strided(t, {5}), dst.data(), 0);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0xF9, 0xFE, 0xFF})) << to_string(t);

        // The same into offset 3: the last element of byte 0 onwards.
        std::fill(dst.begin(), dst.end(), 0x00);
        reference_reshape(strided(t, {5}), src.data(), 1, strided(t, {5}), dst.data(), 3);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x40, 0xBE, 0x00})) << to_string(t);

        // [3] with stride 3 from element 2: values 2, 2, 1 at offset 5.
        std::fill(dst.begin(), dst.end(), 0x00);
        reference_reshape(strided(t, {3}, {3}), src.data(), 2, strided(t, {3}), dst.data(), 5);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x00, 0x68, 0x00})) << to_string(t);

        // [2,3] read column-major ((i,j) at i+2j): row-major order is
        // elements 0 2 4 1 3 5 (values 0 2 3 1 3 2), written densely as [3,2].
        std::fill(dst.begin(), dst.end(), 0x00);
        reference_reshape(strided(t, {2, 3}, {1, 2}), src.data(), 0, strided(t, {3, 2}), dst.data(), 0);
        EXPECT_EQ(dst, (std::vector<std::uint8_t>{0x78, 0x0B, 0x00})) << to_string(t);
    }
}

TEST(ReferenceReshape, StringsAreAssigned) {
    // [2,2] stored column-major: (i,j) at i+2j. Row-major: a c b d.
    const std::vector<std::string> src{"a", "b", "c", "a long string that is not small"};
    std::vector<std::string> dst(4, "old");
    reference_reshape(strided(data_type::string, {2, 2}, {1, 2}), src.data(),
                      strided(data_type::string, {4}), dst.data());
    EXPECT_EQ(dst, (std::vector<std::string>{"a", "c", "b", "a long string that is not small"}));
    EXPECT_EQ(src[3], "a long string that is not small"); // copied, not moved
}

TEST(ReferenceReshape, RejectsMismatchedDescriptors) {
    std::vector<float> buf(8);
    auto code_and_text = [&](const logical_tensor &s, const logical_tensor &d) {
        try {
            reference_reshape(s, buf.data(), d, buf.data());
        } catch (const error &e) {
            return std::make_pair(e.code(), std::string(e.what()));
        }
        return std::make_pair(status::success, std::string());
    };
    auto [c1, t1] = code_and_text(strided(data_type::f32, {2, 3}), strided(data_type::f32, {5}));
    EXPECT_EQ(c1, status::invalid_shape);
    EXPECT_NE(t1.find("[2,3] -> [5]"), std::string::npos) << t1;
    auto [c2, t2] = code_and_text(strided(data_type::f32, {2}), strided(data_type::s32, {2}));
    EXPECT_EQ(c2, status::invalid_data_type);
    EXPECT_NE(t2.find("f32 -> s32"), std::string::npos) << t2;
    auto [c3, t3] = code_and_text(strided(data_type::f32, {2, -1}), strided(data_type::f32, {2}));
    EXPECT_EQ(c3, status::invalid_shape);
    auto [c4, t4] = code_and_text(strided(data_type::f32, {2, 2}, {1}), strided(data_type::f32, {4}));
    EXPECT_EQ(c4, status::invalid_arguments);
    EXPECT_NE(t4.find("1 strides"), std::string::npos) << t4;
    auto [c5, t5] = code_and_text(opaque(data_type::f32, {2, 2}, "nchw"), strided(data_type::f32, {4}));
    EXPECT_EQ(c5, status::invalid_graph);
    EXPECT_NE(t5.find("'nchw'"), std::string::npos) << t5;
    logical_tensor any = strided(data_type::f32, {4});
    any.layout = layout_type::any;
    auto [c6, t6] = code_and_text(strided(data_type::f32, {4}), any);
    EXPECT_EQ(c6, status::invalid_arguments);
    EXPECT_NE(t6.find("layout any"), std::string::npos) << t6;
}

// reference_order: a [2,3] transposed ([3,2]: output (i,j) is input (j,i))
// reads input elements 0 3 1 4 2 5; a reshape before and after moves none.
TEST(ReferenceOrder, IsTheChainOverTheElementIndices) {
    const std::vector<chain_step> transpose{{{3, 2}, {1, 0}}};
    EXPECT_EQ(reference_order({2, 3}, transpose), (std::vector<std::size_t>{0, 3, 1, 4, 2, 5}));
    const std::vector<chain_step> wrapped{{{2, 3}, {}}, {{3, 2}, {1, 0}}, {{6}, {}}};
    EXPECT_EQ(reference_order({6}, wrapped), (std::vector<std::size_t>{0, 3, 1, 4, 2, 5}));
    EXPECT_EQ(reference_order({2, 3}, {{{6}, {}}}), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_TRUE(reference_order({0, 3}, transpose).empty());
}

// Gathering in the order gives what the chain gives, for every dtype class:
// whole bytes of 1..16, packed nibbles and bit pairs (the last byte's spare
// bits kept, as the chain keeps them), strings.
TEST(ReferenceOrder, GatherEqualsTheChainForEveryDtypeClass) {
    // [2,3,4] -> transpose (2,0,1) -> [4,2,3] -> reshape [8,3] -> transpose -> [3,8]
    const dims_t dims{2, 3, 4};
    const std::vector<chain_step> steps{{{4, 2, 3}, {2, 0, 1}}, {{8, 3}, {}}, {{3, 8}, {1, 0}}};
    const std::vector<std::size_t> order = reference_order(dims, steps);
    ASSERT_EQ(order.size(), 24u);
    for (data_type t : {data_type::u8, data_type::bf16, data_type::f32, data_type::f64, data_type::c128,
                        data_type::s4, data_type::s2, data_type::string}) {
        tensor_values in;
        in.type = t;
        in.count = 24;
        if (t == data_type::string) {
            for (int e = 0; e < 24; ++e) in.strings.push_back("element " + std::to_string(e));
        } else {
            in.bytes.resize(dense_bytes(t, in.count));
            for (std::size_t b = 0; b < in.bytes.size(); ++b) in.bytes[b] = static_cast<std::uint8_t>(b * 37 + 11);
        }
        const tensor_values chain = reference_chain(in, dims, steps);
        EXPECT_TRUE(reference_gather(in, order) == chain) << to_string(t);
    }
    // 5 nibbles: the high nibble of the third byte is spare, and kept.
    tensor_values odd{data_type::u4, 5, {0x10, 0x32, 0xE4}, {}};
    const std::vector<chain_step> flip{{{5, 1}, {}}, {{1, 5}, {1, 0}}};
    EXPECT_TRUE(reference_gather(odd, reference_order({5}, flip)) == reference_chain(odd, {5}, flip));
    EXPECT_EQ(reference_gather(odd, {4, 3, 2, 1, 0}).bytes, (std::vector<std::uint8_t>{0x34, 0x12, 0xE0}));
}
