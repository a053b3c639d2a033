// The compiled-partition cache: keys, hits and misses, LRU eviction,
// failures not cached, capacity from the environment.
#include "backend_test_support.hpp"

#include <cstdlib>

#include "backend/compiled_partition_cache.hpp"

namespace reshaper::impl::testing {
namespace {

graph chain_of(dims_t in_shape, dims_t target) {
    return static_chain(strided_lt(0, data_type::f32, std::move(in_shape)), {std::move(target)});
}

TEST(backend_cache, a_hit_returns_the_same_compiled_partition) {
    compiled_partition_cache cache(16);
    const graph g = chain_of({2, 3, 4}, {6, 4});
    const partition p = whole_graph(g);
    const auto first = cache.get_or_compile(g, p, {g.tensor(0)}, {g.tensor(1)}, cpu_engine());
    const auto second = cache.get_or_compile(g, p, {g.tensor(0)}, {g.tensor(1)}, cpu_engine());
    EXPECT_EQ(first.get(), second.get());
    EXPECT_EQ(cache.misses(), 1u);
    EXPECT_EQ(cache.hits(), 1u);
    EXPECT_EQ(cache.size(), 1u);
}

TEST(backend_cache, anything_compile_reads_is_part_of_the_key) {
    compiled_partition_cache cache(16);
    const graph g = chain_of({2, 3, 4}, {6, 4});
    const partition p = whole_graph(g);
    const auto base = cache.get_or_compile(g, p, {g.tensor(0)}, {g.tensor(1)}, cpu_engine());

    // Other input strides: another plan.
    const logical_tensor every_other = strided_lt(0, data_type::f32, {2, 3, 4}, {26, 8, 2});
    const auto other_strides = cache.get_or_compile(g, p, {every_other}, {g.tensor(1)}, cpu_engine());
    EXPECT_NE(base.get(), other_strides.get());
    EXPECT_EQ(other_strides->lowering(), lowering_kind::reorder); // a gather: no contiguous source dim

    // Another output layout.
    const auto other_output =
        cache.get_or_compile(g, p, {g.tensor(0)}, {any_lt(1, data_type::f32, {6, 4})}, cpu_engine());
    EXPECT_NE(base.get(), other_output.get());

    // Another attribute value.
    graph g2 = chain_of({2, 3, 4}, {6, 4});
    g2.ops[0].attrs["shape"] = std::vector<std::int64_t>{6, -1};
    const auto other_attr = cache.get_or_compile(g2, whole_graph(g2), {g2.tensor(0)}, {g2.tensor(1)}, cpu_engine());
    EXPECT_NE(base.get(), other_attr.get());
    EXPECT_EQ(cache.misses(), 4u);
    EXPECT_EQ(cache.hits(), 0u);
}

// Issue 25: strides of size-1 dims address nothing, so the plans agree, but
// a framework may pick its next kernel by them (torch 1.13's convolution
// does, by the stride of a size-1 batch dim): each compile keeps its own
// and hands on the strides it was given.
TEST(backend_cache, strides_of_size_one_dims_stay_in_the_key_and_in_the_outputs) {
    compiled_partition_cache cache(16);
    const graph g = chain_of({1, 6, 4}, {1, 24});
    const partition p = whole_graph(g);
    const logical_tensor in_a = strided_lt(0, data_type::f32, {1, 6, 4}, {24, 4, 1});
    const logical_tensor in_b = strided_lt(0, data_type::f32, {1, 6, 4}, {7, 4, 1});
    const logical_tensor out_a = strided_lt(1, data_type::f32, {1, 24}, {24, 1});
    const logical_tensor out_b = strided_lt(1, data_type::f32, {1, 24}, {1, 1});
    const auto a = cache.get_or_compile(g, p, {in_a}, {out_a}, cpu_engine());
    const auto b = cache.get_or_compile(g, p, {in_b}, {out_b}, cpu_engine());
    const auto c = cache.get_or_compile(g, p, {in_a}, {out_b}, cpu_engine());
    EXPECT_NE(a.get(), b.get());
    EXPECT_NE(a.get(), c.get());
    EXPECT_EQ(cache.misses(), 3u);
    for (const auto &cp : {a, b, c}) EXPECT_EQ(cp->lowering(), lowering_kind::alias) << cp->why_not_alias();
    EXPECT_EQ(a->inputs()[0].strides, (dims_t{24, 4, 1}));
    EXPECT_EQ(b->inputs()[0].strides, (dims_t{7, 4, 1}));
    EXPECT_EQ(a->outputs()[0].strides, (dims_t{24, 1}));
    EXPECT_EQ(b->outputs()[0].strides, (dims_t{1, 1}));
    EXPECT_EQ(c->outputs()[0].strides, (dims_t{1, 1}));
}

TEST(backend_cache, least_recently_used_entry_is_evicted) {
    compiled_partition_cache cache(2);
    const graph a = chain_of({2, 3}, {6}), b = chain_of({4, 5}, {20}), c = chain_of({6, 7}, {42});
    auto get = [&](const graph &g) {
        return cache.get_or_compile(g, whole_graph(g), {g.tensor(0)}, {g.tensor(1)}, cpu_engine());
    };
    const auto a1 = get(a);
    const auto b1 = get(b);
    EXPECT_EQ(get(a).get(), a1.get()); // a is now the most recent
    get(c);                            // evicts b
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(get(a).get(), a1.get());
    const std::size_t misses_before = cache.misses();
    const auto b2 = get(b); // compiled again
    EXPECT_EQ(cache.misses(), misses_before + 1);
    EXPECT_NE(b1.get(), b2.get());
    EXPECT_LE(cache.size(), 2u);
}

// find(): the entry a request was served from, while it is cached.
TEST(backend_cache, find_serves_the_named_entry_while_it_is_cached) {
    compiled_partition_cache cache(2);
    const graph a = chain_of({2, 3}, {6}), b = chain_of({4, 5}, {20}), c = chain_of({6, 7}, {42});
    auto get = [&](const graph &g, compiled_partition_cache::entry_ref *ref) {
        return cache.get_or_compile(g, whole_graph(g), {g.tensor(0)}, {g.tensor(1)}, cpu_engine(), ref);
    };
    compiled_partition_cache::entry_ref ra, rb, ra_hit;
    const auto a1 = get(a, &ra); // a miss names its new entry
    EXPECT_NE(ra.generation, 0u);
    EXPECT_EQ(get(a, &ra_hit).get(), a1.get()); // a hit names the same one
    EXPECT_EQ(ra_hit.hash, ra.hash);
    EXPECT_EQ(ra_hit.generation, ra.generation);
    const std::size_t hits = cache.hits();
    EXPECT_EQ(cache.find(ra).get(), a1.get());
    EXPECT_EQ(cache.hits(), hits + 1); // counted as a hit
    get(b, &rb);
    EXPECT_EQ(cache.find(ra).get(), a1.get()); // a is the most recent again
    get(c, nullptr);                            // evicts b
    EXPECT_EQ(cache.find(rb), nullptr);
    EXPECT_EQ(cache.find(ra).get(), a1.get());
    EXPECT_EQ(cache.find({}), nullptr); // names nothing
    cache.clear();
    EXPECT_EQ(cache.find(ra), nullptr);

    compiled_partition_cache none(0);
    compiled_partition_cache::entry_ref rn;
    none.get_or_compile(a, whole_graph(a), {a.tensor(0)}, {a.tensor(1)}, cpu_engine(), &rn);
    EXPECT_EQ(rn.generation, 0u); // nothing cached, nothing named
    EXPECT_EQ(none.find(rn), nullptr);
}

TEST(backend_cache, a_failed_compile_is_not_cached) {
    compiled_partition_cache cache(4);
    int calls = 0;
    auto failing = [&]() -> compiled_partition_cache::value_type {
        ++calls;
        throw error(rule::volume_mismatch, "no");
    };
    EXPECT_EQ(error_of([&] { cache.get_or_create("k", failing); }).code(), status::invalid_shape);
    EXPECT_EQ(error_of([&] { cache.get_or_create("k", failing); }).code(), status::invalid_shape);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(cache.size(), 0u);

    // And compile errors pass through unchanged.
    graph g = chain_of({2, 3}, {7});
    const error e = error_of([&] {
        cache.get_or_compile(g, whole_graph(g), {g.tensor(0)}, {g.tensor(1)}, cpu_engine());
    });
    EXPECT_EQ(e.code(), status::invalid_shape);
    EXPECT_NE(std::string(e.what()).find("volume_mismatch"), std::string::npos) << e.what();
}

TEST(backend_cache, capacity_zero_caches_nothing) {
    compiled_partition_cache cache(0);
    const graph g = chain_of({2, 3}, {6});
    auto get = [&] { return cache.get_or_compile(g, whole_graph(g), {g.tensor(0)}, {g.tensor(1)}, cpu_engine()); };
    EXPECT_NE(get().get(), get().get());
    EXPECT_EQ(cache.misses(), 2u);
    EXPECT_EQ(cache.size(), 0u);
}

TEST(backend_cache, capacity_comes_from_the_environment) {
    const char *saved = std::getenv("RESHAPER_CACHE_CAPACITY");
    const std::string saved_value = saved ? saved : "";
    ::setenv("RESHAPER_CACHE_CAPACITY", "7", 1);
    EXPECT_EQ(cache_capacity_from_env(), 7u);
    ::setenv("RESHAPER_CACHE_CAPACITY", "0", 1);
    EXPECT_EQ(cache_capacity_from_env(), 0u);
    ::setenv("RESHAPER_CACHE_CAPACITY", "lots", 1);
    EXPECT_EQ(cache_capacity_from_env(), 1024u);
    ::setenv("RESHAPER_CACHE_CAPACITY", "-3", 1);
    EXPECT_EQ(cache_capacity_from_env(), 1024u);
    ::unsetenv("RESHAPER_CACHE_CAPACITY");
    EXPECT_EQ(cache_capacity_from_env(), 1024u);
    if (saved) ::setenv("RESHAPER_CACHE_CAPACITY", saved_value.c_str(), 1);
}

} // namespace
} // namespace reshaper::impl::testing
