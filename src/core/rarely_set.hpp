// rarely_set<T>: a value most objects leave empty, held on the heap only
// when set (one pointer wide), read as a const T& (empty when unset).
//
// For a logical tensor's strides and format tag: a graph holds a tensor per
// edge (200,000 in a 100,000-op file), and most give neither (dense strides
// are stored as none; a format only comes with layout opaque). Inside the
// tensor they were 56 + 32 bytes each; this way 16, and a heap block for
// the few tensors that have them. Setting an empty value frees the block, so
// that an unset and an empty value are one state (they compare equal).
// Writes go through assignment, clear() or set() (which gives the held
// value to change in place); reads through the conversion, get() and the
// few const members below. Copies copy the value; moves move the pointer.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace reshaper::impl {

template <typename T>
class rarely_set {
public:
    rarely_set() = default;
    rarely_set(const T &v) { assign(T(v)); }
    rarely_set(T &&v) { assign(std::move(v)); }
    rarely_set(const rarely_set &o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
    rarely_set(rarely_set &&) noexcept = default;
    rarely_set &operator=(const rarely_set &o) {
        if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
        return *this;
    }
    rarely_set &operator=(rarely_set &&) noexcept = default;
    rarely_set &operator=(const T &v) {
        assign(T(v));
        return *this;
    }
    rarely_set &operator=(T &&v) {
        assign(std::move(v));
        return *this;
    }

    const T &get() const { return p_ ? *p_ : empty_value(); }
    operator const T &() const { return get(); }
    // The held value to change in place (made empty when unset).
    T &set() {
        if (!p_) p_ = std::make_unique<T>();
        return *p_;
    }
    void clear() { p_.reset(); }

    bool empty() const { return !p_ || p_->empty(); }
    std::size_t size() const { return p_ ? p_->size() : 0; }
    decltype(auto) operator[](std::size_t i) const { return (*p_)[i]; }
    auto begin() const { return get().begin(); }
    auto end() const { return get().end(); }

    friend bool operator==(const rarely_set &a, const rarely_set &b) { return a.get() == b.get(); }
    friend bool operator==(const rarely_set &a, const T &b) { return a.get() == b; }

private:
    void assign(T &&v) {
        if (v.empty()) p_.reset();
        else if (p_) *p_ = std::move(v);
        else p_ = std::make_unique<T>(std::move(v));
    }
    static const T &empty_value() {
        static const T empty{};
        return empty;
    }

    std::unique_ptr<T> p_;
};

} // namespace reshaper::impl
