#include "backend/compiled_partition_cache.hpp"
#include "backend/verbose.hpp"

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <algorithm>
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

// A list of fixed-width numbers and length-prefixed strings: no two
// different inputs give one key. Numbers go in as their 8 raw bytes (text
// made a cache hit cost 1.2 us, over the 0.5 us goal). The bytes are
// written through a cursor into `out`, kept at its capacity while the key
// grows (std::string::append per field, and a new string per key, were
// 60% of a hit's time: perf, bm_compile_cached).
class key_builder {
public:
    explicit key_builder(std::string &out) : out_(out) {
        out_.resize(std::max<std::size_t>(out_.capacity(), 512));
    }
    key_builder &add(std::string_view field) {
        add(static_cast<std::int64_t>(field.size()));
        write(field.data(), field.size());
        return *this;
    }
    key_builder &add(std::int64_t v) {
        write(&v, sizeof v);
        return *this;
    }
    key_builder &add(const dims_t &dims) {
        add(static_cast<std::int64_t>(dims.size()));
        write(dims.data(), dims.size() * sizeof(dim_t));
        return *this;
    }
    key_builder &add_attribute(const attribute_value &v) {
        add(static_cast<std::int64_t>(v.index()));
        std::visit(
            [this](const auto &x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string>) add(x);
                else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) add(x);
                else if constexpr (std::is_same_v<T, std::vector<float>>) {
                    add(static_cast<std::int64_t>(x.size()));
                    write(x.data(), x.size() * sizeof(float));
                } else if constexpr (std::is_same_v<T, float>)
                    write(&x, sizeof x);
                else add(static_cast<std::int64_t>(x));
            },
            v);
        return *this;
    }
    key_builder &add_tensor(const logical_tensor &lt) {
        // Strides exactly as given, those of size-1 dims too: the plans
        // agree (same_strided_layout), but the output's strides are handed
        // on as given, and a framework may choose its next kernel by them.
        add(lt.id).add(static_cast<std::int64_t>(lt.dtype)).add(lt.shape).add(lt.strides);
        add(static_cast<std::int64_t>(lt.layout)).add(lt.format).add(static_cast<std::int64_t>(lt.property));
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
    // Cuts `out` to the key.
    void finish() { out_.resize(size_); }

private:
    // Inlined into every field (a call per field was a third of a hit's
    // key: callgrind, bm_compile_cached); the buffer grows out of line.
    [[gnu::always_inline]] void write(const void *bytes, std::size_t n) {
        if (size_ + n > out_.size()) [[unlikely]]
            grow(size_ + n);
        if (n != 0) std::memcpy(out_.data() + size_, bytes, n); // an empty list's data() may be null
        size_ += n;
    }
    [[gnu::noinline]] void grow(std::size_t needed) { out_.resize(std::max(2 * out_.size(), needed)); }
    std::string &out_;
    std::size_t size_ = 0;
};

// The key of compiled_partition_key into `out` (its capacity reused);
// `touched` is scratch space.
void write_partition_key(std::string &out, std::vector<tensor_id> &touched, const graph &g, const partition &p,
                         const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs,
                         const engine &eng) {
    key_builder key(out);
    key.add(to_string(eng.kind())).add(static_cast<std::int64_t>(eng.index()));
    key.add(static_cast<std::int64_t>(p.id)).add(static_cast<std::int64_t>(p.supported));
    key.add(static_cast<std::int64_t>(p.inputs.size()));
    for (tensor_id id : p.inputs) key.add(id);
    key.add(static_cast<std::int64_t>(p.outputs.size()));
    for (tensor_id id : p.outputs) key.add(id);
    touched.clear();
    key.add(static_cast<std::int64_t>(p.op_indices.size()));
    for (std::size_t index : p.op_indices) {
        const op &o = g.ops.at(index);
        key.add(o.id).add(o.name).add(o.kind).add(o.domain).add(o.version.value_or(-1));
        key.add(static_cast<std::int64_t>(o.attrs.size()));
        for (const auto &[name, value] : o.attrs) key.add(name).add_attribute(value);
        key.add(static_cast<std::int64_t>(o.inputs.size()));
        for (tensor_id id : o.inputs) key.add(id), touched.push_back(id);
        key.add(static_cast<std::int64_t>(o.outputs.size()));
        for (tensor_id id : o.outputs) key.add(id), touched.push_back(id);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (tensor_id id : touched) {
        const logical_tensor *given = find_tensor(inputs, id);
        if (!given) given = find_tensor(outputs, id);
        key.add_tensor(given ? *given : g.tensor(id));
    }
    key.finish();
}

} // namespace

