#include "kernels/element_walk.hpp"
#include "core/fail.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "core/status.hpp"
#include "kernels/copy_plan.hpp"

namespace reshaper::impl {
namespace {

// Each element kind copies `n` elements of one innermost run: from element
// `s` of `src` with stride `ss` to element `d` of `dst` with stride `ds`.

// Whole-byte elements of N bytes. memcpy of a constant N compiles to plain
// loads and stores with no alignment assumption; the unit-stride cases are
// separate loops so the compiler vectorises them.
template <std::size_t N>
struct byte_elements {
    static constexpr dim_t grain = (256 << 10) / N; // elements per parallel task
    static constexpr dim_t tile = 32; // 32 x 32 elements: at most 16 KiB each way
    static constexpr bool packed = false;

    static void run(const void *src, dim_t s, dim_t ss, void *dst, dim_t d, dim_t ds, dim_t n) {
        const auto *from = static_cast<const std::uint8_t *>(src) + s * dim_t{N};
        auto *to = static_cast<std::uint8_t *>(dst) + d * dim_t{N};
        if (ss == 1 && ds == 1) {
            std::memcpy(to, from, static_cast<std::size_t>(n) * N);
        } else if (ds == 1) {
            for (dim_t i = 0; i < n; ++i) std::memcpy(to + i * N, from + i * ss * dim_t{N}, N);
        } else if (ss == 1) {
            for (dim_t i = 0; i < n; ++i) std::memcpy(to + i * ds * dim_t{N}, from + i * N, N);
        } else {
            for (dim_t i = 0; i < n; ++i)
                std::memcpy(to + i * ds * dim_t{N}, from + i * ss * dim_t{N}, N);
        }
    }
};

// Packed elements of Bits (2 or 4) bits, per_byte to a byte, laid out as
// load_packed reads them.
template <std::size_t Bits>
struct packed_elements {
    static constexpr dim_t per_byte = static_cast<dim_t>(elements_per_byte(Bits));
    static constexpr dim_t grain = 512 << 10; // a multiple of per_byte: see plan_element_walk
    static constexpr dim_t tile = 64;         // likewise: tile rows own their bytes
    static constexpr bool packed = true;      // elements share bytes
    static constexpr unsigned mask = (1u << Bits) - 1;

    // Element indices are never negative (make_copy_plan checks the ranges).
    static std::uint8_t get(const void *data, dim_t e) {
        return load_packed(data, Bits, static_cast<std::size_t>(e));
    }
    static void set(void *data, dim_t e, std::uint8_t v) {
        store_packed(data, Bits, static_cast<std::size_t>(e), v);
    }

    static void run(const void *src, dim_t s, dim_t ss, void *dst, dim_t d, dim_t ds, dim_t n) {
        if (ss == 1 && ds == 1 && s % per_byte == d % per_byte) {
            // Same place in the byte: edge elements at each end, whole bytes between.
            for (; n > 0 && s % per_byte != 0; --n) set(dst, d++, get(src, s++));
            std::memcpy(static_cast<std::uint8_t *>(dst) + d / per_byte,
                        static_cast<const std::uint8_t *>(src) + s / per_byte,
                        static_cast<std::size_t>(n / per_byte));
            for (dim_t i = n / per_byte * per_byte; i < n; ++i) set(dst, d + i, get(src, s + i));
            return;
        }
        if (ds == 1 && d % per_byte == 0) { // gathering into whole bytes: one store per byte
            auto *to = static_cast<std::uint8_t *>(dst) + d / per_byte;
            const dim_t bytes = n / per_byte;
            if (ss % per_byte == 0) { // every source element at the same place in its byte
                const auto *from = static_cast<const std::uint8_t *>(src) + s / per_byte;
                const dim_t step = ss / per_byte;
                const unsigned shift = static_cast<unsigned>(s % per_byte) * Bits;
                for (dim_t j = 0; j < bytes; ++j) {
                    unsigned b = 0;
                    for (dim_t q = 0; q < per_byte; ++q)
                        b |= ((from[(j * per_byte + q) * step] >> shift) & mask) << (q * Bits);
                    to[j] = static_cast<std::uint8_t>(b);
                }
            } else {
                for (dim_t j = 0; j < bytes; ++j) {
                    unsigned b = 0;
                    for (dim_t q = 0; q < per_byte; ++q)
                        b |= static_cast<unsigned>(get(src, s + (j * per_byte + q) * ss)) << (q * Bits);
                    to[j] = static_cast<std::uint8_t>(b);
                }
            }
            for (dim_t i = bytes * per_byte; i < n; ++i) set(dst, d + i, get(src, s + i * ss));
            return;
        }
        for (dim_t i = 0; i < n; ++i) set(dst, d + i * ds, get(src, s + i * ss));
    }
};

// Owned strings: assignment copies each one.
struct string_elements {
    static constexpr dim_t grain = 1024;
    static constexpr dim_t tile = 16;
    static constexpr bool packed = false;

