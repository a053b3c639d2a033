// compile(): a chain of reshapes becomes one immutable compiled partition
// holding its plan (alias / reorder / kernel) and the executable of it.
#include <chrono>
#include <new>

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
#include "core/status.hpp"

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

bool overlaps(const void *a, std::size_t a_bytes, const void *b, std::size_t b_bytes) {
    const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

class reshape_chain_partition final : public compiled_partition {
public:
    struct parts {
        std::size_t partition_id = 0;
        std::string op_names;
        std::vector<logical_tensor> inputs, outputs;
        lowering_kind kind = lowering_kind::kernel;
        std::string details;
        std::string why_not_alias;
        std::string mover_reason; // why the kernel or the reorder (mover_choice)
        std::vector<std::pair<tensor_id, tensor_id>> inplace;
        std::shared_ptr<const engine> eng;
        std::unique_ptr<data_mover> mover;
        std::vector<runtime_shape_input> runtime_shapes;
        // Output dims known only at execute: the chain re-resolved then.
        bool dynamic = false;
        std::vector<chain_op> chain_ops;
        std::size_t data_position = 0;
        std::size_t input_bytes = 0, output_bytes = 0;
    };

    explicit reshape_chain_partition(parts p) : p_(std::move(p)) {}

    const std::vector<logical_tensor> &inputs() const override { return p_.inputs; }
    const std::vector<logical_tensor> &outputs() const override { return p_.outputs; }
    lowering_kind lowering() const override { return p_.kind; }
    std::string lowering_details() const override { return p_.details; }
    std::string why_not_alias() const override { return p_.why_not_alias; }
    const std::vector<std::pair<tensor_id, tensor_id>> &inplace_pairs() const override {
        return p_.inplace;
    }
    const engine &target_engine() const override { return *p_.eng; }

    std::vector<std::size_t> output_buffer_bytes() const override { return {p_.output_bytes}; }

    void execute(const std::vector<const void *> &inputs,
                 const std::vector<void *> &outputs) const override {
        run(inputs, outputs);
    }

    std::vector<logical_tensor> execute_resolving(const std::vector<const void *> &inputs,
                                                  const std::vector<void *> &outputs) const override {
        std::vector<logical_tensor> resolved = p_.outputs;
        resolved[0].shape = run(inputs, outputs);
        if (p_.dynamic) resolved[0].strides = *dense_strides(resolved[0].shape);
        return resolved;
    }

    // Executes; returns the output dims (resolved at execute for a dynamic chain).
    dims_t run(const std::vector<const void *> &inputs, const std::vector<void *> &outputs) const {
        const auto start = clock_type::now();
        if (inputs.size() != p_.inputs.size() || outputs.size() != p_.outputs.size())
            throw error(status::invalid_arguments,
                        "partition " + std::to_string(p_.partition_id) + " takes " +
                            std::to_string(p_.inputs.size()) + " input and " +
                            std::to_string(p_.outputs.size()) + " output buffers, got " +
                            std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()) + " [execute_buffers]");
        // Every run-time shape is checked before anything is written.
        dims_t output_dims = p_.outputs[0].shape;
        if (p_.dynamic)
            output_dims = resolve_at_execute(p_.chain_ops, p_.runtime_shapes, inputs,
                                             p_.inputs[p_.data_position].shape, output_dims);
        else
            for (const auto &r : p_.runtime_shapes) check_runtime_shape(r, inputs[r.input_position]);

        const void *src = inputs[p_.data_position];
        void *dst = outputs[0];
        if ((p_.input_bytes > 0 && !src) || (p_.output_bytes > 0 && !dst))
            throw error(status::invalid_arguments,
                        "partition " + std::to_string(p_.partition_id) + ": null data buffer [execute_buffers]");
        if (p_.kind == lowering_kind::alias && src == dst) {
            // The planned in-place case: the output already is the view.
        } else if (overlaps(src, p_.input_bytes, dst, p_.output_bytes)) {
            throw error(status::invalid_arguments,
                        "partition " + std::to_string(p_.partition_id) + " (" +
                            std::string(to_string(p_.kind)) +
                            "): the output buffer overlaps the input buffer" +
                            (p_.kind == lowering_kind::alias
                                 ? " without being it"
                                 : "; only an alias lowering runs in place") + " [execute_buffers]");
        } else {
            run_mover(src, dst);
        }
        if (verbose_level() > 0)
            verbose_print("execute," + line_fields() +
                          (p_.kind == lowering_kind::alias && src == dst ? ",in place" : ",copy") +
                          "," + std::to_string(ms_since(start)));
        return output_dims;
    }

    // engine,partition,ops,lowering,src->dst,details (for verbose lines).
    std::string line_fields() const {
        return std::string(to_string(p_.eng->kind())) + ",partition " +
               std::to_string(p_.partition_id) + "," + p_.op_names + "," +
               std::string(to_string(p_.kind)) + "," +
               verbose_tensor(p_.inputs[p_.data_position]) + "->" + verbose_tensor(p_.outputs[0]) +
               "," + verbose_text(p_.details);
    }

private:
    // Failures inside oneDNN or allocation reach callers as error values.
    void run_mover(const void *src, void *dst) const {
        const std::string where = "partition " + std::to_string(p_.partition_id) + " (" +
                                  std::string(to_string(p_.kind)) + ")";
        try {
            p_.mover->run(src, dst);
        } catch (const dnnl::error &e) {
            throw error(e.status == dnnl_out_of_memory ? status::out_of_memory : status::runtime_error,
                        where + ": oneDNN failed: " + e.what() + " [onednn_failure]");
        } catch (const std::bad_alloc &) {
            throw error(status::out_of_memory, where + ": out of memory for a temporary [memory_limit]");
        }
    }

    parts p_;
};

