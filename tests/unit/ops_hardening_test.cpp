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
