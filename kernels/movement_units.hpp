// What the fast paths' executors share: running a program's units on the
// calling thread or over oneTBB tasks as planned, walking the outer dims,
// and the calling thread's staging buffer. Private to kernels/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "kernels/movement_program.hpp"

namespace reshaper::impl {

using byte = std::uint8_t;

// Runs body(begin, end) over [0, split.units) as planned: on the calling
// thread or over oneTBB tasks of split.grain units. A task that streamed
// fences before it ends, so its stores are visible once the call returns.
template <typename Body>
void for_units(const unit_split &split, bool stream, const Body &body) {
    auto fenced = [&](std::size_t begin, std::size_t end) {
        body(begin, end);
        if (stream) store_fence();
    };
    if (!split.parallel) {
        fenced(0, split.units);
        return;
    }
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, split.units, split.grain),
                              [&](const oneapi::tbb::blocked_range<std::size_t> &r) { fenced(r.begin(), r.end()); });
}

// A walk over the outer dims' positions in row-major order: one division
// per task to start, then an odometer (a division per run would cost more
// than a short run's copy).
class outer_walk {
public:
    outer_walk(const outer_dims &dims, std::size_t position) : dims_(dims), index_(dims.sizes.size()) {
        for (std::size_t k = dims.sizes.size(); k-- > 0;) {
            const auto size = static_cast<std::size_t>(dims.sizes[k]);
            index_[k] = static_cast<dim_t>(position % size);
            position /= size;
            src_ += index_[k] * dims.src[k];
            dst_ += index_[k] * dims.dst[k];
        }
    }
    std::ptrdiff_t src() const { return src_; }
    std::ptrdiff_t dst() const { return dst_; }
    void next() {
        for (std::size_t k = index_.size(); k-- > 0;) {
            src_ += dims_.src[k];
            dst_ += dims_.dst[k];
            if (++index_[k] < dims_.sizes[k]) return;
            src_ -= dims_.sizes[k] * dims_.src[k];
            dst_ -= dims_.sizes[k] * dims_.dst[k];
            index_[k] = 0;
        }
    }

private:
    const outer_dims &dims_;
    std::vector<dim_t> index_;
    std::ptrdiff_t src_ = 0, dst_ = 0;
};

// Where `p` lies within its line.
inline std::ptrdiff_t line_offset(const void *p) {
    return static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(p) % tile_bytes);
}

// The calling thread's buffer for staged rows: at least `bytes`, kept for
// the thread's next strips.
inline byte *staging_buffer(std::size_t bytes) {
    thread_local std::vector<byte> buffer;
    if (buffer.size() < bytes) buffer.resize(bytes);
    return buffer.data();
}

// The executors, one file each (fast_path_*.cpp); `src` and `dst` already
// at the program's offsets.
void run_copy_runs(const movement_program &p, const run_copy_program &r, const byte *src, byte *dst);
void run_transpose(const movement_program &p, const transpose_program &t, const byte *src, byte *dst);
void run_row_groups(const movement_program &p, const row_groups_program &g, const byte *src, byte *dst);
void run_packed_transpose(const movement_program &p, const packed_transpose_program &t, const byte *src,
                          byte *dst);
void run_window_transpose(const movement_program &p, const window_transpose_program &w, const byte *src,
                          byte *dst);
void run_blocked_transpose(const movement_program &p, const blocked_transpose_program &b, const byte *src,
                           byte *dst);

} // namespace reshaper::impl
