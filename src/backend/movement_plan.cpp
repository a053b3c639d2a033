#include "backend/movement_plan.hpp"

#include <algorithm>

#include "core/fail.hpp"
#include "core/status.hpp"
#include "core/dim_merge.hpp"
#include "layout/blocked_views.hpp"
#include "layout/chain_view.hpp"
#include "layout/memory_layout.hpp"
#include "layout/view_strides.hpp"

namespace reshaper::impl {

namespace {

std::string describe_tensor(const logical_tensor &lt) {
    return "tensor " + std::to_string(lt.id) + " " + dims_to_string(lt.shape);
}

// The strides of a strided tensor after checking they can describe a buffer.
dims_t checked_strides(const logical_tensor &lt, const char *role) {
    if (lt.strides.empty()) {
        auto dense = dense_strides(lt.shape);
        if (!dense)
            fail(rule::overflow, std::string(role) + " " + describe_tensor(lt) +
                                     ": dense strides overflow int64");
        return std::move(*dense);
    }
    if (lt.strides.size() != lt.shape.size())
        fail(rule::buffer_strides,
             std::string(role) + " " + describe_tensor(lt) + " has " +
                 std::to_string(lt.strides.size()) + " strides " +
                 dims_to_string(lt.strides) + " for rank " +
                 std::to_string(lt.shape.size()));
    for (dim_t s : lt.strides)
        if (s < 0)
            fail(rule::buffer_strides, std::string(role) + " " + describe_tensor(lt) +
                                           ": negative stride in " +
                                           dims_to_string(lt.strides));
    return lt.strides;
}

// Written output elements must never collide.
void check_no_overlap(const logical_tensor &lt, const dims_t &strides) {
    switch (classify_addresses(lt.shape, strides)) {
    case element_addresses::distinct: return;
    case element_addresses::shared:
        fail(rule::buffer_strides, "output " + describe_tensor(lt) + ": strides " +
                                                   dims_to_string(strides) +
                                                   " make distinct elements share an address");
    case element_addresses::overflow:
        fail(rule::overflow, "output " + describe_tensor(lt) + ": strides " +
                                               dims_to_string(strides) + " overflow int64");
    }
}

dims_t dense_or_throw(const dims_t &dims) {
    auto s = dense_strides(dims);
    if (!s) fail(rule::overflow, "dense strides of " + dims_to_string(dims) + " overflow int64");
    return *s;
}

std::optional<dims_t> view_of(const dims_t &sizes, const dims_t &strides, const dims_t &new_sizes) {
    return compute_view_strides(sizes, strides, new_sizes).strides;
}

movement_step strided_step(dims_t dims, dims_t src, dims_t dst) {
    movement_step step{std::move(dims), step_side{std::move(src), {}, false},
                       step_side{std::move(dst), {}, false}};
    coalesce_step(step);
    return step;
}

// One step between two strided tensors of different dims, when a single
// strided copy can express it: in the output's dims (input viewable), in
// the input's dims (output viewable), or in their common refinement.
std::optional<movement_step> single_strided_step(const dims_t &in_dims, const dims_t &in_strides,
                                                 const dims_t &out_dims,
                                                 const dims_t &out_strides) {
    if (auto v = view_of(in_dims, in_strides, out_dims))
        return strided_step(out_dims, *v, out_strides);
    if (auto w = view_of(out_dims, out_strides, in_dims))
        return strided_step(in_dims, in_strides, *w);
    if (auto r = common_refinement(in_dims, out_dims)) {
        auto src = view_of(in_dims, in_strides, *r);
        auto dst = view_of(out_dims, out_strides, *r);
        // Splitting dims always gives a view; a refinement only splits.
        if (src && dst) return strided_step(*r, *src, *dst);
    }
    return std::nullopt;
}

// A tensor as the copy steps see it: strided over some dims, or (only for a
// blocked format with padding) the format over the tensor's own dims.
struct movable {
    dims_t dims;
    dims_t strides;
    std::string format;
};

// What a plan that is no alias says when no reason below applies: never
// empty (every lowering that moves data says why).
const char *const no_view_found = "no strided view of the input gives the output";

// "the output's strides X are not the view's strides Y", where X takes Y's
// stride at every size-1 dim: those address nothing (same_strided_layout
// ignores them), so the words do not depend on them.
std::string strides_differ(const dims_t &shape, const dims_t &out_strides, const dims_t &view) {
    dims_t shown = out_strides;
    for (std::size_t k = 0; k < shown.size() && k < view.size() && k < shape.size(); ++k)
        if (shape[k] == 1) shown[k] = view[k];
    return "the output's strides " + dims_to_string(shown) + " are not the view's strides " + dims_to_string(view);
}

// Why a plan that is not an alias is not one (for reports and verbose).
std::string why_not_alias(const logical_tensor &input, const dims_t &in_strides,
                          const logical_tensor &output, const dims_t &out_strides, bool out_any) {
    if (input.layout == layout_type::opaque)
        return "the input is in blocked format " + input.format.get() +
               "; only an output of the same dims in the same format (or layout any) views it";
    if (output.layout == layout_type::opaque)
        return "the output is in blocked format " + output.format.get() +
               ", which is no strided view of the strided input";
    const std::string reason = explain_view_failure(input.shape, in_strides, output.shape);
    if (!reason.empty()) return reason;
    if (out_any) return no_view_found; // unreachable: a view of an any output is taken
    return strides_differ(output.shape, out_strides, *view_of(input.shape, in_strides, output.shape));
}

movable movable_of(const logical_tensor &lt, const dims_t &strides) {
    if (lt.layout != layout_type::opaque) return {lt.shape, strides, {}};
    if (auto s = blocked_as_strided(parse_format_tag(lt.format, lt.shape.size()), lt.shape))
        return {std::move(s->first), std::move(s->second), {}};
    return {lt.shape, {}, lt.format};
}

// The two ends of a plan, checked: equal volumes, the input's layout is
// concrete and strides describe buffers. A strided output is reported with
// its strides, also when given as dense by omission; one whose layout
// nobody stated (undef) is the backend's to choose, as `any` is. Whether
// the output's elements share addresses is checked only once the plan
// writes it (check_no_overlap): an alias writes nothing, and a view of a
// broadcast input shares addresses as PyTorch's does.
struct plan_ends {
    bool in_strided = false;
    dims_t in_strides; // when in_strided
    bool out_any = false, out_opaque = false;
    dims_t out_strides; // when neither any nor opaque
};

plan_ends checked_ends(const logical_tensor &input, logical_tensor &output) {
    const auto volume = checked_volume(input.shape);
    if (!volume || checked_volume(output.shape) != volume)
        fail(rule::volume_mismatch, "input " + describe_tensor(input) + " and output " +
                                        describe_tensor(output) +
                                        " must have the same volume");
    plan_ends e;
    e.in_strided = reads_as_strided(input.layout);
    if (!e.in_strided && input.layout != layout_type::opaque)
        fail(rule::concrete_input_layout,
             "input " + describe_tensor(input) + " must have a concrete layout, got " +
                 std::string(to_string(input.layout)));
    if (e.in_strided) e.in_strides = checked_strides(input, "input");
    e.out_any = output.layout == layout_type::any || output.layout == layout_type::undef;
    e.out_opaque = output.layout == layout_type::opaque;
    if (!e.out_any && !e.out_opaque) {
        e.out_strides = checked_strides(output, "output");
        output.layout = layout_type::strided;
        output.strides = e.out_strides;
    }
    return e;
}

} // namespace

std::optional<padded_boxes> padded_step_as_boxes(const movement_step &step) {
    if (step.src.opaque() == step.dst.opaque()) return std::nullopt;
    const bool blocked_src = step.src.opaque();
    const dims_t &plain_strides = blocked_src ? step.dst.strides : step.src.strides;
    if (plain_strides.size() != step.dims.size()) return std::nullopt;
    const blocked_format format = parse_format_tag((blocked_src ? step.src : step.dst).format, step.dims.size());
    return padded_as_boxes(step.dims, format, plain_strides,
                           blocked_src ? blocked_end::source : blocked_end::destination);
}

void coalesce_step(movement_step &step) {
    if (step.src.opaque() || step.dst.opaque()) return; // blocked formats need their own dims
    merge_contiguous_dims(step.dims, {&step.src.strides, &step.dst.strides});
}

namespace {

// plan_movement, and a chain without permutations (`steps`, when given):
// an output of layout any that views the input gets the strides PyTorch
// gives the chain step by step, where every step is a view (they differ
// from the view of the whole chain only in size-1 dims, which a framework's
// next op may still look at).
movement_plan plan_reshape(const logical_tensor &input, const logical_tensor &output, bool explain,
                           const std::vector<chain_step> *steps) {
    const dims_t &in_dims = input.shape;
    const dims_t &out_dims = output.shape;
    const auto volume = checked_volume(in_dims);

    movement_plan plan;
    plan.output = output;
    const plan_ends ends = checked_ends(input, plan.output);
    const bool in_strided = ends.in_strided, out_any = ends.out_any, out_opaque = ends.out_opaque;
    const dims_t &in_strides = ends.in_strides;
    dims_t out_strides = ends.out_strides;

    // Alias: the output is a view of the input buffer (of a broadcast
    // input too: its elements then share addresses, as in PyTorch).
    if (in_strided && !out_opaque) {
        auto v = view_of(in_dims, in_strides, out_dims);
        if (v && steps)
            if (auto stepwise = stepwise_view_strides(in_dims, in_strides, *steps)) v = std::move(stepwise);
        if (out_any) {
            if (v || *volume == 0) {
                plan.alias = true;
                plan.output.layout = layout_type::strided;
                plan.output.strides = v ? *v : dense_or_throw(out_dims);
                return plan;
            }
        } else if (*volume == 0 || (v && same_strided_layout(out_dims, *v, out_strides))) {
            plan.alias = true;
            plan.output.layout = layout_type::strided;
            plan.output.strides = out_strides;
            return plan;
        }
    }
    if (input.layout == layout_type::opaque && in_dims == out_dims &&
        (out_any || (out_opaque && output.format == input.format))) {
        plan.alias = true;
        plan.output.layout = layout_type::opaque;
        plan.output.format = input.format;
        plan.output.strides.clear();
        return plan;
    }

    if (explain) plan.why_not_alias = why_not_alias(input, in_strides, output, out_strides, out_any);
    if (out_any) {
        out_strides = dense_or_throw(out_dims);
        plan.output.layout = layout_type::strided;
        plan.output.strides = out_strides;
    } else if (!out_opaque) {
        check_no_overlap(plan.output, out_strides); // written: no two elements at one address
    }
    if (*volume == 0) return plan; // nothing to move

    // Blocked formats without padding are strided over finer dims, which
    // read in row-major order are the same elements: one machinery moves all.
    const movable in = movable_of(input, in_strides);
    const movable out = movable_of(plan.output, out_strides);
    const step_side in_side{in.strides, in.format, false};
    const step_side out_side{out.strides, out.format, false};

    if (in.format.empty() && out.format.empty()) {
        if (auto step = single_strided_step(in.dims, in.strides, out.dims, out.strides)) {
            plan.steps.push_back(std::move(*step));
            return plan;
        }
    } else if (out.format.empty()) {
        if (auto w = view_of(out.dims, out.strides, in.dims)) {
            plan.steps.push_back({in.dims, in_side, step_side{*w, {}, false}});
            return plan;
        }
    } else if (in.format.empty()) {
        if (auto v = view_of(in.dims, in.strides, out.dims)) {
            plan.steps.push_back({out.dims, step_side{*v, {}, false}, out_side});
            return plan;
        }
    } else if (in.dims == out.dims) { // one padded format to another
        plan.steps.push_back({in.dims, in_side, out_side});
        return plan;
    }

    // No single step: through a dense temporary, which is a view in both
    // the input's and the output's dims.
    plan.temporary_dims = in.dims;
    plan.temporaries = 1;
    const step_side temp_in{dense_or_throw(in.dims), {}, true};
    const step_side temp_out{dense_or_throw(out.dims), {}, true};
    movement_step first{in.dims, in_side, temp_in};
    movement_step second{out.dims, temp_out, out_side};
    coalesce_step(first);
    coalesce_step(second);
    plan.steps.push_back(std::move(first));
    plan.steps.push_back(std::move(second));
    return plan;
}

} // namespace

movement_plan plan_movement(const logical_tensor &input, const logical_tensor &output, bool explain) {
    return plan_reshape(input, output, explain, nullptr);
}

namespace {

// Where a segment of a chain reads from or writes to: the partition's
// buffer or a temporary, strided over some dims.
struct chain_end {
    dims_t dims;
    dims_t strides;
    bool temporary = false;
    std::size_t slot = 0;

