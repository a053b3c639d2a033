#include "backend/dnnl_mapping.hpp"

#include <map>

#include <oneapi/dnnl/dnnl_debug.h>

#include "core/fail.hpp"
#include "core/status.hpp"
#include "layout/memory_layout.hpp"

namespace reshaper::impl {

std::optional<dnnl::memory::data_type> dnnl_reorder_type(data_type t) {
    using dt = dnnl::memory::data_type;
    // Same-width carriers, because oneDNN's reorder converts through f32 in
    // some kernels (s32 loses low bits, bf16 denormals flush to zero, f16
    // -0 becomes +0), and a reshape must move bits: f32 -> f32 and u8 -> u8
    // are pure moves in every kernel.
    // oneDNN 3.x reorders more types (f8, s4/u4, f64 on some engines); a
    // primitive that cannot be created falls back to our kernel, so newer
    // types may be added here under a DNNL_VERSION_MAJOR check (with a
    // carrier of their width). Only these run on a GPU engine
    // (backend/claims.hpp).
    switch (t) {
    case data_type::f32: case data_type::s32: return dt::f32;
    case data_type::f16: case data_type::bf16: return dt::bf16; // strided steps move them as u8 pairs
    case data_type::s8: case data_type::u8: return dt::u8;
    default: return std::nullopt;
    }
}

namespace {

// oneDNN's own spelling of every format tag it has, read from the library.
const std::map<std::string, dnnl_format_tag_t> &dnnl_tags_by_name() {
    static const auto table = [] {
        std::map<std::string, dnnl_format_tag_t> t;
        for (int v = dnnl_format_tag_undef + 1; v < dnnl_format_tag_last; ++v) {
            const auto tag = static_cast<dnnl_format_tag_t>(v);
            if (const char *name = dnnl_fmt_tag2str(tag)) t.emplace(name, tag);
        }
        return t;
    }();
    return table;
}

// The canonical oneDNN spelling of a parsed blocked format: outer dims in
// order (upper case when blocked), then each inner block ("ABcd16a16b").
std::string canonical_tag(const blocked_format &f) {
    std::string name;
    for (int dim : f.outer_order) {
        bool blocked = false;
        for (const auto &[d, size] : f.inner_blocks) blocked = blocked || d == dim;
        name += static_cast<char>((blocked ? 'A' : 'a') + dim);
    }
    for (const auto &[d, size] : f.inner_blocks)
        name += std::to_string(size) + static_cast<char>('a' + d);
    return name;
}

} // namespace

std::optional<dnnl::memory::format_tag> dnnl_format_tag(const std::string &tag, std::size_t rank) {
    const auto name = canonical_tag(parse_format_tag(tag, rank));
    const auto &table = dnnl_tags_by_name();
    auto it = table.find(name);
    if (it == table.end()) return std::nullopt;
    return static_cast<dnnl::memory::format_tag>(it->second);
}

dnnl::memory::desc make_memory_desc(dnnl::memory::data_type type, const dims_t &dims,
                                    const step_side &side) {
    const dnnl::memory::dims d(dims.begin(), dims.end());
    if (!side.opaque()) return dnnl::memory::desc(d, type, dnnl::memory::dims(side.strides.begin(), side.strides.end()));
    auto tag = dnnl_format_tag(side.format, dims.size());
    if (!tag)
        fail(rule::onednn_reorder,
             "format " + side.format + " has no oneDNN equivalent for rank " + std::to_string(dims.size()));
    return dnnl::memory::desc(d, type, *tag);
}

} // namespace reshaper::impl
