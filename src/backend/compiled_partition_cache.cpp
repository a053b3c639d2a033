#include "backend/compiled_partition_cache.hpp"
#include "backend/verbose.hpp"

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <variant>

namespace reshaper::impl {

std::size_t cache_capacity_from_env() {
    constexpr std::size_t default_capacity = 1024;
    const char *value = std::getenv("RESHAPER_CACHE_CAPACITY");
    if (!value || !*value) return default_capacity;
    char *end = nullptr;
    const long long parsed = std::strtoll(value, &end, 10);
    if (*end != '\0' || parsed < 0) return default_capacity;
    return static_cast<std::size_t>(parsed);
}

namespace {

// A key is a list of fixed-width numbers and length-prefixed strings: no
// two different inputs give one key. Numbers go in as their 8 raw bytes.
// The fields are read once per request and fed to a sink: a hit hashes
// them (hashing_sink) and compares them with the stored keys of that hash
// in place (matching_sink); only a miss writes the key out (writing_sink).
// Building the key as a string at every request, in a per-thread buffer,
// was half of a hit's time (perf, api_bench's bm_c_compile_cached: the
// thread-local lookups of a shared library alone 11%).
template <class Sink>
class key_fields {
public:
    explicit key_fields(Sink &sink) : sink_(sink) {}
    key_fields &add(std::string_view field) {
        add(static_cast<std::int64_t>(field.size()));
        sink_.write(field.data(), field.size());
        return *this;
    }
    key_fields &add(std::int64_t v) {
        sink_.write(&v, sizeof v);
        return *this;
    }
    key_fields &add(const dims_t &dims) {
        add(static_cast<std::int64_t>(dims.size()));
        sink_.write(dims.data(), dims.size() * sizeof(dim_t));
        return *this;
    }
    key_fields &add_attribute(const attribute_value &v) {
        add(static_cast<std::int64_t>(v.index()));
        std::visit(
            [this](const auto &x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string>) add(x);
                else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) add(x);
                else if constexpr (std::is_same_v<T, std::vector<float>>) {
                    add(static_cast<std::int64_t>(x.size()));
                    sink_.write(x.data(), x.size() * sizeof(float));
                } else if constexpr (std::is_same_v<T, float>)
                    sink_.write(&x, sizeof x);
                else add(static_cast<std::int64_t>(x));
            },
            v);
        return *this;
    }
    key_fields &add_tensor(const logical_tensor &lt) { return add(lt.id).add_tensor_without_id(lt); }
    key_fields &add_tensor_without_id(const logical_tensor &lt) {
        // Strides exactly as given, those of size-1 dims too: the plans
        // agree (same_strided_layout), but the output's strides are handed
        // on as given, and a framework may choose its next kernel by them.
        add(static_cast<std::int64_t>(lt.dtype)).add(lt.shape).add(lt.strides);
        add(static_cast<std::int64_t>(lt.layout)).add(lt.format.get()).add(static_cast<std::int64_t>(lt.property));
        add(static_cast<std::int64_t>(lt.values.has_value()));
        if (lt.values) {
            add(static_cast<std::int64_t>(lt.values->count));
            add(std::string_view(reinterpret_cast<const char *>(lt.values->bytes.data()),
                                 lt.values->bytes.size()));
            add(static_cast<std::int64_t>(lt.values->strings.size()));
            for (const auto &s : lt.values->strings) add(s);
        }
        return *this;
    }

private:
    Sink &sink_;
};

// The key written out (a miss).
struct writing_sink {
    std::string &out;
    void write(const void *bytes, std::size_t n) {
        if (n != 0) out.append(static_cast<const char *>(bytes), n); // an empty list's data() may be null
    }
};

