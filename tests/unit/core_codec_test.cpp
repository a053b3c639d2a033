#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/element_codec.hpp"
#include "core/status.hpp"

using namespace reshaper::impl;

namespace {

const std::vector<data_type> small_float_types = {
    data_type::f16,         data_type::bf16,        data_type::f8_e5m2,
    data_type::f8_e4m3,     data_type::f8_e4m3fnuz, data_type::f8_e5m2fnuz,
    data_type::f8_e8m0,     data_type::f4_e2m1,
};

std::uint64_t encode(data_type t, double v) {
    auto bits = encode_float(t, v);
    EXPECT_TRUE(bits.has_value()) << to_string(t) << " " << v;
    return bits.value_or(~std::uint64_t{0});
}

// Exactly 2^e, built without the codec.
double pow2(int e) { return std::ldexp(1.0, e); }

} // namespace

TEST(ElementCodec, EveryBitPatternOfSmallFloatsRoundTrips) {
    for (data_type t : small_float_types) {
        const std::uint64_t patterns = std::uint64_t{1} << element_bits(t);
        int nans = 0;
        for (std::uint64_t bits = 0; bits < patterns; ++bits) {
            const double v = decode_float(t, bits);
            if (std::isnan(v)) {
                ++nans;
                auto back = encode_float(t, v);
                ASSERT_TRUE(back.has_value()) << to_string(t);
                EXPECT_TRUE(std::isnan(decode_float(t, *back))) << to_string(t);
                continue;
            }
            auto back = encode_float(t, v);
            ASSERT_TRUE(back.has_value()) << to_string(t) << " bits " << bits << " value " << v;
            EXPECT_EQ(*back, bits) << to_string(t) << " value " << v;
        }
        // NaN patterns, from each format's definition.
        const int expected_nans = t == data_type::f16 ? 2 * 1023
                                  : t == data_type::bf16 ? 2 * 127
                                  : t == data_type::f8_e5m2 ? 2 * 3
                                  : t == data_type::f8_e4m3 ? 2
                                  : t == data_type::f4_e2m1 ? 0
                                                            : 1; // fnuz: 0x80, e8m0: 0xFF
        EXPECT_EQ(nans, expected_nans) << to_string(t);
    }
}

