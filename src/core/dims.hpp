// dims_t: the dims (sizes, strides, orders) of a tensor, kept inside the
// object up to rank 6 and on the heap only above it.
//
// A std::vector put every shape and every stride list on the heap: about 80
// allocations per op of a graph file (reading, inference, partitioning,
// compile), and a heap block per tensor on top of the tensor itself. Ranks
// up to 6 cover NCDHW and the window partitions of vision transformers
// ([B, H/w, w, W/w, w, C]); absl::InlinedVector keeps 6 dims in 56 bytes
// (boost::container::small_vector needs 72 for the same 6).
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

// GCC 12 warns -Wmaybe-uninitialized and -Wuninitialized inside absl's
// inlined storage when a dims_t is moved or copied whole (MemcpyFrom; about
// 20 sites; false positives: it copies the inline slots as one block, the
// unused ones included, which nothing reads).
#pragma GCC diagnostic push
#ifndef __clang__ // clang has no such group (and says so at every include)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <absl/container/inlined_vector.h>
#pragma GCC diagnostic pop

namespace reshaper::impl {

using dim_t = std::int64_t;

inline constexpr std::size_t inline_rank = 6;

class dims_t : public absl::InlinedVector<dim_t, inline_rank> {
    using base = absl::InlinedVector<dim_t, inline_rank>;

public:
    using base::base;
    dims_t() = default;
    // Lists that arrive as vectors (s64[] attributes, the C++ API, the
    // Python module, tests) convert on the way in and out.
    dims_t(const std::vector<dim_t> &v) : base(v.begin(), v.end()) {}
    operator std::vector<dim_t>() const { return std::vector<dim_t>(begin(), end()); }

    friend bool operator==(const dims_t &a, const dims_t &b) {
        return static_cast<const base &>(a) == static_cast<const base &>(b);
    }
    friend bool operator==(const dims_t &a, const std::vector<dim_t> &b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    friend auto operator<=>(const dims_t &a, const dims_t &b) {
        return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
    }
};

} // namespace reshaper::impl
