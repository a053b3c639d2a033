#include "kernels/strided_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "core/fail.hpp"
#include "core/status.hpp"
#include "kernels/copy_plan.hpp"
#include "kernels/movement_engine.hpp"

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
    static constexpr dim_t grain = 512 << 10; // a multiple of per_byte: see copy_plan_elements
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

// Elements per byte of a packed kind, 1 for the others.
template <typename Elements>
constexpr dim_t packed_per_byte() {
    if constexpr (Elements::packed) return Elements::per_byte;
    else return 1;
}

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

template <typename Elements>
void copy_plan_elements(const copy_plan &plan, const void *src, void *dst) {
    const dim_t volume = plan.volume;
    // Packed destinations: tasks must not share a byte. Whole-byte rows
    // allow a cut at any multiple of per_byte; an increasing walk allows
    // byte-safe cuts; any other walk could share a byte between any two
    // tasks, so one task copies it. Small copies stay on the calling thread.
    const bool even_cuts = Elements::packed && rows_own_their_bytes(plan, packed_per_byte<Elements>());
    const bool safe_cuts = Elements::packed && !even_cuts && plan.dst_increasing;
    if (volume <= Elements::grain || (Elements::packed && !even_cuts && !safe_cuts)) {
        copy_flat_range<Elements>(plan, src, dst, 0, volume);
        return;
    }
    // Tasks of whole rows when rows are short. Multiples of per_byte for
    // packed types, as grain and (with even_cuts) rows are.
    const dim_t row = plan.dims.back().size;
    const dim_t chunk = row < Elements::grain ? Elements::grain / row * row : Elements::grain;
    const dim_t chunks = volume / chunk + (volume % chunk != 0 ? 1 : 0);
    auto cut = [&](dim_t i) {
        const dim_t p = std::min(i * chunk, volume);
        return safe_cuts && p > 0 && p < volume ? byte_safe_cut(plan, p, packed_per_byte<Elements>()) : p;
    };
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<dim_t>(0, chunks),
                              [&](const oneapi::tbb::blocked_range<dim_t> &r) {
                                  copy_flat_range<Elements>(plan, src, dst, cut(r.begin()),
                                                            cut(r.end()));
                              });
}

// Transpose-like walks go tile by tile. For packed types only when the
// tiles' rows own their bytes: a tiled walk does not increase along the
// destination, so it could not be cut into tasks otherwise.
template <typename Elements>
void copy_elements(const copy_plan &plan, const void *src, void *dst) {
    if (plan.volume > Elements::grain) {
        const auto parts = tiled_parts(plan, Elements::tile);
        if (!parts.empty() &&
            (!Elements::packed || rows_own_their_bytes(parts.front(), packed_per_byte<Elements>()))) {
            for (const auto &part : parts) copy_plan_elements<Elements>(part, src, dst);
            return;
        }
    }
    copy_plan_elements<Elements>(plan, src, dst);
}

} // namespace

void strided_copy(data_type type, const dims_t &dims, const strided_tensor &src,
                  const strided_tensor &dst) {
    const std::size_t bits = element_bits(type);
    if (bits == 0)
        fail(rule::input_dtype_known, "strided copy needs a defined dtype, got " + std::string(to_string(type)));
    const copy_plan plan = make_copy_plan(dims, src.strides, src.offset, dst.strides, dst.offset);
    if (plan.volume == 0) return;
    if (src.data == dst.data && src.offset == dst.offset && src.strides == dst.strides) return;
    planned_copy(type, plan, src.data, dst.data);
}

void planned_copy(data_type type, const copy_plan &plan, const void *from, void *to) {
    const std::size_t bits = element_bits(type);
    if (type == data_type::string) return copy_elements<string_elements>(plan, from, to);
    if (bits < 8) {
        if (const fast_path path = choose_packed_fast_path(plan, bits); path != fast_path::none)
            return run_packed_fast_path(path, plan, bits, from, to, active_cpu_isa());
    } else if (const fast_path path = choose_fast_path(plan, bits / 8); path != fast_path::none) {
        return run_fast_path(path, plan, bits / 8, from, to, active_cpu_isa());
    }
    switch (bits) {
    case 2: return copy_elements<packed_elements<2>>(plan, from, to);
    case 4: return copy_elements<packed_elements<4>>(plan, from, to);
    case 8: return copy_elements<byte_elements<1>>(plan, from, to);
    case 16: return copy_elements<byte_elements<2>>(plan, from, to);
    case 32: return copy_elements<byte_elements<4>>(plan, from, to);
    case 64: return copy_elements<byte_elements<8>>(plan, from, to);
    case 128: return copy_elements<byte_elements<16>>(plan, from, to);
    }
    fail(rule::internal_invariant, "strided copy has no kernel for " + std::to_string(bits) + "-bit elements of " +
                                       std::string(to_string(type)));
}

fast_path strided_copy_path(data_type type, const dims_t &dims, const dims_t &src_strides,
                            const dims_t &dst_strides) {
    if (type == data_type::string) return fast_path::none;
    return planned_copy_path(type, make_copy_plan(dims, src_strides, 0, dst_strides, 0));
}

fast_path planned_copy_path(data_type type, const copy_plan &plan) {
    const std::size_t bits = element_bits(type);
    if (type == data_type::string) return fast_path::none;
    return bits < 8 ? choose_packed_fast_path(plan, bits) : choose_fast_path(plan, bits / 8);
}

} // namespace reshaper::impl
