// ONNX models built in tests with ONNX's protobuf classes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace onnx_test {

// A model under construction: opset 13 of the default domain.
struct model_builder {
    onnx::ModelProto m;

    explicit model_builder(std::int64_t opset = 13) {
        m.set_ir_version(8);
        auto *o = m.add_opset_import();
        o->set_domain("");
        o->set_version(opset);
        m.mutable_graph()->set_name("g");
    }
    // dims: >= 0 a value, -1 the symbolic dim `symbol`.
    void input(const std::string &name, int elem_type, const std::vector<std::int64_t> &dims,
               const std::string &symbol = "batch") {
        auto *vi = m.mutable_graph()->add_input();
        vi->set_name(name);
        auto *t = vi->mutable_type()->mutable_tensor_type();
        t->set_elem_type(elem_type);
        for (auto d : dims) {
            auto *dim = t->mutable_shape()->add_dim();
            if (d >= 0) dim->set_dim_value(d);
            else dim->set_dim_param(symbol);
        }
    }
    void output(const std::string &name) { m.mutable_graph()->add_output()->set_name(name); }
    void initializer(const std::string &name, const std::vector<std::int64_t> &values, bool scalar = false) {
        auto *t = m.mutable_graph()->add_initializer();
        fill(*t, values, scalar);
        t->set_name(name);
    }
    static void fill(onnx::TensorProto &t, const std::vector<std::int64_t> &values, bool scalar) {
        t.set_data_type(onnx::TensorProto::INT64);
        if (!scalar) t.add_dims(static_cast<std::int64_t>(values.size()));
        for (auto v : values) t.add_int64_data(v);
    }
    onnx::NodeProto &node(const std::string &kind, const std::vector<std::string> &inputs,
                          const std::vector<std::string> &outputs) {
        auto *n = m.mutable_graph()->add_node();
        n->set_op_type(kind);
        for (const auto &i : inputs) n->add_input(i);
        for (const auto &o : outputs) n->add_output(o);
        return *n;
    }
    void constant(const std::string &out, const std::vector<std::int64_t> &values, bool scalar = false) {
        auto *a = node("Constant", {}, {out}).add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        fill(*a->mutable_t(), values, scalar);
    }
    static void ints(onnx::NodeProto &n, const std::string &name, const std::vector<std::int64_t> &values) {
        auto *a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (auto v : values) a->add_ints(v);
    }
    static void integer(onnx::NodeProto &n, const std::string &name, std::int64_t value) {
        auto *a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(value);
    }
    std::string bytes() const { return m.SerializeAsString(); }
};

// torch.onnx.export's channel shuffle of x [batch, 8, 4, 4] in 2 groups:
// Reshape(x, [b, 2, c / 2, h, w]) with c / 2 as Div then Cast, Transpose,
// Reshape back to [b, -1, h, w] (ONNX 1.12's data propagation stops at Div
// and Cast, so the first Reshape's output has no rank after its inference).
inline model_builder channel_shuffle_model() {
    model_builder b;
    b.input("x", onnx::TensorProto::FLOAT, {-1, 8, 4, 4});
    b.node("Shape", {"x"}, {"s"});
    b.constant("i0", {0}, true);
    b.constant("i1", {1}, true);
    b.node("Gather", {"s", "i0"}, {"batch_dim"});
    b.node("Gather", {"s", "i1"}, {"channels"});
    b.constant("groups", {2}, true);
    b.node("Div", {"channels", "groups"}, {"per_group"});
    model_builder::integer(b.node("Cast", {"per_group"}, {"per_group64"}), "to", onnx::TensorProto::INT64);
    b.constant("axis0", {0});
    b.node("Unsqueeze", {"batch_dim", "axis0"}, {"b1"});
    b.node("Unsqueeze", {"per_group64", "axis0"}, {"c1"});
    b.constant("two", {2});
    b.constant("hw", {4, 4});
    model_builder::integer(b.node("Concat", {"b1", "two", "c1", "hw"}, {"shape5"}), "axis", 0);
    b.node("Reshape", {"x", "shape5"}, {"grouped"});
    model_builder::ints(b.node("Transpose", {"grouped"}, {"swapped"}), "perm", {0, 2, 1, 3, 4});
    b.constant("minus_one", {-1});
    model_builder::integer(b.node("Concat", {"b1", "minus_one", "hw"}, {"shape4"}), "axis", 0);
    b.node("Reshape", {"swapped", "shape4"}, {"y"});
    b.output("y");
    return b;
}

} // namespace onnx_test
