// The stride of a dim of size 1 never addresses memory (issue 25): every
// real oneDNN graph of the corpus, with the stride of every size-1 dim
// changed in every place a tensor is described (each place to another
// value), must load, infer, partition and lower as the file itself does.
// Only the strides handed on keep what the file says (the producer's).
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/compiled_partition.hpp"
#include "backend_test_support.hpp"
#include "core/status.hpp"
#include "io/graph_json.hpp"
#include "ops/graph_inference.hpp"
#include "partition/partitioner.hpp"
#include "file_text_support.hpp"

namespace reshaper::impl::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

using reshaper::test::file_text;
using reshaper::test::json_files_below;

// The file with the stride of every size-1 dim of every tensor description
// (every op's inputs and outputs) set to another value per place; how many
// strides it changed.
std::size_t vary_unit_strides(json &file) {
    std::size_t changed = 0;
    dim_t next = 3;
    for (json &op : file.at("graph"))
        for (const char *side : {"inputs", "outputs"})
            for (json &lt : op.at(side)) {
                if (!lt.contains("stride") || !lt.contains("shape")) continue;
                json &stride = lt.at("stride");
                const json &shape = lt.at("shape");
                if (stride.size() != shape.size()) continue;
                for (std::size_t k = 0; k < shape.size(); ++k)
                    if (shape[k].get<dim_t>() == 1) {
                        stride[k] = next;
                        next = next * 7 % 1009 + 1; // a different stride at each place
                        ++changed;
                    }
            }
    return changed;
}

// Equal strides in every dim that addresses memory (written here, not
// same_strided_layout, which is what is under test).
void expect_same_layout(const logical_tensor &a, const logical_tensor &b) {
    EXPECT_EQ(a.dtype, b.dtype);
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.layout, b.layout);
    EXPECT_EQ(a.format, b.format);
    EXPECT_EQ(a.property, b.property);
    EXPECT_EQ(a.values, b.values);
    const auto sa = effective_strides(a), sb = effective_strides(b);
    ASSERT_EQ(sa.has_value(), sb.has_value());
    if (!sa) return;
    ASSERT_EQ(sa->size(), sb->size());
    for (std::size_t k = 0; k < sa->size(); ++k)
        if (a.shape[k] != 1) {
            EXPECT_EQ((*sa)[k], (*sb)[k]) << "dim " << k << " of tensor " << a.id;
        }
}

struct loaded {
    graph g;
    std::vector<partition> parts;
};

loaded load(const std::string &text) {
    loaded l;
    l.g = read_graph_json(text);
    const graph_topology topology = infer_graph_shapes(l.g);
    l.parts = get_partitions(l.g, topology, partition_policy::fusion, backend_claims(engine_kind::cpu));
    return l;
}

// Every file of `files` with its size-1 strides varied loads, partitions
// and lowers as itself (or fails as itself); counts what it compared.
struct variation_counts {
    std::size_t files = 0, strides = 0, lowered = 0;
};

void expect_variations_change_nothing(const std::vector<fs::path> &files, variation_counts &counts) {
    for (const fs::path &path : files) {
        SCOPED_TRACE(path.string());
        const std::string text = file_text(path);
        json varied;
        try {
            varied = json::parse(text);
        } catch (const json::exception &) {
            continue; // a test file of bad JSON
        }
        if (!varied.is_object() || !varied.contains("graph") || !varied.at("graph").is_array()) continue;
        std::size_t n = 0;
        try {
            n = vary_unit_strides(varied);
        } catch (const json::exception &) {
            continue; // a test file of a malformed graph: the loader's to refuse
        }
        if (n == 0) continue;
        loaded want;
        try {
            want = load(text);
        } catch (const error &e) {
            const error again = error_of([&] { load(varied.dump()); });
            EXPECT_EQ(again.code(), e.code()) << again.what() << " / " << e.what();
            continue;
        }
        counts.strides += n;
        ++counts.files;
        loaded got;
        ASSERT_NO_THROW(got = load(varied.dump())) << varied.dump().substr(0, 400);

        ASSERT_EQ(got.g.ops, want.g.ops);
        ASSERT_EQ(got.g.tensors.size(), want.g.tensors.size());
        for (const auto &[id, lt] : want.g.tensors) expect_same_layout(got.g.tensor(id), lt);

        ASSERT_EQ(got.parts.size(), want.parts.size());
        for (std::size_t k = 0; k < want.parts.size(); ++k) {
            const partition &a = got.parts[k], &b = want.parts[k];
            EXPECT_EQ(a.supported, b.supported);
            EXPECT_EQ(a.op_indices, b.op_indices);
            EXPECT_EQ(a.inputs, b.inputs);
            EXPECT_EQ(a.outputs, b.outputs);
            EXPECT_EQ(a.reason, b.reason);
            if (!b.supported) continue;
            std::shared_ptr<const compiled_partition> cb;
            try {
                cb = compile(want.g, b, {}, {}, cpu_engine());
            } catch (const error &e) { // e.g. shapes known only at execute
                EXPECT_EQ(error_of([&] { compile(got.g, a, {}, {}, cpu_engine()); }).code(), e.code());
                continue;
            }
            const auto ca = compile(got.g, a, {}, {}, cpu_engine());
            ++counts.lowered;
            EXPECT_EQ(ca->lowering(), cb->lowering());
            EXPECT_EQ(ca->inplace_pairs(), cb->inplace_pairs());
            EXPECT_EQ(ca->output_buffer_bytes(), cb->output_buffer_bytes());
            EXPECT_EQ(ca->why_not_alias(), cb->why_not_alias());
            ASSERT_EQ(ca->outputs().size(), cb->outputs().size());
            for (std::size_t o = 0; o < cb->outputs().size(); ++o)
                expect_same_layout(ca->outputs()[o], cb->outputs()[o]);
            // A copy's steps hold no size-1 dims: its words are the same too.
            if (cb->lowering() != lowering_kind::alias) {
                EXPECT_EQ(ca->lowering_details(), cb->lowering_details());
            }
        }
    }
}

