// reshaper C++ API: a header-only layer over the C API (reshaper.h) with
// RAII handles, std::vector-based queries and one exception type, error,
// carrying the status and the library's message. C++17.
#ifndef RESHAPER_RESHAPER_HPP
#define RESHAPER_RESHAPER_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "reshaper/reshaper.h"

namespace reshaper {

enum class status {
    success = reshaper_success,
    invalid_arguments = reshaper_invalid_arguments,
    invalid_graph = reshaper_invalid_graph,
    invalid_graph_op = reshaper_invalid_graph_op,
    invalid_shape = reshaper_invalid_shape,
    invalid_data_type = reshaper_invalid_data_type,
    unimplemented = reshaper_unimplemented,
    unavailable = reshaper_unavailable,
    out_of_memory = reshaper_out_of_memory,
    runtime_error = reshaper_runtime_error,
};

// Thrown by every call below that fails: the C status and the library's
// message (which names the op, the rule and the values).
class error : public std::runtime_error {
public:
    error(status code, const std::string &message, std::string rule = {})
        : std::runtime_error(message), code_(code), rule_(std::move(rule)) {}
    status code() const noexcept { return code_; }
    // The id of the rule that failed ("volume_mismatch", docs/rules.md); "" when none.
    const std::string &rule() const noexcept { return rule_; }

private:
    status code_;
    std::string rule_;
};

// Throws error with this thread's last message when `s` is not success.
inline void check(reshaper_status_t s) {
    if (s == reshaper_success) return;
    const char *message = nullptr;
    const char *rule = nullptr;
    reshaper_get_last_error(nullptr, &message);
    reshaper_get_last_error_rule(&rule);
    throw error(static_cast<status>(s), message != nullptr ? message : "",
                rule != nullptr ? rule : "");
}

// The contract's spelling of a status, "invalid_shape".
inline std::string to_string(status s) {
    const char *name = nullptr;
    check(reshaper_status_name(static_cast<reshaper_status_t>(s), &name));
    return name;
}

enum class data_type {
    undef = reshaper_dt_undef,
    f32 = reshaper_dt_f32,
    f16 = reshaper_dt_f16,
    bf16 = reshaper_dt_bf16,
    s8 = reshaper_dt_s8,
    u8 = reshaper_dt_u8,
    s32 = reshaper_dt_s32,
    boolean = reshaper_dt_boolean,
    f8_e5m2 = reshaper_dt_f8_e5m2,
    f8_e4m3 = reshaper_dt_f8_e4m3,
    s4 = reshaper_dt_s4,
    u4 = reshaper_dt_u4,
    f64 = reshaper_dt_f64,
    s16 = reshaper_dt_s16,
    u16 = reshaper_dt_u16,
    u32 = reshaper_dt_u32,
    s64 = reshaper_dt_s64,
    u64 = reshaper_dt_u64,
    c64 = reshaper_dt_c64,
    c128 = reshaper_dt_c128,
    string = reshaper_dt_string,
    f8_e4m3fnuz = reshaper_dt_f8_e4m3fnuz,
    f8_e5m2fnuz = reshaper_dt_f8_e5m2fnuz,
    f8_e8m0 = reshaper_dt_f8_e8m0,
    f4_e2m1 = reshaper_dt_f4_e2m1,
    s2 = reshaper_dt_s2,
    u2 = reshaper_dt_u2,
};

enum class layout_type {
    undef = reshaper_layout_undef,
    any = reshaper_layout_any,
    strided = reshaper_layout_strided,
    opaque = reshaper_layout_opaque,
};
enum class property_type {
    undef = reshaper_property_undef,
    variable = reshaper_property_variable,
    constant = reshaper_property_constant,
};
enum class engine_kind { cpu = reshaper_engine_cpu, gpu = reshaper_engine_gpu };
enum class partition_policy { fusion = reshaper_policy_fusion, debug = reshaper_policy_debug };
enum class lowering_kind {
    alias = reshaper_lowering_alias,
    reorder = reshaper_lowering_reorder,
    kernel = reshaper_lowering_kernel,
};

inline std::string version() {
    reshaper_version_t v;
    check(reshaper_get_version(&v));
    return v.string;
}

inline std::vector<std::string> handled_op_kinds() {
    const char *const *kinds = nullptr;
    std::size_t count = 0;
    check(reshaper_get_handled_op_kinds(&kinds, &count));
    return std::vector<std::string>(kinds, kinds + count);
}

// A logical tensor with vectors instead of fixed arrays. Empty strides on a
// strided tensor mean dense row-major.
struct logical_tensor {
    std::int64_t id = -1;
    data_type dtype = data_type::undef;
    std::vector<std::int64_t> dims; // empty: a scalar; -1: unknown
    std::vector<std::int64_t> strides;
    layout_type layout = layout_type::strided;
    property_type property = property_type::undef;
    std::string format; // opaque layouts: a oneDNN format tag

