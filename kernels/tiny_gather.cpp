// The tiny gather's executor (tiny_gather_program, movement_program.hpp):
// one element copy per table entry, the element size a constant so each
// copy is one load and one store.
#include <cstring>

#include "kernels/movement_program.hpp"

namespace reshaper::impl {
namespace {

template <std::size_t E>
void tiny_gather(const tiny_gather_program &g, const std::uint8_t *src, std::uint8_t *dst) {
    const std::int32_t *offset = g.src_offsets.data();
    for (const tiny_gather_run &run : g.runs) {
        std::uint8_t *to = dst + run.dst;
        for (std::int32_t i = 0; i < run.count; ++i) std::memcpy(to + i * E, src + offset[i], E);
        offset += run.count;
    }
}

} // namespace

tiny_gather_fn tiny_gather_for(std::size_t element_bytes) {
    switch (element_bytes) {
    case 1: return &tiny_gather<1>;
    case 2: return &tiny_gather<2>;
    case 4: return &tiny_gather<4>;
    case 8: return &tiny_gather<8>;
    default: return &tiny_gather<16>;
    }
}

} // namespace reshaper::impl
