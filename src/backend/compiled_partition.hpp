// Compile and execute: a supported partition becomes the cheapest correct
// data movement. The lowering is decided once, here, at compile time:
//   alias   - the output is a strided view of the input buffer (no data moves
//             when the caller passes the input buffer as the output);
//   reorder - one (or, where one cannot express it, the fewest) oneDNN
//             reorder primitive(s);
//   kernel  - our own strided copy (kernels/), for dtypes oneDNN lacks.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/engine.hpp"
#include "core/verbose_log.hpp"
#include "kernels/isa_kernels.hpp"
#include "core/graph.hpp"
#include "layout/chain_view.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::impl {

enum class lowering_kind { alias, reorder, kernel };
std::string_view to_string(lowering_kind k);

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
inline bool buffers_overlap(const void *a, std::size_t a_bytes, const void *b, std::size_t b_bytes) {
    const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

// The execute a compiled partition prepares at compile time, for a
// partition of one output with nothing to resolve at execute: the output a
// view of the input (an alias: in place, nothing to run) or made by one
// kernel movement program (a 4 KiB transpose), as one kernel call (the
// whole-tiles kernel itself where the program was planned as one call,
// else the partition's own entry running the program). Every execute
// (compiled_partition::execute, the C API's from the copy in its handle:
// one indirect call into the kernel) tries it first.
//
// Beside the data input a partition may take shape inputs (a reshape's
// target shape as a tensor, as every Reshape graph of the driver's has):
// their values are fixed by the compile, so they need no reading and
// resolving at each execute. A constant with values in the graph is not
// read (the checked execute does not read it either: the compile resolved
// its values); one whose values arrive at execute is compared byte for
// byte with the compiled output dims in its dtype (shape_values), and any
// other bytes (a -1, a 0 that copies a dim, values that give another
// shape) take the checked execute, which resolves them or says why not.
struct prepared_execute {
    enum class form { none, alias, call };
    form what = form::none;
    kernel_call call;                           // form::call
    std::ptrdiff_t src_offset = 0, dst_offset = 0; // added to the buffers for call.entry
    std::size_t input_bytes = 0, output_bytes = 0;
    // The partition's inputs: how many, and where the data input stands.
    std::size_t input_count = 1, data_position = 0;

    // The bytes a shape input whose values arrive at execute holds when it
    // gives the compiled output dims: each dim in the input's dtype (s32 or
    // s64, dense), at most max_shape_bytes of them.
    static constexpr std::size_t max_shape_bytes = 64, max_shape_inputs = 2;
    struct shape_values {
        std::size_t position = 0, bytes = 0;
        std::array<std::uint8_t, max_shape_bytes> as_compiled{};
    };
    std::array<shape_values, max_shape_inputs> shapes{};
    std::size_t shape_count = 0;

    // Runs it and returns true when the inputs are the partition's (their
    // count; every buffer given; each shape input's values as compiled),
    // the data input's and the output's buffers do not overlap (an alias:
    // are the same buffer, nothing to run) and no verbose line is asked
    // for. Else returns false having done nothing: the checked execute then
    // says why, resolves the values, writes the verbose line, or runs.
    // The cheap tests first (the form, the count, the buffers), the shape
    // inputs' bytes last: an alias in place then costs a few compares.
    [[gnu::always_inline]] bool run(const void *const *inputs, std::size_t count, void *dst) const {
        if (what == form::none || count != input_count) return false;
        const void *src = inputs[data_position]; // data_position < input_count: in range
        if (!src || !dst || verbose_level() > 0) return false;
        if (what == form::alias) return src == dst && (count == 1 || shape_inputs_as_compiled(inputs));
        if (buffers_overlap(src, input_bytes, dst, output_bytes) || (count > 1 && !shape_inputs_as_compiled(inputs)))
            return false;
        call.entry(call, static_cast<const std::uint8_t *>(src) + src_offset, static_cast<std::uint8_t *>(dst) + dst_offset);
        return true;
    }
    // Every buffer of `inputs` (input_count of them) given, and each of
    // `shapes` holding its as_compiled bytes.
    bool shape_inputs_as_compiled(const void *const *inputs) const;
};

class compiled_partition {
public:
    virtual ~compiled_partition() = default;

    // Final logical tensors at the partition boundary: every shape resolved,
    // every `any` output given the layout the backend chose.
    virtual const std::vector<logical_tensor> &inputs() const = 0;
    virtual const std::vector<logical_tensor> &outputs() const = 0;
    // Where the data input (the first op's data input: what the chain
    // moves) stands in inputs(); the others are shape inputs.
    virtual std::size_t data_input_position() const = 0;
    virtual lowering_kind lowering() const = 0;
    // Human-readable plan: steps, shapes, strides (for verbose and reports).
    virtual std::string lowering_details() const = 0;
    // When the lowering is not alias: why the output is no view of the input
    // (the view rule's reason, naming the dims that break it); else "".
    virtual std::string why_not_alias() const { return {}; }
    // The kernel lowering's movement programs in words, step by step (fast
    // path, tiles, walk, threads, stores: decided at compile time); "" for
    // the other lowerings.
    virtual std::string kernel_programs() const { return {}; }
    // For each output, in the order of outputs(): the chain's steps from the
    // data input to it (reshapes and permutations, as the ops' rules
    // resolved them): what the reference applies to check it.
    virtual const std::vector<std::vector<chain_step>> &output_steps() const = 0;
    // (input id, output id) pairs that may share one buffer.
    virtual const std::vector<std::pair<tensor_id, tensor_id>> &inplace_pairs() const = 0;
    virtual const engine &target_engine() const = 0;

    // Buffers in the order of inputs() / outputs() (host pointers on CPU).
    // Validates run-time shape values (DynamicReshape, Reshape-1, ONNX
    // Reshape) against the compiled output shape first: a mismatch throws
    // error(invalid_shape) and nothing is written. Inputs are never
    // modified; nothing is written outside an output's extent. Thread-safe:
    // a compiled partition is immutable. Runs prepared() where it applies,
    // else execute_checked.
    void execute(std::span<const void *const> inputs, std::span<void *const> outputs) const {
        if (outputs.size() == 1 && prepared().run(inputs.data(), inputs.size(), outputs[0])) return;
        execute_checked(inputs, outputs);
    }
    // The same without trying prepared(): every buffer and value checked,
    // the verbose line written.
    virtual void execute_checked(std::span<const void *const> inputs, std::span<void *const> outputs) const = 0;
    // The execute prepared at compile time (prepared_execute; none where
    // this partition prepared none). The C API keeps a copy in its handle.
    virtual const prepared_execute &prepared() const {
        static const prepared_execute none;
        return none;
    }
    // Runs prepared() where it applies (true), else returns false having
    // done nothing, and execute_checked() checks, says why, or runs.
    bool execute_prepared(std::span<const void *const> inputs, void *dst) const {
        return prepared().run(inputs.data(), inputs.size(), dst);
    }
    // The same for a partition of one input.
    bool execute_prepared(const void *src, void *dst) const { return prepared().run(&src, 1, dst); }
    // The same from vectors (and braced lists: execute({in}, {out})).
    void execute(const std::vector<const void *> &inputs, const std::vector<void *> &outputs) const {
        execute(std::span<const void *const>(inputs), std::span<void *const>(outputs));
    }

    // execute, then the outputs' logical tensors with every shape resolved:
    // a partition compiled with output dims that depend on run-time shape
    // values (unknown, -1, in outputs()) learns them here. Dense strides.
    virtual std::vector<logical_tensor> execute_resolving(const std::vector<const void *> &inputs,
                                                          const std::vector<void *> &outputs) const {
        execute(inputs, outputs);
        return this->outputs();
    }
    // Bytes each output buffer needs (also when its dims are unknown until
    // execute: a reshape keeps the volume).
    virtual std::vector<std::size_t> output_buffer_bytes() const = 0;
};

// The plan in words, for reports: the lowering, the mover, the data input's
// and the output's shapes and strides (or formats), then the steps:
//   "reorder by a oneDNN reorder primitive: f32:[4,6]:[1,4] -> f32:[24]:[1]; 1 reorder: ..."
std::string describe_plan(const compiled_partition &cp);

// `inputs` / `outputs`: the partition's boundary tensors as the caller has
// them now (concrete shapes for unknown dims, actual strides or layouts).
std::shared_ptr<const compiled_partition> compile(const graph &g, const partition &p,
                                                  const std::vector<logical_tensor> &inputs,
                                                  const std::vector<logical_tensor> &outputs,
                                                  const std::shared_ptr<const engine> &eng);

} // namespace reshaper::impl