    logical_tensor() = default;
    logical_tensor(std::int64_t id_, data_type dtype_, std::vector<std::int64_t> dims_,
                   layout_type layout_ = layout_type::strided,
                   std::vector<std::int64_t> strides_ = {})
        : id(id_), dtype(dtype_), dims(std::move(dims_)), strides(std::move(strides_)),
          layout(layout_) {}

    // Throws error(invalid_arguments) for an ndims outside [0, RESHAPER_MAX_NDIMS].
    explicit logical_tensor(const reshaper_logical_tensor_t &c)
        : id(c.id), dtype(static_cast<data_type>(c.data_type)),
          layout(static_cast<layout_type>(c.layout_type)),
          property(static_cast<property_type>(c.property_type)),
          format(c.format, std::find(c.format, c.format + RESHAPER_MAX_FORMAT_LEN, '\0')) {
        if (c.ndims < 0 || c.ndims > RESHAPER_MAX_NDIMS)
            throw error(status::invalid_arguments,
                        "logical tensor " + std::to_string(c.id) + ": ndims " +
                            std::to_string(c.ndims) + " is out of range");
        dims.assign(c.dims, c.dims + c.ndims);
        bool known = false;
        for (int i = 0; i < c.ndims; ++i) known = known || c.strides[i] != RESHAPER_UNKNOWN_DIM;
        if (known) strides.assign(c.strides, c.strides + c.ndims);
    }

    // Throws error(invalid_arguments) when it does not fit the C struct.
    reshaper_logical_tensor_t to_c() const {
        if (format.size() >= RESHAPER_MAX_FORMAT_LEN)
            throw error(status::invalid_arguments, "format tag '" + format + "' is too long");
        if (!strides.empty() && strides.size() != dims.size())
            throw error(status::invalid_arguments,
                        "logical tensor " + std::to_string(id) + " has " +
                            std::to_string(dims.size()) + " dims but " +
                            std::to_string(strides.size()) + " strides");
        if (dims.size() > RESHAPER_MAX_NDIMS)
            throw error(status::invalid_arguments,
                        "logical tensor " + std::to_string(id) + " has rank " +
                            std::to_string(dims.size()) + ", above RESHAPER_MAX_NDIMS");
        reshaper_logical_tensor_t c;
        check(reshaper_logical_tensor_init(
                &c, id, static_cast<reshaper_data_type_t>(dtype), static_cast<std::int32_t>(dims.size()), dims.data(),
                strides.empty() ? nullptr : strides.data(),
                static_cast<reshaper_layout_type_t>(layout),
                static_cast<reshaper_property_type_t>(property)));
        std::memcpy(c.format, format.c_str(), format.size() + 1);
        return c;
    }

