// Buffers that start on a cache line (64 bytes), as the allocators of
// frameworks (PyTorch's, oneDNN's) give them: the movement kernels stream
// whole destination lines only from a line boundary, so a buffer that
// std::vector starts 16 bytes into a line costs every row a split head.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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
    // A line more than asked from the ordinary operator new, the buffer
    // starting at the first line boundary past the block's start, the
    // block's address kept in the word just before it. Not the aligned
    // operator new: glibc serves that with memalign, which carves each block
    // out of a larger free one and frees the leftovers, and that churn was
    // 10% of checking 100,000 small partitions on one thread (perf, 29 MiB
    // file); a plain block of this size comes from the thread's cache.
    // Blocks start on a word at least, so the line boundary past the
    // word kept is at most a line in: the block's extra line holds it.
    static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= sizeof(void *));
    T *allocate(std::size_t n) {
        if (n > (SIZE_MAX - cache_line_bytes) / sizeof(T)) throw std::bad_array_new_length();
        auto *block = static_cast<std::uint8_t *>(::operator new(n * sizeof(T) + cache_line_bytes));
        const auto start = (reinterpret_cast<std::uintptr_t>(block) + sizeof(void *) + cache_line_bytes - 1) &
                           ~std::uintptr_t{cache_line_bytes - 1};
        auto *buffer = block + (start - reinterpret_cast<std::uintptr_t>(block));
        std::memcpy(buffer - sizeof(void *), &block, sizeof(void *));
        return reinterpret_cast<T *>(buffer);
    }
    void deallocate(T *p, std::size_t) {
        void *block;
        std::memcpy(&block, reinterpret_cast<std::uint8_t *>(p) - sizeof(void *), sizeof(void *));
        ::operator delete(block);
    }
    template <class U>
    bool operator==(const line_aligned_allocator<U> &) const { return true; }
};

using line_aligned_bytes = std::vector<std::uint8_t, line_aligned_allocator<std::uint8_t>>;

} // namespace reshaper::impl
