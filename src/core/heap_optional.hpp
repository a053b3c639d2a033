// heap_optional<T>: an optional T held on the heap, one pointer wide.
//
// For members most objects leave empty: a logical tensor's known values
// (72 bytes as a std::optional<tensor_values>, given for a few tensors of a
// graph) cost 8 bytes in each of a 100,000-op graph's 200,000 tensors this
// way. Copies copy the value (as std::optional does); moves move the pointer.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

namespace reshaper::impl {

template <typename T>
class heap_optional {
public:
    heap_optional() = default;
    heap_optional(std::nullopt_t) {}
    heap_optional(const T &v) : p_(std::make_unique<T>(v)) {}
    heap_optional(T &&v) : p_(std::make_unique<T>(std::move(v))) {}
    heap_optional(const heap_optional &o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
    heap_optional(heap_optional &&) noexcept = default;
    heap_optional &operator=(const heap_optional &o) {
        if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
        return *this;
    }
    heap_optional &operator=(heap_optional &&) noexcept = default;
    heap_optional &operator=(std::nullopt_t) {
        p_.reset();
        return *this;
    }
    heap_optional &operator=(const T &v) { return *this = heap_optional(v); }
    heap_optional &operator=(T &&v) { return *this = heap_optional(std::move(v)); }

    bool has_value() const { return p_ != nullptr; }
    explicit operator bool() const { return has_value(); }
    T &operator*() { return *p_; }
    const T &operator*() const { return *p_; }
    T *operator->() { return p_.get(); }
    const T *operator->() const { return p_.get(); }
    T &value() {
        if (!p_) throw std::bad_optional_access();
        return *p_;
    }
    const T &value() const {
        if (!p_) throw std::bad_optional_access();
        return *p_;
    }
    template <typename... Args>
    T &emplace(Args &&...args) {
        p_ = std::make_unique<T>(std::forward<Args>(args)...);
        return *p_;
    }
    void reset() { p_.reset(); }

    friend bool operator==(const heap_optional &a, const heap_optional &b) {
        return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
    }

private:
    std::unique_ptr<T> p_;
};

} // namespace reshaper::impl
