// Partitions of one form (partition_form_key) and a compiled partition under
// another partition's ids (renamed_partition): what the driver uses to
// compile each form of a large graph's partitions once.
#include "backend_test_support.hpp"

#include <cstring>
#include <vector>

#include "backend/compiled_partition_cache.hpp"
#include "backend/renamed_partition.hpp"

namespace reshaper::impl::testing {
namespace {

// [2,3,4] read through strides [1,2,6] (a permuted layout) reshaped to [6,4]:
// data moves. Input `first_id`, output first_id + 1, the op `op_id`.
graph permuted_chain(tensor_id first_id, std::int64_t op_id, data_type t = data_type::f32) {
    graph g = static_chain(strided_lt(first_id, t, {2, 3, 4}, {1, 2, 6}), {{6, 4}});
    g.ops[0].id = op_id;
    g.ops[0].name = "reshape_" + std::to_string(op_id);
    return g;
}

std::vector<float> run(const compiled_partition &cp, std::vector<float> input) {
    std::vector<float> out(24, -1.0f);
    cp.execute({input.data()}, {out.data()});
    return out;
}

TEST(backend_partition_form, partitions_that_differ_in_ids_and_names_only_share_a_form) {
    const graph g1 = permuted_chain(0, 0), g2 = permuted_chain(10, 7);
    std::vector<tensor_id> t1, t2;
    const std::string k1 = partition_form_key(g1, whole_graph(g1, 0), *cpu_engine(), &t1);
    const std::string k2 = partition_form_key(g2, whole_graph(g2, 5), *cpu_engine(), &t2);
    EXPECT_EQ(k1, k2);
    EXPECT_EQ(t1, (std::vector<tensor_id>{0, 1}));
    EXPECT_EQ(t2, (std::vector<tensor_id>{10, 11}));
    // Not across dtypes, attributes or strides.
    const graph bf16 = permuted_chain(10, 7, data_type::bf16);
    EXPECT_NE(k1, partition_form_key(bf16, whole_graph(bf16), *cpu_engine()));
    graph attr = permuted_chain(10, 7);
    attr.ops[0].attrs["shape"] = std::vector<std::int64_t>{6, -1};
    EXPECT_NE(k1, partition_form_key(attr, whole_graph(attr), *cpu_engine()));
    graph dense = permuted_chain(10, 7);
    dense.tensor(10).strides.clear();
    EXPECT_NE(k1, partition_form_key(dense, whole_graph(dense), *cpu_engine()));
}

TEST(backend_partition_form, a_renamed_partition_is_the_partitions_own_compile_under_its_ids) {
    const graph g1 = permuted_chain(0, 0), g2 = permuted_chain(10, 7);
    const partition p1 = whole_graph(g1, 0), p2 = whole_graph(g2, 5);
    std::vector<tensor_id> t1, t2;
    partition_form_key(g1, p1, *cpu_engine(), &t1);
    partition_form_key(g2, p2, *cpu_engine(), &t2);
    const auto own = compile(g2, p2, {}, {}, cpu_engine());
    int own_compiles = 0;
    const renamed_partition renamed(compile(g1, p1, {}, {}, cpu_engine()), t1, t2, [&] {
        ++own_compiles;
        return compile(g2, p2, {}, {}, cpu_engine());
    });
    ASSERT_EQ(renamed.inputs().size(), 1u);
    ASSERT_EQ(renamed.outputs().size(), 1u);
    EXPECT_EQ(renamed.inputs()[0].id, 10);
    EXPECT_EQ(renamed.outputs()[0].id, 11);
    EXPECT_EQ(renamed.outputs()[0].shape, own->outputs()[0].shape);
    EXPECT_EQ(renamed.outputs()[0].strides, own->outputs()[0].strides);
    EXPECT_EQ(renamed.lowering(), own->lowering());
    EXPECT_EQ(describe_plan(renamed), describe_plan(*own));
    EXPECT_EQ(renamed.why_not_alias(), own->why_not_alias());
    std::vector<float> input(24);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i);
    EXPECT_EQ(run(renamed, input), run(*own, input));
    EXPECT_EQ(own_compiles, 0);

    // A failing execute says this partition's words, not the shared one's.
    const std::vector<float> in(24);
    try {
        renamed.execute(std::vector<const void *>{in.data()}, std::vector<void *>{nullptr});
        FAIL() << "a null output buffer executed";
    } catch (const error &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("partition 5"), std::string::npos) << message;
        EXPECT_NE(message.find("output 11"), std::string::npos) << message;
    }
    EXPECT_EQ(own_compiles, 1);
}

} // namespace
} // namespace reshaper::impl::testing