    step_side side() const { return step_side{strides, {}, temporary, slot}; }
};

chain_end dense_temporary(const dims_t &dims, std::size_t slot) {
    return chain_end{dims, dense_or_throw(dims), true, slot};
}

// Why a chain does not view its input.
std::string why_chain_not_alias(const logical_tensor &input, bool through_temporary,
                                const std::vector<composed_view> &segments, const dims_t &g,
                                const dims_t &g_strides, const logical_tensor &output,
                                const dims_t &out_strides, bool out_any) {
    if (segments.size() > 1)
        return "the chain's dims do not nest in memory: a permutation moves the dims " +
               dims_to_string(segments[0].output_dims) + ", which cut across the view " +
               dims_to_string(segments[0].view_dims) + " strides " +
               dims_to_string(segments[0].view_strides) +
               " reached before it (no stride addresses them), so the data passes through " +
               std::to_string(segments.size() - 1) + " dense temporar" +
               (segments.size() == 2 ? "y" : "ies");
    if (through_temporary)
        return "the input is in blocked format " + input.format.get() +
               " with padding, which no strided view reads: it is reordered into a dense temporary first";
    if (output.layout == layout_type::opaque)
        return "the output is in blocked format " + output.format.get() +
               ", which is no strided view of the input";
    const std::string through = "the chain reads the input as " + dims_to_string(g) +
                                " strides " + dims_to_string(g_strides) + "; ";
    const std::string reason = explain_view_failure(g, g_strides, output.shape);
    if (!reason.empty()) return through + reason;
    if (out_any) return no_view_found; // unreachable: a view of an any output is taken
    return through + strides_differ(output.shape, out_strides, *view_of(g, g_strides, output.shape));
}

} // namespace

movement_plan plan_chain_movement(const logical_tensor &input, const std::vector<chain_step> &steps,
                                  const logical_tensor &output, bool explain) {
    const bool permutes = std::any_of(steps.begin(), steps.end(),
                                      [](const chain_step &s) { return !s.permutation.empty(); });
    const auto volume = checked_volume(input.shape);
    // Without a permutation the chain is one reshape; with nothing to move
    // only the shapes matter.
    if (!permutes || (volume && *volume == 0)) return plan_reshape(input, output, explain, &steps);

    movement_plan plan;
    plan.output = output;
    const plan_ends ends = checked_ends(input, plan.output);
    const bool out_any = ends.out_any, out_opaque = ends.out_opaque;
    const dims_t &in_strides = ends.in_strides;
    dims_t out_strides = ends.out_strides;

    // The input as strided dims: its own, a blocked format's finer dims, or
    // (padded blocked) a dense temporary of its dims after a first step.
    movable in = movable_of(input, in_strides);
    const bool in_blocked = !in.format.empty();
    chain_end source{std::move(in.dims), std::move(in.strides)};
    if (in_blocked) {
        source = dense_temporary(input.shape, 0);
        plan.steps.push_back({input.shape, step_side{{}, in.format, false}, source.side()});
        plan.temporaries = 1;
    }
    const std::vector<composed_view> segments = compose_chain(input.shape, source.dims, source.strides, steps);
    plan.temporary_dims = input.shape; // every temporary holds the whole tensor
    if (explain)
        for (const composed_view &view : segments)
            // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "..." + string.
            plan.composition.append(plan.composition.empty() ? "chain composed: " : " then ")
                .append(dims_to_string(view.input_dims))
                .append(" viewed as ")
                .append(dims_to_string(view.view_dims))
                .append(" strides ")
                .append(dims_to_string(view.view_strides))
                .append(" read as ")
                .append(dims_to_string(view.output_dims));

    // The last segment's view of its source, segment by segment; every
    // segment but the last ends in a temporary.
    dims_t g, g_strides;
    for (std::size_t k = 0; k < segments.size(); ++k) {
        const composed_view &view = segments[k];
        g = view.view_dims;
        g_strides = view.view_strides;
        if (k + 1 == segments.size()) break;
        const chain_end temp = dense_temporary(view.output_dims, source.temporary ? 1 - source.slot : 0);
        plan.steps.push_back(*single_strided_step(g, g_strides, temp.dims, temp.strides));
        plan.steps.back().src = step_side{plan.steps.back().src.strides, {}, source.temporary, source.slot};
        plan.steps.back().dst.temporary = true;
        plan.steps.back().dst.slot = temp.slot;
        plan.temporaries = std::max<std::size_t>(plan.temporaries, temp.slot + 1);
        source = temp;
    }

    // Alias: one segment over the partition's own buffer, viewed by the
    // output (a broadcast input's view shares addresses, as in PyTorch).
    // Every chain whose every step is a view is one (stepwise_view_strides);
    // an output of layout any gets PyTorch's strides for it.
    if (segments.size() == 1 && !source.temporary && !out_opaque) {
        auto v = view_of(g, g_strides, output.shape);
        if (v && ends.in_strided)
            if (auto stepwise = stepwise_view_strides(input.shape, in_strides, steps)) v = std::move(stepwise);
        if (out_any && v) {
            plan.alias = true;
            plan.output.layout = layout_type::strided;
            plan.output.strides = *v;
            return plan;
        }
        if (!out_any && v && same_strided_layout(output.shape, *v, out_strides)) {
            plan.alias = true;
            return plan;
        }
    }
    if (explain)
        plan.why_not_alias =
            why_chain_not_alias(input, source.temporary && segments.size() == 1, segments, g, g_strides,
                                output, out_strides, out_any);
    if (out_any) {
        out_strides = dense_or_throw(output.shape);
        plan.output.layout = layout_type::strided;
        plan.output.strides = out_strides;
    } else if (!out_opaque) {
        check_no_overlap(plan.output, out_strides); // written: no two elements at one address
    }

    // The last segment into the output: one strided step where one fits,
    // else through a dense temporary (a padded blocked output, or output
    // strides that cut across the permuted dims).
    const movable out = movable_of(plan.output, out_strides);
    const step_side src_side{{}, {}, source.temporary, source.slot};
    if (out.format.empty()) {
        if (auto step = single_strided_step(g, g_strides, out.dims, out.strides)) {
            step->src = step_side{step->src.strides, {}, source.temporary, source.slot};
            plan.steps.push_back(std::move(*step));
            return plan;
        }
    }
    const chain_end temp = dense_temporary(g, source.temporary ? 1 - source.slot : 0);
    movement_step to_temp = strided_step(g, g_strides, temp.strides);
    to_temp.src = step_side{to_temp.src.strides, {}, source.temporary, source.slot};
    to_temp.dst = step_side{to_temp.dst.strides, {}, true, temp.slot};
    plan.steps.push_back(std::move(to_temp));
    // Dense in the permuted dims is dense in the output's dims.
    if (out.format.empty()) {
        movement_step last = strided_step(out.dims, dense_or_throw(out.dims), out.strides);
        last.src.temporary = true;
        last.src.slot = temp.slot;
        plan.steps.push_back(std::move(last));
    } else {
        plan.steps.push_back({out.dims, step_side{dense_or_throw(out.dims), {}, true, temp.slot},
                              step_side{{}, out.format, false}});
    }
    plan.temporaries = std::max<std::size_t>(plan.temporaries, temp.slot + 1);
    return plan;
}

std::string describe(const movement_plan &plan) {
    if (plan.alias) {
        if (plan.output.layout == layout_type::opaque) return "view in format " + plan.output.format.get();
        return "view strides " + dims_to_string(plan.output.strides);
    }
    if (plan.steps.empty()) return "nothing to move (zero volume)";
    auto side = [](const step_side &s) {
        std::string text = s.opaque() ? s.format : dims_to_string(s.strides);
        if (!s.temporary) return text;
        return (s.slot == 0 ? "temporary " : "temporary " + std::to_string(s.slot + 1) + " ") + text;
    };
    std::string text;
    for (const auto &step : plan.steps) {
        if (!text.empty()) text += "; ";
        text += dims_to_string(step.dims) + " " + side(step.src) + " -> " + side(step.dst);
    }
    return text;
}

} // namespace reshaper::impl
