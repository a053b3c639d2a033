// verify_op: the one generic check of an op against its schema's data.
#include <algorithm>
#include <utility>

#include "core/fail.hpp"
#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

// Every message: "<op label>: <subject>=<value> violates <rule>[ <detail>]
// (<expected>) [<rule>]", the detail naming the type variable of a
// type_constraint ("violates type_constraint T (allowed: ...)").
[[noreturn]] void violation(rule r, const op_schema &schema, const op &o, const std::string &subject,
                            const std::string &expected, const std::string &detail = {}) {
    fail(r,
         op_label(o, &schema) + ": " + subject + " violates " + std::string(to_string(r)) +
             (detail.empty() ? "" : " " + detail) + " (" + expected + ")",
         o.ref());
}

std::string port_list(const std::vector<port_spec> &ports) {
    std::string s;
    for (const port_spec &p : ports)
        s += (s.empty() ? "" : ", ") + p.name + (p.required ? "" : "?");
    return s;
}

void check_count(const op_schema &schema, const op &o, bool ports_are_inputs,
                 const std::vector<port_spec> &ports, std::size_t given) {
    const auto required = static_cast<std::size_t>(
        std::count_if(ports.begin(), ports.end(), [](const port_spec &p) { return p.required; }));
    if (given >= required && given <= ports.size()) return;
    const std::string range = required == ports.size()
                                  ? std::to_string(required)
                                  : std::to_string(required) + " to " + std::to_string(ports.size());
    violation(ports_are_inputs ? rule::input_count : rule::output_count, schema, o,
              std::string(ports_are_inputs ? "input" : "output") + " count=" + std::to_string(given),
              "expects " + range + ": " + port_list(ports));
}

const type_constraint &constraint_of(const op_schema &schema, const std::string &type_var) {
    for (const type_constraint &c : schema.type_constraints)
        if (c.type_var == type_var) return c;
    fail(rule::internal_invariant, "schema " + schema.versioned_name() + " has no type constraint " +
             type_var);
}

// A type variable binds to the first known dtype among the op's ports (inputs
// first); every other port of that variable must have the same dtype.
class type_binder {
public:
    type_binder(const op_schema &schema, const op &o, const graph &g)
        : schema_(schema), op_(o), graph_(g) {}

    void check(const char *direction, const std::vector<port_spec> &ports,
               const tensor_ids &ids) {
        for (std::size_t i = 0; i < ids.size() && i < ports.size(); ++i) {
            const data_type t = graph_.tensor(ids[i]).dtype;
            if (t == data_type::undef) continue; // not known yet: inference sets it
            // Messages are built only on failure: this runs for every op.
            const binding here{&ports[i].type_var, t, direction, i, &ports[i].name};
            auto subject = [&] { return here.port() + " dtype=" + std::string(to_string(t)); };
            const type_constraint &c = constraint_of(schema_, ports[i].type_var);
            if (std::find(c.allowed.begin(), c.allowed.end(), t) == c.allowed.end())
                violation(rule::type_constraint, schema_, op_, subject(), "allowed: " + type_list(c.allowed),
                          c.type_var);
            auto bound = std::find_if(bindings_.begin(), bindings_.end(),
                                      [&](const binding &b) { return *b.type_var == c.type_var; });
            if (bound == bindings_.end())
                bindings_.push_back(here);
            else if (bound->type != t)
                violation(rule::type_constraint, schema_, op_, subject(),
                          c.type_var + " is " + std::string(to_string(bound->type)) + ", bound by " +
                              bound->port(),
                          c.type_var);
        }
    }

private:
    struct binding {
        const std::string *type_var;
        data_type type;
        const char *direction;
        std::size_t index;
        const std::string *name;

        std::string port() const {
            return std::string(direction) + " " + std::to_string(index) + " '" + *name + "'";
        }
    };
    const op_schema &schema_;
    const op &op_;
    const graph &graph_;
    std::vector<binding> bindings_; // a handful: a linear search beats a map
};

void check_range(const op_schema &schema, const op &o, const attribute_spec &spec,
                 const attribute_value &value) {
    if (!spec.min_value && !spec.max_value) return;
    auto outside = [&](std::int64_t v) {
        return (spec.min_value && v < *spec.min_value) || (spec.max_value && v > *spec.max_value);
    };
    if (const auto *v = std::get_if<std::int64_t>(&value); v && outside(*v))
        violation(rule::attr_value_range, schema, o, "attr " + spec.name + "=" + std::to_string(*v),
                  "values " + range_text(spec));
    if (const auto *list = std::get_if<std::vector<std::int64_t>>(&value))
        for (std::size_t i = 0; i < list->size(); ++i)
            if (outside((*list)[i]))
                violation(rule::attr_value_range, schema, o,
                          "attr " + spec.name + "[" + std::to_string(i) + "]=" + std::to_string((*list)[i]),
                          "values " + range_text(spec));
}

void check_attributes(const op_schema &schema, const op &o) {
    for (const auto &attr : o.attrs) {
        const std::string &name = attr.first; // not a structured binding: clang 14's
        const attribute_value &value = attr.second; // lambdas cannot capture those
        auto spec = std::find_if(schema.attributes.begin(), schema.attributes.end(),
                                 [&](const attribute_spec &a) { return a.name == name; });
        auto subject = [&] { return "attr " + name + "=" + attribute_to_string(value); };
        if (spec == schema.attributes.end()) {
            std::string defined;
            for (const attribute_spec &a : schema.attributes)
                defined += (defined.empty() ? "" : ", ") + a.name;
            violation(rule::unknown_attribute, schema, o, subject(),
                      schema.versioned_name() + " defines " +
                          (defined.empty() ? "no attributes" : "only " + defined));
        }
        if (kind_of(value) != spec->kind)
            violation(rule::attribute_kind, schema, o, subject(),
                      "expects " + std::string(to_string(spec->kind)) + ", got " +
                          std::string(to_string(kind_of(value))));
        check_range(schema, o, *spec, value);
    }
    for (const attribute_spec &a : schema.attributes)
        if (a.required && !o.attrs.count(a.name))
            violation(rule::required_attribute, schema, o, "attr " + a.name + "=<absent>",
                      "a " + std::string(to_string(a.kind)) + " value is required");
}

} // namespace

void verify_op(const op_schema &schema, const op &o, const graph &g) {
    check_count(schema, o, true, schema.inputs, o.inputs.size());
    check_count(schema, o, false, schema.outputs, o.outputs.size());
    type_binder types(schema, o, g);
    types.check("input", schema.inputs, o.inputs);
    types.check("output", schema.outputs, o.outputs);
    check_attributes(schema, o);
}

} // namespace reshaper::impl