std::string join(const std::vector<std::string> &names, const char *sep) {
    std::string text;
    for (const auto &n : names) text += (text.empty() ? "" : sep) + n;
    return text;
}

std::size_t bytes_or_throw(const logical_tensor &lt, const char *role) {
    if (lt.dtype == data_type::undef)
        throw error(status::invalid_data_type, std::string(role) + " tensor " +
                                                   std::to_string(lt.id) +
                                                   " has dtype undef; its buffer needs a dtype [input_dtype_known]");
    auto bytes = buffer_bytes(lt);
    if (!bytes)
        throw error(status::invalid_shape, std::string(role) + " tensor " + std::to_string(lt.id) +
                                               " " + dims_to_string(lt.shape) +
                                               ": its buffer size overflows [overflow]");
    return *bytes;
}

std::string steps_summary(const movement_plan &plan, const char *one, const char *many) {
    if (plan.steps.empty()) return "nothing to move (zero volume)";
    const std::string count = plan.steps.size() == 1
                                  ? std::string("1 ") + one
                                  : std::to_string(plan.steps.size()) + " " + many +
                                        " via dense temporary " +
                                        dims_to_string(plan.temporary_dims);
    return count + ": " + describe(plan);
}

// RESHAPER_VERBOSE=2: the lowering decision and its reason.
std::string lowering_reason(const reshape_chain_partition::parts &parts, const logical_tensor &data) {
    std::string why;
    switch (parts.kind) {
    case lowering_kind::alias:
        why = "the output is a view of the input buffer (" + parts.details + ")";
        break;
    case lowering_kind::reorder:
    case lowering_kind::kernel:
        why = "no alias: " + parts.why_not_alias + "; " + std::string(to_string(parts.kind)) + ": " +
              parts.mover_reason + " (dtype " + std::string(to_string(data.dtype)) + ")";
        break;
    }
    return "lowering," + std::string(to_string(parts.eng->kind())) + ",partition " +
           std::to_string(parts.partition_id) + "," + std::string(to_string(parts.kind)) + "," +
           verbose_text(why);
}

} // namespace