    // Bytes a buffer for this tensor needs.
    std::size_t mem_size() const {
        const reshaper_logical_tensor_t c = to_c();
        std::size_t size = 0;
        check(reshaper_logical_tensor_get_mem_size(&c, &size));
        return size;
    }
};

namespace detail {

// Calls a C array query twice: once for the count, once for the elements.
template <typename T, typename Query>
std::vector<T> query_array(Query &&query) {
    std::size_t count = 0;
    check(query(static_cast<T *>(nullptr), std::size_t{0}, &count));
    std::vector<T> items(count);
    if (count > 0) check(query(items.data(), count, &count));
    return items;
}

template <typename Query>
std::vector<logical_tensor> query_tensors(Query &&query) {
    std::vector<logical_tensor> out;
    for (const auto &c : query_array<reshaper_logical_tensor_t>(query)) out.emplace_back(c);
    return out;
}

inline std::vector<reshaper_logical_tensor_t> to_c(const std::vector<logical_tensor> &lts) {
    std::vector<reshaper_logical_tensor_t> out;
    for (const auto &lt : lts) out.push_back(lt.to_c());
    return out;
}

// A C handle owned by a shared_ptr with its destroy function as deleter.
template <typename Handle>
std::shared_ptr<std::remove_pointer_t<Handle>> own(Handle h,
                                                   reshaper_status_t (*destroy)(Handle)) {
    return std::shared_ptr<std::remove_pointer_t<Handle>>(h, [destroy](Handle p) { destroy(p); });
}

} // namespace detail

class engine {
public:
    explicit engine(engine_kind kind, std::size_t index = 0) {
        reshaper_engine_t h = nullptr;
        check(reshaper_engine_create(static_cast<reshaper_engine_kind_t>(kind), index, &h));
        handle_ = detail::own(h, reshaper_engine_destroy);
    }
    reshaper_engine_t get() const { return handle_.get(); }

private:
    std::shared_ptr<reshaper_engine> handle_;
};

class compiled_partition {
public:
    explicit compiled_partition(reshaper_compiled_partition_t h)
        : handle_(detail::own(h, reshaper_compiled_partition_destroy)) {}

    std::vector<logical_tensor> inputs() const {
        return detail::query_tensors([&](auto *out, std::size_t cap, std::size_t *n) {
            return reshaper_compiled_partition_get_inputs(get(), out, cap, n);
        });
    }
    std::vector<logical_tensor> outputs() const {
        return detail::query_tensors([&](auto *out, std::size_t cap, std::size_t *n) {
            return reshaper_compiled_partition_get_outputs(get(), out, cap, n);
        });
    }
    lowering_kind lowering() const {
        reshaper_lowering_kind_t k;
        check(reshaper_compiled_partition_get_lowering(get(), &k));
        return static_cast<lowering_kind>(k);
    }
    std::string lowering_details() const {
        const char *details = nullptr;
        check(reshaper_compiled_partition_get_lowering_details(get(), &details));
        return details;
    }
    // Bytes the output buffer `index` needs (known also when its dims are
    // known only at execute).
    std::size_t output_mem_size(std::size_t index = 0) const {
        std::size_t size = 0;
        check(reshaper_compiled_partition_get_output_mem_size(get(), index, &size));
        return size;
    }
    // execute, returning the outputs' logical tensors with every dim known
    // (for outputs compiled with dims that depend on run-time shape values).
    std::vector<logical_tensor> execute_dynamic(const std::vector<const void *> &inputs,
                                                const std::vector<void *> &outputs) const {
        std::vector<reshaper_logical_tensor_t> resolved(outputs.size());
        check(reshaper_compiled_partition_execute_dynamic(get(), inputs.size(), inputs.data(),
                                                          outputs.size(), outputs.data(),
                                                          resolved.data()));
        return std::vector<logical_tensor>(resolved.begin(), resolved.end());
    }
    // Why the output is no view of the input ("" for an alias).
    std::string why_not_alias() const {
        const char *why = nullptr;
        check(reshaper_compiled_partition_get_why_not_alias(get(), &why));
        return why;
    }
    // (input id, output id) pairs that may share one buffer.
    std::vector<std::pair<std::int64_t, std::int64_t>> inplace_pairs() const {
        std::vector<std::pair<std::int64_t, std::int64_t>> out;
        for (const auto &p : detail::query_array<reshaper_inplace_pair_t>(
                     [&](auto *items, std::size_t cap, std::size_t *n) {
                         return reshaper_compiled_partition_get_inplace_pairs(get(), items, cap,
                                                                              n);
                     }))
            out.emplace_back(p.input_id, p.output_id);
        return out;
    }
    // One host buffer per input and output, in the order of inputs()/outputs().
    void execute(const std::vector<const void *> &inputs,
                 const std::vector<void *> &outputs) const {
        check(reshaper_compiled_partition_execute(get(), inputs.size(), inputs.data(),
                                                  outputs.size(), outputs.data()));
    }
    reshaper_compiled_partition_t get() const { return handle_.get(); }

private:
    std::shared_ptr<reshaper_compiled_partition> handle_;
};

// A view of one partition; keeps its list alive.
class partition {
public:
    partition(std::shared_ptr<reshaper_partition_list> list, const_reshaper_partition_t p)
        : list_(std::move(list)), p_(p) {}

