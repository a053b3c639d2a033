// Conversions between the C API's plain structs and enums and the internal
// types. Every C value coming in is checked (enum ranges, ndims, NUL-terminated
// format) and rejected with error(invalid_arguments) naming the field.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "backend/compiled_partition.hpp"
#include "backend/engine.hpp"
#include "core/fail.hpp"
#include "core/graph.hpp"
#include "core/logical_tensor.hpp"
#include "partition/partitioner.hpp"
#include "reshaper/reshaper.h"

namespace reshaper::api {

// A C caller may pass any int as an enum, but in C++ loading an enum object
// that holds no enumerator's value is undefined (UBSan: "load of value 7,
// which is not a valid value for type"). Enums coming in are therefore
// taken by reference and read as their integer before they are checked.
template <typename Enum>
int raw_enum(const Enum &e) {
    static_assert(sizeof(Enum) == sizeof(int));
    int v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

impl::data_type to_impl(const reshaper_data_type_t &t);
reshaper_data_type_t to_c(impl::data_type t);
impl::engine_kind to_impl(const reshaper_engine_kind_t &k);
impl::partition_policy to_impl(const reshaper_partition_policy_t &p);
reshaper_lowering_kind_t to_c(impl::lowering_kind k);

// Throws error(unimplemented) when the tensor's rank exceeds
// RESHAPER_MAX_NDIMS or its format tag does not fit the struct. Strides are
// the effective ones; all RESHAPER_UNKNOWN_DIM when they cannot be known.
reshaper_logical_tensor_t to_c(const impl::logical_tensor &lt);
std::vector<reshaper_logical_tensor_t> to_c(const std::vector<impl::logical_tensor> &lts);

// Strides all RESHAPER_UNKNOWN_DIM become "none given" (dense row-major).
// `values` are not part of the C struct: they are taken from the graph tensor
// of the same id and dtype, when `g` has one, so constant inputs keep their data.
impl::logical_tensor to_impl(const reshaper_logical_tensor_t &lt, const impl::graph *g = nullptr);
// The same into `out`, whose buffers are reused (every field is set).
// check_c_tensor: its checks alone.
void check_c_tensor(const reshaper_logical_tensor_t &lt);
void assign_impl(const reshaper_logical_tensor_t &lt, const impl::graph *g, impl::logical_tensor &out);

// Copies `items` to `out` (when not NULL) and their count to *count, as every
// array query of the C API does: too small a capacity is invalid_arguments.
template <typename T>
void copy_out(const std::vector<T> &items, T *out, std::size_t capacity, std::size_t *count) {
    *count = items.size();
    if (out == nullptr) return;
    if (capacity < items.size())
        impl::fail(impl::rule::api_argument,
                   "output array holds " + std::to_string(capacity) + " elements, " +
                       std::to_string(items.size()) + " are needed");
    std::copy(items.begin(), items.end(), out);
}

} // namespace reshaper::api
