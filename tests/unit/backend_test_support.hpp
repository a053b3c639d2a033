// Helpers shared by the backend_* tests: graphs of reshape chains built in
// C++, partitions built by hand, guarded host buffers for every dtype, and
// a run-and-compare against the reference reshape.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/buffer_size.hpp"
#include "backend/claims.hpp"
#include "backend/compiled_partition.hpp"
#include "backend/dnnl_mapping.hpp"
#include "core/graph.hpp"
#include "core/status.hpp"
#include "layout/reference.hpp"
#include "reshape_op_support.hpp"

namespace reshaper::impl::testing {

inline std::shared_ptr<const engine> cpu_engine() {
    static const std::shared_ptr<const engine> e = engine::create(engine_kind::cpu);
    return e;
}

inline logical_tensor strided_lt(tensor_id id, data_type t, dims_t shape, dims_t strides = {}) {
    logical_tensor lt;
    lt.id = id;
    lt.dtype = t;
    lt.shape = std::move(shape);
    lt.strides = std::move(strides);
    lt.layout = layout_type::strided;
    return lt;
}

inline logical_tensor any_lt(tensor_id id, data_type t, dims_t shape) {
    logical_tensor lt = strided_lt(id, t, std::move(shape));
    lt.layout = layout_type::any;
    return lt;
}

inline logical_tensor opaque_lt(tensor_id id, data_type t, dims_t shape, std::string format) {
    logical_tensor lt = strided_lt(id, t, std::move(shape));
    lt.layout = layout_type::opaque;
    lt.format = std::move(format);
    return lt;
}

// A chain of StaticReshapes: tensor 0 -> 1 -> ... -> targets.size(). The
// graph's tensors carry the targets as shapes; layouts of the ends as given.
inline graph static_chain(const logical_tensor &input, const std::vector<dims_t> &targets) {
    graph g;
    g.tensors[input.id] = input;
    tensor_id previous = input.id;
    for (std::size_t k = 0; k < targets.size(); ++k) {
        const tensor_id next = previous + 1;
        g.ops.push_back(static_reshape(static_cast<std::int64_t>(k), previous, next, targets[k]));
        g.tensors[next] = strided_lt(next, input.dtype, targets[k]);
        previous = next;
    }
    return g;
}

// Every op of `g`, in order, as one supported partition.
inline partition whole_graph(const graph &g, std::size_t id = 0) {
    partition p;
    p.id = id;
    p.supported = true;
    for (std::size_t k = 0; k < g.ops.size(); ++k) p.op_indices.push_back(k);
    const std::vector<tensor_id> inputs = graph_inputs(g), outputs = graph_outputs(g);
    p.inputs.assign(inputs.begin(), inputs.end());
    p.outputs.assign(outputs.begin(), outputs.end());
    return p;
}

// A host buffer for one tensor, with guard zones before and after it:
// bytes, or std::string objects for the string dtype.
class host_buffer {
public:
    static constexpr std::size_t guard = 64; // bytes, or strings

    host_buffer(data_type t, std::size_t bytes) : type_(t) {
        if (t == data_type::string) {
            count_ = bytes / sizeof(std::string);
            strings_.assign(count_ + 2 * guard, guard_string());
        } else {
            count_ = bytes;
            bytes_.assign(count_ + 2 * guard, guard_byte);
        }
    }
    explicit host_buffer(const logical_tensor &lt) : host_buffer(lt.dtype, buffer_bytes(lt).value()) {}

    void *data() {
        return type_ == data_type::string ? static_cast<void *>(strings_.data() + guard)
                                          : static_cast<void *>(bytes_.data() + guard);
    }
    const void *data() const { return const_cast<host_buffer *>(this)->data(); }

    void fill_random(std::mt19937 &rng) {
        for (std::size_t i = 0; i < count_; ++i) {
            if (type_ == data_type::string) {
                // Long enough now and then to live on the heap.
                // (Appended: GCC 12 warns falsely of an overlapping memcpy for "s" + std::string.)
                strings_[guard + i] = std::string("s").append(std::to_string(rng())).append(rng() % 3 * 20, 'x');
            } else {
                bytes_[guard + i] = static_cast<std::uint8_t>(rng());
            }
        }
    }
    void fill(std::uint8_t byte) {
        for (std::size_t i = 0; i < count_; ++i) {
            if (type_ == data_type::string) strings_[guard + i] = "sentinel";
            else bytes_[guard + i] = byte;
        }
    }
    void clear_strings() { // every string element empty
        for (std::size_t i = 0; i < count_ && type_ == data_type::string; ++i) strings_[guard + i].clear();
    }
    bool guards_intact() const {
        for (std::size_t i = 0; i < guard; ++i) {
            if (type_ == data_type::string) {
                if (strings_[i] != guard_string() || strings_[guard + count_ + i] != guard_string())
                    return false;
            } else if (bytes_[i] != guard_byte || bytes_[guard + count_ + i] != guard_byte) {
                return false;
            }
        }
        return true;
    }
    bool operator==(const host_buffer &other) const {
        return type_ == other.type_ && bytes_ == other.bytes_ && strings_ == other.strings_;
    }

private:
    static constexpr std::uint8_t guard_byte = 0xA5;
    static std::string guard_string() { return "guard: a string long enough for the heap"; }

