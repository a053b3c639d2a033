#include "backend/reorder_movement.hpp"

#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "backend/dnnl_mapping.hpp"
#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

namespace {

struct reorder_step {
    dnnl::memory::desc src, dst;
    dnnl::reorder primitive;
    dnnl::memory::desc scratchpad;
    bool src_temporary = false, dst_temporary = false;
    std::size_t src_slot = 0, dst_slot = 0;
};

dnnl::memory::desc bytes_desc(std::size_t bytes) {
    return dnnl::memory::desc({static_cast<dnnl::memory::dim>(bytes)}, dnnl::memory::data_type::u8,
                              dnnl::memory::format_tag::a);
}

// Host <-> engine memory, through a mapping (a no-op copy target on CPU).
void copy_to_memory(dnnl::memory &m, const void *host, std::size_t bytes) {
    void *mapped = m.map_data();
    std::memcpy(mapped, host, bytes);
    m.unmap_data(mapped);
}
void copy_from_memory(dnnl::memory &m, void *host, std::size_t bytes) {
    void *mapped = m.map_data();
    std::memcpy(host, mapped, bytes);
    m.unmap_data(mapped);
}

class reorder_movement final : public data_mover {
public:
    reorder_movement(std::shared_ptr<const engine> eng, std::vector<reorder_step> steps,
                     std::optional<dnnl::memory::desc> temporary, std::size_t temporaries,
                     std::size_t input_bytes,
                     std::size_t output_bytes)
        : engine_(std::move(eng)), steps_(std::move(steps)), temporary_(std::move(temporary)),
          temporaries_(temporaries),
          input_bytes_(input_bytes), output_bytes_(output_bytes) {}

    void run(const void *src, void *dst) const override {
        if (steps_.empty()) return; // zero volume
        const dnnl::engine &e = engine_->dnnl_engine();
        // A stream, scratchpads and the temporary per run: concurrent runs
        // share only the immutable primitives.
        dnnl::stream stream(e);
        void *in = const_cast<void *>(src); // oneDNN never writes a reorder's source
        void *out = dst;
        dnnl::memory staged_in, staged_out;
        const bool on_host = engine_->kind() == engine_kind::cpu;
        if (!on_host) {
            staged_in = dnnl::memory(bytes_desc(input_bytes_), e);
            staged_out = dnnl::memory(bytes_desc(output_bytes_), e);
            copy_to_memory(staged_in, src, input_bytes_);
            // Gaps between strided output elements must keep their bytes.
            copy_to_memory(staged_out, dst, output_bytes_);
            in = staged_in.get_data_handle();
            out = staged_out.get_data_handle();
        }
        dnnl::memory temporary[2];
        for (std::size_t k = 0; k < temporaries_; ++k) temporary[k] = dnnl::memory(*temporary_, e);
        for (const auto &step : steps_) {
            dnnl::memory from(step.src, e,
                              step.src_temporary ? temporary[step.src_slot].get_data_handle() : in);
            dnnl::memory to(step.dst, e,
                            step.dst_temporary ? temporary[step.dst_slot].get_data_handle() : out);
            std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
            if (step.scratchpad.get_size() > 0)
                args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(step.scratchpad, e));
            step.primitive.execute(stream, args);
        }
        stream.wait();
        if (!on_host) copy_from_memory(staged_out, dst, output_bytes_);
    }

private:
    std::shared_ptr<const engine> engine_;
    std::vector<reorder_step> steps_;
    std::optional<dnnl::memory::desc> temporary_;
    std::size_t temporaries_; // 0, 1 or 2, all of temporary_
    std::size_t input_bytes_, output_bytes_;
};

// A step of 2-byte elements between strided layouts as bytes: an extra
// innermost dim of 2 and strides in bytes, so a u8 reorder moves the bits
// (no 2-byte oneDNN type reorders bit-exactly in every kernel).
movement_step as_byte_pairs(movement_step step) {
    for (step_side *side : {&step.src, &step.dst}) {
        for (dim_t &stride : side->strides) {
            auto bytes = checked_mul(stride, 2);
            if (!bytes)
                fail(rule::overflow, "byte strides of " + dims_to_string(side->strides) + " overflow int64");
            stride = *bytes;
        }
        side->strides.push_back(1);
    }
    step.dims.push_back(2);
    coalesce_step(step); // contiguous runs absorb the pair
    return step;
}

} // namespace

std::unique_ptr<data_mover> make_reorder_movement(std::shared_ptr<const engine> eng,
                                                  dnnl::memory::data_type type,
                                                  const movement_plan &plan,
                                                  std::size_t input_bytes,
                                                  std::size_t output_bytes) {
    const dnnl::engine &e = eng->dnnl_engine();
    std::vector<reorder_step> steps;
    for (const auto &planned : plan.steps) {
        const bool byte_pairs =
            type == dnnl::memory::data_type::bf16 && !planned.src.opaque() && !planned.dst.opaque();
        const movement_step step = byte_pairs ? as_byte_pairs(planned) : planned;
        const auto step_type = byte_pairs ? dnnl::memory::data_type::u8 : type;
        reorder_step r;
        r.src_temporary = step.src.temporary;
        r.dst_temporary = step.dst.temporary;
        r.src_slot = step.src.slot;
        r.dst_slot = step.dst.slot;
        try {
            r.src = make_memory_desc(step_type, step.dims, step.src);
            r.dst = make_memory_desc(step_type, step.dims, step.dst);
            dnnl::primitive_attr attr;
            // Scratchpads come with each run, so runs may overlap in time.
            attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
            dnnl::reorder::primitive_desc pd(e, r.src, e, r.dst, attr);
            r.scratchpad = pd.scratchpad_desc();
            r.primitive = dnnl::reorder(pd);
        } catch (const dnnl::error &err) {
            fail(rule::onednn_reorder,
                 "oneDNN cannot reorder " + dims_to_string(step.dims) + " (" + describe(plan) + "): " + err.what());
        }
        steps.push_back(std::move(r));
    }
    std::optional<dnnl::memory::desc> temporary;
    if (plan.temporaries > 0) {
        const auto strides = dense_strides(plan.temporary_dims).value();
        const dims_t dims = plan.temporary_dims.empty() ? dims_t{1} : plan.temporary_dims;
        temporary = make_memory_desc(type, dims, step_side{strides.empty() ? dims_t{1} : strides, {}, true});
    }
    return std::make_unique<reorder_movement>(std::move(eng), std::move(steps),
                                              std::move(temporary), plan.temporaries, input_bytes,
                                              output_bytes);
}

} // namespace reshaper::impl
