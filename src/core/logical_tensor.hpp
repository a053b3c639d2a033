// Logical tensors: the metadata of an edge in a graph (id, element type,
// shape, layout, property), optionally with known values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/checked_math.hpp"
#include "core/data_type.hpp"
#include "core/heap_optional.hpp"
#include "core/rarely_set.hpp"

namespace reshaper::impl {

using tensor_id = std::int64_t;

enum class layout_type : std::uint8_t { undef, any, strided, opaque };
enum class property_type : std::uint8_t { undef, variable, constant };

std::string_view to_string(layout_type l);
std::optional<layout_type> layout_type_from_string(std::string_view s);
std::string_view to_string(property_type p);
std::optional<property_type> property_type_from_string(std::string_view s);

// Row-major element values of a tensor, stored as the elements themselves:
// `bytes` holds dense elements of `type` (packed two per byte for 4-bit
// types, low nibble first); `strings` holds them for the string type.
struct tensor_values {
    data_type type = data_type::undef;
    std::size_t count = 0;
    std::vector<std::uint8_t> bytes;
    std::vector<std::string> strings;

    bool operator==(const tensor_values &) const = default;
};

// Integer elements widened to int64 (for shape inputs). Throws
// error(invalid_data_type) for a non-integer type and error(invalid_shape)
// for a u64 value above INT64_MAX.
std::vector<std::int64_t> values_as_int64(const tensor_values &v);

// A graph holds one per edge (200,000 in a 100,000-op file), so its size is
// the graph's: the fields are ordered to leave no padding, shapes and strides
// up to rank 6 live inside it (dims_t) and the rarely given values on the
// heap (192 bytes plus a heap block per shape and stride list before; 168
// with dims_t; 96 now that strides and format, which most tensors leave
// empty, are held on the heap only when given: core/rarely_set.hpp).
struct logical_tensor {
    tensor_id id = -1;
    data_type dtype = data_type::undef;
    layout_type layout = layout_type::strided;
    property_type property = property_type::undef;
    // False for a tensor whose rank nobody could tell (an ONNX model's
    // tensor that shape inference left without a shape): `shape` is then
    // empty without meaning a scalar, and no op of the family touching it is
    // verified or claimed (written as "ndims": -1, as oneDNN's unknown ndims).
    bool rank_known = true;
    // Empty: a scalar. unknown_dim (-1) marks an unknown dimension.
    dims_t shape;
    // Element strides; meaningful only for layout strided. Empty means dense
    // row-major (see effective_strides).
    rarely_set<dims_t> strides;
    rarely_set<std::string> format; // oneDNN format tag, for layout opaque
    heap_optional<tensor_values> values;

    bool operator==(const logical_tensor &) const = default;

    bool shape_known() const { return !has_unknown_dims(shape); }
    // Compile-time known values: constant property with values given.
    bool values_known() const { return property == property_type::constant && values.has_value(); }
};

// Dense row-major strides for `shape` (each at least 1, as oneDNN does for
// zero-size dims). Nothing when a dim is unknown or a product overflows,
// except for a shape of zero volume, which addresses no element: there the
// strides that overflow are 0 ([2^32, 2^32, 2^32, 0] gives [0, 2^32, 1, 1]).
std::optional<dims_t> dense_strides(const dims_t &shape);

// Whether a layout addresses elements by strides: strided, and undef (a
// layout nobody stated reads as strided, dense when no strides are given).
inline bool reads_as_strided(layout_type l) {
    return l == layout_type::strided || l == layout_type::undef;
}

// The strides a strided (or undef) tensor really has: its own, or dense
// row-major when it gave none. Nothing for other layouts or unknown shapes.
std::optional<dims_t> effective_strides(const logical_tensor &lt);

// The one layout equality of strided tensors: whether strides `a` and `b`
// give every element of a tensor of `shape` the same address. The stride of
// a dim of size 1 is only ever multiplied by index 0, and a tensor of zero
// volume has no element, so those strides never address memory and may
// differ (oneDNN's benchdnn writes [1024,1024,32,1] and [16384,1024,32,1]
// for one [1,16,32,32] tensor). Every other stride must be equal, also
// where a dim is unknown (-1). Lists whose length is not the rank compare
// as they are. Validation and alias decisions ask this; what is handed on
// (compiled-partition cache keys, strides given to outputs) keeps strides
// exactly as given: a framework may choose its next kernel by them.
bool same_strided_layout(const dims_t &shape, const dims_t &a, const dims_t &b);

// The tensor with id `id` in `lts`, or nullptr (boundary tensors a caller
// gives are matched by id).
const logical_tensor *find_tensor(const std::vector<logical_tensor> &lts, tensor_id id);

// Two partial descriptions of one shape as one: a dim unknown (unknown_dim)
// on one side takes the other side's. Nothing when the ranks differ or a
// dim known on both sides differs.
std::optional<dims_t> merge_known_dims(const dims_t &a, const dims_t &b);

// "[2,3,4]" - for messages and the text report.
std::string dims_to_string(const dims_t &dims);
// The same text ("[2,3]") appended to `out`.
void append_dims(std::string &out, const dims_t &dims);

} // namespace reshaper::impl
