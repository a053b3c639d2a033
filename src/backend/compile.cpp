// compile(): a chain of data-movement ops becomes one immutable compiled
// partition holding, per output, its plan (alias / reorder / kernel) and the
// executable of it.
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <optional>

#include "backend/alias_copy.hpp"
#include "backend/buffer_size.hpp"
#include "backend/compiled_partition.hpp"
#include "backend/dnnl_mapping.hpp"
#include "backend/kernel_movement.hpp"
#include "backend/movement_plan.hpp"
#include "backend/mover_choice.hpp"
#include "backend/partition_chain.hpp"
#include "backend/reorder_movement.hpp"
#include "backend/verbose.hpp"
#include "core/fail.hpp"
#include "core/status.hpp"
#include "kernels/movement_program.hpp"

namespace reshaper::impl {

std::string_view to_string(lowering_kind k) {
    switch (k) {
    case lowering_kind::alias: return "alias";
    case lowering_kind::reorder: return "reorder";
    case lowering_kind::kernel: return "kernel";
    }
    return "kernel";
}

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// How one output of a partition is made from the data input.
struct output_lowering {
    lowering_kind kind = lowering_kind::kernel;
    std::string mover_reason; // why the kernel or the reorder (mover_choice)
    std::unique_ptr<data_mover> mover;
    std::size_t bytes = 0;
    // What the plan was made for: its words are made from it again when
    // asked (lowering_text).
    logical_tensor target;
};

// The words of one output's lowering, for reports and verbose lines.
struct lowering_text {
    std::string details;
    std::string why_not_alias;
    std::string kernel_programs;
};

std::string steps_summary(const movement_plan &plan, const char *one, const char *many) {
    if (plan.steps.empty()) return "nothing to move (zero volume)";
    const std::string count = plan.steps.size() == 1
                                  ? std::string("1 ") + one
                                  : std::to_string(plan.steps.size()) + " " + many +
                                        (plan.temporaries > 1 ? " via dense temporaries " : " via dense temporary ") +
                                        dims_to_string(plan.temporary_dims);
    return count + ": " + describe(plan);
}

// An output's plan made (the same as compile made it), with its words.
movement_plan explained_plan(const logical_tensor &data, const std::vector<chain_step> &prefix,
                             const logical_tensor &target, bool dynamic) {
    return dynamic ? plan_movement(data, target) : plan_chain_movement(data, prefix, target);
}

lowering_text text_of(const output_lowering &l, const movement_plan &plan) {
    // A chain that permutes axes says first how it was composed.
    const std::string composed = plan.composition.empty() ? "" : plan.composition + "; ";
    lowering_text t;
    t.why_not_alias = plan.why_not_alias;
    switch (l.kind) {
    case lowering_kind::alias: t.details = composed + describe(plan); break;
    case lowering_kind::reorder:
        t.details = composed + steps_summary(plan, "reorder", "reorders") + " (" + l.mover_reason + ")";
        break;
    case lowering_kind::kernel:
        t.details = composed + steps_summary(plan, "strided copy", "strided copies") + " (" + l.mover_reason + ")";
        t.kernel_programs = l.mover->describe();
        break;
    }
    return t;
}

// "StaticReshape-1+StaticTranspose-1": the chain's ops, for verbose lines.
std::string versioned_names(const std::vector<const op_schema *> &schemas, const char *sep) {
    std::string text;
    for (const op_schema *s : schemas) {
        if (!text.empty()) text += sep;
        text += s->versioned_name();
    }
    return text;
}

// The bytes of `r`'s shape input that give the compiled output dims: each
// dim in its dtype, where it is a dense 1-D s32 or s64 tensor of one value
// per dim that fits prepared_execute::shape_values, and those values pass
// the op's check (a 0 under special_zero copies an input dim instead, say);
// else nothing.
std::optional<prepared_execute::shape_values> shape_values_as_compiled(const runtime_shape_input &r) {
    const logical_tensor &lt = r.shape_tensor;
    const std::size_t count = r.compiled_dims.size();
    const bool dense = lt.strides.empty() || lt.strides[0] == 1 || count <= 1;
    const std::size_t size = lt.dtype == data_type::s64 ? 8 : lt.dtype == data_type::s32 ? 4 : 0;
    if (!r.request.reshape || lt.shape.size() != 1 || lt.shape[0] != static_cast<dim_t>(count) || !dense ||
        size == 0 || count * size > prepared_execute::max_shape_bytes)
        return std::nullopt;
    prepared_execute::shape_values v;
    v.position = r.input_position;
    v.bytes = count * size;
    for (std::size_t k = 0; k < count; ++k) {
        const dim_t d = r.compiled_dims[k];
        if (size == 4) {
            if (d > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
            const auto value = static_cast<std::int32_t>(d);
            std::memcpy(v.as_compiled.data() + k * size, &value, size);
        } else {
            const auto value = static_cast<std::int64_t>(d);
            std::memcpy(v.as_compiled.data() + k * size, &value, size);
        }
    }
    try {
        check_runtime_shape(r, v.as_compiled.data());
    } catch (const error &) {
        return std::nullopt;
    }
    return v;
}

class chain_partition final : public compiled_partition {
public:
    struct parts {
        std::size_t partition_id = 0;
        std::vector<const op_schema *> op_schemas; // in chain order
        std::vector<logical_tensor> inputs, outputs;
        // One per output, in the order of outputs.
        std::vector<output_lowering> lowerings;
        std::vector<std::vector<chain_step>> output_steps;
        std::vector<std::pair<tensor_id, tensor_id>> inplace;
        std::shared_ptr<const engine> eng;
        std::vector<runtime_shape_input> runtime_shapes;
        // Output dims known only at execute: the chain re-resolved then.
        bool dynamic = false;
        std::vector<chain_op> chain_ops;
        std::size_t data_position = 0;
        std::size_t input_bytes = 0;
    };

    explicit chain_partition(parts p) : p_(std::move(p)) {
        for (const output_lowering &l : p_.lowerings)
            if (l.kind != lowering_kind::alias) {
                kind_ = l.kind;
                break;
            }
        // The prepared execute: one output, no run-time shape to resolve
        // (shape inputs' values fixed by the compile), and the output either
        // a view of the input (in place: nothing to do) or made by one
        // kernel movement program.
        if (p_.outputs.size() == 1 && p_.lowerings.size() == 1 && !p_.dynamic && prepare_shape_inputs()) {
            if (kind_ == lowering_kind::alias) {
                prepared_.what = prepared_execute::form::alias;
            } else if (kind_ == lowering_kind::kernel && p_.lowerings[0].mover) {
                direct_ = p_.lowerings[0].mover->direct_program();
                if (direct_) prepare_call(*direct_);
            }
        }
    }
    chain_partition(const chain_partition &) = delete; // prepared_.call.context is this
    chain_partition &operator=(const chain_partition &) = delete;

    const std::vector<logical_tensor> &inputs() const override { return p_.inputs; }
    const std::vector<logical_tensor> &outputs() const override { return p_.outputs; }
    std::size_t data_input_position() const override { return p_.data_position; }
    // Alias when every output views the input; else how the first output
    // that does not is moved.
    lowering_kind lowering() const override { return kind_; }
    std::string lowering_details() const override {
        return joined([](const lowering_text &t) { return t.details; });
    }
    std::string why_not_alias() const override {
        return joined([](const lowering_text &t) { return t.why_not_alias; });
    }
    std::string kernel_programs() const override {
        return joined([](const lowering_text &t) { return t.kernel_programs; });
    }
    const std::vector<std::pair<tensor_id, tensor_id>> &inplace_pairs() const override {
        return p_.inplace;
    }
    const engine &target_engine() const override { return *p_.eng; }
    const std::vector<std::vector<chain_step>> &output_steps() const override {
        return p_.output_steps;
    }

    std::vector<std::size_t> output_buffer_bytes() const override {
        std::vector<std::size_t> bytes;
        for (const output_lowering &l : p_.lowerings) bytes.push_back(l.bytes);
        return bytes;
    }

    const prepared_execute &prepared() const override { return prepared_; }

    void execute_checked(std::span<const void *const> inputs, std::span<void *const> outputs) const override {
        run(inputs, outputs, nullptr);
    }

    std::vector<logical_tensor> execute_resolving(const std::vector<const void *> &inputs,
                                                  const std::vector<void *> &outputs) const override {
        std::vector<logical_tensor> resolved = p_.outputs;
        run(inputs, outputs, &resolved.back().shape);
        if (p_.dynamic) resolved.back().strides = *dense_strides(resolved.back().shape);
        return resolved;
    }

    // Executes; into `resolved_dims` (when not null) the last output's dims
    // (resolved at execute for a dynamic chain). Nothing is copied for a
    // plain execute: a dims vector per call was a tenth of a 4 KiB one.
    void run(std::span<const void *const> inputs, std::span<void *const> outputs, dims_t *resolved_dims) const {
        // The clock is read for verbose lines only (a tenth of a 4 KiB execute).
        const bool verbose = verbose_level() > 0;
        const auto start = verbose ? clock_type::now() : clock_type::time_point{};
        if (inputs.size() != p_.inputs.size() || outputs.size() != p_.outputs.size())
            fail(rule::execute_buffers,
                 "partition " + std::to_string(p_.partition_id) + " takes " +
                     std::to_string(p_.inputs.size()) + " input and " +
                     std::to_string(p_.outputs.size()) + " output buffers, got " +
                     std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
        // Every run-time shape is checked before anything is written.
        if (p_.dynamic) {
            dims_t output_dims = resolve_at_execute(p_.chain_ops, p_.runtime_shapes, inputs,
                                                    p_.inputs[p_.data_position].shape, p_.outputs.back().shape);
            if (resolved_dims) *resolved_dims = std::move(output_dims);
        } else {
            for (const auto &r : p_.runtime_shapes) check_runtime_shape(r, inputs[r.input_position]);
            if (resolved_dims) *resolved_dims = p_.outputs.back().shape;
        }

        const void *src = inputs[p_.data_position];
        if (p_.input_bytes > 0 && !src)
            fail(rule::execute_buffers,
                 "partition " + std::to_string(p_.partition_id) + ": null data buffer");
        // Every buffer is checked before anything is written.
        for (std::size_t k = 0; k < outputs.size(); ++k) {
            const output_lowering &l = p_.lowerings[k];
            if (l.bytes > 0 && !outputs[k])
                fail(rule::execute_buffers,
                     "partition " + std::to_string(p_.partition_id) + ": null buffer for output " +
                         std::to_string(p_.outputs[k].id));
            if (l.kind == lowering_kind::alias && src == outputs[k]) continue;
            if (buffers_overlap(src, p_.input_bytes, outputs[k], l.bytes))
                fail(rule::execute_buffers,
                     "partition " + std::to_string(p_.partition_id) + " (" +
                         std::string(to_string(l.kind)) + "): the buffer of output " +
                         std::to_string(p_.outputs[k].id) + " overlaps the input buffer" +
                         (l.kind == lowering_kind::alias
                              ? " without being it"
                              : "; only an alias lowering runs in place"));
            for (std::size_t j = 0; j < k; ++j)
                if (!(p_.lowerings[j].kind == lowering_kind::alias && src == outputs[j]) &&
                    buffers_overlap(outputs[j], p_.lowerings[j].bytes, outputs[k], l.bytes))
                    fail(rule::execute_buffers,
                         "partition " + std::to_string(p_.partition_id) + ": the buffers of outputs " +
                             std::to_string(p_.outputs[j].id) + " and " + std::to_string(p_.outputs[k].id) +
                             " overlap");
        }
        bool in_place = true;
        for (std::size_t k = 0; k < outputs.size(); ++k) {
            if (p_.lowerings[k].kind == lowering_kind::alias && src == outputs[k]) continue;
            in_place = false;
            run_mover(*p_.lowerings[k].mover, p_.lowerings[k].kind, src, outputs[k]);
        }
        if (verbose)
            verbose_print("execute," + line_fields() + (kind_ == lowering_kind::alias && in_place ? ",in place" : ",copy") +
                          "," + std::to_string(ms_since(start)));
    }

    // engine,partition,ops,lowering,src->dst,details (for verbose lines).
    std::string line_fields() const {
        std::string dsts;
        // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "..." + string.
        for (const logical_tensor &out : p_.outputs) {
            if (!dsts.empty()) dsts += ' ';
            dsts += verbose_tensor(out);
        }
        return std::string(to_string(p_.eng->kind())) + ",partition " +
               std::to_string(p_.partition_id) + "," + versioned_names(p_.op_schemas, "+") + "," +
               std::string(to_string(kind_)) + "," +
               verbose_tensor(p_.inputs[p_.data_position]) + "->" + dsts + "," +
               verbose_text(lowering_details());
    }

private:
    // The inputs of the prepared execute: where the data input stands and,
    // for each shape input whose values arrive at execute, the bytes that
    // give the compiled output dims. False where one has none such
    // (shape_values_as_compiled): no prepared execute then.
    bool prepare_shape_inputs() {
        if (p_.runtime_shapes.size() > prepared_execute::max_shape_inputs) return false;
        // Built apart and kept only when every shape input qualifies: a
        // partition without a prepared execute holds no half-filled shapes.
        std::array<prepared_execute::shape_values, prepared_execute::max_shape_inputs> shapes{};
        std::size_t count = 0;
        for (const runtime_shape_input &r : p_.runtime_shapes) {
            const auto values = shape_values_as_compiled(r);
            if (!values) return false;
            shapes[count++] = *values;
        }
        prepared_.shapes = shapes;
        prepared_.shape_count = count;
        prepared_.input_count = p_.inputs.size();
        prepared_.data_position = p_.data_position;
        return true;
    }

    // The prepared call of `program`: the kernel itself where the program
    // is one kernel call (no exception to turn into a message), else
    // run_direct.
    void prepare_call(const movement_program &program) {
        prepared_.what = prepared_execute::form::call;
        prepared_.input_bytes = p_.input_bytes;
        prepared_.output_bytes = p_.lowerings[0].bytes;
        prepared_.call = whole_kernel_call(program);
        if (prepared_.call.entry) {
            prepared_.src_offset = program.src_offset;
            prepared_.dst_offset = program.dst_offset;
        } else {
            prepared_.call = {.entry = &run_direct, .context = this};
        }
    }
    static void run_direct(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst) {
        const auto &self = *static_cast<const chain_partition *>(call.context);
        self.guarded_move(self.kind_, [&] { run_movement(*self.direct_, src, dst); });
    }

    // The words of every output's lowering, made at the first call (once,
    // also when threads ask at once: the partition stays immutable to them).
    const std::vector<lowering_text> &texts() const {
        std::call_once(explained_, [this] {
            const logical_tensor &data = p_.inputs[p_.data_position];
            for (std::size_t k = 0; k < p_.lowerings.size(); ++k) {
                const output_lowering &l = p_.lowerings[k];
                texts_.push_back(text_of(l, explained_plan(data, p_.output_steps[k], l.target, p_.dynamic)));
            }
        });
        return texts_;
    }

    // One text per output, "output 5: ..." when there are several.
    template <typename F>
    std::string joined(F &&text_part) const {
        const std::vector<lowering_text> &texts = this->texts();
        if (texts.size() == 1) return text_part(texts[0]);
        std::string text;
        for (std::size_t k = 0; k < texts.size(); ++k) {
            const std::string t = text_part(texts[k]);
            if (t.empty()) continue;
            text += (text.empty() ? "" : "; ") + std::string("output ") +
                    std::to_string(p_.outputs[k].id) + ": " + t;
        }
        return text;
    }

    // Failures inside oneDNN or allocation reach callers as error values.
    // Named only when one fails: a string per execute was a tenth of a 4 KiB one.
    void run_mover(const data_mover &mover, lowering_kind kind, const void *src, void *dst) const {
        guarded_move(kind, [&] { mover.run(src, dst); });
    }
    template <typename Move>
    void guarded_move(lowering_kind kind, const Move &move) const {
        const auto where = [&] {
            return "partition " + std::to_string(p_.partition_id) + " (" + std::string(to_string(kind)) + ")";
        };
        try {
            move();
        } catch (const dnnl::error &e) {
            if (e.status == dnnl_out_of_memory)
                fail(rule::memory_limit, where() + ": oneDNN ran out of memory: " + e.what());
            fail(rule::onednn_failure, where() + ": oneDNN failed: " + e.what());
        } catch (const std::bad_alloc &) {
            fail(rule::memory_limit, where() + ": out of memory for a temporary");
        }
    }

    parts p_;
    lowering_kind kind_ = lowering_kind::alias;
    const movement_program *direct_ = nullptr; // the prepared execute's program, in p_'s mover
    prepared_execute prepared_;
    mutable std::once_flag explained_;
    mutable std::vector<lowering_text> texts_;
};


std::size_t bytes_or_throw(const logical_tensor &lt, const char *role) {
    if (lt.dtype == data_type::undef)
        fail(rule::input_dtype_known, std::string(role) + " tensor " +
                                          std::to_string(lt.id) +
                                          " has dtype undef; its buffer needs a dtype");
    auto bytes = buffer_bytes(lt);
    if (!bytes)
        fail(rule::overflow, std::string(role) + " tensor " + std::to_string(lt.id) +
                                 " " + dims_to_string(lt.shape) +
                                 ": its buffer size overflows");
    return *bytes;
}

// RESHAPER_VERBOSE=2: the lowering decision of one output and its reason.
std::string lowering_reason(std::size_t partition_id, engine_kind eng, const output_lowering &l,
                            const lowering_text &text, const logical_tensor &data) {
    std::string why;
    switch (l.kind) {
    case lowering_kind::alias:
        why = "the output is a view of the input buffer (" + text.details + ")";
        break;
    case lowering_kind::reorder:
    case lowering_kind::kernel:
        why = "no alias: " + text.why_not_alias + "; " + std::string(to_string(l.kind)) + ": " +
              l.mover_reason + " (dtype " + std::string(to_string(data.dtype)) + ")";
        break;
    }
    return "lowering," + std::string(to_string(eng)) + ",partition " + std::to_string(partition_id) +
           "," + std::string(to_string(l.kind)) + "," + verbose_text(why);
}

// The lowering of one output from its plan: an alias, or the mover that
// measured fastest for it.
output_lowering lower(const movement_plan &plan, const logical_tensor &data,
                      const std::shared_ptr<const engine> &eng, std::size_t input_bytes,
                      std::size_t output_bytes) {
    output_lowering l;
    l.bytes = output_bytes;
    if (plan.alias) {
        l.kind = lowering_kind::alias;
        l.mover = make_alias_copy(data);
        return l;
    }
    // Each step planned once, for the choice and for the kernel mover.
    std::vector<kernel_step_plan> planned = plan_kernel_steps(data.dtype, plan);
    const mover_choice choice = choose_mover(eng->kind(), data.dtype, plan, planned);
    l.kind = choice.kind;
    l.mover_reason = choice.why;
    if (choice.kind == lowering_kind::reorder) {
        try {
            l.mover = make_reorder_movement(eng, *dnnl_reorder_type(data.dtype), plan, input_bytes,
                                            output_bytes);
            return l;
        } catch (const error &e) {
            // A layout oneDNN cannot describe (e.g. more dims than it
            // takes): our kernel moves any strided layout.
            l.kind = lowering_kind::kernel;
            l.mover_reason = std::string("oneDNN declined: ") + e.what();
        }
    }
    l.mover = make_kernel_movement(data.dtype, plan, std::move(planned));
    return l;
}

} // namespace

bool prepared_execute::shape_inputs_as_compiled(const void *const *inputs) const {
    for (std::size_t k = 0; k < input_count; ++k)
        if (!inputs[k]) return false;
    for (std::size_t k = 0; k < shape_count; ++k)
        if (std::memcmp(inputs[shapes[k].position], shapes[k].as_compiled.data(), shapes[k].bytes) != 0) return false;
    return true;
}

std::shared_ptr<const compiled_partition> compile(const graph &g, const partition &p,
                                                  const std::vector<logical_tensor> &inputs,
                                                  const std::vector<logical_tensor> &outputs,
                                                  const std::shared_ptr<const engine> &eng) {
    const auto start = clock_type::now();
    if (!eng) fail(rule::api_argument, "compile needs an engine");
    if (!p.supported)
        fail(rule::partition_supported, "partition " + std::to_string(p.id) +
                                            " is not supported by this backend: " + p.reason);
    // RESHAPER_VERBOSE=3: the time of each stage.
    const bool timed = verbose_level() >= 3;
    auto stage_done = [&, last = start](const char *stage) mutable {
        const auto now = clock_type::now();
        verbose_print("stage," + std::string(to_string(eng->kind())) + ",partition " +
                      std::to_string(p.id) + "," + stage + "," +
                      std::to_string(std::chrono::duration<double, std::milli>(now - last).count()));
        last = now;
    };
    resolved_chain chain = resolve_chain(g, p, inputs, outputs);
    if (timed) stage_done("resolve_shapes");
    const logical_tensor &data = chain.inputs[chain.data_position];

    chain_partition::parts parts;
    parts.partition_id = p.id;
    parts.op_schemas = std::move(chain.op_schemas);
    parts.eng = eng;
    parts.data_position = chain.data_position;
    for (std::size_t k = 0; k < chain.outputs.size(); ++k) {
        // A dynamic output (dims known at execute) is dense: whatever shape
        // the values give, its bytes are the input's elements in row-major
        // order, which is the dense layout of the input's own dims. The plan
        // moves the data there (an alias when the input already is dense).
        logical_tensor target = chain.outputs[k];
        const std::vector<chain_step> prefix(chain.steps.begin(),
                                             chain.steps.begin() + chain.output_step_counts[k]);
        if (chain.dynamic) {
            const bool dense_or_any = target.layout == layout_type::any ||
                                      target.layout == layout_type::undef ||
                                      (target.layout == layout_type::strided && target.strides.empty());
            if (!dense_or_any)
                fail(rule::dynamic_output_layout,
                     "partition " + std::to_string(p.id) + ": output tensor " +
                         std::to_string(target.id) + " has dims " + dims_to_string(target.shape) +
                         " known only at execute; it must be dense or of layout any, got " +
                         std::string(to_string(target.layout)));
            target.shape = data.shape;
            target.layout = layout_type::strided;
            target.strides.clear();
        }
        // Without words: they are made when asked (chain_partition::texts).
        movement_plan plan = chain.dynamic ? plan_movement(data, target, false)
                                           : plan_chain_movement(data, prefix, target, false);
        if (chain.dynamic) plan.output.shape = chain.outputs[k].shape;
        if (timed) stage_done("plan_movement");
        // After the plan, which names a layout that holds no buffer first.
        if (k == 0) parts.input_bytes = bytes_or_throw(data, "input");
        const std::size_t output_bytes = bytes_or_throw(chain.dynamic ? target : plan.output, "output");
        output_lowering l = lower(plan, data, eng, parts.input_bytes, output_bytes);
        if (l.kind == lowering_kind::alias) parts.inplace.emplace_back(data.id, plan.output.id);
        if (verbose_level() >= 2)
            verbose_print(lowering_reason(p.id, eng->kind(), l,
                                          text_of(l, explained_plan(data, prefix, target, chain.dynamic)), data));
        l.target = std::move(target);
        parts.lowerings.push_back(std::move(l));
        parts.output_steps.push_back(prefix);
        parts.outputs.push_back(std::move(plan.output));
        // Dense, once the dims are known.
        if (chain.dynamic) parts.outputs.back().strides.clear();
    }
    if (timed) stage_done("build_mover");
    parts.runtime_shapes = std::move(chain.runtime_shapes);
    parts.dynamic = chain.dynamic;
    parts.chain_ops = std::move(chain.ops);
    parts.inputs = std::move(chain.inputs);
    auto compiled = std::make_shared<chain_partition>(std::move(parts));
    if (verbose_level() > 0)
        verbose_print("compile," + compiled->line_fields() + "," + std::to_string(ms_since(start)));
    return compiled;
}

} // namespace reshaper::impl
