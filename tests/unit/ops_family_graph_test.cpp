// A graph file mixing the family: inference runs through reshapes,
// transposes, squeezes, unsqueezes and flattens in topological order, each op
// checked against its own version.
#include <gtest/gtest.h>

#include "ops_movement_support.hpp"

namespace reshaper::impl::testing {
namespace {

std::string family_graph(std::int64_t squeeze_version, const std::string &last_output) {
    return R"({"graph": [
      {"id": 4, "name": "flat", "kind": "Flatten", "domain": "ai.onnx", "version": 28,
       "attrs": {"axis": {"type": "s64", "value": -1}},
       "inputs": [{"id": 13, "dtype": "f32", "shape": [-1, -1, -1], "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 14, "dtype": "f32", "shape": )" + last_output + R"(, "layout_type": "strided", "property_type": "undef"}]},
      {"id": 0, "name": "split", "kind": "Reshape", "domain": "ai.onnx", "version": 25,
       "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 12, 5], "layout_type": "strided", "property_type": "undef"},
                  {"id": 1, "dtype": "s64", "shape": [4], "values": [0, 3, 4, -1], "layout_type": "strided", "property_type": "constant"}],
       "outputs": [{"id": 10, "dtype": "f32", "shape": [-1, -1, -1, -1], "layout_type": "strided", "property_type": "undef"}]},
      {"id": 1, "name": "heads", "kind": "StaticTranspose",
       "attrs": {"order": {"type": "s64[]", "value": [0, 2, -3, 3]}},
       "inputs": [{"id": 10, "dtype": "f32", "shape": [-1, -1, -1, -1], "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 11, "dtype": "f32", "shape": [-1, -1, -1, -1], "layout_type": "strided", "property_type": "undef"}]},
      {"id": 2, "name": "one", "kind": "Unsqueeze", "domain": "ai.onnx", "version": 11,
       "attrs": {"axes": {"type": "s64[]", "value": [-1]}},
       "inputs": [{"id": 11, "dtype": "f32", "shape": [-1, -1, -1, -1], "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 12, "dtype": "f32", "shape": [-1, -1, -1, -1, -1], "layout_type": "strided", "property_type": "undef"}]},
      {"id": 3, "name": "drop", "kind": "Squeeze", "domain": "ai.onnx", "version": )" +
           std::to_string(squeeze_version) + R"(,
       "attrs": {"axes": {"type": "s64[]", "value": [0, 4]}},
       "inputs": [{"id": 12, "dtype": "f32", "shape": [-1, -1, -1, -1, -1], "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 13, "dtype": "f32", "shape": [-1, -1, -1], "layout_type": "strided", "property_type": "undef"}]}]})";
}

TEST(FamilyGraph, InferenceRunsThroughEveryKind) {
    // [2,12,5] -> [2,3,4,5] -> [2,4,3,5] -> [2,4,3,5,1] -> squeeze 0 and 4 needs dim 0 == 1: error
    // first; with the batch of 1 below it runs to the end.
    graph bad = read_graph_json(family_graph(11, "[-1, -1]"));
    expect_rule([&] { infer_graph_shapes(bad); }, status::invalid_shape, "squeeze_not_one",
                "op 3 'drop' ai.onnx.Squeeze-11: axes [0,4] remove axis 0 of size 2");
    std::string text = family_graph(11, "[-1, -1]");
    text.replace(text.find("[2, 12, 5]"), 10, "[1, 12, 5]");
    graph g = read_graph_json(text);
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(10).shape, (dims_t{1, 3, 4, 5}));
    EXPECT_EQ(g.tensor(11).shape, (dims_t{1, 4, 3, 5}));
    EXPECT_EQ(g.tensor(12).shape, (dims_t{1, 4, 3, 5, 1}));
    EXPECT_EQ(g.tensor(13).shape, (dims_t{4, 3, 5}));
    EXPECT_EQ(g.tensor(14).shape, (dims_t{12, 5}));
    // Squeeze-13 takes its axes as an input: the attribute is unknown there.
    std::string v13 = family_graph(13, "[-1, -1]");
    v13.replace(v13.find("[2, 12, 5]"), 10, "[1, 12, 5]");
    graph g13 = read_graph_json(v13);
    expect_rule([&] { infer_graph_shapes(g13); }, status::invalid_graph_op, "unknown_attribute",
                "ai.onnx.Squeeze-13: attr axes=[0,4]");
    // A given output that disagrees at the end of the chain.
    std::string given = family_graph(11, "[5, 12]");
    given.replace(given.find("[2, 12, 5]"), 10, "[1, 12, 5]");
    graph gg = read_graph_json(given);
    expect_rule([&] { infer_graph_shapes(gg); }, status::invalid_shape, "output_shape_match",
                "op 4 'flat' ai.onnx.Flatten-25: output 0 is given as [5,12] but the flatten gives [12,5]");
}

} // namespace
} // namespace reshaper::impl::testing
