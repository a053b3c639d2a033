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

} // namespace

std::string describe_plan(const compiled_partition &cp) {
    std::string text(mover_of(cp.lowering()));
    if (!cp.inputs().empty() && !cp.outputs().empty())
        text += "; " + verbose_tensor(cp.inputs().at(cp.data_input_position())) + " -> " +
                verbose_tensor(cp.outputs().front());
    const std::string details = cp.lowering_details();
    if (!details.empty()) text += "; " + details;
    const std::string programs = cp.kernel_programs();
    if (!programs.empty()) text += "; kernel steps: " + programs;
    return text;
}

} // namespace reshaper::impl
