// Writing graph files (io/graph_json.hpp), through nlohmann's ordered
// objects: fields in the order of oneDNN's files.
#include "io/graph_json.hpp"
#include "core/fail.hpp"

#include "core/limits.hpp"
#include "io/attribute_json.hpp"
#include "io/json_dom.hpp"
#include "io/json_fields.hpp"
#include "io/tensor_json.hpp"
#include "io/values_json.hpp"

namespace reshaper::impl {
namespace {

using namespace graph_io;

ojson op_to_ojson(const op &o, const graph &g) {
    ojson j = ojson::object();
    j["id"] = o.id;
    j["name"] = o.name;
    j["kind"] = o.kind;
    if (!o.domain.empty()) j["domain"] = o.domain;
    if (o.version) j["version"] = *o.version;
    ojson attrs = ojson::object();
    for (const auto &[name, value] : o.attrs) attrs[name] = attribute_to_json(value);
    j["attrs"] = std::move(attrs);
    const auto side = [&](const tensor_ids &ids) {
        ojson list = ojson::array();
        for (tensor_id id : ids) {
            auto it = g.tensors.find(id);
            if (it == g.tensors.end())
                fail(rule::tensor_exists,
                            describe(o.ref()) + " names tensor " + std::to_string(id) +
                                ", which the graph does not hold",
                            o.ref());
            list.push_back(tensor_to_ojson(it->second));
        }
        return list;
    };
    j["inputs"] = side(o.inputs);
    j["outputs"] = side(o.outputs);
    return j;
}

} // namespace

std::string write_graph_json(const graph &g, int indent) {
    ojson j = ojson::object();
    j["version"] = g.version;
    j["engine_kind"] = g.engine_kind;
    j["fpmath_mode"] = g.fpmath_mode;
    for (const auto &[key, text] : g.extra_fields) {
        // Our reader: nlohmann's own is quadratic in an object's keys.
        ojson value;
        try {
            value = parse_json(text, current_limits().max_json_depth);
        } catch (const error &) {
            fail(rule::json_syntax, "extra field " + in_quotes(key) + " holds invalid JSON text");
        }
        j[key] = std::move(value);
    }
    if (g.input_ports) j["input_ports"] = *g.input_ports;
    if (g.output_ports) j["output_ports"] = *g.output_ports;
    ojson ops = ojson::array();
    for (const op &o : g.ops) ops.push_back(op_to_ojson(o, g));
    j["graph"] = std::move(ops);
    return dump(j, indent < 0 ? -1 : indent);
}

nlohmann::json logical_tensor_to_json(const logical_tensor &lt) { return nlohmann::json(tensor_to_ojson(lt)); }

nlohmann::json values_to_json(const tensor_values &values) { return nlohmann::json(values_to_ojson(values)); }

} // namespace reshaper::impl
