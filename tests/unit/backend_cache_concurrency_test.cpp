// The cache and compiled partitions under 8 threads at once: concurrent
// compiles of one key compile once and share one compiled partition, and
// concurrent executes of it (alias copy, oneDNN reorder, our kernel) all
// give the reference's bytes. Also built with ThreadSanitizer
// (backend_cache_tsan_tests, see tests/CMakeLists.txt).
#include "backend_test_support.hpp"

#include <atomic>
#include <thread>

#include "backend/compiled_partition_cache.hpp"

namespace reshaper::impl::testing {
namespace {

constexpr int thread_count = 8;

struct workload {
    graph g;
    logical_tensor in, out;
    host_buffer input;
    host_buffer expected;
};

// One alias, one reorder, one two-step reorder (through a temporary per
// run), one kernel partition.
std::vector<std::unique_ptr<workload>> make_workloads() {
    std::vector<std::unique_ptr<workload>> w;
    auto add = [&](data_type t, dims_t shape, dims_t strides, dims_t target, dims_t out_strides = {}) {
        const logical_tensor in = strided_lt(0, t, shape, strides);
        const logical_tensor out = strided_lt(1, t, target, out_strides);
        graph g = static_chain(in, {target});
        host_buffer input(in), expected(out);
        std::mt19937 rng(static_cast<std::uint32_t>(w.size()) + 1);
        input.fill_random(rng);
        expected.fill(0);
        reference_reshape(in, input.data(), out, expected.data());
        w.push_back(std::make_unique<workload>(workload{std::move(g), in, out, std::move(input), std::move(expected)}));
    };
    add(data_type::f32, {64, 48}, {}, {48, 64});                 // alias
    add(data_type::f32, {64, 48}, {1, 64}, {3072});              // reorder
    add(data_type::f32, {64, 48}, {1, 64}, {48, 64}, {1, 48});   // 2 reorders
    add(data_type::s16, {64, 48}, {1, 64}, {48, 64});            // kernel
    return w;
}

// Builds the process's lazily made tables (the op registry, oneDNN's tag
// names and internals) before any thread starts. Under TSan with the
// libraries uninstrumented, their static-initialisation fast path is
// invisible and would look like a race; the threads below test the cache
// and compiled partitions, not function-local statics.
void warm_up() {
    const logical_tensor blocked = opaque_lt(0, data_type::f32, {1, 20, 1, 1}, "nChw16c");
    const graph g = static_chain(blocked, {{20}});
    compile_whole(g, blocked, any_lt(1, data_type::f32, {20}));
}

TEST(backend_cache_concurrency, eight_threads_compile_once_and_execute_bit_exactly) {
    warm_up();
    compiled_partition_cache cache(16);
    const auto work = make_workloads();
    constexpr int rounds = 25;
    std::vector<std::vector<const compiled_partition *>> seen(thread_count);
    std::atomic<int> mismatches{0}, errors{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t) {
        threads.emplace_back([&, t] {
            while (!go.load()) std::this_thread::yield();
            try {
                for (int r = 0; r < rounds; ++r) {
                    const workload &w = *work[static_cast<std::size_t>(r + t) % work.size()];
                    const auto cp = cache.get_or_compile(w.g, whole_graph(w.g), {w.in}, {w.out}, cpu_engine());
                    seen[t].push_back(cp.get());
                    host_buffer out(w.out);
                    out.fill(0);
                    cp->execute({w.input.data()}, {out.data()});
                    if (!(out == w.expected) || !out.guards_intact()) ++mismatches;
                }
            } catch (...) {
                ++errors;
            }
        });
    }
    go = true;
    for (auto &th : threads) th.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_EQ(cache.misses(), work.size());
    EXPECT_EQ(cache.hits(), thread_count * rounds - work.size());
    for (const auto &w : work) {
        const auto cp = cache.get_or_compile(w->g, whole_graph(w->g), {w->in}, {w->out}, cpu_engine());
        const bool two_steps = cp->lowering_details().find("via dense temporary") != std::string::npos;
        EXPECT_EQ(two_steps, (w->out.strides == dims_t{1, 48})) << cp->lowering_details();
    }
    EXPECT_EQ(mismatches.load(), 0);
    // One compiled partition per workload, shared by every thread.
    for (std::size_t k = 0; k < work.size(); ++k) {
        const compiled_partition *first = nullptr;
        for (int t = 0; t < thread_count; ++t)
            for (int r = 0; r < rounds; ++r)
                if (static_cast<std::size_t>(r + t) % work.size() == k) {
                    if (!first) first = seen[t][r];
                    EXPECT_EQ(seen[t][r], first);
                }
    }
}

TEST(backend_cache_concurrency, waiters_share_one_slow_compile) {
    warm_up();
    compiled_partition_cache cache(4);
    const graph g = static_chain(strided_lt(0, data_type::f32, {2, 3}), {{6}});
    std::atomic<int> compiles{0};
    std::vector<compiled_partition_cache::value_type> results(thread_count);
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t)
        threads.emplace_back([&, t] {
            results[t] = cache.get_or_create("slow", [&] {
                ++compiles;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                return compile(g, whole_graph(g), {g.tensor(0)}, {g.tensor(1)}, cpu_engine());
            });
        });
    for (auto &th : threads) th.join();
    EXPECT_EQ(compiles.load(), 1);
    for (const auto &r : results) EXPECT_EQ(r.get(), results[0].get());
    EXPECT_EQ(cache.hits(), thread_count - 1u);
}

} // namespace
} // namespace reshaper::impl::testing
