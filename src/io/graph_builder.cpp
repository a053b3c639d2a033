#include "io/graph_builder.hpp"
#include "core/fail.hpp"

#include <algorithm>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "io/attribute_json.hpp"
#include "io/tensor_json.hpp"

namespace reshaper::impl::graph_io {
namespace {

// The members read_op reads.
struct op_fields {
    std::optional<json_view> id, name, kind, domain, version, attrs, inputs, outputs;
};
constexpr json_view::member_slot<op_fields> op_members[] = {
        {"id", &op_fields::id},         {"name", &op_fields::name},     {"kind", &op_fields::kind},
        {"attrs", &op_fields::attrs},   {"inputs", &op_fields::inputs}, {"outputs", &op_fields::outputs},
        {"domain", &op_fields::domain}, {"version", &op_fields::version}};

op read_op(json_view j, std::size_t index, tensor_table &tensors) {
    const context at_index{context::form::op_at_index, {}, static_cast<std::int64_t>(index)};
    if (!j.is_object()) at_index.fail(rule::field_type, "must be an object, got " + excerpt(j));
    const auto fields = j.take_members(op_members);
    op o;
    o.id = as_id(require_field(fields.id, "id", at_index), "id", at_index);
    const context with_id{context::form::op_id, {}, o.id};
    if (const auto &f = fields.name) o.name = as_string(*f, "name", with_id);
    o.kind = as_string(require_field(fields.kind, "kind", with_id), "kind", with_id);
    const context ctx = context::of_op(o);

    if (const auto &f = fields.domain) o.domain = as_string(*f, "domain", ctx);
    if (const auto &f = fields.version) o.version = as_int(*f, "version", ctx);
    if (const auto &f = fields.attrs) {
        if (!f->is_object()) wrong_json_type(*f, "attrs", "an object", ctx);
        o.attrs.reserve(f->size()); // exactly: the op keeps the array as long as the graph
        f->for_each_member([&](std::string_view key, json_view value) {
            o.attrs[std::string(key)] = read_attribute(key, value, ctx);
        });
    }

    const auto read_side = [&](const std::optional<json_view> &found, const char *field, bool outputs,
                               tensor_ids &ids) {
        const json_view list = as_array(require_field(found, field, ctx), field, ctx);
        ids.reserve(list.size());
        std::unordered_set<tensor_id> listed; // of a long list of outputs
        constexpr std::size_t scan_limit = 16;
        const auto listed_before = [&](tensor_id id) {
            if (ids.size() < scan_limit) return std::find(ids.begin(), ids.end(), id) != ids.end();
            if (listed.empty()) listed.insert(ids.begin(), ids.end());
            return !listed.insert(id).second;
        };
        std::size_t i = 0;
        for (json_view e : list.elements()) {
            const context place = ctx.port(outputs, i++);
            logical_tensor lt = read_tensor(e, place);
            if (outputs && listed_before(lt.id))
                place.fail(rule::unique_outputs, "tensor " + std::to_string(lt.id) + " is listed twice among the outputs");
            ids.push_back(lt.id);
            tensors.add(std::move(lt), place);
        }
    };
    read_side(fields.inputs, "inputs", false, o.inputs);
    read_side(fields.outputs, "outputs", true, o.outputs);
    return o;
}

// Contract section 1: a port naming a tensor no op uses is ignored, with a
// warning (real benchdnn files have them).
std::vector<tensor_id> read_ports(json_view v, const char *field, const tensor_table &tensors,
                                  const context &ctx, std::vector<std::string> &warnings) {
    std::vector<tensor_id> ids;
    const json_view list = as_array(v, field, ctx);
    std::size_t i = 0;
    for (json_view e : list.elements()) {
        const std::string item = std::string(field) + "[" + std::to_string(i++) + "]";
        const tensor_id id = as_id(e, item, ctx);
        if (tensors.contains(id))
            ids.push_back(id);
        else
            warnings.push_back(with_rule_id(rule::port_tensor_exists,
                                            item + " names tensor " + std::to_string(id) + ", which no op uses: ignored"));
    }
    return ids;
}

// Memory running out as the error reading gives for it. (The tree is read
// through json_view, which has no throwing accessors: a JSON access the
// checks missed cannot throw as nlohmann's did.)
template <typename F>
auto reading(F &&f) {
    try {
        return f();
    } catch (const std::bad_alloc &) {
        fail(rule::memory_limit, "out of memory while reading the graph");
    }
}

} // namespace

void graph_builder::start() {
    ops_seen_ = 0;
    failure_ = nullptr;
    g_.ops.clear();
    tensors_ = tensor_table(g_.ops);
    op_ids_.clear();
    // Room for the ops and tensors a text of this size holds at twice
    // the usual density (an op of a graph file takes 300-400 bytes of
    // text, a tensor half of that): no growth by doubling, which held
    // the tensors twice over for a moment while the text was held too,
    // the peak of reading a large file. Room not filled is never
    // touched, so never resident.
    g_.ops.reserve(text_bytes_ / 150);
    tensors_.reserve(text_bytes_ / 75);
}


void graph_builder::add(json_view j) {
    const std::size_t index = ops_seen_++;
    // Past the limit or a bad op, the ops are only counted (the limit's
    // error names the count; the first error wins).
    if (failure_ || ops_seen_ > max_ops_) return;
    try {
        reading([&] {
            op o = read_op(j, index, tensors_);
            if (id_repeats(o.id))
                fail(rule::unique_op_id,
                            describe(o.ref()) + ": op id " + std::to_string(o.id) +
                                " is used twice",
                            o.ref());
            g_.ops.push_back(std::move(o));
            return 0;
        });
    } catch (...) {
        failure_ = std::current_exception();
    }
}


graph graph_builder::finish(json_view root, bool streamed) {
    return reading([&] {
        const context ctx = context::of("graph file");
        if (!root.is_object())
            ctx.fail(rule::top_level_object, std::string("must hold a JSON object, got ") + root.type_name());
        const json_view ops = as_array(require_field(root, "graph", ctx), "graph", ctx);
        if (!streamed) {
            start();
            for (json_view j : ops.elements()) add(j);
        }
        if (ops_seen_ > max_ops_)
            ctx.fail(rule::max_ops, "\"graph\" holds " + std::to_string(ops_seen_) + " ops, more than the limit of " +
                         std::to_string(max_ops_) + " (RESHAPER_MAX_OPS)");
        if (failure_) std::rethrow_exception(failure_);
        root.for_each_member([&](std::string_view key, json_view value) {
            if (key == "version") g_.version = as_string(value, key, ctx);
            else if (key == "engine_kind") g_.engine_kind = as_string(value, key, ctx);
            else if (key == "fpmath_mode") g_.fpmath_mode = as_string(value, key, ctx);
            else if (key == "input_ports")
                g_.input_ports = read_ports(value, "input_ports", tensors_, ctx, g_.warnings);
            else if (key == "output_ports")
                g_.output_ports = read_ports(value, "output_ports", tensors_, ctx, g_.warnings);
            else if (key != "graph") g_.extra_fields[std::string(key)] = dump(to_ojson(value));
        });
        g_.tensors = tensors_.take(g_.warnings);
        return std::move(g_);
    });
}


bool graph_builder::id_repeats(std::int64_t id) {
    if (op_ids_.empty()) {
        if (g_.ops.empty() || id > g_.ops.back().id) return false;
        for (const op &o : g_.ops) op_ids_.insert(o.id);
    }
    return !op_ids_.insert(id).second;
}


} // namespace reshaper::impl::graph_io