std::string compiled_partition_key(const graph &g, const partition &p,
                                   const std::vector<logical_tensor> &inputs,
                                   const std::vector<logical_tensor> &outputs, const engine &eng) {
    std::string key;
    std::vector<tensor_id> touched;
    write_partition_key(key, touched, g, p, inputs, outputs, eng);
    return key;
}

compiled_partition_cache::compiled_partition_cache(std::size_t capacity) : capacity_(capacity) {}

compiled_partition_cache &compiled_partition_cache::global() {
    static compiled_partition_cache cache(cache_capacity_from_env());
    return cache;
}

compiled_partition_cache::value_type compiled_partition_cache::get_or_compile(
    const graph &g, const partition &p, const std::vector<logical_tensor> &inputs,
    const std::vector<logical_tensor> &outputs, const std::shared_ptr<const engine> &eng) {
    if (!eng) return compile(g, p, inputs, outputs, eng); // reports the missing engine
    // Nothing a hit does not need: the compile is handed over by reference
    // (a std::function holding the lambda itself would allocate), and the
    // label exists only for verbose lines.
    const auto make = [&] { return compile(g, p, inputs, outputs, eng); };
    // The key is built in this thread's buffers, so a hit allocates
    // nothing for it.
    thread_local std::string key;
    thread_local std::vector<tensor_id> touched;
    write_partition_key(key, touched, g, p, inputs, outputs, *eng);
    return get_or_create(key, std::ref(make),
                         verbose_level() >= 2
                             ? std::string(to_string(eng->kind())) + ",partition " + std::to_string(p.id)
                             : std::string());
}

compiled_partition_cache::value_type
compiled_partition_cache::get_or_create(const std::string &key,
                                        const std::function<value_type()> &make,
                                        const std::string &label) {
    std::optional<std::promise<value_type>> promise; // made on a miss only: a hit allocates nothing
    std::shared_future<value_type> existing;
    std::uint64_t generation = 0;
    std::size_t evicted = 0, entries = 0;
    // A miss keeps its own copy: `key` may be a per-thread buffer that a
    // compile reaching this cache again would overwrite.
    std::string missed_key;
    {
        std::lock_guard lock(mutex_);
        if (auto it = entries_.find(key); it != entries_.end()) {
            ++hits_;
            lru_.splice(lru_.begin(), lru_, it->second.recency);
            existing = it->second.value;
        } else {
            ++misses_;
            missed_key = key;
            promise.emplace();
            if (capacity_ > 0) {
                generation = ++next_generation_;
                lru_.push_front(key);
                entries_.emplace(key, entry{promise->get_future().share(), lru_.begin(), generation});
                while (entries_.size() > capacity_) {
                    entries_.erase(lru_.back());
                    lru_.pop_back();
                    ++evicted;
                }
            }
        }
        entries = entries_.size();
    }
    if (verbose_level() >= 2) {
        // Keys are long: a hash names them.
        char hash[17];
        std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(key));
        const std::string where = (label.empty() ? std::string("-,-") : label) + ",key " + hash +
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
        return value;
    } catch (...) {
        promise->set_exception(std::current_exception());
        std::lock_guard lock(mutex_);
        if (auto it = entries_.find(missed_key); it != entries_.end() && it->second.generation == generation) {
            lru_.erase(it->second.recency);
            entries_.erase(it);
        }
        throw;
    }
}

std::size_t compiled_partition_cache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

void compiled_partition_cache::clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
    lru_.clear();
}

} // namespace reshaper::impl
