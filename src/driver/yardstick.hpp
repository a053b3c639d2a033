// The copies moves are measured against, in the same run on the same
// buffers (perf mode; benchmarks/movement_bench compiles this file too, so
// both measure one yardstick): glibc's memcpy, and a streaming-store copy
// (AVX2 non-temporal stores where the CPU has them: what a copy that writes
// memory can reach here, 36-45 GB/s against memcpy's 21-31 on this
// project's 2-core EPYC, issue 27). Also how many cores CPU-bound threads
// really get: two vCPUs may share one core.
#pragma once

#include <cstddef>

namespace reshaper::driver {

// Copies `bytes` from src to dst (not overlapping) with non-temporal
// stores to the line-aligned body of dst (any alignment is accepted), then
// fences them.
void streaming_copy(void *dst, const void *src, std::size_t bytes);

enum class yardstick { memcpy, streaming_copy };

// Pieces a copy of `bytes` is split into on `threads` threads: one per
// thread, but one per MiB at most (a fork costs more than a smaller
// piece gains).
int yardstick_threads(std::size_t bytes, int threads);

// The copy of `bytes` as `kind`, in yardstick_threads line-aligned pieces
// run side by side (oneTBB, within the caller's thread limit).
void yardstick_copy(yardstick kind, void *dst, const void *src, std::size_t bytes, int threads);

// How many cores `threads` CPU-bound threads (an integer loop, no memory)
// got: their summed work rate over one thread's, alone, each timed
// `rounds` times in turn (medians). 2 threads on 2 cores give about 2.
double cores_got(int threads, int rounds = 5);

} // namespace reshaper::driver