    data_type type_;
    std::size_t count_ = 0;
    std::vector<std::uint8_t> bytes_;
    std::vector<std::string> strings_;
};

// For opaque outputs oneDNN zeroes the padding; the reference leaves it.
inline std::uint8_t output_sentinel(const logical_tensor &out) {
    return out.layout == layout_type::opaque ? 0x00 : 0x5A;
}

// Executes `cp` on random input into a separate, guarded output and compares
// the whole output buffer with the reference reshape's, bit for bit. Checks
// the input is unchanged and the guards are intact.
// The mover policy (backend/mover_choice.hpp) as seen from outside: a
// dtype oneDNN's reorder does not take always goes to our kernel; one it
// takes goes to our kernel only through a fast path (the details name it),
// or, for 2-byte elements, when a step has a blocked side (no 2-byte oneDNN
// type reorders bit-exactly there), and otherwise to the reorder.
inline void expect_policy_mover(const compiled_partition &cp, data_type t) {
    const std::string details = cp.lowering_details();
    if (cp.lowering() == lowering_kind::alias) return;
    if (!dnnl_reorder_type(t)) {
        EXPECT_EQ(cp.lowering(), lowering_kind::kernel) << details;
    } else if (cp.lowering() == lowering_kind::kernel) {
        const bool two_byte_blocked =
            element_bits(t) == 16 && details.find("blocked layout bit-exactly") != std::string::npos;
        const bool fast_path = details.find("run copy") != std::string::npos ||
                               details.find("tiled transpose") != std::string::npos ||
                               details.find("split rows") != std::string::npos ||
                               details.find("joined rows") != std::string::npos ||
                               details.find("grouped transpose") != std::string::npos ||
                               details.find("window transpose") != std::string::npos;
        EXPECT_TRUE(fast_path || two_byte_blocked) << details;
    } else {
        EXPECT_EQ(cp.lowering(), lowering_kind::reorder) << details;
    }
}

inline void expect_matches_reference(const compiled_partition &cp, std::uint32_t seed = 1) {
    ASSERT_EQ(cp.outputs().size(), 1u);
    std::mt19937 rng(seed);
    std::vector<host_buffer> inputs;
    std::vector<const void *> in_ptrs;
    for (const auto &lt : cp.inputs()) {
        inputs.emplace_back(lt);
        inputs.back().fill_random(rng);
    }
    for (auto &b : inputs) in_ptrs.push_back(b.data());
    const std::vector<host_buffer> inputs_before = inputs;
    const logical_tensor &out = cp.outputs()[0];
    host_buffer actual(out), expected(out);
    actual.fill(output_sentinel(out));
    expected.fill(output_sentinel(out));
    // A blocked output's padding is zeroed, for strings emptied.
    if (out.layout == layout_type::opaque && out.dtype == data_type::string) expected.clear_strings();
    // The data input is the one whose shape the output's volume matches and
    // which is not a shape input: the first, in the partitions built here.
    reference_reshape(cp.inputs()[0], inputs[0].data(), out, expected.data());
    cp.execute(in_ptrs, {actual.data()});
    EXPECT_TRUE(actual == expected) << "lowering " << to_string(cp.lowering()) << ": "
                                    << cp.lowering_details();
    EXPECT_TRUE(actual.guards_intact());
    EXPECT_TRUE(inputs == inputs_before) << "an input was modified";
}

// Whether two buffers of tensor `lt` hold the same elements (padding and
// gaps ignored): both read out in row-major order by the reference.
inline bool same_elements(const logical_tensor &lt, const void *a, const void *b) {
    const logical_tensor dense = strided_lt(-1, lt.dtype, lt.shape);
    host_buffer da(dense), db(dense);
    da.fill(0);
    db.fill(0);
    reference_reshape(lt, a, dense, da.data());
    reference_reshape(lt, b, dense, db.data());
    return da == db;
}

// Compiles the whole graph as one partition with `input` and `output`.
inline std::shared_ptr<const compiled_partition>
compile_whole(const graph &g, const logical_tensor &input, const logical_tensor &output) {
    return compile(g, whole_graph(g), {input}, {output}, cpu_engine());
}

// The error `f` throws (fails the test when it throws none).
template <typename F>
error error_of(F &&f) {
    try {
        f();
    } catch (const error &e) {
        return e;
    }
    ADD_FAILURE() << "no error thrown";
    return error(rule::internal_invariant, "no error thrown");
}

} // namespace reshaper::impl::testing
