// reshaper-run on ONNX models from the outside: every mode and the JSON
// report on .onnx files, --free-dim, unbound symbolic dims, files that are
// no model, and graph dumps of a model read back.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_output.hpp"
#include "onnx_test_models.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct driver_result {
    int exit_code = -1;
    std::string out;
    json report; // the first JSON line, with --report=json
};

driver_result run_driver(const std::string &args, const std::string &env = "") {
    const std::string command = env + std::string(RESHAPER_RUN_PATH) + " " + args + " 2>&1";
    driver_result r;
    auto [exit_code, out] = reshaper::test::run_command(command);
    r.exit_code = exit_code;
    r.out = std::move(out);
    const auto start = r.out.find('{');
    if (start != std::string::npos) r.report = json::parse(r.out.substr(start, r.out.find('\n', start) - start), nullptr, false);
    return r;
}

class OnnxDriver : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("reshaper_onnx_driver_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        shuffle_ = (dir_ / "shuffle.onnx").string();
        std::ofstream(shuffle_, std::ios::binary) << onnx_test::channel_shuffle_model().bytes();
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path dir_;
    std::string shuffle_;
};

bool claimed(const json &report, std::int64_t op) {
    for (const auto &p : report["partitions"])
        for (const auto &id : p["ops"])
            if (id == op) return p["supported"].get<bool>();
    return false;
}

} // namespace

TEST_F(OnnxDriver, ChecksABoundDynamicBatchModelInEveryModeWithTheReports) {
    for (const char *mode : {"infer", "check", "perf --reps=2"}) {
        SCOPED_TRACE(mode);
        const auto r = run_driver(std::string("--mode=") + mode + " --report=json --free-dim=batch=2 " + shuffle_);
        ASSERT_EQ(r.exit_code, 0) << r.out;
        ASSERT_EQ(r.report["status"], "ok") << r.out;
        for (std::int64_t op : {14, 15, 18}) EXPECT_TRUE(claimed(r.report, op)) << op;
        if (std::string(mode) == "check") {
            EXPECT_EQ(r.report["check"]["failed"], 0);
            EXPECT_GE(r.report["check"]["passed"], 1);
        }
        if (std::string(mode).rfind("perf", 0) == 0) {
            EXPECT_FALSE(r.report["perf"].empty());
        }
    }
    const auto text = run_driver("--free-dim=batch=2 " + shuffle_);
    EXPECT_EQ(text.exit_code, 0) << text.out;
    EXPECT_NE(text.out.find("summary: ok"), std::string::npos) << text.out;
}

TEST_F(OnnxDriver, UnboundSymbolicDimsExitTwoNamingThemInCheckAndPerfButNotInInfer) {
    for (const char *mode : {"check", "perf"}) {
        const auto r = run_driver(std::string("--mode=") + mode + " --report=json " + shuffle_);
        EXPECT_EQ(r.exit_code, 2) << r.out;
        EXPECT_EQ(r.report["error"]["rule"], "free_dims_bound") << r.out;
        EXPECT_NE(r.report["error"]["message"].get<std::string>().find("batch"), std::string::npos);
    }
    const auto r = run_driver("--mode=infer --report=json " + shuffle_);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    // Unknown rank: no scalar, and the reason given.
    bool unknown_rank_tensor = false;
    for (const auto &t : r.report["tensors"]) unknown_rank_tensor |= t.value("ndims", 0) == -1;
    EXPECT_TRUE(unknown_rank_tensor);
    EXPECT_FALSE(claimed(r.report, 14));
}

TEST_F(OnnxDriver, AFileThatIsNoModelIsInvalidGraphExitTwo) {
    const std::string bad = (dir_ / "bad.onnx").string();
    std::ofstream(bad) << "{\"this\": \"is JSON, not a model\"}";
    const auto r = run_driver("--report=json " + bad);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.report["error"]["code"], "invalid_graph");
    EXPECT_EQ(r.report["error"]["rule"], "onnx_model");
    const std::string empty = (dir_ / "empty.onnx").string();
    std::ofstream(empty).flush();
    EXPECT_EQ(run_driver(empty).exit_code, 2);
}

TEST_F(OnnxDriver, FreeDimOptionsAreCheckedAndListedInTheHelp) {
    for (const char *bad : {"--free-dim=batch", "--free-dim=batch=-1", "--free-dim==3", "--free-dim=batch=x"})
        EXPECT_EQ(run_driver(std::string(bad) + " " + shuffle_).exit_code, 2) << bad;
    const auto help = run_driver("--help");
    EXPECT_NE(help.out.find("--free-dim=NAME=VALUE"), std::string::npos);
    EXPECT_NE(help.out.find(".onnx"), std::string::npos);
}

TEST_F(OnnxDriver, AGraphDumpOfAModelReadsBackWithTheSamePartitions) {
    const fs::path dumps = dir_ / "dumps";
    fs::create_directories(dumps);
    const auto r = run_driver("--report=json --free-dim=batch=2 " + shuffle_,
                              "RESHAPER_GRAPH_DUMP=graph,partition RESHAPER_GRAPH_DUMP_DIR=" + dumps.string() + " ");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::size_t replayed = 0;
    for (const auto &entry : fs::directory_iterator(dumps)) {
        const auto again = run_driver("--report=json " + entry.path().string());
        EXPECT_EQ(again.exit_code, 0) << entry.path() << again.out;
        if (entry.path().filename().string().rfind("reshaper_graph_", 0) == 0) {
            EXPECT_EQ(again.report["partitions"].size(), r.report["partitions"].size());
        }
        ++replayed;
    }
    EXPECT_GE(replayed, 2u);
}
