// Perf mode's batching (src/driver/perf_timing.hpp): runs shorter than
// about 10 us are timed in batches and reported per run. The rule and the
// bookkeeping only: no timing goal is asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "driver/perf_timing.hpp"

namespace reshaper::driver {
namespace {

TEST(DriverPerfTiming, FastRunsAreBatchedSlowOnesAreNot) {
    EXPECT_EQ(runs_per_sample(100), 100u);   // 100 ns: 100 runs make 10 us
    EXPECT_EQ(runs_per_sample(3000), 4u);    // rounded up
    EXPECT_GT(runs_per_sample(9999), 1u);
    EXPECT_EQ(runs_per_sample(batch_below_ns), 1u);
    EXPECT_EQ(runs_per_sample(250'000), 1u);
    // A run the clock barely sees is capped, not divided by zero.
    EXPECT_EQ(runs_per_sample(0), max_runs_per_sample);
    EXPECT_EQ(runs_per_sample(0.001), max_runs_per_sample);
}

TEST(DriverPerfTiming, EverySampleRunsItsBatchAndReportsPerRun) {
    int fast_calls = 0, slow_calls = 0;
    constexpr int samples = 3;
    const std::vector<timed> t = time_in_turn(
        samples, {[&] { ++fast_calls; },
                  [&] {
                      ++slow_calls; // never under the batching bound
                      std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<long>(2 * batch_below_ns)));
                  }});
    ASSERT_EQ(t.size(), 2u);
    // Warm-up: 2 runs, sizing: 3 single runs, then `samples` batches.
    EXPECT_EQ(fast_calls, 2 + 3 + samples * static_cast<int>(t[0].batch));
    EXPECT_EQ(t[1].batch, 1u);
    EXPECT_EQ(slow_calls, 2 + 3 + samples);
    // Per run: a sleeping run takes at least its sleep, also when batched.
    EXPECT_GE(t[1].ms, 2 * batch_below_ns / 1e6);
    EXPECT_GE(t[0].ms, 0.0);
}

// In the cache state a run leaves itself: each sample follows
// in_cache_settling_runs untimed runs of the same, so the sequence is
// a a a-batch b b b-batch ..., never a timed run straight after another one.
TEST(DriverPerfTiming, InCacheSamplesFollowARunOfTheirOwn) {
    std::vector<char> order;
    constexpr int samples = 2;
    const std::vector<timed> t = time_in_turn(
        samples,
        {[&] {
             order.push_back('a');
             std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<long>(2 * batch_below_ns)));
         },
         [&] {
             order.push_back('b');
             std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<long>(2 * batch_below_ns)));
         }},
        sample_start::in_cache);
    ASSERT_EQ(t.size(), 2u);
    ASSERT_EQ(t[0].batch, 1u);
    ASSERT_EQ(t[1].batch, 1u);
    // Warm-up a b a b, sizing a a a b b b, then per sample the settling
    // runs and the timed one of each.
    const std::string sample = std::string(in_cache_settling_runs + 1, 'a') + std::string(in_cache_settling_runs + 1, 'b');
    ASSERT_GE(in_cache_settling_runs, 1);
    const std::string expected = std::string("ababaaabbb") + sample + sample;
    EXPECT_EQ(std::string(order.begin(), order.end()), expected);
}

} // namespace
} // namespace reshaper::driver
