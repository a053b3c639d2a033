#include "api/c_types.hpp"

#include <cstring>

#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::api {

namespace {

[[noreturn]] void bad_enum(const char *what, int value) {
    impl::fail(impl::rule::api_argument, std::string(what) + " " + std::to_string(value) + " is out of range");
}

// The C enums mirror the internal ones value for value.
static_assert(static_cast<int>(impl::data_type::undef) == reshaper_dt_undef);
static_assert(static_cast<int>(impl::data_type::f32) == reshaper_dt_f32);
static_assert(static_cast<int>(impl::data_type::u4) == reshaper_dt_u4);
static_assert(static_cast<int>(impl::data_type::f64) == reshaper_dt_f64);
static_assert(static_cast<int>(impl::data_type::string) == reshaper_dt_string);
static_assert(static_cast<int>(impl::data_type::f4_e2m1) == reshaper_dt_f4_e2m1);
static_assert(static_cast<int>(impl::data_type::s2) == reshaper_dt_s2);
static_assert(static_cast<int>(impl::data_type::u2) == reshaper_dt_u2); // the last one
static_assert(static_cast<int>(impl::layout_type::opaque) == reshaper_layout_opaque);
static_assert(static_cast<int>(impl::property_type::constant) == reshaper_property_constant);
static_assert(static_cast<int>(impl::status::runtime_error) == reshaper_runtime_error);

impl::layout_type to_impl(const reshaper_layout_type_t &layout) {
    const int l = raw_enum(layout);
    if (l < reshaper_layout_undef || l > reshaper_layout_opaque) bad_enum("layout_type", l);
    return static_cast<impl::layout_type>(l);
}

impl::property_type to_impl(const reshaper_property_type_t &property) {
    const int p = raw_enum(property);
    if (p < reshaper_property_undef || p > reshaper_property_constant) bad_enum("property_type", p);
    return static_cast<impl::property_type>(p);
}

// Strides mean something for strided tensors (and undef ones, read as
// strided); `any` and opaque layouts have none.
bool has_strides(impl::layout_type l) { return impl::reads_as_strided(l); }

} // namespace

impl::data_type to_impl(const reshaper_data_type_t &type) {
    const int t = raw_enum(type);
    if (t < reshaper_dt_undef || t > reshaper_dt_u2) bad_enum("data_type", t);
    return static_cast<impl::data_type>(t);
}

reshaper_data_type_t to_c(impl::data_type t) { return static_cast<reshaper_data_type_t>(t); }

impl::engine_kind to_impl(const reshaper_engine_kind_t &kind) {
    const int k = raw_enum(kind);
    switch (k) {
    case reshaper_engine_cpu: return impl::engine_kind::cpu;
    case reshaper_engine_gpu: return impl::engine_kind::gpu;
    }
    bad_enum("engine_kind", k);
}

impl::partition_policy to_impl(const reshaper_partition_policy_t &policy) {
    const int p = raw_enum(policy);
    switch (p) {
    case reshaper_policy_fusion: return impl::partition_policy::fusion;
    case reshaper_policy_debug: return impl::partition_policy::debug;
    }
    bad_enum("partition policy", p);
}

reshaper_lowering_kind_t to_c(impl::lowering_kind k) {
    switch (k) {
    case impl::lowering_kind::alias: return reshaper_lowering_alias;
    case impl::lowering_kind::reorder: return reshaper_lowering_reorder;
    case impl::lowering_kind::kernel: return reshaper_lowering_kernel;
    }
    impl::fail(impl::rule::internal_invariant, "unknown lowering kind");
}