// A 64-bit hash of the fields as written, 8 bytes at a time.
struct hashing_sink {
    std::uint64_t hash = 0x9E3779B97F4A7C15ull;
    [[gnu::always_inline]] void mix(std::uint64_t word) {
        hash = (hash ^ word) * 0xFF51AFD7ED558CCDull;
        hash ^= hash >> 29;
    }
    [[gnu::always_inline]] void write(const void *bytes, std::size_t n) {
        const auto *b = static_cast<const unsigned char *>(bytes);
        for (; n >= 8; n -= 8, b += 8) {
            std::uint64_t word;
            std::memcpy(&word, b, 8);
            mix(word);
        }
        if (n != 0) {
            std::uint64_t word = n; // the tail's length too: "a" and "a\0" differ
            std::memcpy(reinterpret_cast<unsigned char *>(&word) + 1, b, n);
            mix(word);
        }
    }
};

// The fields compared with a stored key, byte for byte.
struct matching_sink {
    const char *at, *end;
    bool same = true;
    [[gnu::always_inline]] void write(const void *bytes, std::size_t n) {
        if (!same) return;
        if (static_cast<std::size_t>(end - at) < n || (n != 0 && std::memcmp(at, bytes, n) != 0)) {
            same = false;
            return;
        }
        at += n;
    }
    bool matched() const { return same && at == end; }
};

// The ids of every tensor the partition's ops touch, sorted, each once:
// in a buffer on the stack for the partitions hosts compile again and
// again (a few ops), on the heap beyond.
class touched_tensors {
public:
    touched_tensors(const graph &g, const partition &p) {
        std::size_t count = 0;
        for (std::size_t index : p.op_indices) count += g.ops.at(index).inputs.size() + g.ops.at(index).outputs.size();
        tensor_id *ids = local_.data();
        if (count > local_.size()) {
            heap_.resize(count);
            ids = heap_.data();
        }
        for (std::size_t index : p.op_indices) {
            const op &o = g.ops[index];
            for (tensor_id id : o.inputs) ids[size_++] = id;
            for (tensor_id id : o.outputs) ids[size_++] = id;
        }
        std::sort(ids, ids + size_);
        size_ = static_cast<std::size_t>(std::unique(ids, ids + size_) - ids);
        ids_ = ids;
    }
    const tensor_id *begin() const { return ids_; }
    const tensor_id *end() const { return ids_ + size_; }

private:
    std::array<tensor_id, 32> local_;
    std::vector<tensor_id> heap_;
    const tensor_id *ids_ = nullptr;
    std::size_t size_ = 0;
};

// Everything compile() reads, fed to `sink` as key fields.
template <class Sink>
void visit_partition_key(Sink &sink, const graph &g, const partition &p, const touched_tensors &touched,
                         const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs,
                         const engine &eng) {
    key_fields<Sink> key(sink);
    key.add(to_string(eng.kind())).add(static_cast<std::int64_t>(eng.index()));
    key.add(static_cast<std::int64_t>(p.id)).add(static_cast<std::int64_t>(p.supported));
    key.add(static_cast<std::int64_t>(p.inputs.size()));
    for (tensor_id id : p.inputs) key.add(id);
    key.add(static_cast<std::int64_t>(p.outputs.size()));
    for (tensor_id id : p.outputs) key.add(id);
    key.add(static_cast<std::int64_t>(p.op_indices.size()));
    for (std::size_t index : p.op_indices) {
        const op &o = g.ops.at(index);
        key.add(o.id).add(o.name).add(o.kind).add(o.domain).add(o.version.value_or(-1));
        key.add(static_cast<std::int64_t>(o.attrs.size()));
        for (const auto &[name, value] : o.attrs) key.add(name).add_attribute(value);
        key.add(static_cast<std::int64_t>(o.inputs.size()));
        for (tensor_id id : o.inputs) key.add(id);
        key.add(static_cast<std::int64_t>(o.outputs.size()));
        for (tensor_id id : o.outputs) key.add(id);
    }
    for (tensor_id id : touched) {
        const logical_tensor *given = find_tensor(inputs, id);
        if (!given) given = find_tensor(outputs, id);
        key.add_tensor(given ? *given : g.tensor(id));
    }
}