TEST(ElementCodec, KnownValuesFollowTheFormatDefinitions) {
    struct known {
        data_type t;
        double value;
        std::uint64_t bits;
    };
    // bits = sign | (exponent + bias) << mantissa_bits | mantissa
    const known cases[] = {
        {data_type::f16, 1.0, 15u << 10},
        {data_type::f16, -2.5, 0x8000 | 16u << 10 | 0x100},     // 1.25 * 2^1
        {data_type::f16, 65504.0, 30u << 10 | 0x3FF},           // (2 - 2^-10) * 2^15
        {data_type::f16, pow2(-24), 0x0001},                    // 2^(1-15-10)
        {data_type::bf16, 1.0, 127u << 7},
        {data_type::bf16, -2.5, 0x8000 | 128u << 7 | 0x20},
        {data_type::bf16, (2 - pow2(-7)) * pow2(127), 254u << 7 | 0x7F},
        {data_type::bf16, pow2(-133), 0x0001},                  // 2^(1-127-7)
        {data_type::f8_e5m2, 1.0, 15u << 2},
        {data_type::f8_e5m2, -2.5, 0x80 | 16u << 2 | 0x1},
        {data_type::f8_e5m2, 57344.0, 30u << 2 | 0x3},          // 1.75 * 2^15
        {data_type::f8_e5m2, pow2(-16), 0x01},
        {data_type::f8_e4m3, 1.0, 7u << 3},
        {data_type::f8_e4m3, -2.5, 0x80 | 8u << 3 | 0x2},
        {data_type::f8_e4m3, 448.0, 15u << 3 | 0x6},            // 1.75 * 2^8; 0x7F is NaN
        {data_type::f8_e4m3, pow2(-9), 0x01},
        {data_type::f8_e4m3fnuz, 1.0, 8u << 3},
        {data_type::f8_e4m3fnuz, -2.5, 0x80 | 9u << 3 | 0x2},
        {data_type::f8_e4m3fnuz, 240.0, 0x7F},                  // 1.875 * 2^7
        {data_type::f8_e4m3fnuz, pow2(-10), 0x01},
        {data_type::f8_e5m2fnuz, 1.0, 16u << 2},
        {data_type::f8_e5m2fnuz, -2.5, 0x80 | 17u << 2 | 0x1},
        {data_type::f8_e5m2fnuz, 57344.0, 0x7F},                // 1.75 * 2^15
        {data_type::f8_e5m2fnuz, pow2(-17), 0x01},
        {data_type::f8_e8m0, 1.0, 127},
        {data_type::f8_e8m0, pow2(127), 0xFE},
        {data_type::f8_e8m0, pow2(-127), 0x00},
        {data_type::f8_e8m0, 0.25, 125},
        {data_type::f4_e2m1, 1.0, 0x2},
        {data_type::f4_e2m1, -1.5, 0x8 | 0x3},
        {data_type::f4_e2m1, 6.0, 0x7},
        {data_type::f4_e2m1, 0.5, 0x1},
        {data_type::f4_e2m1, -0.0, 0x8},
        {data_type::f32, 1.0, 127u << 23},
        {data_type::f32, -2.5, 0x80000000u | 128u << 23 | 0x200000},
        {data_type::f32, pow2(-149), 0x1},
    };
    for (const auto &c : cases) {
        EXPECT_EQ(encode(c.t, c.value), c.bits) << to_string(c.t) << " " << c.value;
        const double back = decode_float(c.t, c.bits);
        EXPECT_EQ(back, c.value) << to_string(c.t) << " bits " << c.bits;
        EXPECT_EQ(std::signbit(back), std::signbit(c.value)) << to_string(c.t);
    }
    EXPECT_EQ(max_finite(data_type::f8_e4m3), 448.0);
    EXPECT_EQ(max_finite(data_type::f8_e4m3fnuz), 240.0);
    EXPECT_EQ(max_finite(data_type::f4_e2m1), 6.0);
    EXPECT_EQ(max_finite(data_type::f16), 65504.0);
    EXPECT_EQ(max_finite(data_type::f8_e8m0), pow2(127));

    // f4_e2m1 holds exactly 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
    const double f4_values[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (std::uint64_t bits = 0; bits < 8; ++bits) {
        EXPECT_EQ(decode_float(data_type::f4_e2m1, bits), f4_values[bits]);
        EXPECT_EQ(decode_float(data_type::f4_e2m1, bits | 8), -f4_values[bits]);
    }
}

TEST(ElementCodec, RoundsToNearestTiesToEven) {
    // f16 has 10 mantissa bits: the spacing above 1 is 2^-10.
    EXPECT_EQ(encode(data_type::f16, 1 + pow2(-11)), 0x3C00u);          // tie, 1.0 is even
    EXPECT_EQ(encode(data_type::f16, 1 + 3 * pow2(-11)), 0x3C02u);      // tie, goes up to even
    EXPECT_EQ(encode(data_type::f16, 1 + pow2(-11) + pow2(-30)), 0x3C01u); // above the tie
    EXPECT_EQ(encode(data_type::f16, 1 + pow2(-11) - pow2(-30)), 0x3C00u); // below the tie
    // Subnormal ties: half the smallest subnormal goes to zero, 1.5 of it to 2.
    EXPECT_EQ(encode(data_type::f16, pow2(-25)), 0x0000u);
    EXPECT_EQ(encode(data_type::f16, 3 * pow2(-25)), 0x0002u);
    EXPECT_EQ(encode(data_type::f16, -pow2(-26)), 0x8000u);            // -0 keeps its sign
    // The largest subnormal rounds up into the smallest normal.
    EXPECT_EQ(encode(data_type::f16, pow2(-14) - pow2(-26)), 1u << 10);
    // f4_e2m1: 2.5 lies between 2 (0x4) and 3 (0x5): the even code wins.
    EXPECT_EQ(encode(data_type::f4_e2m1, 2.5), 0x4u);
    EXPECT_EQ(encode(data_type::f4_e2m1, 3.5), 0x6u); // between 3 (0x5) and 4 (0x6)
    EXPECT_EQ(encode(data_type::f4_e2m1, 0.25), 0x0u);
    EXPECT_EQ(encode(data_type::f4_e2m1, 0.75), 0x2u);
    // f8_e8m0 (no mantissa): 3 lies between 2 (code 128) and 4 (code 129).
    EXPECT_EQ(encode(data_type::f8_e8m0, 3.0), 128u);
    EXPECT_EQ(encode(data_type::f8_e8m0, 6.0), 130u); // between 4 (129) and 8 (130)
    EXPECT_EQ(encode(data_type::f8_e8m0, 2.9), 128u);
    EXPECT_EQ(encode(data_type::f8_e8m0, 3.1), 129u);
}

TEST(ElementCodec, OutOfRangeBecomesInfOrSaturates) {
    const double inf = std::numeric_limits<double>::infinity();
    // With inf: the tie between max and the next power of two goes to inf.
    EXPECT_EQ(encode(data_type::f16, 65520.0), 0x7C00u);
    EXPECT_EQ(encode(data_type::f16, 65519.0), 0x7BFFu);
    EXPECT_EQ(encode(data_type::f16, -1e300), 0xFC00u);
    EXPECT_EQ(encode(data_type::f8_e5m2, 1e9), 0x7Cu);
    EXPECT_EQ(encode(data_type::bf16, inf), 0x7F80u);
    EXPECT_EQ(encode(data_type::f32, 1e300), 0x7F800000u);
    // Without inf: saturate to the largest finite value, keeping the sign.
    EXPECT_EQ(encode(data_type::f8_e4m3, 464.0), 0x7Eu);
    EXPECT_EQ(encode(data_type::f8_e4m3, 1e9), 0x7Eu);
    EXPECT_EQ(encode(data_type::f8_e4m3, -inf), 0xFEu);
    EXPECT_EQ(encode(data_type::f8_e4m3fnuz, 1e9), 0x7Fu);
    EXPECT_EQ(encode(data_type::f8_e5m2fnuz, -inf), 0xFFu);
    EXPECT_EQ(encode(data_type::f4_e2m1, 7.0), 0x7u);
    EXPECT_EQ(encode(data_type::f4_e2m1, -100.0), 0xFu);
    EXPECT_EQ(encode(data_type::f8_e8m0, 1e300), 0xFEu);
    EXPECT_EQ(encode(data_type::f8_e8m0, pow2(-200)), 0x00u);
}

TEST(ElementCodec, SpecialValuesPerFormat) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // FNUZ formats have no negative zero; their only NaN is 0x80.
    EXPECT_EQ(encode(data_type::f8_e4m3fnuz, -0.0), 0x00u);
    EXPECT_EQ(encode(data_type::f8_e5m2fnuz, -pow2(-30)), 0x00u);
    EXPECT_EQ(encode(data_type::f8_e4m3fnuz, nan), 0x80u);
    EXPECT_TRUE(std::isnan(decode_float(data_type::f8_e5m2fnuz, 0x80)));
    EXPECT_TRUE(std::isnan(decode_float(data_type::f8_e4m3, 0x7F)));
    EXPECT_TRUE(std::isnan(decode_float(data_type::f8_e4m3, 0xFF)));
    EXPECT_TRUE(std::isinf(decode_float(data_type::f8_e5m2, 0xFC)));
    EXPECT_TRUE(std::isnan(decode_float(data_type::f8_e8m0, 0xFF)));
    // f8_e8m0 has neither zero nor sign; f4_e2m1 has no NaN.
    EXPECT_FALSE(encode_float(data_type::f8_e8m0, 0.0).has_value());
    EXPECT_FALSE(encode_float(data_type::f8_e8m0, -2.0).has_value());
    EXPECT_FALSE(encode_float(data_type::f4_e2m1, nan).has_value());
    // f64 is the double itself.
    EXPECT_EQ(encode(data_type::f64, -0.1), std::bit_cast<std::uint64_t>(-0.1));
    EXPECT_EQ(decode_float(data_type::f64, std::bit_cast<std::uint64_t>(1e300)), 1e300);
}

