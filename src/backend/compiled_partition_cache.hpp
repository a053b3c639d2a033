// The compiled-partition cache: compiling the same partition with the same
// boundary tensors on the same engine again returns the same compiled
// partition. Thread-safe; bounded, least recently used entries go first.
// Concurrent requests for one key compile it once: the others wait for it.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "backend/compiled_partition.hpp"

namespace reshaper::impl {

// RESHAPER_CACHE_CAPACITY when it is a non-negative integer, else 1024.
std::size_t cache_capacity_from_env();

// Everything compile() reads: the partition's ops (ids, kinds, versions,
// attributes, tensor ids), every tensor they touch (the caller's boundary
// tensors where given, with layouts and constant values) and the engine.
std::string compiled_partition_key(const graph &g, const partition &p,
                                   const std::vector<logical_tensor> &inputs,
                                   const std::vector<logical_tensor> &outputs, const engine &eng);

// A partition's form: compiled_partition_key of the graph's own tensors
// without names (the partition's id, its ops' ids and names: compile reads
// them for the words of errors and verbose lines only) and with each tensor
// id replaced by its rank among the ids the partition's ops touch.
// Partitions of one form compile to one plan under their own ids
// (backend/renamed_partition.hpp). Those ids, sorted, into `touched` when
// given: rank k of one partition is touched[k] of the other.
std::string partition_form_key(const graph &g, const partition &p, const engine &eng,
                               std::vector<tensor_id> *touched = nullptr);

class compiled_partition_cache {
public:
    using value_type = std::shared_ptr<const compiled_partition>;

    // Capacity 0 caches nothing (every request compiles).
    explicit compiled_partition_cache(std::size_t capacity);

    // The process-wide cache, with cache_capacity_from_env().
    static compiled_partition_cache &global();

    // Names the entry a request was served from: a host that repeats the
    // request exactly (the same partition handle, tensors and engine: the
    // C API checks that) finds it again by find() without reading the key.
    struct entry_ref {
        std::uint64_t hash = 0;
        std::uint64_t generation = 0; // 0: none (nothing was cached)
    };

    // A hit builds no key: the request's fields are hashed as they are
    // read and compared with the stored keys in place (the key is written
    // out on a miss only). Into `served` (when not null): the entry.
    value_type get_or_compile(const graph &g, const partition &p,
                              const std::vector<logical_tensor> &inputs,
                              const std::vector<logical_tensor> &outputs,
                              const std::shared_ptr<const engine> &eng, entry_ref *served = nullptr);

    // The value of the entry `ref` names, counted as a hit and made the
    // most recently used, when it is still cached and compiled; else null
    // (evicted, cleared, never cached; or verbose level 2, whose cache
    // lines get_or_compile writes: the caller asks it then).
    value_type find(const entry_ref &ref);

    // The entry of `key`, made by `make` on a miss (outside the lock). A
    // failure is not cached: every waiter gets the error, the next request
    // tries again.
    // `label` names the request in verbose lines ("partition 3").
    value_type get_or_create(const std::string &key, const std::function<value_type()> &make,
                             const std::string &label = "");

    std::size_t hits() const { return hits_.load(); }
    std::size_t misses() const { return misses_.load(); }
    std::size_t size() const;
    std::size_t capacity() const { return capacity_; }
    void clear();

private:
    struct entry {
        std::string key;
        std::uint64_t hash = 0;
        std::shared_future<value_type> value;
        std::uint64_t generation = 0;
    };
    using entry_list = std::list<entry>; // most recently used first

    // The entry whose key `matches` (a predicate on the stored key) among
    // those of `hash`, made by `make` on a miss; `write_key` writes the key
    // of a new entry. Everything but the key's form is shared by both
    // entry points above.
    template <class Matches, class WriteKey, class Make>
    value_type find_or_make(std::uint64_t hash, const Matches &matches, const WriteKey &write_key,
                            const Make &make, const std::string &label, entry_ref *served = nullptr);
    void drop(std::uint64_t hash, entry_list::iterator it);

    const std::size_t capacity_;
    mutable std::mutex mutex_;
    entry_list lru_;
    // Entries by hash (list iterators stay valid as the list is reordered).
    std::unordered_multimap<std::uint64_t, entry_list::iterator> index_;
    std::uint64_t next_generation_ = 0;
    std::atomic<std::size_t> hits_{0}, misses_{0};
};

} // namespace reshaper::impl
