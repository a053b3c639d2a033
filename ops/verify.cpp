// verify_op: the one generic check of an op against its schema's data.
#include <algorithm>
#include <utility>

#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

// Every message: "<op label>: <subject>=<value> violates <rule> (<expected>)".
[[noreturn]] void violation(status code, const op_schema &schema, const op &o,
                            const std::string &subject, const std::string &rule,
                            const std::string &expected) {
    // The id is the rule's first word ("type_constraint T" -> type_constraint).
    throw error(code, op_label(o, &schema) + ": " + subject + " violates " + rule + " (" +
                          expected + ")",
                o.ref(), std::string_view(rule).substr(0, rule.find(' ')));
}

std::string port_list(const std::vector<port_spec> &ports) {
    std::string s;
    for (const port_spec &p : ports)
        s += (s.empty() ? "" : ", ") + p.name + (p.required ? "" : "?");
    return s;
}

void check_count(const op_schema &schema, const op &o, const char *what,
                 const std::vector<port_spec> &ports, std::size_t given) {
    const auto required = static_cast<std::size_t>(
        std::count_if(ports.begin(), ports.end(), [](const port_spec &p) { return p.required; }));
    if (given >= required && given <= ports.size()) return;
    const std::string range = required == ports.size()
                                  ? std::to_string(required)
                                  : std::to_string(required) + " to " + std::to_string(ports.size());
    violation(status::invalid_graph_op, schema, o,
              std::string(what) + " count=" + std::to_string(given), std::string(what) + "_count",
              "expects " + range + ": " + port_list(ports));
}

const type_constraint &constraint_of(const op_schema &schema, const std::string &type_var) {
    for (const type_constraint &c : schema.type_constraints)
        if (c.type_var == type_var) return c;
    throw error(status::runtime_error,
                "schema " + schema.versioned_name() + " has no type constraint " + type_var);
}

// A type variable binds to the first known dtype among the op's ports (inputs
// first); every other port of that variable must have the same dtype.
class type_binder {
public:
    type_binder(const op_schema &schema, const op &o, const graph &g)
        : schema_(schema), op_(o), graph_(g) {}

    void check(const char *direction, const std::vector<port_spec> &ports,
               const std::vector<tensor_id> &ids) {
        for (std::size_t i = 0; i < ids.size() && i < ports.size(); ++i) {
            const data_type t = graph_.tensor(ids[i]).dtype;
            if (t == data_type::undef) continue; // not known yet: inference sets it
            // Messages are built only on failure: this runs for every op.
            const binding here{&ports[i].type_var, t, direction, i, &ports[i].name};
            auto subject = [&] { return here.port() + " dtype=" + std::string(to_string(t)); };
            const type_constraint &c = constraint_of(schema_, ports[i].type_var);
            if (std::find(c.allowed.begin(), c.allowed.end(), t) == c.allowed.end())
                violation(status::invalid_data_type, schema_, op_, subject(),
                          "type_constraint " + c.type_var, "allowed: " + type_list(c.allowed));
            auto bound = std::find_if(bindings_.begin(), bindings_.end(),
                                      [&](const binding &b) { return *b.type_var == c.type_var; });
            if (bound == bindings_.end())
                bindings_.push_back(here);
            else if (bound->type != t)
                violation(status::invalid_data_type, schema_, op_, subject(),
                          "type_constraint " + c.type_var,
                          c.type_var + " is " + std::string(to_string(bound->type)) +
                              ", bound by " + bound->port());
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
        violation(status::invalid_graph_op, schema, o,
                  "attr " + spec.name + "=" + std::to_string(*v), "attr_value_range", "values " + range_text(spec));
    if (const auto *list = std::get_if<std::vector<std::int64_t>>(&value))
        for (std::size_t i = 0; i < list->size(); ++i)
            if (outside((*list)[i]))
                violation(status::invalid_graph_op, schema, o,
                          "attr " + spec.name + "[" + std::to_string(i) +
                              "]=" + std::to_string((*list)[i]),
                          "attr_value_range", "values " + range_text(spec));
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
            violation(status::invalid_graph_op, schema, o, subject(), "unknown_attribute",
                      schema.versioned_name() + " defines " +
                          (defined.empty() ? "no attributes" : "only " + defined));
        }
        if (kind_of(value) != spec->kind)
            violation(status::invalid_graph_op, schema, o, subject(), "attribute_kind",
                      "expects " + std::string(to_string(spec->kind)) + ", got " +
                          std::string(to_string(kind_of(value))));
        check_range(schema, o, *spec, value);
    }
    for (const attribute_spec &a : schema.attributes)
        if (a.required && !o.attrs.count(a.name))
            violation(status::invalid_graph_op, schema, o, "attr " + a.name + "=<absent>",
                      "required_attribute",
                      "a " + std::string(to_string(a.kind)) + " value is required");
}

} // namespace

void verify_op(const op_schema &schema, const op &o, const graph &g) {
    check_count(schema, o, "input", schema.inputs, o.inputs.size());
    check_count(schema, o, "output", schema.outputs, o.outputs.size());
    type_binder types(schema, o, g);
    types.check("input", schema.inputs, o.inputs);
    types.check("output", schema.outputs, o.outputs);
    check_attributes(schema, o);
}

} // namespace reshaper::impl
