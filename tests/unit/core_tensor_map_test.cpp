#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "core/tensor_map.hpp"

using namespace reshaper::impl;

namespace {

logical_tensor named(tensor_id id, dims_t shape = {}) {
    logical_tensor lt;
    lt.id = id;
    lt.shape = std::move(shape);
    return lt;
}

std::vector<tensor_id> ids_of(const tensor_map &m) {
    std::vector<tensor_id> ids;
    for (const auto &[id, lt] : m) ids.push_back(id);
    return ids;
}

} // namespace

// Ids come in any order (dense, gaps, below the first, negative, int64's
// ends); iteration is in id order and every id is found, as in a std::map.
TEST(TensorMap, AnyInsertionOrderIteratesByIdAndFindsEveryId) {
    const tensor_id lowest = std::numeric_limits<tensor_id>::min(), highest = std::numeric_limits<tensor_id>::max();
    const std::vector<tensor_id> order{3, 4, 5, 0, 9, 1, highest, -7, lowest, 2};
    tensor_map m;
    for (tensor_id id : order) m[id] = named(id, {id % 5});
    EXPECT_EQ(ids_of(m), (std::vector<tensor_id>{lowest, -7, 0, 1, 2, 3, 4, 5, 9, highest}));
    for (tensor_id id : order) {
        ASSERT_NE(m.find(id), m.end()) << id;
        EXPECT_EQ(m.find(id)->first, id);
        EXPECT_EQ(m.at(id).shape, (dims_t{id % 5}));
        EXPECT_TRUE(m.contains(id));
    }
    for (tensor_id absent : {tensor_id{6}, tensor_id{8}, tensor_id{10}, tensor_id{-1}, lowest + 1, highest - 1}) {
        EXPECT_EQ(m.find(absent), m.end()) << absent;
        EXPECT_EQ(m.count(absent), 0u);
    }
    EXPECT_THROW(m.at(6), std::out_of_range);
    EXPECT_EQ(m.size(), order.size());
}

// Dense ids found at their offset also when the first id is not 0, and ids
// past a gap (where the offset guess misses) by the search.
TEST(TensorMap, DenseRunsAndGaps) {
    tensor_map m;
    for (tensor_id id = 100; id < 200; ++id) m[id] = named(id);
    for (tensor_id id = 1000; id < 1010; ++id) m[id] = named(id);
    for (tensor_id id = 100; id < 200; ++id) EXPECT_EQ(m.at(id).id, id);
    for (tensor_id id = 1000; id < 1010; ++id) EXPECT_EQ(m.at(id).id, id);
    EXPECT_FALSE(m.contains(99));
    EXPECT_FALSE(m.contains(200));
    EXPECT_FALSE(m.contains(1010));
}

TEST(TensorMap, EmplaceKeepsTheTensorThereAndBracketsMakeADefault) {
    tensor_map m;
    EXPECT_TRUE(m.emplace(2, named(2, {3})).second);
    const auto [it, inserted] = m.emplace(2, named(2, {4}));
    EXPECT_FALSE(inserted);
    EXPECT_EQ(it->second.shape, (dims_t{3}));
    EXPECT_EQ(m[7].id, -1) << "a default-made tensor";
    EXPECT_EQ(m.size(), 2u);
}

TEST(TensorMap, FromUnsortedSortsAndTheLastOfAnIdWins) {
    std::vector<tensor_map::value_type> entries;
    for (tensor_id id : {5, 1, 3, 1}) entries.emplace_back(id, named(id, {static_cast<dim_t>(entries.size())}));
    const tensor_map m = tensor_map::from_unsorted(std::move(entries));
    EXPECT_EQ(ids_of(m), (std::vector<tensor_id>{1, 3, 5}));
    EXPECT_EQ(m.at(1).shape, (dims_t{3}));
    tensor_map same;
    same[3] = named(3, {2});
    same[5] = named(5, {0});
    same[1] = named(1, {3});
    EXPECT_EQ(m, same) << "equal whatever the order they were inserted in";
}
