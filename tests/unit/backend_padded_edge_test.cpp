// The padded destination's last block written once (backend/padded_edge.hpp),
// and a padded source's last block staged whole:
// streamed steps into padded nChw16c / nChw8c fuse the last block's valid
// part and its padding; they move exactly as the boxes do (valid part, then
// zeroes: the path the reference tests cover), bit for bit with the
// padding zeroed, for odd spatial sizes (a last, shorter chunk), at every
// SIMD level here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "backend/kernel_movement.hpp"
#include "core/logical_tensor.hpp"
#include "isa_levels_support.hpp"
#include "permute_move_support.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {
namespace {

using testing::row_major_strides;

// The step run by the kernel mover planned on `machine`, into a destination
// of `dst_bytes` filled with 0xA5 first.
std::vector<std::uint8_t> moved(data_type type, const movement_step &step, const machine_facts &machine,
                                const std::vector<std::uint8_t> &src, std::size_t dst_bytes, bool *fused) {
    movement_plan plan;
    plan.steps = {step};
    std::vector<kernel_step_plan> planned{plan_kernel_step(type, step, machine)};
    *fused = planned[0].edge.has_value();
    std::vector<std::uint8_t> dst(dst_bytes, 0xA5);
    make_kernel_movement(type, plan, std::move(planned))->run(src.data(), dst.data());
    return dst;
}

// A padded blocked layout's case: nChw16c or nChw8c over `dims`.
struct padded_case {
    const char *format;
    dims_t dims;

    std::size_t block() const { return format[4] == '1' ? 16 : 8; }
    std::size_t padded_channels() const {
        return (static_cast<std::size_t>(dims[1]) + block() - 1) / block() * block();
    }
    // The padded layout's bytes for e-byte elements.
    std::size_t padded_bytes(std::size_t e) const {
        return static_cast<std::size_t>(dims[0] * dims[2] * dims[3]) * padded_channels() * e;
    }
};

// This machine at `isa` with every transpose streamed (the edge fuses),
// and with none (the boxes).
std::pair<machine_facts, machine_facts> streamed_and_in_cache(cpu_isa isa) {
    machine_facts streamed = current_machine();
    streamed.isa = isa;
    streamed.transpose_streaming_bytes = 0;
    machine_facts in_cache = streamed;
    in_cache.transpose_streaming_bytes = std::size_t{1} << 40;
    return {streamed, in_cache};
}

} // namespace

TEST(padded_edge, streamed_steps_into_padded_blocks_write_the_last_block_once_as_the_boxes_do) {
    std::mt19937 rng(27);
    for (cpu_isa isa : testing::levels_here())
        for (data_type type : {data_type::f32, data_type::bf16, data_type::s8, data_type::s32})
            for (const padded_case &s : {padded_case{"nChw16c", {2, 20, 17, 17}}, padded_case{"nChw16c", {1, 250, 3, 5}},
                                         padded_case{"nChw8c", {3, 13, 9, 31}}}) {
                const std::size_t e = element_bits(type) / 8;
                const movement_step step{s.dims, {row_major_strides(s.dims), ""}, {{}, s.format}};
                const auto volume = static_cast<std::size_t>(s.dims[0] * s.dims[1] * s.dims[2] * s.dims[3]);
                const std::size_t block = s.block(), padded_channels = s.padded_channels();
                const std::size_t dst_bytes = s.padded_bytes(e);
                std::vector<std::uint8_t> src(volume * e);
                for (auto &b : src) b = static_cast<std::uint8_t>(rng());
                const auto [streamed, in_cache] = streamed_and_in_cache(isa);
                bool fused = false, boxes_fused = true;
                const auto once = moved(type, step, streamed, src, dst_bytes, &fused);
                const auto boxes = moved(type, step, in_cache, src, dst_bytes, &boxes_fused);
                EXPECT_TRUE(fused) << s.format << " " << to_string(type);
                EXPECT_FALSE(boxes_fused);
                EXPECT_EQ(once, boxes) << s.format << " " << to_string(type) << " " << to_string(isa);
                // The padding is zero: the last channel block's missing channels.
                const std::size_t valid = static_cast<std::size_t>(s.dims[1]) % block;
                const std::size_t positions = static_cast<std::size_t>(s.dims[2] * s.dims[3]);
                const std::size_t last_block = padded_channels / block - 1;
                for (std::size_t n = 0; n < static_cast<std::size_t>(s.dims[0]); ++n)
                    for (std::size_t p = 0; p < positions; ++p) {
                        const std::size_t at =
                            ((n * (padded_channels / block) + last_block) * positions + p) * block * e;
                        EXPECT_TRUE(std::all_of(once.begin() + static_cast<std::ptrdiff_t>(at + valid * e),
                                                once.begin() + static_cast<std::ptrdiff_t>(at + block * e),
                                                [](std::uint8_t b) { return b == 0; }))
                            << "n " << n << " position " << p;
                    }
            }
}

