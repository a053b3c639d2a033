// RESHAPER_GRAPH_DUMP (contract, section 4): graphs built through the API
// with dumping on are written as graph files that never overwrite each other;
// reshaper-run replays each of them, and in check mode a partition file
// compiles to the lowering of the partition it was dumped from.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "command_output.hpp"
#include "reshaper/reshaper.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct run_result {
    int exit_code = -1;
    std::string out;
};

run_result run_driver(const std::string &args) {
    const std::string command = std::string(RESHAPER_RUN_PATH) + " " + args + " 2>/dev/null";
    run_result r;
    auto [exit_code, out] = reshaper::test::run_command(command);
    r.exit_code = exit_code;
    r.out = std::move(out);
    return r;
}

// A fresh dump directory with dumping switched on for this test only.
class GraphDump : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::path(::testing::TempDir()) /
              ("reshaper_dump_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        setenv("RESHAPER_GRAPH_DUMP_DIR", dir.c_str(), 1);
    }
    void TearDown() override {
        unsetenv("RESHAPER_GRAPH_DUMP");
        unsetenv("RESHAPER_GRAPH_DUMP_DIR");
    }
    std::vector<fs::path> files(const std::string &prefix) const {
        std::vector<fs::path> out;
        for (const auto &e : fs::directory_iterator(dir))
            if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
        std::sort(out.begin(), out.end());
        return out;
    }
    fs::path dir;
};

using reshaper::data_type;
using reshaper::layout_type;

// A chain with a permuted input (reorder), a split (alias) and an s4 flatten
// (kernel): every lowering.
reshaper::graph build_graph() {
    reshaper::graph g(reshaper::engine_kind::cpu);
    g.add_op(reshaper::op(0, "StaticReshape", "merge")
                 .add_input({0, data_type::f32, {2, 3, 4}, layout_type::strided, {4, 8, 1}})
                 .add_output({1, data_type::f32, {-1, -1}})
                 .set_attr("shape", std::vector<std::int64_t>{2, 12})
                 .set_attr("special_zero", false));
    g.add_op(reshaper::op(1, "StaticReshape", "split")
                 .add_input({10, data_type::f32, {6, 4}})
                 .add_output({11, data_type::f32, {-1, -1, -1}})
                 .set_attr("shape", std::vector<std::int64_t>{2, 3, 4})
                 .set_attr("special_zero", false));
    reshaper::logical_tensor shape{22, data_type::s64, {1}};
    shape.property = reshaper::property_type::constant;
    g.add_op(reshaper::op(2, "Reshape", "s4_flatten")
                 .set_domain("ai.onnx", 21)
                 .add_input({20, data_type::s4, {3, 5}, layout_type::strided, {1, 3}})
                 .add_input(shape)
                 .add_output({21, data_type::s4, {-1}}));
    g.set_tensor_values(22, std::vector<std::int64_t>{15});
    return g;
}

} // namespace

TEST_F(GraphDump, BuiltGraphsAndCompiledPartitionsReplayThroughTheDriver) {
    setenv("RESHAPER_GRAPH_DUMP", "graph,partition", 1);
    reshaper::graph g = build_graph();
    g.finalize();
    reshaper::engine eng(reshaper::engine_kind::cpu);
    std::map<std::size_t, std::string> lowering_of; // partition id -> lowering
    for (const auto &p : g.partitions()) {
        if (!p.is_supported()) continue;
        // Compiled with an `any` output: the dump holds the layout chosen.
        auto out = p.outputs().at(0);
        out.layout = layout_type::any;
        out.strides.clear();
        const auto cp = p.compile(eng, {}, {out});
        lowering_of[p.id()] = cp.lowering() == reshaper::lowering_kind::alias     ? "alias"
                              : cp.lowering() == reshaper::lowering_kind::reorder ? "reorder"
                                                                                  : "kernel";
    }
    unsetenv("RESHAPER_GRAPH_DUMP");
    ASSERT_EQ(lowering_of.size(), 3u);

    const auto graphs = files("reshaper_graph_");
    const auto partitions = files("reshaper_partition_");
    ASSERT_EQ(graphs.size(), 1u);
    ASSERT_EQ(partitions.size(), 3u);

    // The graph file: every partition claimed, checked bit-exactly.
    const auto whole = run_driver("--mode=check --report=json " + graphs[0].string());
    EXPECT_EQ(whole.exit_code, 0) << whole.out;
    const json whole_report = json::parse(whole.out);
    EXPECT_EQ(whole_report.at("check").at("failed"), 0);
    EXPECT_EQ(whole_report.at("check").at("passed"), 3);

    std::set<std::string> seen;
    for (const auto &file : partitions) {
        std::ifstream in(file);
        const json dumped = json::parse(in);
        const std::size_t id = dumped.at("reshaper_partition").at("id");
        const std::string lowering = dumped.at("reshaper_partition").at("lowering");
        EXPECT_EQ(lowering, lowering_of.at(id)) << file;
        for (const char *mode : {"infer", "check", "perf --reps=2"}) {
            const auto r = run_driver(std::string("--report=json --mode=") + mode + " " + file.string());
            EXPECT_EQ(r.exit_code, 0) << mode << " " << file << ": " << r.out;
            if (std::string(mode) != "check") continue;
            const json report = json::parse(r.out);
            ASSERT_EQ(report.at("partitions").size(), 1u) << r.out;
            EXPECT_EQ(report.at("partitions")[0].at("lowering"), lowering) << file << ": " << r.out;
            EXPECT_EQ(report.at("check").at("failed"), 0) << r.out;
        }
        seen.insert(lowering);
    }
    // An alias and data movement (reorder or kernel, as the mover choice goes).
    EXPECT_EQ(seen.count("alias"), 1u);
    EXPECT_GE(seen.size(), 2u);
}

TEST_F(GraphDump, DumpsNeverOverwriteAndFollowTheSwitch) {
    // Files already there under the names this process would take are kept.
    for (int n = 0; n < 8; ++n)
        std::ofstream(dir / ("reshaper_graph_" + std::to_string(getpid()) + "_" + std::to_string(n) + ".json"))
            << "keep";
    setenv("RESHAPER_GRAPH_DUMP", "graph", 1);
    build_graph().finalize();
    build_graph().finalize();
    // A file that is already there under the next names is kept.
    reshaper::graph::from_json(build_graph().to_json()).partitions(); // finalizes: a third dump
    auto g = build_graph();
    setenv("RESHAPER_GRAPH_DUMP", "partition", 1); // graphs no longer dumped
    g.finalize();
    unsetenv("RESHAPER_GRAPH_DUMP");
    build_graph().finalize();
    // build_graph().to_json() finalized one more graph while dumping was on.
    EXPECT_EQ(files("reshaper_graph_").size(), 8u + 4u);
    EXPECT_EQ(files("reshaper_partition_").size(), 0u);
    for (const auto &f : files("reshaper_graph_")) {
        std::ifstream in(f);
        std::string first;
        in >> first;
        if (first == "keep") continue;
        const auto r = run_driver("--mode=infer " + f.string());
        EXPECT_EQ(r.exit_code, 0) << f << ": " << r.out;
    }
}
