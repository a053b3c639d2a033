// docs/ops.md, generated from the registry so it cannot drift from the
// schemas (a test compares the two).
#include <algorithm>
#include <sstream>

#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

std::string zero_rule_text(const reshape_form &form) {
    if (form.zeros.attribute.empty()) return "a 0 always copies the input dim at its index";
    return "a 0 copies the input dim at its index when `" + form.zeros.attribute +
           "` is " + attribute_to_string(form.zeros.copy_when) +
           ", else it is a literal zero-size dim";
}

// One line on where the op's values come from and how the rule reads them.
std::string movement_text(const op_schema &schema) {
    const movement_form &form = *schema.movement;
    const bool required = std::any_of(schema.attributes.begin(), schema.attributes.end(),
                                      [&](const attribute_spec &a) {
                                          return a.name == form.values_attribute && a.required;
                                      });
    const std::string where = form.values_input
                                  ? "input " + std::to_string(*form.values_input) + " (1-D)"
                                  : "attribute `" + form.values_attribute + "`";
    const bool from_back = form.negatives == negative_axes::count_from_back;
    switch (form.kind) {
    case movement_kind::permute_axes:
        return "Permutation: " + where + ", through the permutation rule; " +
               (from_back ? "negative entries count from the back" : "negative entries are out of range") +
               (required ? "; empty reverses the axes." : "; absent or empty reverses the axes.");
    case movement_kind::remove_axes:
        return "Axes to remove: " + where + ", through the axes rule; " +
               (from_back ? "negative axes count from the back" : "negative axes are out of range") +
               "; absent" + (form.empty_values_are_absent ? " or empty" : "") +
               ": every size-1 dim" + (form.empty_values_are_absent ? "" : "; empty: none") + ".";
    case movement_kind::insert_axes:
        return "Axes to insert (positions in the output): " + where + ", through the axes rule; " +
               (from_back ? "negative axes count from the back of the output"
                          : "negative axes are out of range") +
               "; empty: none.";
    case movement_kind::flatten:
        return "Cut point: " + where + ", through the flatten rule; " +
               (from_back ? "a negative axis counts from the back" : "a negative axis is out of range") + ".";
    }
    return "";
}

void write_ports(std::ostream &out, const char *title, const std::vector<port_spec> &ports) {
    out << "\n" << title << ":\n\n| # | name | type | required | description |\n"
        << "|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < ports.size(); ++i)
        out << "| " << i << " | " << ports[i].name << " | " << ports[i].type_var << " | "
            << (ports[i].required ? "yes" : "no") << " | " << ports[i].doc << " |\n";
}

void write_schema(std::ostream &out, const op_schema &s) {
    out << "\n## " << s.versioned_name() << "\n\n"
        << "Domain: `" << (s.domain.empty() ? "\"\"" : s.domain) << "`, kind: `" << s.kind
        << "`, since version " << s.since_version << ".\n\n"
        << s.doc << "\n";
    if (s.reshape) {
        out << "\nTarget shape: "
            << (s.reshape->target_input
                    ? "input " + std::to_string(*s.reshape->target_input) +
                          (s.reshape->scalar_target_input ? " (1-D, or 0-D holding 1)" : " (1-D)")
                    : "attribute `" + s.reshape->target_attribute + "`")
            << "; " << zero_rule_text(*s.reshape) << ".\n";
    }
    if (s.movement) out << "\n" << movement_text(s) << "\n";
    write_ports(out, "Inputs", s.inputs);
    write_ports(out, "Outputs", s.outputs);
    out << "\nAttributes:";
    if (s.attributes.empty()) {
        out << " none.\n";
    } else {
        out << "\n\n| name | kind | required | default | range | description |\n"
            << "|---|---|---|---|---|---|\n";
        for (const attribute_spec &a : s.attributes)
            out << "| " << a.name << " | " << to_string(a.kind) << " | "
                << (a.required ? "yes" : "no") << " | "
                << (a.default_value ? attribute_to_string(*a.default_value) : "") << " | "
                << range_text(a) << " | " << a.doc << " |\n";
    }
    out << "\nType constraints:\n\n| type | allowed | description |\n|---|---|---|\n";
    for (const type_constraint &c : s.type_constraints)
        out << "| " << c.type_var << " | " << type_list(c.allowed) << " | " << c.doc << " |\n";
}

} // namespace

std::string generate_ops_markdown(const op_registry &registry) {
    std::ostringstream out;
    out << "# Operator schemas\n\n"
        << "Generated from the op registry by `reshaper-gen-ops-doc`; do not edit by hand.\n"
        << "Regenerate with `build/bin/reshaper-gen-ops-doc > docs/ops.md`.\n\n"
        << "The ops of the data-movement family, one rule per kind of transformation.\n\n"
        << "- Every reshape op resolves its target with the reshape rule: at most one -1 "
           "(`single_minus_one`), no value below -1 (`value_range`), a copied 0 needs an "
           "input dim at its index (`zero_index_in_rank`), literal zeros exclude -1 "
           "(`zero_with_minus_one`), -1 never stands beside a zero remaining volume "
           "(`ambiguous_minus_one`), input and output volumes are equal (else `volume_mismatch`), "
           "and no product overflows int64 (`overflow`).\n"
        << "- Every transpose resolves its order with the permutation rule: a non-empty order has "
           "one entry per input axis (`perm_length`), each names an axis (`axis_range`), none "
           "twice (`axis_duplicate`); an empty or absent one reverses the axes.\n"
        << "- Squeeze and Unsqueeze share the axes rule: every axis is in range (`axis_range`; "
           "Unsqueeze counts in the output's rank), none is named twice after negative ones are "
           "read from the back (`axis_duplicate`), a removed dim has size 1 (`squeeze_not_one`), "
           "and an axes input is 1-D (`axes_rank`).\n"
        << "- Flatten resolves through the flatten rule: the axis is in [0, r] (negative from "
           "version 11: [-r, r]; `axis_range`) and neither product overflows (`overflow`).\n\n"
        << "An output shape given in the graph must agree with the rule's result "
           "(`output_shape_match`). For `ai.onnx` the op's version is the opset (1 to "
        << newest_onnx_opset
        << ", the same bound for every kind): it selects the newest schema not newer than it.\n";
    for (const op_schema &s : registry.schemas()) write_schema(out, s);
    return out.str();
}

} // namespace reshaper::impl