TEST(CorpusStrides, TheStridesOfSizeOneDimsChangeNothing) {
    variation_counts corpus;
    expect_variations_change_nothing(json_files_below(fs::path(RESHAPER_SHARED_DIR) / "corpus" / "onednn-graph"), corpus);
    if (corpus.files == 0) GTEST_SKIP() << "no corpus";
    // The corpus has size-1 dims to vary in many files. Its data-movement
    // graphs have none: the examples and test graphs of data movement do.
    EXPECT_GT(corpus.files, 20u);
    EXPECT_GT(corpus.strides, 100u);
    variation_counts ours;
    for (const char *dir : {"examples", "tests/data/driver"})
        expect_variations_change_nothing(json_files_below(fs::path(RESHAPER_SOURCE_DIR) / dir), ours);
    EXPECT_GT(ours.lowered, 5u);
    std::printf("varied %zu strides in %zu corpus files and %zu in %zu of ours; compared %zu lowerings\n",
                corpus.strides, corpus.files, ours.strides, ours.files, corpus.lowered + ours.lowered);
}

// Issue 25: benchdnn's pattern/f32/matmul_select.json writes tensor 2 as
// [1,16,32,32] strides [1024,1024,32,1] where MatMul makes it and
// [16384,1024,32,1] where Select reads it. The same case (a file of our
// own, with a transpose and reshape reading it too) loads, keeps the
// producer's strides, and its data-movement chain views tensor 2.
TEST(CorpusStrides, ATensorDescribedWithOtherStridesInSizeOneDimsLoads) {
    const loaded l = load(file_text(fs::path(RESHAPER_SOURCE_DIR) / "tests/data/driver/size_one_strides.json"));
    EXPECT_EQ(l.g.tensor(2).strides, (dims_t{1024, 1024, 32, 1}));
    EXPECT_EQ(l.g.tensor(6).strides, (dims_t{1024, 9, 32, 1}));
    const partition *movement = nullptr;
    for (const partition &p : l.parts)
        if (p.supported) movement = &p;
    ASSERT_NE(movement, nullptr);
    const auto cp = compile(l.g, *movement, {}, {}, cpu_engine());
    EXPECT_EQ(cp->lowering(), lowering_kind::alias) << cp->why_not_alias();
    EXPECT_EQ(cp->outputs().at(0).strides, (dims_t{1024, 1}));

    // A stride that differs in a dim of size > 1 is still a conflict.
    std::string text = file_text(fs::path(RESHAPER_SOURCE_DIR) / "tests/data/driver/size_one_strides.json");
    const std::string select_view = R"("stride": [16384, 1024, 32, 1])";
    text.replace(text.find(select_view), select_view.size(), R"("stride": [16384, 1024, 33, 1])");
    const error e = error_of([&] { load(text); });
    EXPECT_EQ(e.code(), status::invalid_graph);
    EXPECT_NE(std::string(e.what()).find("[tensor_agreement]"), std::string::npos) << e.what();
}

// A tensor of no elements addresses no memory: any two stride lists of it
// describe one layout; the producer's stands.
TEST(CorpusStrides, AZeroVolumeTensorMayBeDescribedWithAnyStrides) {
    const std::string text = R"({"version": "3.3.0", "engine_kind": "cpu", "graph": [
      {"id": 0, "name": "r0", "kind": "StaticReshape",
       "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [4, 0]}},
       "inputs": [{"id": 0, "dtype": "f32", "shape": [0, 4], "stride": [4, 1], "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 1, "dtype": "f32", "shape": [4, 0], "stride": [5, 2], "layout_type": "strided", "property_type": "undef"}]},
      {"id": 1, "name": "r1", "kind": "StaticReshape",
       "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [0]}},
       "inputs": [{"id": 1, "dtype": "f32", "shape": [4, 0], "stride": [9, 3], "layout_type": "strided", "property_type": "undef"}],
       "outputs": [{"id": 2, "dtype": "f32", "shape": [0], "stride": [1], "layout_type": "strided", "property_type": "undef"}]}]})";
    const loaded l = load(text);
    EXPECT_EQ(l.g.tensor(1).strides, (dims_t{5, 2}));
    ASSERT_EQ(l.parts.size(), 1u);
    EXPECT_EQ(compile(l.g, l.parts[0], {}, {}, cpu_engine())->lowering(), lowering_kind::alias);
}

} // namespace
} // namespace reshaper::impl::testing
