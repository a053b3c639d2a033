// Buffers that start on a cache line (64 bytes), as the allocators of
// frameworks (PyTorch's, oneDNN's) give them: the movement kernels stream
// whole destination lines only from a line boundary, so a buffer that
// std::vector starts 16 bytes into a line costs every row a split head.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace reshaper::impl {

inline constexpr std::size_t cache_line_bytes = 64;

template <class T>
struct line_aligned_allocator {
    using value_type = T;
    line_aligned_allocator() = default;
    template <class U>
    line_aligned_allocator(const line_aligned_allocator<U> &) {}
    T *allocate(std::size_t n) {
        return static_cast<T *>(::operator new(n * sizeof(T), std::align_val_t{cache_line_bytes}));
    }
    void deallocate(T *p, std::size_t) { ::operator delete(p, std::align_val_t{cache_line_bytes}); }
    template <class U>
    bool operator==(const line_aligned_allocator<U> &) const { return true; }
};

using line_aligned_bytes = std::vector<std::uint8_t, line_aligned_allocator<std::uint8_t>>;

} // namespace reshaper::impl