// Out of a padded blocked source (nChw16c over 250 channels into nchw):
// streamed steps transpose the last block's chunks whole (its padding
// lanes too) into a buffer and stream out the valid rows; they move
// exactly as the boxes do, whatever the source's padding lanes hold, and
// write nothing past the destination.
TEST(padded_edge, streamed_steps_out_of_padded_blocks_move_the_last_block_as_the_boxes_do) {
    std::mt19937 rng(28);
    for (cpu_isa isa : testing::levels_here())
        for (data_type type : {data_type::f32, data_type::bf16, data_type::s8, data_type::s32})
            for (const padded_case &s : {padded_case{"nChw16c", {2, 20, 17, 17}}, padded_case{"nChw16c", {1, 250, 3, 5}},
                                         padded_case{"nChw16c", {2, 26, 23, 29}}, padded_case{"nChw8c", {3, 13, 9, 31}}}) {
                const std::size_t e = element_bits(type) / 8;
                const movement_step step{s.dims, {{}, s.format}, {row_major_strides(s.dims), ""}};
                const std::size_t block = s.block();
                const std::size_t src_bytes = s.padded_bytes(e);
                const auto volume = static_cast<std::size_t>(s.dims[0] * s.dims[1] * s.dims[2] * s.dims[3]);
                // Random bytes in the padding lanes too: they must not leak out.
                std::vector<std::uint8_t> src(src_bytes);
                for (auto &b : src) b = static_cast<std::uint8_t>(rng());
                const auto [streamed, in_cache] = streamed_and_in_cache(isa);
                bool fused = false, boxes_fused = true;
                // One element more than the destination: the last stays as filled.
                const auto once = moved(type, step, streamed, src, (volume + 1) * e, &fused);
                const auto boxes = moved(type, step, in_cache, src, (volume + 1) * e, &boxes_fused);
                EXPECT_TRUE(fused) << s.format << " " << to_string(type);
                EXPECT_FALSE(boxes_fused);
                EXPECT_EQ(once, boxes) << s.format << " " << to_string(type) << " " << to_string(isa);
                EXPECT_TRUE(std::all_of(once.end() - static_cast<std::ptrdiff_t>(e), once.end(),
                                        [](std::uint8_t b) { return b == 0xA5; }));
                // The last channel of the first image, first position, by hand.
                const std::size_t c = static_cast<std::size_t>(s.dims[1]) - 1;
                const std::size_t positions = static_cast<std::size_t>(s.dims[2] * s.dims[3]);
                const std::size_t from = ((c / block) * positions * block + c % block) * e;
                EXPECT_TRUE(std::equal(once.begin() + static_cast<std::ptrdiff_t>(c * positions * e),
                                       once.begin() + static_cast<std::ptrdiff_t>((c * positions + 1) * e),
                                       src.begin() + static_cast<std::ptrdiff_t>(from)));
            }
}

// Blocks wider than a line (f64 nChw16c: 128 bytes) keep the boxes, and so
// do blocks out of which half a line is valid.
TEST(padded_edge, blocks_wider_than_a_line_keep_the_boxes) {
    machine_facts streamed = current_machine();
    streamed.transpose_streaming_bytes = 0;
    const movement_step step{{2, 20, 3, 3}, {row_major_strides({2, 20, 3, 3}), ""}, {{}, "nChw16c"}};
    EXPECT_FALSE(plan_kernel_step(data_type::f64, step, streamed).edge.has_value());
    EXPECT_TRUE(plan_kernel_step(data_type::f32, step, streamed).edge.has_value());
    const movement_step out{{2, 20, 3, 3}, {{}, "nChw16c"}, {row_major_strides({2, 20, 3, 3}), ""}};
    EXPECT_FALSE(plan_kernel_step(data_type::f64, out, streamed).edge.has_value());
    EXPECT_TRUE(plan_kernel_step(data_type::f32, out, streamed).edge.has_value());
    // Out of a block whose valid rows are half a line (f32 8 of 16): the half tiles.
    const movement_step half{{2, 24, 3, 3}, {{}, "nChw16c"}, {row_major_strides({2, 24, 3, 3}), ""}};
    EXPECT_FALSE(plan_kernel_step(data_type::f32, half, streamed).edge.has_value());
    EXPECT_TRUE(plan_kernel_step(data_type::bf16, half, streamed).edge.has_value());
}

} // namespace reshaper::impl
