// Shape inference cases found by fuzzing (issue 9, fuzz_shape_inference).
#include <gtest/gtest.h>

#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"

using namespace reshaper::impl;

TEST(FuzzFindings, AGivenOutputCannotChangeTheVolumeWhenTheTargetComesAtExecute) {
    // ONNX Reshape-5 whose shape input has no values (and an unknown
    // length): the output given as [] (1 element) for data of 6 passed.
    graph g = read_graph_json(R"({"graph": [{"id": 0, "name": "r", "kind": "Reshape", "domain": "ai.onnx", "version": 5,
      "inputs": [{"id": 0, "dtype": "f16", "shape": [6], "layout_type": "strided", "property_type": "undef"},
                 {"id": 1, "dtype": "s64", "shape": [-1], "layout_type": "strided", "property_type": "undef"}],
      "outputs": [{"id": 2, "dtype": "f16", "shape": [], "layout_type": "strided", "property_type": "undef"}]}]})");
    try {
        infer_graph_shapes(g);
        FAIL() << "no error";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_shape);
        const std::string what = e.what();
        EXPECT_NE(what.find("output 0 is given as [] of 1 elements, but the input [6] has 6 [volume_mismatch]"),
                  std::string::npos)
            << what;
        ASSERT_TRUE(e.op().has_value());
        EXPECT_EQ(e.op()->name, "r");
    }
}

TEST(FuzzFindings, AnInferredShapeWhoseSizeOverflowsIsRefusedAsInAFile) {
    // Found by fuzz_builder: StaticReshape to [1, 2^63-1, 1, 1] over an
    // input of unknown dims inferred that shape, which a graph file cannot
    // hold (volume_fits), so the finalized graph's JSON did not read back.
    graph g = read_graph_json(R"({"graph": [{"id": 0, "name": "r", "kind": "StaticReshape",
      "attrs": {"shape": {"type": "s64[]", "value": [1, 9223372036854775807, 1, 1]},
                "special_zero": {"type": "bool", "value": 1}},
      "inputs": [{"id": 0, "dtype": "f32", "shape": [-1, -1], "layout_type": "strided", "property_type": "undef"}],
      "outputs": [{"id": 1, "dtype": "f32", "shape": [-1, -1, -1, -1], "layout_type": "strided",
                   "property_type": "undef"}]}]})");
    try {
        infer_graph_shapes(g);
        FAIL() << "no error; inferred " << dims_to_string(g.tensor(1).shape);
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_shape);
        const std::string what = e.what();
        EXPECT_NE(what.find("output 0 (tensor 1) gets shape [1,9223372036854775807,1,1] of f32, whose size in bits "
                            "overflows int64 [volume_fits]"),
                  std::string::npos)
            << what;
        ASSERT_TRUE(e.op().has_value());
        EXPECT_EQ(e.op()->name, "r");
    }
    // A shape that fits is still inferred (2^57 f32: 2^62 bits; no data is made).
    g.ops[0].attrs["shape"] = std::vector<std::int64_t>{1, std::int64_t{1} << 57, 1, 1};
    g.tensors[1].shape = {-1, -1, -1, -1};
    infer_graph_shapes(g);
    EXPECT_EQ(g.tensor(1).shape, (dims_t{1, std::int64_t{1} << 57, 1, 1}));
}
