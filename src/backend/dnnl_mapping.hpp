// The meeting point with oneDNN's vocabulary: our data types and layouts as
// oneDNN memory descriptors. Version differences (2.x / 3.x) live here.
#pragma once

#include <optional>
#include <string>

#include <dnnl.hpp>

#include "backend/movement_plan.hpp"
#include "core/data_type.hpp"

namespace reshaper::impl {

// The oneDNN type whose reorder moves elements of `t` bit for bit (a type
// of the same width, not always `t` itself), or nothing when oneDNN's
// reorder does not take `t` (our own kernel moves it then).
std::optional<dnnl::memory::data_type> dnnl_reorder_type(data_type t);

// oneDNN's format tag for a blocked format tag of ours (aliases such as
// nChw16c included), or nothing when oneDNN has no such tag. Throws
// error(invalid_graph) when `tag` does not parse for `rank`.
std::optional<dnnl::memory::format_tag> dnnl_format_tag(const std::string &tag, std::size_t rank);

// The descriptor of one side of a step. Throws error(unimplemented) for a
// format oneDNN lacks, naming it.
dnnl::memory::desc make_memory_desc(dnnl::memory::data_type type, const dims_t &dims,
                                    const step_side &side);

} // namespace reshaper::impl
