#include "driver/yardstick.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <immintrin.h>
#include <tbb/parallel_for.h>

namespace reshaper::driver {
namespace {

constexpr std::size_t line = 64;

// 32-byte unaligned loads, 32-byte non-temporal stores to an aligned dst.
[[gnu::target("avx2")]] void stream_body_avx2(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; i += 2 * 32) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
        _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 32), b);
    }
}

// The same with SSE2 (every x86-64 CPU).
void stream_body_sse2(std::uint8_t *dst, const std::uint8_t *src, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; i += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), a);
    }
}

const bool has_avx2 = __builtin_cpu_supports("avx2");

} // namespace

void streaming_copy(void *dst, const void *src, std::size_t bytes) {
    auto *d = static_cast<std::uint8_t *>(dst);
    const auto *s = static_cast<const std::uint8_t *>(src);
    // The head up to dst's first line boundary and the tail after its last
    // whole line go through memcpy.
    const std::size_t head = std::min(bytes, (line - reinterpret_cast<std::uintptr_t>(d) % line) % line);
    std::memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    const std::size_t body = bytes / line * line;
    if (has_avx2) stream_body_avx2(d, s, body);
    else stream_body_sse2(d, s, body);
    _mm_sfence();
    std::memcpy(d + body, s + body, bytes - body);
}

int yardstick_threads(std::size_t bytes, int threads) {
    const std::size_t per_mib = std::max<std::size_t>(1, bytes >> 20);
    return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), per_mib));
}

void yardstick_copy(yardstick kind, void *dst, const void *src, std::size_t bytes, int threads) {
    const auto copy = [kind](void *d, const void *s, std::size_t n) {
        if (kind == yardstick::memcpy) std::memcpy(d, s, n);
        else streaming_copy(d, s, n);
    };
    const int pieces = yardstick_threads(bytes, threads);
    if (pieces == 1) return copy(dst, src, bytes);
    // Pieces of whole lines, the last one taking the rest.
    const std::size_t piece = (bytes / static_cast<std::size_t>(pieces)) / line * line;
    tbb::parallel_for(
        0, pieces,
        [&](int i) {
            const std::size_t from = static_cast<std::size_t>(i) * piece;
            const std::size_t n = i + 1 == pieces ? bytes - from : piece;
            copy(static_cast<std::uint8_t *>(dst) + from, static_cast<const std::uint8_t *>(src) + from, n);
        },
        tbb::static_partitioner());
}

namespace {

// A fixed amount of integer work (a dependent chain: no memory, no SIMD).
std::uint64_t spin(std::uint64_t steps) {
    std::uint64_t x = 88172645463325252ull;
    for (std::uint64_t i = 0; i < steps; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

// Seconds for `threads` threads, started together, to each do `steps`.
double seconds_for(int threads, std::uint64_t steps) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::atomic<std::uint64_t> sink{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            ready.fetch_add(1);
            while (!go.load()) std::this_thread::yield();
            sink.fetch_xor(spin(steps));
        });
    while (ready.load() < threads) std::this_thread::yield();
    const auto start = std::chrono::steady_clock::now();
    go.store(true);
    for (auto &t : pool) t.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

double cores_got(int threads, int rounds) {
    if (threads <= 1) return 1;
    constexpr std::uint64_t steps = 20'000'000; // about 20 ms of one core
    std::vector<double> one, many;
    for (int r = 0; r < std::max(rounds, 1); ++r) {
        one.push_back(seconds_for(1, steps));
        many.push_back(seconds_for(threads, steps));
    }
    return threads * median(std::move(one)) / median(std::move(many));
}

} // namespace reshaper::driver