// A partition's form: visit_partition_key without names (the partition's
// id, its ops' ids and names, which compile reads only for error and
// verbose words) and with each tensor id replaced by its rank among the
// ids the partition touches, so that the relative order of ids counts too.
template <class Sink>
void visit_partition_form(Sink &sink, const graph &g, const partition &p, const touched_tensors &touched,
                          const engine &eng) {
    key_fields<Sink> key(sink);
    const auto rank = [&](tensor_id id) {
        return static_cast<std::int64_t>(std::lower_bound(touched.begin(), touched.end(), id) - touched.begin());
    };
    key.add(to_string(eng.kind())).add(static_cast<std::int64_t>(eng.index()));
    key.add(static_cast<std::int64_t>(p.supported));
    key.add(static_cast<std::int64_t>(p.inputs.size()));
    for (tensor_id id : p.inputs) key.add(rank(id));
    key.add(static_cast<std::int64_t>(p.outputs.size()));
    for (tensor_id id : p.outputs) key.add(rank(id));
    key.add(static_cast<std::int64_t>(p.op_indices.size()));
    for (std::size_t index : p.op_indices) {
        const op &o = g.ops.at(index);
        key.add(o.kind).add(o.domain).add(o.version.value_or(-1));
        key.add(static_cast<std::int64_t>(o.attrs.size()));
        for (const auto &[name, value] : o.attrs) key.add(name).add_attribute(value);
        key.add(static_cast<std::int64_t>(o.inputs.size()));
        for (tensor_id id : o.inputs) key.add(rank(id));
        key.add(static_cast<std::int64_t>(o.outputs.size()));
        for (tensor_id id : o.outputs) key.add(rank(id));
    }
    for (tensor_id id : touched) key.add_tensor_without_id(g.tensor(id));
}

std::uint64_t hash_of(std::string_view key) {
    hashing_sink h;
    h.write(key.data(), key.size());
    return h.hash;
}

} // namespace

std::string compiled_partition_key(const graph &g, const partition &p,
                                   const std::vector<logical_tensor> &inputs,
                                   const std::vector<logical_tensor> &outputs, const engine &eng) {
    std::string key;
    writing_sink sink{key};
    visit_partition_key(sink, g, p, touched_tensors(g, p), inputs, outputs, eng);
    return key;
}

std::string partition_form_key(const graph &g, const partition &p, const engine &eng,
                               std::vector<tensor_id> *touched_ids) {
    const touched_tensors touched(g, p);
    std::string key;
    writing_sink sink{key};
    visit_partition_form(sink, g, p, touched, eng);
    if (touched_ids) touched_ids->assign(touched.begin(), touched.end());
    return key;
}

compiled_partition_cache::compiled_partition_cache(std::size_t capacity) : capacity_(capacity) {}

compiled_partition_cache &compiled_partition_cache::global() {
    static compiled_partition_cache cache(cache_capacity_from_env());
    return cache;
}

compiled_partition_cache::value_type compiled_partition_cache::get_or_compile(
    const graph &g, const partition &p, const std::vector<logical_tensor> &inputs,
    const std::vector<logical_tensor> &outputs, const std::shared_ptr<const engine> &eng, entry_ref *served) {
    if (!eng) return compile(g, p, inputs, outputs, eng); // reports the missing engine
    const touched_tensors touched(g, p);
    hashing_sink hasher;
    visit_partition_key(hasher, g, p, touched, inputs, outputs, *eng);
    const auto matches = [&](const std::string &key) {
        matching_sink m{key.data(), key.data() + key.size()};
        visit_partition_key(m, g, p, touched, inputs, outputs, *eng);
        return m.matched();
    };
    const auto write_key = [&](std::string &key) {
        writing_sink sink{key};
        visit_partition_key(sink, g, p, touched, inputs, outputs, *eng);
    };
    // Nothing a hit does not need: the label exists only for verbose lines.
    return find_or_make(hasher.hash, matches, write_key, [&] { return compile(g, p, inputs, outputs, eng); },
                        verbose_level() >= 2
                            ? std::string(to_string(eng->kind())) + ",partition " + std::to_string(p.id)
                            : std::string(),
                        served);
}