    static void run(const void *src, dim_t s, dim_t ss, void *dst, dim_t d, dim_t ds, dim_t n) {
        const auto *from = static_cast<const std::string *>(src) + s;
        auto *to = static_cast<std::string *>(dst) + d;
        for (dim_t i = 0; i < n; ++i) to[i * ds] = from[i * ss];
    }
};

// Copies the elements at flat positions [begin, end) of the walk.
template <typename Elements>
void copy_flat_range(const copy_plan &plan, const void *src, void *dst, dim_t begin, dim_t end) {
    if (begin >= end) return;
    dims_t index;
    const element_pair first = element_at(plan, begin, &index);
    const std::size_t inner = plan.dims.size() - 1;
    const copy_dim &run_dim = plan.dims[inner];
    // Element indices of the current row's start (inner index 0).
    dim_t row_src = first.src - index[inner] * run_dim.src_stride;
    dim_t row_dst = first.dst - index[inner] * run_dim.dst_stride;
    dim_t from = index[inner];
    for (dim_t p = begin;;) {
        const dim_t run = std::min(run_dim.size - from, end - p);
        Elements::run(src, row_src + from * run_dim.src_stride, run_dim.src_stride, dst,
                      row_dst + from * run_dim.dst_stride, run_dim.dst_stride, run);
        p += run;
        if (p >= end) return;
        from = 0;
        for (std::size_t k = inner; k-- > 0;) { // carry into the outer dims
            const copy_dim &dim = plan.dims[k];
            if (++index[k] < dim.size) {
                row_src += dim.src_stride;
                row_dst += dim.dst_stride;
                break;
            }
            row_src -= (dim.size - 1) * dim.src_stride;
            row_dst -= (dim.size - 1) * dim.dst_stride;
            index[k] = 0;
        }
    }
}

// One part of the walk: on the calling thread, or in chunks over oneTBB
// tasks, each cut moved to a byte boundary where the part asks for it.
template <typename Elements>
void walk_part(const element_walk_part &part, const void *src, void *dst) {
    const copy_plan &plan = part.plan;
    if (part.chunk == 0) return copy_flat_range<Elements>(plan, src, dst, 0, plan.volume);
    const dim_t volume = plan.volume, chunk = part.chunk;
    const dim_t chunks = volume / chunk + (volume % chunk != 0 ? 1 : 0);
    auto cut = [&](dim_t i) {
        const dim_t p = std::min(i * chunk, volume);
        if constexpr (Elements::packed)
            return part.byte_safe_cuts && p > 0 && p < volume ? byte_safe_cut(plan, p, Elements::per_byte) : p;
        else
            return p;
    };
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<dim_t>(0, chunks),
                              [&](const oneapi::tbb::blocked_range<dim_t> &r) {
                                  copy_flat_range<Elements>(plan, src, dst, cut(r.begin()), cut(r.end()));
                              });
}

template <typename Elements>
element_walk_kind kind_of() {
    element_walk_kind k;
    k.walk = &walk_part<Elements>;
    if constexpr (Elements::packed) k.per_byte = Elements::per_byte;
    k.grain = Elements::grain;
    k.tile = Elements::tile;
    return k;
}

} // namespace

element_walk_kind element_walk_kind_of(std::size_t element_bits, bool strings) {
    if (strings) return kind_of<string_elements>();
    switch (element_bits) {
    case 2: return kind_of<packed_elements<2>>();
    case 4: return kind_of<packed_elements<4>>();
    case 8: return kind_of<byte_elements<1>>();
    case 16: return kind_of<byte_elements<2>>();
    case 32: return kind_of<byte_elements<4>>();
    case 64: return kind_of<byte_elements<8>>();
    case 128: return kind_of<byte_elements<16>>();
    }
    fail(rule::internal_invariant,
                "strided copy has no kernel for " + std::to_string(element_bits) + "-bit elements");
}

void run_element_walk(const element_walk_program &program, const void *src, void *dst) {
    for (const element_walk_part &part : program.parts) program.walk(part, src, dst);
}

} // namespace reshaper::impl