    std::size_t id() const {
        std::size_t id = 0;
        check(reshaper_partition_get_id(p_, &id));
        return id;
    }
    bool is_supported() const {
        int supported = 0;
        check(reshaper_partition_is_supported(p_, &supported));
        return supported != 0;
    }
    std::vector<std::int64_t> op_ids() const {
        return detail::query_array<std::int64_t>([&](auto *out, std::size_t cap, std::size_t *n) {
            return reshaper_partition_get_op_ids(p_, out, cap, n);
        });
    }
    std::vector<logical_tensor> inputs() const {
        return detail::query_tensors([&](auto *out, std::size_t cap, std::size_t *n) {
            return reshaper_partition_get_inputs(p_, out, cap, n);
        });
    }
    std::vector<logical_tensor> outputs() const {
        return detail::query_tensors([&](auto *out, std::size_t cap, std::size_t *n) {
            return reshaper_partition_get_outputs(p_, out, cap, n);
        });
    }
    std::string reason() const {
        const char *reason = nullptr;
        check(reshaper_partition_get_reason(p_, &reason));
        return reason;
    }
    // Empty inputs and outputs: the partition's own boundary tensors.
    compiled_partition compile(const engine &eng, const std::vector<logical_tensor> &inputs = {},
                               const std::vector<logical_tensor> &outputs = {}) const {
        // The boundary tensors of the usual few-op partition convert on the
        // stack: hosts compile again and again, served by the cache.
        constexpr std::size_t on_stack = 4;
        reshaper_logical_tensor_t local[2 * on_stack];
        std::vector<reshaper_logical_tensor_t> heap;
        reshaper_logical_tensor_t *in = local, *out = local + on_stack;
        if (inputs.size() > on_stack || outputs.size() > on_stack) {
            heap.resize(inputs.size() + outputs.size());
            in = heap.data();
            out = heap.data() + inputs.size();
        }
        for (std::size_t i = 0; i < inputs.size(); ++i) in[i] = inputs[i].to_c();
        for (std::size_t i = 0; i < outputs.size(); ++i) out[i] = outputs[i].to_c();
        reshaper_compiled_partition_t h = nullptr;
        check(reshaper_partition_compile(p_, eng.get(), inputs.size(), inputs.empty() ? nullptr : in,
                                         outputs.size(), outputs.empty() ? nullptr : out, &h));
        return compiled_partition(h);
    }
    const_reshaper_partition_t get() const { return p_; }

private:
    std::shared_ptr<reshaper_partition_list> list_;
    const_reshaper_partition_t p_;
};

// An op being built: id, kind, name, optional domain and version, its
// input and output logical tensors and typed attributes. graph::add_op
// copies it.
class op {
public:
    op(std::int64_t id, const std::string &kind, const std::string &name = "") {
        reshaper_op_t h = nullptr;
        check(reshaper_op_create(&h, id, kind.c_str(), name.c_str()));
        handle_ = detail::own(h, reshaper_op_destroy);
    }
    // domain "" (oneDNN Graph) or "ai.onnx"; version 0: the newest.
    op &set_domain(const std::string &domain, std::int64_t version = 0) {
        check(reshaper_op_set_domain(get(), domain.c_str(), version));
        return *this;
    }
    op &add_input(const logical_tensor &lt) {
        const reshaper_logical_tensor_t c = lt.to_c();
        check(reshaper_op_add_input(get(), &c));
        return *this;
    }
    op &add_output(const logical_tensor &lt) {
        const reshaper_logical_tensor_t c = lt.to_c();
        check(reshaper_op_add_output(get(), &c));
        return *this;
    }
    op &add_inputs(const std::vector<logical_tensor> &lts) {
        for (const auto &lt : lts) add_input(lt);
        return *this;
    }
    op &add_outputs(const std::vector<logical_tensor> &lts) {
        for (const auto &lt : lts) add_output(lt);
        return *this;
    }
    // Typed attributes: s64, s64[], f32, f32[], bool, string.
    op &set_attr(const std::string &name, std::int64_t value) {
        check(reshaper_op_set_attr_s64(get(), name.c_str(), value));
        return *this;
    }
    op &set_attr(const std::string &name, int value) { return set_attr(name, std::int64_t(value)); }
    op &set_attr(const std::string &name, const std::vector<std::int64_t> &values) {
        check(reshaper_op_set_attr_s64s(get(), name.c_str(), values.data(), values.size()));
        return *this;
    }
    op &set_attr(const std::string &name, float value) {
        check(reshaper_op_set_attr_f32(get(), name.c_str(), value));
        return *this;
    }
    op &set_attr(const std::string &name, const std::vector<float> &values) {
        check(reshaper_op_set_attr_f32s(get(), name.c_str(), values.data(), values.size()));
        return *this;
    }
    op &set_attr(const std::string &name, bool value) {
        check(reshaper_op_set_attr_bool(get(), name.c_str(), value ? 1 : 0));
        return *this;
    }
    op &set_attr(const std::string &name, const std::string &value) {
        check(reshaper_op_set_attr_str(get(), name.c_str(), value.c_str()));
        return *this;
    }
    op &set_attr(const std::string &name, const char *value) {
        return set_attr(name, std::string(value));
    }

