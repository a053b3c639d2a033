// describe_plan: a compiled partition's plan in words, for the reports.
#include "backend/compiled_partition.hpp"
#include "backend/verbose.hpp"

namespace reshaper::impl {

namespace {

std::string_view mover_of(lowering_kind k) {
    switch (k) {
    case lowering_kind::alias: return "alias: the output is a view of the input buffer";
    case lowering_kind::reorder: return "reorder by oneDNN reorder primitives";
    case lowering_kind::kernel: return "kernel: reshaper's strided copy";
    }
    return "kernel";
}

// The data input: the one whose volume the output has (shape inputs are 1-D
// integer tensors that only rarely share it; the first match is the data).
const logical_tensor &data_input(const compiled_partition &cp) {
    const auto out_volume = checked_volume(cp.outputs().front().shape);
    for (const logical_tensor &lt : cp.inputs())
        if (checked_volume(lt.shape) == out_volume) return lt;
    return cp.inputs().front();
}

} // namespace

std::string describe_plan(const compiled_partition &cp) {
    std::string text(mover_of(cp.lowering()));
    if (!cp.inputs().empty() && !cp.outputs().empty())
        text += "; " + verbose_tensor(data_input(cp)) + " -> " + verbose_tensor(cp.outputs().front());
    const std::string details = cp.lowering_details();
    if (!details.empty()) text += "; " + details;
    const std::string programs = cp.kernel_programs();
    if (!programs.empty()) text += "; kernel steps: " + programs;
    return text;
}

} // namespace reshaper::impl