std::shared_ptr<const compiled_partition> compile(const graph &g, const partition &p,
                                                  const std::vector<logical_tensor> &inputs,
                                                  const std::vector<logical_tensor> &outputs,
                                                  const std::shared_ptr<const engine> &eng) {
    const auto start = clock_type::now();
    if (!eng) throw error(status::invalid_arguments, "compile needs an engine [api_argument]");
    if (!p.supported)
        throw error(status::unimplemented, "partition " + std::to_string(p.id) +
                                               " is not supported by this backend: " + p.reason + " [partition_supported]");
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
    // A dynamic output (dims known at execute) is dense: whatever shape the
    // values give, its bytes are the input's elements in row-major order,
    // which is the dense layout of the input's own dims. The plan moves the
    // data there (an alias when the input already is dense).
    logical_tensor target = chain.output;
    if (chain.dynamic) {
        const bool dense_or_any = target.layout == layout_type::any ||
                                  target.layout == layout_type::undef ||
                                  (target.layout == layout_type::strided && target.strides.empty());
        if (!dense_or_any)
            throw error(status::unimplemented,
                        "partition " + std::to_string(p.id) + ": output tensor " +
                            std::to_string(target.id) + " has dims " + dims_to_string(target.shape) +
                            " known only at execute; it must be dense or of layout any, got " +
                            std::string(to_string(target.layout)) + " [dynamic_output_layout]");
        target.shape = data.shape;
        target.layout = layout_type::strided;
        target.strides.clear();
    }
    movement_plan plan = plan_movement(data, target);
    if (chain.dynamic) {
        plan.output.shape = chain.output.shape;
    }
    if (timed) stage_done("plan_movement");

    reshape_chain_partition::parts parts;
    parts.partition_id = p.id;
    parts.op_names = join(chain.op_names, "+");
    parts.eng = eng;
    parts.data_position = chain.data_position;
    parts.runtime_shapes = std::move(chain.runtime_shapes);
    parts.input_bytes = bytes_or_throw(data, "input");
    parts.output_bytes = bytes_or_throw(chain.dynamic ? target : plan.output, "output");
    parts.dynamic = chain.dynamic;
    parts.chain_ops = std::move(chain.ops);
    parts.why_not_alias = plan.why_not_alias;

    if (plan.alias) {
        parts.kind = lowering_kind::alias;
        parts.details = describe(plan);
        parts.inplace.emplace_back(data.id, plan.output.id);
        parts.mover = make_alias_copy(data);
    } else {
        const mover_choice choice = choose_mover(eng->kind(), data.dtype, plan);
        parts.kind = choice.kind;
        parts.mover_reason = choice.why;
        if (choice.kind == lowering_kind::reorder) {
            try {
                parts.mover = make_reorder_movement(eng, *dnnl_reorder_type(data.dtype), plan,
                                                    parts.input_bytes, parts.output_bytes);
                parts.details = steps_summary(plan, "reorder", "reorders") + " (" + choice.why + ")";
            } catch (const error &e) {
                // A layout oneDNN cannot describe (e.g. more dims than it
                // takes): our kernel moves any strided layout.
                parts.mover = make_kernel_movement(data.dtype, plan,
                                                   std::string("oneDNN declined: ") + e.what());
                parts.kind = lowering_kind::kernel;
                parts.mover_reason = std::string("oneDNN declined: ") + e.what();
                parts.details = steps_summary(plan, "strided copy", "strided copies") +
                                " (" + parts.mover_reason + ")";
            }
        } else {
            parts.mover = make_kernel_movement(data.dtype, plan, choice.why);
            parts.details = steps_summary(plan, "strided copy", "strided copies") + " (" + choice.why + ")";
        }
    }
    if (timed) stage_done("build_mover");
    if (verbose_level() >= 2) verbose_print(lowering_reason(parts, data));
    parts.inputs = std::move(chain.inputs);
    parts.outputs = {std::move(plan.output)};
    if (parts.dynamic) parts.outputs[0].strides.clear(); // dense, once the dims are known
    auto compiled = std::make_shared<reshape_chain_partition>(std::move(parts));
    if (verbose_level() > 0)
        verbose_print("compile," + compiled->line_fields() + "," + std::to_string(ms_since(start)));
    return compiled;
}

} // namespace reshaper::impl