compiled_partition_cache::value_type compiled_partition_cache::find(const entry_ref &ref) {
    if (ref.generation == 0 || verbose_level() >= 2) return nullptr;
    std::shared_future<value_type> existing;
    {
        std::lock_guard lock(mutex_);
        const auto [first, last] = index_.equal_range(ref.hash);
        for (auto i = first; i != last; ++i)
            if (i->second->generation == ref.generation) {
                ++hits_;
                lru_.splice(lru_.begin(), lru_, i->second);
                existing = i->second->value;
                break;
            }
    }
    // The entry was served before, so it is compiled: get() does not wait.
    return existing.valid() ? existing.get() : nullptr;
}

compiled_partition_cache::value_type
compiled_partition_cache::get_or_create(const std::string &key,
                                        const std::function<value_type()> &make,
                                        const std::string &label) {
    return find_or_make(
        hash_of(key), [&](const std::string &stored) { return stored == key; },
        [&](std::string &stored) { stored = key; }, make, label);
}

void compiled_partition_cache::drop(std::uint64_t hash, entry_list::iterator it) {
    const auto [first, last] = index_.equal_range(hash);
    for (auto i = first; i != last; ++i)
        if (i->second == it) {
            index_.erase(i);
            break;
        }
    lru_.erase(it);
}

template <class Matches, class WriteKey, class Make>
compiled_partition_cache::value_type
compiled_partition_cache::find_or_make(std::uint64_t hash, const Matches &matches, const WriteKey &write_key,
                                       const Make &make, const std::string &label, entry_ref *served) {
    std::optional<std::promise<value_type>> promise; // made on a miss only: a hit allocates nothing
    std::shared_future<value_type> existing;
    std::uint64_t generation = 0;
    std::size_t evicted = 0, entries = 0;
    {
        std::lock_guard lock(mutex_);
        const auto [first, last] = index_.equal_range(hash);
        for (auto i = first; i != last; ++i)
            if (matches(i->second->key)) {
                ++hits_;
                lru_.splice(lru_.begin(), lru_, i->second);
                existing = i->second->value;
                if (served) *served = {hash, i->second->generation};
                break;
            }
        if (!existing.valid()) {
            ++misses_;
            promise.emplace();
            if (capacity_ > 0) {
                generation = ++next_generation_;
                entry e;
                write_key(e.key);
                e.hash = hash;
                e.value = promise->get_future().share();
                e.generation = generation;
                lru_.push_front(std::move(e));
                index_.emplace(hash, lru_.begin());
                while (lru_.size() > capacity_) {
                    drop(lru_.back().hash, std::prev(lru_.end()));
                    ++evicted;
                }
            }
        }
        entries = lru_.size();
    }
    if (verbose_level() >= 2) {
        char hash_text[17];
        std::snprintf(hash_text, sizeof hash_text, "%016llx", static_cast<unsigned long long>(hash));
        const std::string where = (label.empty() ? std::string("-,-") : label) + ",key " + hash_text +
                                  ",entries " + std::to_string(entries) + "/" +
                                  std::to_string(capacity_);
        verbose_print(std::string("cache,") + (existing.valid() ? "hit," : "miss,") + where);
        if (evicted > 0)
            verbose_print("cache,evict," + where + ",evicted " + std::to_string(evicted) +
                          " least recently used");
    }
    // Waited for outside the lock: the entry may still be compiling.
    if (existing.valid()) return existing.get();
    try {
        value_type value = make();
        promise->set_value(value);
        if (served && generation != 0) *served = {hash, generation};
        return value;
    } catch (...) {
        promise->set_exception(std::current_exception());
        // Not cached: the entry this request made goes, unless evicted (and
        // the key made again by another request) meanwhile.
        std::lock_guard lock(mutex_);
        const auto [first, last] = index_.equal_range(hash);
        for (auto i = first; i != last; ++i)
            if (i->second->generation == generation) {
                const entry_list::iterator it = i->second;
                index_.erase(i);
                lru_.erase(it);
                break;
            }
        throw;
    }
}

std::size_t compiled_partition_cache::size() const {
    std::lock_guard lock(mutex_);
    return lru_.size();
}

void compiled_partition_cache::clear() {
    std::lock_guard lock(mutex_);
    index_.clear();
    lru_.clear();
}

} // namespace reshaper::impl