TEST(ElementCodec, F32MatchesTheHardwareConversion) {
    std::mt19937_64 rng(42);
    std::vector<double> samples = {0.1, -1e-40, 3.4028235677973366e38, 3.4028235e38,
                                   1e-46, 7e-46, std::numeric_limits<double>::denorm_min()};
    for (int i = 0; i < 200000; ++i) {
        // Random doubles around the f32 range, and exact midpoints between
        // neighbouring floats (ties).
        const int e = static_cast<int>(rng() % 300) - 160;
        double v = std::ldexp(static_cast<double>(rng() >> 11) / pow2(53), e);
        if (i % 4 == 0) {
            const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng() % 0x7F800000u));
            v = (static_cast<double>(f) + std::nextafter(f, std::numeric_limits<float>::infinity())) / 2;
        }
        samples.push_back(i % 2 ? -v : v);
    }
    for (double v : samples) {
        const float f = static_cast<float>(v);
        ASSERT_EQ(encode(data_type::f32, v), std::bit_cast<std::uint32_t>(f)) << v;
        ASSERT_EQ(decode_float(data_type::f32, std::bit_cast<std::uint32_t>(f)), static_cast<double>(f));
    }
}

#if defined(__FLT16_MAX__)
TEST(ElementCodec, F16MatchesTheCompilersFloat16) {
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const auto b16 = static_cast<std::uint16_t>(bits);
        _Float16 h;
        std::memcpy(&h, &b16, 2);
        const double expected = static_cast<double>(h);
        const double got = decode_float(data_type::f16, bits);
        if (std::isnan(expected)) {
            EXPECT_TRUE(std::isnan(got));
            continue;
        }
        ASSERT_EQ(got, expected) << bits;
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200000; ++i) {
        const int e = static_cast<int>(rng() % 50) - 30;
        const double v = std::ldexp(static_cast<double>(rng() >> 11) / pow2(53), e);
        const auto h = static_cast<_Float16>(v);
        std::uint16_t expected;
        std::memcpy(&expected, &h, 2);
        ASSERT_EQ(encode(data_type::f16, v), expected) << v;
    }
}
#endif

