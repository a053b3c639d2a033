// The tiny gather's executor (tiny_gather_program, movement_program.hpp):
// one copy per table entry, its size a constant: an entry of a power of two
// of bytes is one load and one store, any other two of the largest power of
// two within it, overlapping (as copy_short, kernels/short_copy.hpp).
#include <cstring>

#include "kernels/movement_program.hpp"
#include "kernels/short_copy.hpp"

namespace reshaper::impl {
namespace {

template <std::size_t P, bool Exact>
void tiny_gather(const tiny_gather_program &g, const std::uint8_t *src, std::uint8_t *dst) {
    // Everything the loops read, in locals: the stores (bytes) might
    // otherwise alias the program and reload it every entry.
    const std::int32_t *offset = g.src_offsets.data();
    const std::size_t n = Exact ? P : static_cast<std::size_t>(g.entry_bytes);
    const tiny_gather_run *run = g.runs.data(), *const end = run + g.runs.size();
    for (; run != end; ++run) {
        std::uint8_t *to = dst + run->dst;
        const std::int32_t *const last = offset + run->count;
        // Unrolled: a loop of a few instructions ran at half speed where it
        // straddled two of the decoded-uop cache's 32-byte windows.
#pragma GCC unroll 4
        for (; offset != last; ++offset, to += n) {
            const std::uint8_t *from = src + *offset;
            copy_fixed<P>(to, from);
            if constexpr (!Exact) copy_fixed<P>(to + n - P, from + n - P);
        }
    }
}

template <std::size_t P>
tiny_gather_fn gather_of(std::size_t entry_bytes) {
    return entry_bytes == P ? &tiny_gather<P, true> : &tiny_gather<P, false>;
}

} // namespace

tiny_gather_fn tiny_gather_for(std::size_t entry_bytes) {
    if (entry_bytes >= 32) return gather_of<32>(entry_bytes);
    if (entry_bytes >= 16) return gather_of<16>(entry_bytes);
    if (entry_bytes >= 8) return gather_of<8>(entry_bytes);
    if (entry_bytes >= 4) return gather_of<4>(entry_bytes);
    if (entry_bytes >= 2) return gather_of<2>(entry_bytes);
    return &tiny_gather<1, true>;
}

} // namespace reshaper::impl