reshaper_logical_tensor_t to_c(const impl::logical_tensor &lt) {
    const std::string name = "logical tensor " + std::to_string(lt.id);
    if (lt.shape.size() > RESHAPER_MAX_NDIMS)
        impl::fail(impl::rule::c_api_representable, name + " has rank " + std::to_string(lt.shape.size()) +
                                                        ", above RESHAPER_MAX_NDIMS (" +
                                                        std::to_string(RESHAPER_MAX_NDIMS) + ")");
    if (lt.format.size() >= RESHAPER_MAX_FORMAT_LEN)
        impl::fail(impl::rule::c_api_representable,
                   name + " has format tag '" + lt.format.get() + "', longer than RESHAPER_MAX_FORMAT_LEN allows");

    reshaper_logical_tensor_t c{};
    c.id = lt.id;
    c.data_type = to_c(lt.dtype);
    // -1 as oneDNN's DNNL_GRAPH_UNKNOWN_NDIMS: an unknown rank is no scalar.
    c.ndims = lt.rank_known ? static_cast<std::int32_t>(lt.shape.size()) : -1;
    std::copy(lt.shape.begin(), lt.shape.end(), c.dims);
    std::fill(c.strides, c.strides + RESHAPER_MAX_NDIMS, RESHAPER_UNKNOWN_DIM);
    if (has_strides(lt.layout)) {
        if (lt.strides.size() == lt.shape.size() && !lt.strides.empty())
            std::copy(lt.strides.begin(), lt.strides.end(), c.strides);
        else if (auto strides = impl::effective_strides(lt))
            std::copy(strides->begin(), strides->end(), c.strides);
    }
    c.layout_type = static_cast<reshaper_layout_type_t>(lt.layout);
    c.property_type = static_cast<reshaper_property_type_t>(lt.property);
    std::memcpy(c.format, lt.format.get().c_str(), lt.format.get().size() + 1);
    return c;
}

std::vector<reshaper_logical_tensor_t> to_c(const std::vector<impl::logical_tensor> &lts) {
    std::vector<reshaper_logical_tensor_t> out;
    out.reserve(lts.size());
    for (const auto &lt : lts) out.push_back(to_c(lt));
    return out;
}

void check_c_fields(std::int64_t id, std::int32_t ndims, const std::int64_t *dims,
                    const reshaper_data_type_t &data_type, const reshaper_layout_type_t &layout_type,
                    const reshaper_property_type_t &property_type) {
    // Named only when refused: a string per tensor was a tenth of a cache-hit compile.
    const auto name = [&] { return "logical tensor " + std::to_string(id); };
    if (ndims < 0 || ndims > RESHAPER_MAX_NDIMS)
        impl::fail(impl::rule::api_argument,
                          name() + ": ndims " + std::to_string(ndims) + " is outside [0, " +
                              std::to_string(RESHAPER_MAX_NDIMS) + "]");
    for (std::int32_t i = 0; i < ndims; ++i)
        if (dims[i] < RESHAPER_UNKNOWN_DIM)
            impl::fail(impl::rule::dims_at_least_minus_one, name() + ": dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) +
                                  " is below -1 (dims are >= 0, or -1 for unknown)");
    to_impl(data_type);
    to_impl(layout_type);
    to_impl(property_type);
}

void check_c_tensor(const reshaper_logical_tensor_t &c) {
    if (c.ndims < 0 || c.ndims > RESHAPER_MAX_NDIMS) // before the format: the message as before
        check_c_fields(c.id, c.ndims, c.dims, c.data_type, c.layout_type, c.property_type);
    if (std::memchr(c.format, '\0', RESHAPER_MAX_FORMAT_LEN) == nullptr)
        impl::fail(impl::rule::api_argument,
                   "logical tensor " + std::to_string(c.id) + ": format is not NUL-terminated within " +
                       std::to_string(RESHAPER_MAX_FORMAT_LEN) + " bytes");
    check_c_fields(c.id, c.ndims, c.dims, c.data_type, c.layout_type, c.property_type);
}

void assign_impl(const reshaper_logical_tensor_t &c, const impl::graph *g, impl::logical_tensor &lt) {
    check_c_tensor(c);
    const impl::logical_tensor *in_graph = nullptr;
    if (g != nullptr) {
        auto it = g->tensors.find(c.id);
        if (it != g->tensors.end() && it->second.dtype == to_impl(c.data_type)) in_graph = &it->second;
    }
    if (in_graph && in_graph->values) lt.values = in_graph->values;
    else lt.values.reset();
    lt.id = c.id;
    lt.dtype = to_impl(c.data_type);
    lt.shape.assign(c.dims, c.dims + c.ndims);
    lt.layout = to_impl(c.layout_type);
    const bool no_strides = std::all_of(c.strides, c.strides + c.ndims,
                                        [](std::int64_t s) { return s == RESHAPER_UNKNOWN_DIM; });
    if (has_strides(lt.layout) && !no_strides) lt.strides.set().assign(c.strides, c.strides + c.ndims);
    else lt.strides.clear();
    lt.property = to_impl(c.property_type);
    lt.format = c.format;
    lt.rank_known = true;
}

impl::logical_tensor to_impl(const reshaper_logical_tensor_t &c, const impl::graph *g) {
    impl::logical_tensor lt;
    assign_impl(c, g, lt);
    return lt;
}

} // namespace reshaper::api