    reshaper_op_t get() const { return handle_.get(); }

private:
    std::shared_ptr<reshaper_op> handle_;
};

// A graph, loaded from JSON or built in code. Copies share one graph (and
// its inferred shapes). Finalized (explicitly, or by partitions(),
// infer_shapes() or to_json()), it is immutable and may be used from any
// number of threads.
class graph {
public:
    // An empty graph to build: add_op(), set_tensor_values(), finalize().
    explicit graph(engine_kind kind) {
        reshaper_graph_t h = nullptr;
        check(reshaper_graph_create(static_cast<reshaper_engine_kind_t>(kind), &h));
        handle_ = detail::own(h, reshaper_graph_destroy);
    }

    graph &add_op(const op &o) {
        check(reshaper_graph_add_op(get(), o.get()));
        return *this;
    }
    // Row-major values of an input tensor (its dense byte size).
    graph &set_tensor_values(std::int64_t tensor_id, const void *data, std::size_t bytes) {
        check(reshaper_graph_set_tensor_values(get(), tensor_id, data, bytes));
        return *this;
    }
    template <typename T>
    graph &set_tensor_values(std::int64_t tensor_id, const std::vector<T> &values) {
        return set_tensor_values(tensor_id, values.data(), values.size() * sizeof(T));
    }
    graph &finalize() {
        check(reshaper_graph_finalize(get()));
        return *this;
    }
    bool is_finalized() const {
        int finalized = 0;
        check(reshaper_graph_is_finalized(get(), &finalized));
        return finalized != 0;
    }