TEST(ElementCodec, Bf16MatchesRoundingTheF32BitPattern) {
    // Independent oracle: RNE on the upper half of an f32's bits.
    std::mt19937 rng(3);
    for (int i = 0; i < 200000; ++i) {
        const std::uint32_t bits = rng();
        const float f = std::bit_cast<float>(bits);
        if (std::isnan(f)) continue;
        const std::uint32_t expected = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
        ASSERT_EQ(encode(data_type::bf16, f), expected) << f;
    }
}

TEST(ElementCodec, IntegerRangesAndEncodings) {
    EXPECT_EQ(range_of(data_type::s4).min, -8);
    EXPECT_EQ(range_of(data_type::s4).max, 7u);
    EXPECT_EQ(range_of(data_type::u4).max, 15u);
    EXPECT_EQ(range_of(data_type::s16).min, -32768);
    EXPECT_EQ(range_of(data_type::u32).max, 4294967295u);
    EXPECT_EQ(range_of(data_type::s64).min, std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(range_of(data_type::u64).max, std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(range_of(data_type::boolean).max, 1u);

    EXPECT_EQ(encode_signed(data_type::s4, -8), std::optional<std::uint64_t>(0x8));
    EXPECT_EQ(encode_signed(data_type::s4, -1), std::optional<std::uint64_t>(0xF));
    EXPECT_FALSE(encode_signed(data_type::s4, 8).has_value());
    EXPECT_FALSE(encode_signed(data_type::s4, -9).has_value());
    EXPECT_FALSE(encode_signed(data_type::u8, -1).has_value());
    EXPECT_FALSE(encode_signed(data_type::boolean, 2).has_value());
    EXPECT_EQ(encode_signed(data_type::s8, -128), std::optional<std::uint64_t>(0x80));
    EXPECT_FALSE(encode_unsigned(data_type::s64, std::uint64_t{1} << 63).has_value());
    EXPECT_EQ(encode_unsigned(data_type::u64, ~std::uint64_t{0}),
              std::optional<std::uint64_t>(~std::uint64_t{0}));
    EXPECT_FALSE(encode_unsigned(data_type::u16, 65536).has_value());

    EXPECT_EQ(decode_signed(data_type::s4, 0x8), -8);
    EXPECT_EQ(decode_signed(data_type::s8, 0xFF), -1);
    EXPECT_EQ(decode_signed(data_type::s32, 0x80000000u), std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(decode_unsigned(data_type::u4, 0xF), 15u);
    EXPECT_EQ(decode_unsigned(data_type::boolean, 0x02), 1u);
    for (std::int64_t v = -8; v <= 7; ++v)
        EXPECT_EQ(decode_signed(data_type::s4, *encode_signed(data_type::s4, v)), v);
}

TEST(ElementCodec, TwoBitIntegersRoundTripAndRejectTheirNeighbours) {
    EXPECT_EQ(range_of(data_type::s2).min, -2);
    EXPECT_EQ(range_of(data_type::s2).max, 1u);
    EXPECT_EQ(range_of(data_type::u2).min, 0);
    EXPECT_EQ(range_of(data_type::u2).max, 3u);
    EXPECT_TRUE(is_signed_integer(data_type::s2));
    EXPECT_FALSE(is_signed_integer(data_type::u2));
    // Every bit pattern decodes to its value, which encodes back to it.
    const std::int64_t s2_values[4] = {0, 1, -2, -1};
    for (std::uint64_t bits = 0; bits < 4; ++bits) {
        EXPECT_EQ(decode_signed(data_type::s2, bits), s2_values[bits]);
        EXPECT_EQ(encode_signed(data_type::s2, s2_values[bits]), std::optional<std::uint64_t>(bits));
        EXPECT_EQ(decode_unsigned(data_type::u2, bits), bits);
        EXPECT_EQ(encode_unsigned(data_type::u2, bits), std::optional<std::uint64_t>(bits));
        EXPECT_EQ(encode_signed(data_type::u2, static_cast<std::int64_t>(bits)), std::optional<std::uint64_t>(bits));
    }
    EXPECT_EQ(decode_signed(data_type::s2, 0xFE), -2); // bits above the width do not count
    EXPECT_FALSE(encode_signed(data_type::s2, 2).has_value());
    EXPECT_FALSE(encode_signed(data_type::s2, -3).has_value());
    EXPECT_FALSE(encode_unsigned(data_type::s2, 2).has_value());
    EXPECT_FALSE(encode_unsigned(data_type::u2, 4).has_value());
    EXPECT_FALSE(encode_signed(data_type::u2, -1).has_value());
    EXPECT_THROW(decode_unsigned(data_type::s2, 0), error);
    EXPECT_THROW(decode_signed(data_type::u2, 0), error);
}

TEST(ElementCodec, PackedBitPairsAreLowestFirst) {
    std::vector<std::uint8_t> buf(2, 0);
    store_bits(data_type::u2, buf.data(), 0, 0x1);
    store_bits(data_type::u2, buf.data(), 1, 0x2);
    store_bits(data_type::u2, buf.data(), 3, 0x3);
    store_bits(data_type::s2, buf.data(), 4, 0x7); // only the low two bits are kept
    EXPECT_EQ(buf[0], 0xC9); // 0b11'00'10'01
    EXPECT_EQ(buf[1], 0x03);
    EXPECT_EQ(load_bits(data_type::s2, buf.data(), 1), 0x2u);
    EXPECT_EQ(load_bits(data_type::u2, buf.data(), 2), 0x0u);
    EXPECT_EQ(load_bits(data_type::u2, buf.data(), 4), 0x3u);
    store_bits(data_type::u2, buf.data(), 3, 0x0); // the neighbours stay
    EXPECT_EQ(buf[0], 0x09);
}

TEST(ElementCodec, PackedNibblesAreLowFirst) {
    std::vector<std::uint8_t> buf(2, 0);
    store_bits(data_type::u4, buf.data(), 0, 0x3);
    store_bits(data_type::u4, buf.data(), 1, 0xA);
    store_bits(data_type::u4, buf.data(), 2, 0x1F); // only the low nibble is kept
    EXPECT_EQ(buf[0], 0xA3);
    EXPECT_EQ(buf[1], 0x0F);
    EXPECT_EQ(load_bits(data_type::s4, buf.data(), 1), 0xAu);
    EXPECT_EQ(load_bits(data_type::f4_e2m1, buf.data(), 2), 0xFu);

    std::vector<std::uint8_t> wide(16);
    store_bits(data_type::u16, wide.data(), 3, 0xBEEF);
    EXPECT_EQ(load_bits(data_type::u16, wide.data(), 3), 0xBEEFu);
    EXPECT_EQ(load_bits(data_type::u16, wide.data(), 2), 0u);
    store_bits(data_type::f64, wide.data(), 1, std::bit_cast<std::uint64_t>(2.5));
    EXPECT_EQ(decode_float(data_type::f64, load_bits(data_type::f64, wide.data(), 1)), 2.5);
}

TEST(ElementCodec, ComplexTypesAreComponentPairs) {
    EXPECT_EQ(component_type(data_type::c64), data_type::f32);
    EXPECT_EQ(component_type(data_type::c128), data_type::f64);
    EXPECT_EQ(component_type(data_type::s8), data_type::s8);
    EXPECT_EQ(components_per_element(data_type::c64), 2u);
    EXPECT_EQ(components_per_element(data_type::f16), 1u);
}

TEST(ElementCodec, MisuseIsAnErrorNotACrash) {
    EXPECT_THROW(encode_float(data_type::s8, 1.0), error);
    EXPECT_THROW(range_of(data_type::f32), error);
    EXPECT_THROW(decode_signed(data_type::u8, 1), error);
    std::uint8_t b[16] = {};
    EXPECT_THROW(load_bits(data_type::c128, b, 0), error);
    EXPECT_THROW(store_bits(data_type::string, b, 0, 0), error);
}
