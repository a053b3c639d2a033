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
// few const members below.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <utility>

#include "core/heap_optional.hpp"

namespace reshaper::impl {

template <typename T>
class rarely_set {
public:
    rarely_set() = default;
    rarely_set(const T &v) { assign(T(v)); }
    rarely_set(T &&v) { assign(std::move(v)); }
    // A brace list as the value (`.strides = {1}` in a designated
    // initializer), as the plain member took it.
    rarely_set(std::initializer_list<typename T::value_type> list) { assign(T(list)); }
    rarely_set &operator=(const T &v) {
        assign(T(v));
        return *this;
    }
    rarely_set &operator=(T &&v) {
        assign(std::move(v));
        return *this;
    }
    rarely_set &operator=(std::initializer_list<typename T::value_type> list) {
        assign(T(list));
        return *this;
    }

    const T &get() const { return held_ ? *held_ : empty_value(); }
    operator const T &() const { return get(); }
    // The held value to change in place (made empty when unset).
    T &set() {
        if (!held_) held_.emplace();
        return *held_;
    }
    void clear() { held_.reset(); }

    bool empty() const { return !held_ || held_->empty(); }
    std::size_t size() const { return held_ ? held_->size() : 0; }
    decltype(auto) operator[](std::size_t i) const { return (*held_)[i]; }
    auto begin() const { return get().begin(); }
    auto end() const { return get().end(); }

    friend bool operator==(const rarely_set &a, const rarely_set &b) { return a.get() == b.get(); }
    friend bool operator==(const rarely_set &a, const T &b) { return a.get() == b; }

private:
    // An empty value is not held, so that unset and empty are one state.
    void assign(T &&v) {
        if (v.empty()) held_.reset();
        else if (held_) *held_ = std::move(v);
        else held_.emplace(std::move(v));
    }
    static const T &empty_value() {
        static const T empty{};
        return empty;
    }

    // Copies copy the value, moves move the pointer (heap_optional's own).
    heap_optional<T> held_;
};

} // namespace reshaper::impl
