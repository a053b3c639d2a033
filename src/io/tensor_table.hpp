// Each tensor of a graph file once, merged over the places that name it,
// its producer and consumers (io/graph_json.hpp says how). Internal to
// src/io.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.hpp"
#include "io/json_fields.hpp"

namespace reshaper::impl::graph_io {

// Each tensor once, merged over its producer and consumers (see
// io/graph_json.hpp).
// Tensors are named where they are met: a port of an op, given by the
// op's index in `ops` (the op being read is the next one).
class tensor_table {
public:
    explicit tensor_table(const std::vector<op> &ops) : ops_(&ops) {}

    // `place` is a port of the op being read (context::port).
    void add(logical_tensor lt, const context &place);

    bool contains(tensor_id id) const { return position(id) != none; }
    void reserve(std::size_t tensors) {
        met_.reserve(tensors);
        places_.reserve(tensors);
    }

    // Throws for shapes that disagree where no producer decides (the
    // lowest id's first, its warnings in id order too).
    tensor_map take(std::vector<std::string> &warnings);

private:
    struct port_place {
        std::size_t op_index;
        bool output;
        std::size_t position;
    };
    // Where a tensor was met: kept beside the tensors, which become the
    // graph's as they are (one map of every tensor, not two, at the peak).
    struct place_seen {
        port_place place;
        bool from_output;
        std::vector<std::string> conflicts; // shapes that did not merge
    };

    // "input 0 of op 3 't3' StaticTranspose"; `current` is the op being read.
    std::string where(const port_place &p, const op &current) const;

    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    // Where a tensor stands in met_: ids (never negative: as_id) up to a
    // few times the count met index an array, as graph files number them;
    // farther ones a hash map (an array would be as long as the id).
    std::size_t position(tensor_id id) const {
        const auto key = static_cast<std::uint64_t>(id);
        if (key < direct_.size() && direct_[key] != 0) return direct_[key] - 1;
        if (sparse_.empty()) return none;
        const auto it = sparse_.find(id);
        return it == sparse_.end() ? none : it->second;
    }
    void index(tensor_id id, std::size_t at) {
        const auto key = static_cast<std::uint64_t>(id);
        if (key < 4 * static_cast<std::uint64_t>(met_.size()) + 1024 && at < UINT32_MAX) {
            if (key >= direct_.size()) direct_.resize(std::max<std::size_t>(key + 1, 2 * direct_.size()), 0);
            direct_[key] = static_cast<std::uint32_t>(at + 1);
        } else {
            sparse_.emplace(id, at);
        }
    }

    const std::vector<op> *ops_;
    // Each tensor and where it was met, in the order met.
    std::vector<tensor_map::value_type> met_;
    std::vector<place_seen> places_;
    std::vector<std::uint32_t> direct_; // id -> position + 1; 0: not there
    std::unordered_map<tensor_id, std::size_t> sparse_;
};


} // namespace reshaper::impl::graph_io
