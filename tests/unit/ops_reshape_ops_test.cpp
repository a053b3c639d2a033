// Every named reshape case through every reshape op x version: the graph is
// validated and inferred as a whole, so the schema, the request adapter and
// the shared rule are all on the path.
#include <gtest/gtest.h>

#include "ops/graph_inference.hpp"
#include "ops_reshape_cases.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {
namespace {

struct op_case {
    reshape_variant variant;
    reshape_case c;
    zero_rule zeros;
};

void PrintTo(const op_case &p, std::ostream *os) {
    *os << p.variant.label << " " << p.c.name
        << (p.zeros == zero_rule::literal ? " literal" : " copy");
}

std::vector<op_case> op_cases() {
    std::vector<op_case> params;
    for (const reshape_variant &v : all_reshape_variants())
        for (const reshape_case &c : reshape_cases())
            for (zero_rule z : {zero_rule::copy_from_input, zero_rule::literal})
                if (applies(c, z) && supports(v, z) && values_fit(v, c.target))
                    params.push_back({v, c, z});
    return params;
}

std::string versioned_name(const reshape_variant &v) {
    return (v.domain.empty() ? "" : v.domain + ".") + v.kind + "-" + std::to_string(v.version);
}

class ReshapeOps : public ::testing::TestWithParam<op_case> {};

TEST_P(ReshapeOps, InferOrReportTheRule) {
    const auto &[v, c, zeros] = GetParam();
    graph g = make_reshape_graph(v, c.input, c.target, zeros);
    if (c.expected) {
        ASSERT_NO_THROW(infer_graph_shapes(g));
        EXPECT_EQ(g.tensor(output_id).shape, *c.expected);
        EXPECT_EQ(g.tensor(output_id).dtype, data_type::f32);
        return;
    }
    try {
        infer_graph_shapes(g);
        FAIL() << "inferred " << dims_to_string(g.tensor(output_id).shape);
    } catch (const error &e) {
        const std::string msg = e.what();
        EXPECT_EQ(e.code(), status::invalid_shape) << msg;
        EXPECT_EQ(msg.rfind("op 3 'Reshape_0' " + versioned_name(v) + ": ", 0), 0u) << msg;
        EXPECT_NE(msg.find(c.rule), std::string::npos) << msg;
        EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
        ASSERT_TRUE(e.op().has_value());
        EXPECT_EQ(e.op()->id, 3);
        EXPECT_EQ(e.op()->name, "Reshape_0");
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, ReshapeOps, ::testing::ValuesIn(op_cases()),
                         [](const auto &info) {
                             return info.param.variant.label + "_" + info.param.c.name +
                                    (info.param.zeros == zero_rule::literal ? "_literal"
                                                                            : "_copy");
                         });

// Every variant runs the seed case and at least one error case: the filter
// above must not silently drop a whole op or version.
TEST(ReshapeOpsCoverage, EveryVariantHasCases) {
    const auto params = op_cases();
    for (const reshape_variant &v : all_reshape_variants()) {
        std::size_t ok = 0, bad = 0;
        for (const op_case &p : params)
            if (p.variant.label == v.label) (p.c.expected ? ok : bad)++;
        EXPECT_GE(ok, 10u) << v.label;
        EXPECT_GE(bad, 8u) << v.label;
    }
}

} // namespace
} // namespace reshaper::impl::testing