    static graph from_json(const std::string &json) {
        reshaper_graph_t h = nullptr;
        check(reshaper_graph_create_from_json(json.c_str(), &h));
        return graph(h);
    }
    static graph from_file(const std::string &path) {
        reshaper_graph_t h = nullptr;
        check(reshaper_graph_create_from_file(path.c_str(), &h));
        return graph(h);
    }

    // An ONNX model (interface contract 5.3); `free_dims` binds symbolic
    // dims (dim_param name -> value) before shape inference.
    static graph from_onnx(const std::string &path, const std::map<std::string, std::int64_t> &free_dims = {},
                           engine_kind kind = engine_kind::cpu) {
        return onnx_graph(free_dims, [&](std::size_t n, const char *const *names, const std::int64_t *values,
                                         reshaper_graph_t *h) {
            return reshaper_graph_create_from_onnx(static_cast<reshaper_engine_kind_t>(kind), path.c_str(), n,
                                                   names, values, h);
        });
    }
    // The same from a serialized model in memory.
    static graph from_onnx_bytes(const std::string &bytes,
                                 const std::map<std::string, std::int64_t> &free_dims = {},
                                 engine_kind kind = engine_kind::cpu) {
        return onnx_graph(free_dims, [&](std::size_t n, const char *const *names, const std::int64_t *values,
                                         reshaper_graph_t *h) {
            return reshaper_graph_create_from_onnx_bytes(static_cast<reshaper_engine_kind_t>(kind), bytes.data(),
                                                         bytes.size(), n, names, values, h);
        });
    }

    void infer_shapes() { check(reshaper_graph_infer_shapes(get())); }

    std::string to_json() const {
        std::size_t size = 0;
        check(reshaper_graph_to_json(get(), nullptr, 0, &size));
        std::string text(size, '\0');
        check(reshaper_graph_to_json(get(), text.data(), text.size(), &size));
        text.resize(size - 1); // drop the terminating NUL
        return text;
    }

    logical_tensor tensor(std::int64_t id) const {
        reshaper_logical_tensor_t c;
        check(reshaper_graph_get_tensor(get(), id, &c));
        return logical_tensor(c);
    }

    // The tensor's values from the file as dense bytes; empty when none.
    std::vector<std::uint8_t> tensor_values(std::int64_t id) const {
        return detail::query_array<std::uint8_t>([&](auto *out, std::size_t cap, std::size_t *n) {
            return reshaper_graph_get_tensor_values(get(), id, out, cap, n);
        });
    }

    std::vector<partition> partitions(partition_policy policy = partition_policy::fusion,
                                      engine_kind kind = engine_kind::cpu) {
        reshaper_partition_list_t h = nullptr;
        check(reshaper_graph_get_partitions(get(), static_cast<reshaper_partition_policy_t>(policy),
                                            static_cast<reshaper_engine_kind_t>(kind), &h));
        auto list = detail::own(h, reshaper_partition_list_destroy);
        std::size_t count = 0;
        check(reshaper_partition_list_get_count(h, &count));
        std::vector<partition> out;
        for (std::size_t i = 0; i < count; ++i) {
            const_reshaper_partition_t p = nullptr;
            check(reshaper_partition_list_get(h, i, &p));
            out.emplace_back(list, p);
        }
        return out;
    }

    reshaper_graph_t get() const { return handle_.get(); }

private:
    explicit graph(reshaper_graph_t h) : handle_(detail::own(h, reshaper_graph_destroy)) {}
    template <typename Create>
    static graph onnx_graph(const std::map<std::string, std::int64_t> &free_dims, Create create) {
        std::vector<const char *> names;
        std::vector<std::int64_t> values;
        for (const auto &binding : free_dims) {
            names.push_back(binding.first.c_str());
            values.push_back(binding.second);
        }
        reshaper_graph_t h = nullptr;
        check(create(names.size(), names.empty() ? nullptr : names.data(),
                     values.empty() ? nullptr : values.data(), &h));
        return graph(h);
    }
    std::shared_ptr<reshaper_graph> handle_;
};

} // namespace reshaper

#endif // RESHAPER_RESHAPER_HPP
