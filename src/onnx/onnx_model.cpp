#include "onnx/onnx_model.hpp"
#include "onnx/shape_folding.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "core/checked_math.hpp"
#include "core/fail.hpp"
#include "core/limits.hpp"
#include "ops/registry.hpp"

namespace reshaper::impl {
namespace {

using onnx_detail::encode;
using onnx_detail::find_attr;
using onnx_detail::infer_and_fold;
using onnx_detail::shape_of;
using onnx_detail::tensor_proto_dims;
using onnx_detail::types_by_name;
using onnx_detail::value_map;

[[noreturn]] void not_a_model(const std::string &source, const std::string &why) {
    fail(rule::onnx_model, source + " is not a valid ONNX model: " + why);
}

// ---- the graph --------------------------------------------------------------

void put_attribute(op &o, const onnx::AttributeProto &a) {
    using A = onnx::AttributeProto;
    A::AttributeType type = a.type();
    if (type == A::UNDEFINED) { // IR < 2 models leave it out
        if (a.has_i()) type = A::INT;
        else if (a.has_f()) type = A::FLOAT;
        else if (a.has_s()) type = A::STRING;
        else if (a.ints_size()) type = A::INTS;
        else if (a.floats_size()) type = A::FLOATS;
    }
    switch (type) {
    case A::INT: o.attrs[a.name()] = static_cast<std::int64_t>(a.i()); break;
    case A::INTS: o.attrs[a.name()] = std::vector<std::int64_t>(a.ints().begin(), a.ints().end()); break;
    case A::FLOAT: o.attrs[a.name()] = a.f(); break;
    case A::FLOATS: o.attrs[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end()); break;
    case A::STRING: o.attrs[a.name()] = a.s(); break;
    default: break; // tensors, graphs, ...: no op of this backend reads them
    }
}

std::int64_t default_opset(const onnx::ModelProto &m, const std::string &source) {
    for (const auto &o : m.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
    if (m.ir_version() < 3) return 1; // before opset imports: opset 1
    // A model of other domains only (ai.onnx.preview.training, ...) needs
    // none: its nodes keep their domain in their kind and are not claimed.
    for (const auto &n : m.graph().node())
        if (n.domain().empty() || n.domain() == "ai.onnx")
            not_a_model(source, "node '" + n.name() + "' (" + n.op_type() +
                                    ") is of the default domain, which the model imports no opset of");
    return 1;
}

// Binds the free dims everywhere a value_info names them; returns the
// symbolic dims of the inputs that stay unbound.
std::vector<std::string> bind_free_dims(onnx::ModelProto &m, const free_dim_bindings &free_dims,
                                        graph::load_warnings &warnings) {
    auto &g = *m.mutable_graph();
    std::set<std::string> initializers;
    for (const auto &init : g.initializer()) initializers.insert(init.name());
    std::set<std::string> unbound, named;
    for (const auto &in : g.input()) {
        if (initializers.count(in.name()) || !in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
            continue;
        int axis = 0;
        for (const auto &d : in.type().tensor_type().shape().dim()) {
            if (d.has_dim_param() && !d.dim_param().empty()) {
                named.insert(d.dim_param());
                if (!free_dims.count(d.dim_param())) unbound.insert(d.dim_param());
            } else if (!d.has_dim_value()) {
                unbound.insert("(unnamed dim " + std::to_string(axis) + " of input '" + in.name() + "')");
            }
            ++axis;
        }
    }
    for (const auto &[name, value] : free_dims)
        if (!named.count(name))
            warnings.push_back("--free-dim " + name + " names no symbolic dim of the model's inputs");
    for (auto *list : {g.mutable_input(), g.mutable_value_info(), g.mutable_output()})
        for (auto &vi : *list) {
            if (!vi.mutable_type()->has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
            for (auto &d : *vi.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
                if (!d.has_dim_param()) continue;
                const auto it = free_dims.find(d.dim_param());
                if (it != free_dims.end()) d.set_dim_value(it->second);
            }
        }
    return {unbound.begin(), unbound.end()};
}

class graph_builder {
public:
    // `model` after inference (its types), `nodes` its nodes as read.
    graph_builder(const onnx::ModelProto &model, const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
                  value_map values, std::int64_t opset)
        : model_(model), nodes_(nodes), types_(types_by_name(model.graph())), values_(std::move(values)),
          opset_(opset) {}

    graph build(graph g) {
        const auto &mg = model_.graph();
        for (const auto &in : mg.input()) id_of(in.name());
        for (const auto &init : mg.initializer()) {
            id_of(init.name());
            describe_proto(tensor(init.name()), init);
        }
        for (int i = 0; i < nodes_.size(); ++i) g.ops.push_back(node_op(nodes_.Get(i), i));
        // The ONNX graph's outputs are the graph's (consumed ones included,
        // which the partitioner then gives as partition outputs).
        std::vector<tensor_id> outputs;
        for (const auto &out : mg.output())
            if (ids_.count(out.name())) outputs.push_back(ids_.at(out.name()));
        g.output_ports = outputs;
        for (auto &[name, lt] : pending_) {
            if (!lt.rank_known) lt.shape.clear();
            g.tensors.emplace(lt.id, std::move(lt));
        }
        return g;
    }

private:
    tensor_id id_of(const std::string &name) {
        const auto [it, inserted] = ids_.emplace(name, static_cast<tensor_id>(ids_.size()));
        if (inserted) {
            logical_tensor lt;
            lt.id = it->second;
            describe_from_inference(lt, name);
            pending_.emplace(name, std::move(lt));
        }
        return it->second;
    }
    logical_tensor &tensor(const std::string &name) { return pending_.at(name); }

    void describe_from_inference(logical_tensor &lt, const std::string &name) {
        lt.layout = layout_type::strided;
        const auto it = types_.find(name);
        if (it != types_.end() && it->second->has_tensor_type()) {
            lt.dtype = dtype_of_onnx(it->second->tensor_type().elem_type()).value_or(data_type::undef);
            if (const auto shape = shape_of(*it->second)) lt.shape = *shape;
            else lt.rank_known = false;
        } else {
            lt.rank_known = false;
        }
        if (const auto v = values_.find(name); v != values_.end() && !lt.rank_known) {
            lt.shape = v->second.shape;
            lt.rank_known = true;
        }
    }

    static void describe_proto(logical_tensor &lt, const onnx::TensorProto &t) {
        lt.property = property_type::constant;
        if (const auto type = dtype_of_onnx(t.data_type())) lt.dtype = *type;
        if (const auto dims = tensor_proto_dims(t)) {
            lt.shape = *dims;
            lt.rank_known = true;
        }
    }

    op node_op(const onnx::NodeProto &n, int index) {
        op o;
        o.id = index;
        o.kind = n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type() : n.domain() + "." + n.op_type();
        o.name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
        o.domain = "ai.onnx";
        o.version = opset_;
        for (const auto &a : n.attribute()) put_attribute(o, a);
        for (const auto &in : n.input())
            if (!in.empty()) o.inputs.push_back(id_of(in));
        for (const auto &out : n.output())
            if (!out.empty()) o.outputs.push_back(id_of(out));
        if (n.op_type() == "Constant" && n.output_size() == 1) {
            logical_tensor &lt = tensor(n.output(0));
            lt.property = property_type::constant;
            if (const auto *a = find_attr(n, "value"); a && a->has_t()) describe_proto(lt, a->t());
        }
        // Values where an op of this backend reads them: its inputs besides
        // the data (a shape, axes), when known or folded.
        if (op_registry::instance().handles_kind(o.domain, o.kind))
            for (int i = 1; i < n.input_size(); ++i) {
                if (n.input(i).empty()) continue;
                const auto v = values_.find(n.input(i));
                if (v == values_.end()) continue;
                logical_tensor &lt = tensor(n.input(i));
                lt.values = encode(v->second);
                lt.dtype = v->second.type;
                lt.shape = v->second.shape;
                lt.rank_known = true;
                lt.property = property_type::constant;
            }
        return o;
    }

    const onnx::ModelProto &model_;
    const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes_;
    std::unordered_map<std::string, const onnx::TypeProto *> types_;
    value_map values_;
    std::int64_t opset_;
    std::unordered_map<std::string, tensor_id> ids_;
    std::map<std::string, logical_tensor> pending_;
};

} // namespace

std::optional<data_type> dtype_of_onnx(int elem_type) {
    using d = data_type;
    switch (elem_type) {
    case 1: return d::f32;
    case 2: return d::u8;
    case 3: return d::s8;
    case 4: return d::u16;
    case 5: return d::s16;
    case 6: return d::s32;
    case 7: return d::s64;
    case 8: return d::string;
    case 9: return d::boolean;
    case 10: return d::f16;
    case 11: return d::f64;
    case 12: return d::u32;
    case 13: return d::u64;
    case 14: return d::c64;
    case 15: return d::c128;
    case 16: return d::bf16;
    case 17: return d::f8_e4m3;
    case 18: return d::f8_e4m3fnuz;
    case 19: return d::f8_e5m2;
    case 20: return d::f8_e5m2fnuz;
    case 21: return d::u4;
    case 22: return d::s4;
    case 23: return d::f4_e2m1;
    case 24: return d::f8_e8m0;
    case 25: return d::u2;
    case 26: return d::s2;
    default: return std::nullopt;
    }
}

std::optional<tensor_values> tensor_proto_values(const onnx::TensorProto &t) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
    const auto type = dtype_of_onnx(t.data_type());
    const auto dims = tensor_proto_dims(t);
    if (!type || !dims) return std::nullopt;
    const auto count = static_cast<std::size_t>(*checked_volume(*dims));
    tensor_values v;
    v.type = *type;
    v.count = count;
    if (*type == data_type::string) {
        if (static_cast<std::size_t>(t.string_data_size()) != count) return std::nullopt;
        v.strings.assign(t.string_data().begin(), t.string_data().end());
        return v;
    }
    if (!checked_mul(static_cast<dim_t>(count), static_cast<dim_t>(element_bits(*type)))) return std::nullopt;
    const std::size_t bytes = dense_bytes(*type, count);
    if (t.has_raw_data()) {
        // ONNX's raw data is little-endian, packed types low nibble (pair) first: ours.
        if (t.raw_data().size() != bytes) return std::nullopt;
        v.bytes.assign(t.raw_data().begin(), t.raw_data().end());
        return v;
    }
    v.bytes.assign(bytes, 0);
    const std::size_t width = element_bits(*type) / 8;
    const auto copy_each = [&](const auto &field, std::size_t per_element) -> bool {
        if (static_cast<std::size_t>(field.size()) != count * per_element) return false;
        for (std::size_t i = 0; i < count * per_element; ++i) {
            // Each field element holds one element (or one part of a complex
            // one) of `width / per_element` bytes, little-endian.
            const auto value = field.Get(static_cast<int>(i));
            std::memcpy(v.bytes.data() + i * (width / per_element), &value, width / per_element);
        }
        return true;
    };
    bool ok = false;
    switch (*type) {
    case data_type::f32: ok = copy_each(t.float_data(), 1); break;
    case data_type::c64: ok = copy_each(t.float_data(), 2); break;
    case data_type::f64: ok = copy_each(t.double_data(), 1); break;
    case data_type::c128: ok = copy_each(t.double_data(), 2); break;
    case data_type::s64: ok = copy_each(t.int64_data(), 1); break;
    case data_type::u32: case data_type::u64: ok = copy_each(t.uint64_data(), 1); break;
    case data_type::s32: case data_type::s16: case data_type::u16: case data_type::s8: case data_type::u8:
    case data_type::boolean: case data_type::f16: case data_type::bf16: case data_type::f8_e4m3:
    case data_type::f8_e4m3fnuz: case data_type::f8_e5m2: case data_type::f8_e5m2fnuz: case data_type::f8_e8m0:
        ok = copy_each(t.int32_data(), 1);
        break;
    default: ok = false; // packed types come as raw data here
    }
    if (!ok) return std::nullopt;
    return v;
}

onnx_tensor read_onnx_tensor(std::string_view bytes) {
    onnx::TensorProto t;
    if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        fail(rule::onnx_model, "the bytes are no serialized ONNX TensorProto");
    const auto values = tensor_proto_values(t);
    const auto dims = tensor_proto_dims(t);
    if (!values || !dims)
        fail(rule::onnx_model, "ONNX tensor '" + t.name() + "' has no values this reader can hold");
    return onnx_tensor{*dims, *values};
}

bool is_onnx_path(std::string_view path) {
    constexpr std::string_view ext = ".onnx";
    return path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext;
}

namespace {

void check_free_dims(const free_dim_bindings &free_dims) {
    for (const auto &[name, value] : free_dims)
        if (value < 0 || name.empty())
            fail(rule::free_dim_value, "free dim '" + name + "' = " + std::to_string(value) +
                                           ": a binding names a symbolic dim and gives it a value >= 0");
}

onnx::ModelProto parse_model(std::string_view bytes, const std::string &source) {
    if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
        not_a_model(source, "protobuf reads at most 2 GiB");
    onnx::ModelProto model;
    if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        not_a_model(source, "its bytes do not parse as a protobuf ModelProto");
    return model;
}

// Inference runs on the model itself (a copy of a model's weights would
// double the memory of reading it); the nodes as read are kept for the graph.
onnx_import import_model(onnx::ModelProto &model, const free_dim_bindings &free_dims, const std::string &engine_kind,
                         const std::string &source) {
    if (model.ir_version() <= 0) not_a_model(source, "it has no ir_version");
    if (!model.has_graph()) not_a_model(source, "it has no graph");
    if (static_cast<std::size_t>(model.graph().node_size()) > current_limits().max_ops)
        fail(rule::max_ops, source + " has " + std::to_string(model.graph().node_size()) +
                                " nodes, more than RESHAPER_MAX_OPS (" +
                                std::to_string(current_limits().max_ops) + ")");
    const std::int64_t opset = default_opset(model, source);

    onnx_import result;
    result.g.engine_kind = engine_kind;
    result.unbound_dims = bind_free_dims(model, free_dims, result.g.warnings);
    const google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes = model.graph().node();
    value_map values = infer_and_fold(model, opset, source, result.g.warnings);
    graph_builder builder(model, nodes, std::move(values), opset);
    graph::load_warnings warnings = std::move(result.g.warnings);
    result.g = builder.build(std::move(result.g));
    result.g.warnings = std::move(warnings);
    return result;
}

} // namespace

onnx_import read_onnx_model(std::string_view bytes, const free_dim_bindings &free_dims,
                            const std::string &engine_kind, const std::string &source) {
    check_free_dims(free_dims);
    onnx::ModelProto model = parse_model(bytes, source);
    return import_model(model, free_dims, engine_kind, source);
}

onnx_import read_onnx_file(const std::string &path, const free_dim_bindings &free_dims,
                           const std::string &engine_kind) {
    check_free_dims(free_dims);
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(rule::file_readable, "cannot read ONNX model '" + path + "'");
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) fail(rule::file_readable, "cannot read ONNX model '" + path + "'");
    if (static_cast<std::uint64_t>(size) > current_limits().max_graph_bytes)
        fail(rule::max_graph_bytes, "ONNX model '" + path + "' has " + std::to_string(size) +
                                        " bytes, more than RESHAPER_MAX_GRAPH_BYTES");
    in.seekg(0);
    const std::string source = "'" + path + "'";
    if (static_cast<std::uint64_t>(size) > static_cast<std::uint64_t>(INT32_MAX))
        not_a_model(source, "protobuf reads at most 2 GiB");
    // Parsed from the stream: no copy of the file's bytes beside the model.
    onnx::ModelProto model;
    if (!model.ParseFromIstream(&in)) not_a_model(source, "its bytes do not parse as a protobuf ModelProto");
    return import_model(model, free_dims, engine_kind, source);
}

void require_bound_dims(const onnx_import &model, const std::string &what) {
    if (model.unbound_dims.empty()) return;
    std::string names;
    for (const auto &n : model.unbound_dims) names += (names.empty() ? "" : ", ") + n;
    fail(rule::free_dims_bound,
         what + " has symbolic dims no binding covers: " + names +
             "; bind each to run the model (--free-dim=NAME=VALUE, free_dims)");
}

} // namespace reshaper::impl
