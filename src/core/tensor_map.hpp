// A graph's logical tensors by id, in id order: one sorted array of
// (id, tensor) pairs, read as a std::map is (find, at, operator[], emplace,
// iteration in id order).
//
// Not a tree: a 100,000-op graph's tensors were a heap node each, and
// looking them up by id (inference, compile and check do, per op) was tree
// walks and cache misses (issue 7). Graph files number their tensors
// densely, so a look-up tries the id's place as if the ids were dense
// first, and searches only when that misses. An id above every other is
// appended; one below is inserted in the middle (moving the tensors above
// it): a graph built in any order should come in whole through from_unsorted.
// As in a vector, inserting may move every tensor: references into the map
// last until the next insertion.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/logical_tensor.hpp"

namespace reshaper::impl {

class tensor_map {
public:
    using value_type = std::pair<tensor_id, logical_tensor>;
    using iterator = std::vector<value_type>::iterator;
    using const_iterator = std::vector<value_type>::const_iterator;

    tensor_map() = default;
    // Tensors in any order, each id once (the last wins otherwise).
    static tensor_map from_unsorted(std::vector<value_type> entries) {
        tensor_map m;
        const auto by_id = [](const value_type &a, const value_type &b) { return a.first < b.first; };
        if (!std::is_sorted(entries.begin(), entries.end(), by_id))
            std::stable_sort(entries.begin(), entries.end(), by_id);
        // The last of each run of one id.
        const auto same_id = [](const value_type &a, const value_type &b) { return a.first == b.first; };
        if (std::adjacent_find(entries.begin(), entries.end(), same_id) != entries.end()) {
            std::vector<value_type> unique;
            unique.reserve(entries.size());
            for (auto &e : entries) {
                if (!unique.empty() && unique.back().first == e.first) unique.back() = std::move(e);
                else unique.push_back(std::move(e));
            }
            entries = std::move(unique);
        }
        m.entries_ = std::move(entries);
        return m;
    }

    iterator begin() { return entries_.begin(); }
    iterator end() { return entries_.end(); }
    const_iterator begin() const { return entries_.begin(); }
    const_iterator end() const { return entries_.end(); }
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    void clear() { entries_.clear(); }
    void reserve(std::size_t n) { entries_.reserve(n); }

    iterator find(tensor_id id) { return entries_.begin() + static_cast<std::ptrdiff_t>(position(id)); }
    const_iterator find(tensor_id id) const { return entries_.begin() + static_cast<std::ptrdiff_t>(position(id)); }
    std::size_t count(tensor_id id) const { return position(id) != entries_.size() ? 1 : 0; }
    bool contains(tensor_id id) const { return count(id) != 0; }

    logical_tensor &at(tensor_id id) { return entries_[checked_position(id)].second; }
    const logical_tensor &at(tensor_id id) const { return entries_[checked_position(id)].second; }

    // The tensor of `id`, default-made where absent (as std::map's).
    logical_tensor &operator[](tensor_id id) { return try_emplace(id).first->second; }

    // Inserts (id, tensor) unless `id` is there already.
    std::pair<iterator, bool> emplace(tensor_id id, logical_tensor lt) {
        auto [it, inserted] = try_emplace(id);
        if (inserted) it->second = std::move(lt);
        return {it, inserted};
    }

    bool operator==(const tensor_map &) const = default;

private:
    // Where `id` would go: appended, or its place in the sorted order.
    std::pair<iterator, bool> try_emplace(tensor_id id) {
        if (entries_.empty() || id > entries_.back().first) {
            entries_.emplace_back(id, logical_tensor{});
            return {entries_.end() - 1, true};
        }
        const auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                         [](const value_type &e, tensor_id key) { return e.first < key; });
        if (it->first == id) return {it, false};
        return {entries_.emplace(it, id, logical_tensor{}), true};
    }

    // Index of `id`'s entry, or size() when absent.
    std::size_t position(tensor_id id) const {
        if (entries_.empty()) return 0;
        // Dense ids: the entry of id is at id - first id (no overflow: the
        // guess is made only within the range of ids held).
        const tensor_id first = entries_.front().first, last = entries_.back().first;
        if (id < first || id > last) return entries_.size();
        const auto guess = static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(first);
        if (guess < entries_.size() && entries_[guess].first == id) return static_cast<std::size_t>(guess);
        const auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                         [](const value_type &e, tensor_id key) { return e.first < key; });
        return it != entries_.end() && it->first == id ? static_cast<std::size_t>(it - entries_.begin())
                                                       : entries_.size();
    }

    std::size_t checked_position(tensor_id id) const {
        const std::size_t p = position(id);
        if (p == entries_.size()) throw std::out_of_range("tensor_map::at: no tensor " + std::to_string(id));
        return p;
    }

    std::vector<value_type> entries_; // by id, ascending
};

} // namespace reshaper::impl
