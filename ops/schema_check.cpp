// check_schema_table: the registry's rows checked once, when it is built, so
// that a row the verifier, the docs or read_movement_request would trip over
// stops every program at its first use of the registry, not at the first
// graph that happens to use that row.
#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

class row_checker {
public:
    explicit row_checker(const op_schema &s) : s_(s) {}

    void check() const {
        check_identity();
        check_ports(s_.inputs, "input");
        check_ports(s_.outputs, "output");
        check_type_constraints();
        check_attributes();
        if (!s_.infer_shapes) fail("has no infer_shapes function");
        if (s_.reshape.has_value() == s_.movement.has_value())
            fail("must set exactly one of reshape and movement (its member of the data-movement family)");
        if (s_.reshape) check_reshape_form();
        if (s_.movement) check_movement_form();
    }

private:
    [[noreturn]] void fail(const std::string &problem) const {
        throw std::logic_error("op schema table: " + s_.versioned_name() + " " + problem);
    }

    void check_identity() const {
        if (s_.kind.empty()) fail("has no kind");
        if (s_.domain != "" && s_.domain != "ai.onnx")
            fail("has domain '" + s_.domain + "'; the registry knows \"\" and ai.onnx");
        if (s_.since_version < 1) fail("has a version below 1");
        if (s_.domain == "ai.onnx" && s_.since_version > newest_onnx_opset)
            fail("is newer than newest_onnx_opset (" + std::to_string(newest_onnx_opset) +
                 "): raise that bound first");
        if (s_.doc.empty()) fail("has no doc");
    }

    void check_ports(const std::vector<port_spec> &ports, const std::string &direction) const {
        if (ports.empty()) fail("has no " + direction);
        std::set<std::string> names;
        bool optional_seen = false;
        for (std::size_t i = 0; i < ports.size(); ++i) {
            const port_spec &p = ports[i];
            const std::string port = direction + " " + std::to_string(i) + " '" + p.name + "'";
            if (p.name.empty()) fail(direction + " " + std::to_string(i) + " has no name");
            if (!names.insert(p.name).second) fail("names " + direction + " '" + p.name + "' twice");
            if (p.doc.empty()) fail(port + " has no doc");
            // Ports are matched by position: a missing optional port can only be a last one.
            if (optional_seen && p.required) fail(port + " is required after an optional one");
            optional_seen = optional_seen || !p.required;
            if (p.type_var.empty()) fail(port + " has no type variable");
            const auto constraints = std::count_if(
                s_.type_constraints.begin(), s_.type_constraints.end(),
                [&](const type_constraint &c) { return c.type_var == p.type_var; });
            if (constraints != 1)
                fail(port + " uses type variable " + p.type_var + ", which " +
                     (constraints == 0 ? "no type constraint defines" : "several type constraints define"));
        }
    }

    void check_type_constraints() const {
        for (const type_constraint &c : s_.type_constraints) {
            const std::string what = "type constraint " + c.type_var;
            if (c.allowed.empty()) fail(what + " allows no type");
            if (std::find(c.allowed.begin(), c.allowed.end(), data_type::undef) != c.allowed.end())
                fail(what + " allows undef");
            if (std::set<data_type>(c.allowed.begin(), c.allowed.end()).size() != c.allowed.size())
                fail(what + " lists a type twice");
            if (c.doc.empty()) fail(what + " has no doc");
            const auto used = [&](const std::vector<port_spec> &ports) {
                return std::any_of(ports.begin(), ports.end(),
                                   [&](const port_spec &p) { return p.type_var == c.type_var; });
            };
            if (!used(s_.inputs) && !used(s_.outputs)) fail(what + " is used by no port");
        }
    }

