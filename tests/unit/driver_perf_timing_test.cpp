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
                  }},
        sample_start::as_left, /*warm_up_alone=*/0);
    ASSERT_EQ(t.size(), 2u);
    // Warm-up: 2 runs (no time alone), sizing: 3 single runs, then `samples` batches.
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
        sample_start::in_cache, /*warm_up_alone=*/0);
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

// After its two rounds in turn, the warm-up runs each one alone, in a loop,
// for at least warm_up_alone ns before anything is timed: a b a b, then
// a...a for that long, b...b for that long, then the sizing a a a b b b.
TEST(DriverPerfTiming, WarmUpRunsEachAloneForItsTime) {
    using clock = std::chrono::steady_clock;
    std::string order;
    std::vector<clock::time_point> at;
    const auto run_of = [&](char name) {
        return [&, name] {
            order.push_back(name);
            at.push_back(clock::now());
            std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<long>(2 * batch_below_ns)));
        };
    };
    constexpr double alone_ns = 200'000; // 0.2 ms: about ten 20 us runs
    constexpr int samples = 1;
    const std::vector<timed> t = time_in_turn(samples, {run_of('a'), run_of('b')}, sample_start::as_left, alone_ns);
    ASSERT_EQ(t.size(), 2u);
    ASSERT_EQ(t[0].batch, 1u);
    ASSERT_EQ(t[1].batch, 1u);
    // abab, a run of a's, a run of b's, aaabbb (sizing), ab (the sample).
    ASSERT_EQ(order.substr(0, 4), "abab");
    ASSERT_EQ(order.substr(order.size() - 8), "aaabbbab");
    const std::string alone = order.substr(4, order.size() - 12);
    const std::size_t first_b = alone.find('b');
    ASSERT_NE(first_b, std::string::npos);
    ASSERT_GE(first_b, 1u);
    EXPECT_EQ(alone.find_first_not_of('a'), first_b);
    EXPECT_EQ(alone.find('a', first_b), std::string::npos);
    // The a's alone lasted at least alone_ns: the first b came at least
    // that long after the last run in turn (which came before they began);
    // so did the sizing runs after the last a.
    const auto ns_between = [&](std::size_t from, std::size_t to) {
        return std::chrono::duration<double, std::nano>(at[to] - at[from]).count();
    };
    const std::size_t last_in_turn = 3, first_alone_b = 4 + first_b, first_sizing = 4 + alone.size();
    EXPECT_GE(ns_between(last_in_turn, first_alone_b), alone_ns);
    EXPECT_GE(ns_between(first_alone_b - 1, first_sizing), alone_ns);
}

} // namespace
} // namespace reshaper::driver