    void check_attributes() const {
        std::set<std::string> names;
        for (const attribute_spec &a : s_.attributes) {
            const std::string what = "attribute '" + a.name + "'";
            if (a.name.empty()) fail("has an attribute without a name");
            if (!names.insert(a.name).second) fail("defines " + what + " twice");
            if (static_cast<std::size_t>(a.kind) > static_cast<std::size_t>(attr_kind::string))
                fail(what + " has no valid kind");
            if (a.doc.empty()) fail(what + " has no doc");
            if (a.required && a.default_value) fail(what + " is required yet has a default");
            if (a.default_value && kind_of(*a.default_value) != a.kind)
                fail(what + " of kind " + std::string(to_string(a.kind)) + " has a default of kind " +
                     std::string(to_string(kind_of(*a.default_value))));
            const bool bounded = a.min_value || a.max_value;
            if (bounded && a.kind != attr_kind::s64 && a.kind != attr_kind::s64_list)
                fail(what + " of kind " + std::string(to_string(a.kind)) + " has integer bounds");
            if (a.min_value && a.max_value && *a.min_value > *a.max_value)
                fail(what + " has bounds " + range_text(a) + " that no value meets");
        }
    }

    const attribute_spec *attribute(const std::string &name) const {
        for (const attribute_spec &a : s_.attributes)
            if (a.name == name) return &a;
        return nullptr;
    }

    // The form's values: from an input that exists, or else from an
    // attribute of one of `kinds`, never both.
    void check_values_source(const std::string &form, const std::optional<std::size_t> &input,
                             const std::string &attribute_name,
                             std::initializer_list<attr_kind> kinds) const {
        if (input) {
            if (*input == 0 || *input >= s_.inputs.size())
                fail(form + " reads input " + std::to_string(*input) +
                     ", which is not one of its inputs after the data");
            if (!attribute_name.empty()) fail(form + " names both an input and an attribute");
            return;
        }
        const attribute_spec *a = attribute(attribute_name);
        if (!a) fail(form + " reads attribute '" + attribute_name + "', which it does not define");
        if (std::find(kinds.begin(), kinds.end(), a->kind) == kinds.end())
            fail(form + " reads attribute '" + attribute_name + "' of kind " +
                 std::string(to_string(a->kind)) + ", which it cannot");
    }

    void check_reshape_form() const {
        const reshape_form &f = *s_.reshape;
        check_values_source("reshape form", f.target_input, f.target_attribute, {attr_kind::s64_list});
        if (!f.zeros.attribute.empty()) {
            const attribute_spec *a = attribute(f.zeros.attribute);
            if (!a) fail("reshape form's zero rule reads attribute '" + f.zeros.attribute +
                         "', which it does not define");
            if (kind_of(f.zeros.copy_when) != a->kind)
                fail("reshape form's zero rule compares attribute '" + f.zeros.attribute +
                     "' with a value of another kind");
        }
    }

    void check_movement_form() const {
        const movement_form &f = *s_.movement;
        if (f.kind == movement_kind::flatten) {
            check_values_source("movement form", f.values_input, f.values_attribute, {attr_kind::s64});
            if (!attribute(f.values_attribute)->default_value)
                fail("movement form reads attribute '" + f.values_attribute +
                     "', which needs a default: the flatten rule needs its one value");
        } else {
            check_values_source("movement form", f.values_input, f.values_attribute,
                                {attr_kind::s64_list});
        }
        if (f.values_input && f.kind != movement_kind::remove_axes &&
            f.kind != movement_kind::insert_axes)
            fail("movement form reads an input, which only Squeeze and Unsqueeze do");
    }

    const op_schema &s_;
};

} // namespace

void check_schema_table(const std::vector<op_schema> &schemas) {
    std::set<std::tuple<std::string, std::string, int>> seen;
    for (const op_schema &s : schemas) {
        row_checker(s).check();
        if (!seen.emplace(s.domain, s.kind, s.since_version).second)
            throw std::logic_error("op schema table: " + s.versioned_name() + " is defined twice");
    }
}

} // namespace reshaper::impl
