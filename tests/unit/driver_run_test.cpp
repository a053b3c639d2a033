// reshaper-run from the outside: exit codes and the JSON report (contract,
// section 2), on bundled examples and small graphs under tests/data/driver.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "command_output.hpp"
#include "kernels/cpu_isa.hpp"
#include "file_text_support.hpp"

using nlohmann::json;

namespace {

struct driver_result {
    int exit_code = -1;
    std::string out;
    std::vector<json> reports; // one per line of stdout with --report=json
};

driver_result run_driver(const std::string &args, const std::string &env = "") {
    const std::string command = env + std::string(RESHAPER_RUN_PATH) + " " + args + " 2>/dev/null";
    driver_result r;
    auto [exit_code, out] = reshaper::test::run_command(command);
    r.exit_code = exit_code;
    r.out = std::move(out);
    std::size_t start = 0;
    while (start < r.out.size()) {
        const std::size_t end = r.out.find('\n', start);
        const std::string line = r.out.substr(start, end - start);
        if (!line.empty() && line[0] == '{') r.reports.push_back(json::parse(line));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return r;
}

std::string source(const std::string &rel) { return std::string(RESHAPER_SOURCE_DIR) + "/" + rel; }
std::string data(const std::string &name) { return source("tests/data/driver/" + name); }

const json *find_tensor(const json &report, std::int64_t id) {
    for (const json &t : report.at("tensors"))
        if (t.at("id") == id) return &t;
    return nullptr;
}

} // namespace

TEST(DriverInfer, AttentionExampleClaimsTheReshapesAndFusesTheChain) {
    const auto r = run_driver("--mode=infer --report=json " + source("examples/attention_reshapes.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    ASSERT_EQ(r.reports.size(), 1u);
    const json &rep = r.reports[0];
    EXPECT_EQ(rep.at("status"), "ok");
    int supported = 0;
    std::size_t claimed = 0;
    std::set<std::int64_t> covered;
    for (const json &p : rep.at("partitions")) {
        for (const json &id : p.at("ops")) EXPECT_TRUE(covered.insert(id.get<std::int64_t>()).second);
        if (!p.at("supported")) {
            // MatMul and SoftMax are no ops of ours.
            const std::string reason = p.at("reason").get<std::string>();
            EXPECT_NE(reason.find("not handled"), std::string::npos) << reason;
            continue;
        }
        ++supported;
        claimed += p.at("ops").size();
    }
    EXPECT_EQ(covered.size(), 16u); // every op exactly once
    // q (ONNX Reshape), k and v each with its transpose, and the merge
    // chain (transpose, reshape, reshape): all nine reshape/transpose ops.
    EXPECT_EQ(supported, 4);
    EXPECT_EQ(claimed, 9u);
    for (const json &t : rep.at("tensors"))
        for (const json &d : t.at("shape")) EXPECT_GE(d.get<std::int64_t>(), 0) << t.dump();
}

TEST(DriverInfer, DebugPolicyGivesOneOpPerPartition) {
    const auto r = run_driver("--mode=infer --policy=debug --report=json " +
                              source("examples/attention_reshapes.json"));
    ASSERT_EQ(r.exit_code, 0);
    for (const json &p : r.reports.at(0).at("partitions")) EXPECT_EQ(p.at("ops").size(), 1u);
    EXPECT_EQ(r.reports.at(0).at("partitions").size(), 16u);
}

TEST(DriverInfer, VolumeMismatchExitsTwoNamingTheOp) {
    const auto r = run_driver("--mode=infer --report=json " + data("volume_mismatch.json"));
    EXPECT_EQ(r.exit_code, 2);
    const json &rep = r.reports.at(0);
    EXPECT_EQ(rep.at("status"), "error");
    EXPECT_EQ(rep.at("error").at("code"), "invalid_shape");
    EXPECT_EQ(rep.at("error").at("op").at("id"), 7);
    EXPECT_EQ(rep.at("error").at("op").at("name"), "bad_reshape");
    EXPECT_NE(rep.at("error").at("message").get<std::string>().find("volume_mismatch"), std::string::npos);
    EXPECT_EQ(rep.at("error").at("rule"), "volume_mismatch");
}

TEST(DriverInfer, TruncatedAndMissingFilesExitTwo) {
    const std::string truncated = testing::TempDir() + "/truncated.json";
    FILE *f = fopen(truncated.c_str(), "w");
    fputs("{\"graph\": [", f);
    fclose(f);
    auto r = run_driver("--mode=infer --report=json " + truncated);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.reports.at(0).at("error").at("code"), "invalid_graph");
    r = run_driver("--mode=infer --report=json /nonexistent/graph.json");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.reports.at(0).at("error").at("code"), "invalid_arguments");
}

TEST(DriverInfer, WorstExitCodeWinsAcrossFiles) {
    const auto r = run_driver("--mode=infer --report=json " + data("unsupported_only.json") + " " +
                              data("volume_mismatch.json"));
    EXPECT_EQ(r.exit_code, 2);
    ASSERT_EQ(r.reports.size(), 2u);
    EXPECT_EQ(r.reports[0].at("status"), "ok");
    EXPECT_EQ(r.reports[1].at("status"), "error");
}

TEST(DriverInfer, AllUnsupportedGraphIsOk) {
    const auto r = run_driver("--mode=infer --report=json " + data("unsupported_only.json"));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.reports.at(0).at("partitions").at(0).at("supported"), false);
}

TEST(DriverInfer, BadOptionsExitTwo) {
    EXPECT_EQ(run_driver("--mode=fly " + data("unsupported_only.json")).exit_code, 2);
    EXPECT_EQ(run_driver("--reps=0 " + data("unsupported_only.json")).exit_code, 2);
    EXPECT_EQ(run_driver("--mode=infer").exit_code, 2);
}

TEST(DriverInfer, TextReportIsATableForPeople) {
    const auto r = run_driver("--mode=infer " + source("examples/attention_reshapes.json"));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("partitions (4 claimed by reshaper)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("StaticReshape -> "), std::string::npos) << r.out;
}

TEST(DriverCheck, ContractExampleAliasesInPlace) {
    const auto r = run_driver("--mode=check --report=json " + std::string(RESHAPER_SHARED_DIR) +
                              "/corpus/onednn-graph/f32/static_reshape.json");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    EXPECT_EQ(rep.at("check").at("passed"), 1);
    EXPECT_EQ(rep.at("check").at("failed"), 0);
    const json &p = rep.at("partitions").at(0);
    EXPECT_EQ(p.at("lowering"), "alias");
    EXPECT_EQ(p.at("inplace"), json::parse("[[0, 1]]"));
}

TEST(DriverCheck, ValuesFlowThroughAndAnyLayoutGetsTheChosenStrides) {
    const auto r = run_driver("--mode=check --report=json --values " + data("small_values.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    // Input [2,3] stored column-major (strides [1,2]) holds 1..6 row-major;
    // the output [3,2] row-major holds the same sequence.
    ASSERT_EQ(rep.at("outputs").size(), 1u);
    EXPECT_EQ(rep.at("outputs")[0].at("values"), json::parse("[1,2,3,4,5,6]"));
    const json *out = find_tensor(rep, 2);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->at("shape"), json::parse("[3,2]"));
    EXPECT_EQ(out->at("layout_type"), "strided");
    EXPECT_EQ(rep.at("partitions")[0].at("lowering"), "kernel"); // s64: not a oneDNN reorder type
}

TEST(DriverCheck, PermutedInputsAndPackedTypesUseKernels) {
    const auto r = run_driver("--mode=check --report=json " + data("permuted_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    EXPECT_EQ(rep.at("check").at("passed"), 2);
    EXPECT_EQ(rep.at("partitions")[0].at("lowering"), "kernel"); // f32: a tiled transpose
    EXPECT_EQ(rep.at("partitions")[1].at("lowering"), "kernel");
}

// Graph files carry any rank (the C API's RESHAPER_MAX_NDIMS of 12 bounds
// its logical-tensor struct, not the files): a rank-24 StaticTranspose of
// f32 (16 dims of 2, 8 of 1) and a rank-13 ONNX Transpose of c64 (dims of
// 2 and 4) move through the grouped transpose and match the reference.
TEST(DriverCheck, HighRankPermutationsTakeTheGroupedTranspose) {
    const auto r = run_driver("--mode=check --report=json " + data("high_rank_permutations.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    EXPECT_EQ(rep.at("check").at("passed"), 2);
    EXPECT_EQ(rep.at("check").at("failed"), 0);
    for (const json &part : rep.at("partitions")) {
        EXPECT_EQ(part.at("lowering"), "kernel");
        EXPECT_NE(part.at("plan").get<std::string>().find("(grouped transpose"), std::string::npos) << part.dump();
    }
}

TEST(DriverCheck, OnnxExampleChainsSqueezeUnsqueezeTransposeAndFlatten) {
    // Squeeze before the MatMul is a view; Unsqueeze -> Transpose -> Flatten
    // after it is one partition and one movement, checked against the
    // reference chain with the file's values (ids in the output order).
    const auto r = run_driver("--mode=check --report=json --values " +
                              source("examples/onnx_squeeze_matmul.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    EXPECT_EQ(rep.at("check").at("passed"), 2);
    const json &parts = rep.at("partitions");
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].at("ops"), json::parse("[0]"));
    EXPECT_EQ(parts[0].at("lowering"), "alias");
    EXPECT_FALSE(parts[1].at("supported"));
    EXPECT_EQ(parts[2].at("ops"), json::parse("[2,3,4]"));
    EXPECT_EQ(parts[2].at("lowering"), "kernel");
    const std::string plan = parts[2].at("plan");
    EXPECT_NE(plan.find("1 strided copy"), std::string::npos) << plan;
    EXPECT_NE(parts[2].at("why_not_alias").get<std::string>().find("the chain reads the input as [48,16]"),
              std::string::npos);
}

TEST(DriverCheck, AChainResultThatIsAlsoAGraphOutputIsProducedToo) {
    const auto r = run_driver("--mode=check --report=json --values " + data("chain_graph_output.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    const json &p = rep.at("partitions").at(0);
    EXPECT_EQ(p.at("ops"), json::parse("[0,1]"));
    ASSERT_EQ(p.at("outputs").size(), 2u);
    EXPECT_EQ(rep.at("check").at("passed"), 1);
    // [[0,1,2],[3,4,5]] transposed, then flattened: both results, as values.
    ASSERT_EQ(rep.at("outputs").size(), 2u);
    EXPECT_EQ(rep.at("outputs")[0].at("values"), json::parse("[0,3,1,4,2,5]"));
    EXPECT_EQ(rep.at("outputs")[1].at("values"), json::parse("[0,3,1,4,2,5]"));
    EXPECT_EQ(find_tensor(rep, 1)->at("shape"), json::parse("[3,2]"));
    EXPECT_EQ(find_tensor(rep, 2)->at("shape"), json::parse("[6]"));
}

// OpenVINO-style Reshape-1 on transposed 2-bit inputs: s2 with values
// (rows of 6 elements: not whole bytes, the element walk) and u2 with
// generated data (whole bytes: the packed transpose), both bit-exact
// against the reference.
TEST(DriverCheck, TwoBitTypesMoveBitExactly) {
    const std::string file = data("two_bit_transposed.json");
    const auto r = run_driver("--mode=check --report=json --values " + file);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &rep = r.reports.at(0);
    EXPECT_EQ(rep.at("check").at("passed"), 2);
    EXPECT_EQ(rep.at("check").at("failed"), 0);
    const json &parts = rep.at("partitions");
    ASSERT_EQ(parts.size(), 2u);
    for (const json &p : parts) EXPECT_EQ(p.at("lowering"), "kernel"); // oneDNN has no 2-bit type
    EXPECT_NE(parts[1].at("plan").get<std::string>().find("tiled packed transpose"), std::string::npos)
        << parts[1].at("plan");
    // The flattened s2 output holds the input's values in row-major order.
    std::ifstream in(file);
    const json graph = json::parse(in);
    const json &values = graph.at("graph")[0].at("inputs")[0].at("values");
    ASSERT_EQ(rep.at("outputs")[0].at("id"), 2);
    EXPECT_EQ(rep.at("outputs")[0].at("values"), values);
    EXPECT_EQ(find_tensor(rep, 2)->at("dtype"), "s2");
    EXPECT_EQ(find_tensor(rep, 5)->at("dtype"), "u2");
}

TEST(DriverCheck, EveryCorpusFileChecksAndItsTransposeIsAView) {
    // The real oneDNN files, all in one run: every claimed partition checks
    // bit-exactly (but the two 264 MB ones, which infer mode compiles:
    // benchdnn's static_transpose gives dst the permuted strides, a view).
    std::string files;
    int count = 0;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(
             std::string(RESHAPER_SHARED_DIR) + "/corpus/onednn-graph")) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".json" || name == "static_reshape.json" ||
            name == "static_transpose.json")
            continue;
        files += " " + entry.path().string();
        ++count;
    }
    if (count == 0) GTEST_SKIP() << "no corpus";
    const auto r = run_driver("--mode=check --report=json" + files);
    ASSERT_EQ(r.exit_code, 0) << r.out.substr(0, 2000);
    ASSERT_EQ(r.reports.size(), static_cast<std::size_t>(count));
    for (const json &rep : r.reports) {
        EXPECT_EQ(rep.at("status"), "ok") << rep.at("graph");
        if (rep.contains("check")) {
            EXPECT_EQ(rep.at("check").at("failed"), 0) << rep.at("graph");
        }
    }
    const auto transpose = run_driver("--mode=infer --report=json " + std::string(RESHAPER_SHARED_DIR) +
                                      "/corpus/onednn-graph/f32/static_transpose.json");
    ASSERT_EQ(transpose.exit_code, 0) << transpose.out;
    const json &p = transpose.reports.at(0).at("partitions").at(0);
    EXPECT_EQ(p.at("lowering"), "alias") << p.dump();
    EXPECT_EQ(p.at("inplace"), json::parse("[[0, 1]]"));
}

TEST(DriverCheck, GpuIsUnavailableHere) {
    const auto r = run_driver("--mode=check --engine=gpu --report=json " + data("permuted_input.json"));
    if (r.exit_code == 0) GTEST_SKIP() << "this machine has a GPU";
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.reports.at(0).at("error").at("code"), "unavailable");
}

TEST(DriverPerf, ReportsMedianTimesAndBandwidth) {
    const auto r = run_driver("--mode=perf --reps=3 --report=json " + data("permuted_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &perf = r.reports.at(0).at("perf");
    ASSERT_EQ(perf.size(), 2u);
    for (const json &p : perf) {
        EXPECT_GT(p.at("bytes").get<std::int64_t>(), 0);
        EXPECT_GE(p.at("ms").get<double>(), 0.0);
        EXPECT_FALSE(p.contains("inplace_ms")); // neither is an alias
        // The memcpy yardstick, timed in the same run.
        ASSERT_TRUE(p.contains("memcpy_gbps")) << p.dump();
        EXPECT_GT(p.at("memcpy_gbps").get<double>(), 0.0);
    }
    EXPECT_EQ(perf[0].at("bytes"), 4 * 60 * 2); // f32 [4,3,5] read + [4,15] written
}

TEST(DriverPerf, ReportsTimePerExecuteBatchesAndBothYardsticks) {
    const auto r = run_driver("--mode=perf --reps=3 --threads=2 --report=json " + data("permuted_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    for (const json &p : r.reports.at(0).at("perf")) {
        // Executes per timed sample: more than one where one is short
        // (perf_timing.hpp; the rule's own test is driver_perf_timing_test).
        ASSERT_TRUE(p.contains("batch")) << p.dump();
        EXPECT_GE(p.at("batch").get<std::int64_t>(), 1);
        ASSERT_TRUE(p.contains("stream_gbps")) << p.dump();
        EXPECT_GT(p.at("stream_gbps").get<double>(), 0.0);
        EXPECT_EQ(p.at("yardstick_threads"), 1); // a few hundred bytes: one piece
    }
    const json &threads = r.reports.at(0).at("perf_threads");
    EXPECT_EQ(threads.at("threads"), 2);
    EXPECT_GT(threads.at("cores").get<double>(), 0.0);

    const auto text = run_driver("--mode=perf --reps=3 " + data("permuted_input.json"));
    ASSERT_EQ(text.exit_code, 0) << text.out;
    EXPECT_NE(text.out.find(" ms per execute"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("streaming copy"), std::string::npos) << text.out;
}

TEST(DriverPerf, ReportsWhatTheKernelsCountedOnOfTheMachine) {
    const auto r = run_driver("--mode=perf --reps=2 --threads=1 --report=json " + data("permuted_input.json"),
                              "RESHAPER_MAX_CPU_ISA=scalar RESHAPER_KERNEL_TUNING=intel ");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const json &m = r.reports.at(0).at("perf_machine");
    EXPECT_EQ(m.at("isa"), "scalar");
    EXPECT_EQ(m.at("kernel_tuning"), "intel");
    const auto bytes = [&](const char *key) { return m.at(key).get<std::uint64_t>(); };
    // The thresholds as kernels/cpu_isa.hpp makes them from the caches read.
    EXPECT_GE(bytes("listed_last_level_cache_bytes"), bytes("last_level_cache_bytes"));
    EXPECT_GT(bytes("last_level_cache_bytes"), bytes("core_cache_bytes"));
    EXPECT_EQ(bytes("copy_streaming_bytes"), bytes("last_level_cache_bytes") / 3);
    EXPECT_EQ(bytes("transpose_streaming_bytes"), bytes("copy_streaming_bytes") / 2);
    EXPECT_EQ(bytes("last_level_walk_bytes"), 8 * bytes("core_cache_bytes"));

    const auto text = run_driver("--mode=perf --reps=2 --threads=1 " + data("permuted_input.json"),
                                 "RESHAPER_KERNEL_TUNING=amd ");
    ASSERT_EQ(text.exit_code, 0) << text.out;
    EXPECT_NE(text.out.find("(amd tuning), last-level cache " +
                            std::to_string(bytes("listed_last_level_cache_bytes")) + " bytes as listed"),
              std::string::npos)
        << text.out;
}

namespace {

// A one-op StaticReshape graph with the given op fields and input tensor fields.
std::string bad_graph(const std::string &op_fields, const std::string &input_fields) {
    return R"({"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "r", "kind": "StaticReshape", )" + op_fields + R"(
       "inputs": [{"id": 0, "dtype": "f32", )" + input_fields + R"(, "property_type": "undef"}],
       "outputs": [{"id": 1, "dtype": "f32", "shape": [-1, -1], "stride": [], "layout_type": "strided",
                    "property_type": "undef"}]}]})";
}

const std::string good_attrs =
    R"("attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [4, 6]}},)";
const std::string good_input = R"("shape": [2, 3, 4], "stride": [12, 4, 1], "layout_type": "strided")";

struct bad_case {
    const char *name;
    std::string text;
    const char *code;
    const char *message_part;
};

} // namespace

TEST(DriverInvalidInput, EveryModeExitsTwoWithTheRightCode) {
    const std::vector<bad_case> cases = {
        {"two_minus_one",
         bad_graph(R"("attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [-1, -1]}},)", good_input),
         "invalid_shape", "single_minus_one"},
        {"value_below_minus_one",
         bad_graph(R"("attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [-2, 12]}},)", good_input),
         "invalid_shape", "value_range"},
        {"missing_attribute", bad_graph(R"("attrs": {"shape": {"type": "s64[]", "value": [4, 6]}},)", good_input),
         "invalid_graph_op", "special_zero"},
        {"unknown_dtype", bad_graph(good_attrs, R"("shape": [2, 3, 4], "layout_type": "strided", "dtype": "float")"),
         "invalid_data_type", "float"},
        {"overflowing_input", bad_graph(good_attrs, R"("shape": [4611686018427387904, 4, 4], "layout_type": "strided")"),
         "invalid_shape", "overflow"},
        {"unknown_format_tag", bad_graph(good_attrs, R"("shape": [2, 3, 4], "layout_type": "opaque", "format": "zzz")"),
         "invalid_graph", "zzz"},
        {"not_json", "{\"graph\": [1, 2", "invalid_graph", "JSON"},
        {"undef_input_dtype",
         bad_graph(good_attrs, R"("shape": [2, 3, 4], "layout_type": "strided", "dtype": "undef")"),
         "invalid_data_type", "dtype undef"},
    };
    // error.rule: the id of the rule that failed, as listed in docs/rules.md.
    const std::map<std::string, std::string> expected_rule = {
        {"two_minus_one", "single_minus_one"}, {"value_below_minus_one", "value_range"},
        {"missing_attribute", "required_attribute"}, {"unknown_dtype", "known_dtype"},
        {"overflowing_input", "volume_fits"}, {"unknown_format_tag", "format_tag"},
        {"not_json", "json_syntax"}, {"undef_input_dtype", "input_dtype_known"}};
    for (const bad_case &c : cases) {
        const std::string path = testing::TempDir() + "/" + c.name + ".json";
        FILE *f = fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr);
        fputs(c.text.c_str(), f);
        fclose(f);
        for (const char *mode : {"infer", "check", "perf"}) {
            const auto r = run_driver(std::string("--report=json --mode=") + mode + " " + path);
            EXPECT_EQ(r.exit_code, 2) << c.name << " " << mode << ": " << r.out;
            ASSERT_EQ(r.reports.size(), 1u) << c.name << " " << mode;
            const json &err = r.reports[0].at("error");
            EXPECT_EQ(err.at("code"), c.code) << c.name << " " << mode;
            EXPECT_NE(err.at("message").get<std::string>().find(c.message_part), std::string::npos)
                << c.name << ": " << err.at("message");
            EXPECT_EQ(err.value("rule", ""), expected_rule.at(c.name)) << c.name << ": " << err;
        }
    }
}

TEST(DriverInfer, ReportsTheLoweringAndTheViewStridesOfAnAnyOutput) {
    // Rows 24 elements apart (a slice of a wider tensor): [2,3,4] -> [2,12]
    // is still a view, with strides [24,1].
    for (const char *mode : {"infer", "check"}) {
        const auto r = run_driver(std::string("--report=json --mode=") + mode + " " + data("sliced_view.json"));
        ASSERT_EQ(r.exit_code, 0) << r.out;
        const json &p = r.reports.at(0).at("partitions").at(0);
        EXPECT_EQ(p.at("lowering"), "alias") << mode;
        EXPECT_EQ(p.at("inplace"), json::parse("[[0, 1]]")) << mode;
        const json *out = find_tensor(r.reports[0], 1);
        ASSERT_NE(out, nullptr);
        EXPECT_EQ(out->at("shape"), json::parse("[2, 12]"));
        EXPECT_EQ(out->at("stride"), json::parse("[24, 1]")) << mode;
        EXPECT_EQ(out->at("layout_type"), "strided");
    }
}

TEST(DriverCheck, RunTimeShapeValuesInTheFileGiveCompileItsShapes) {
    // The shape input is a variable: infer knows only the rank; check mode
    // feeds the values and so compiles for [2,3,2].
    auto r = run_driver("--report=json --mode=infer " + data("dynamic_values.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(find_tensor(r.reports.at(0), 2)->at("shape"), json::parse("[-1, -1, -1]"));
    r = run_driver("--report=json --mode=check " + data("dynamic_values.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(find_tensor(r.reports.at(0), 2)->at("shape"), json::parse("[2, 3, 2]"));
    EXPECT_EQ(r.reports[0].at("check").at("passed"), 1);
    EXPECT_EQ(r.reports[0].at("partitions")[0].at("lowering"), "alias");
}

TEST(DriverCheck, AnUndefInputLayoutReadsAsStridedInEveryMode) {
    // Input [2,3] stored column-major with layout undef: infer and check agree
    // on the lowering, and the data moves as for a strided input.
    std::string lowering;
    for (const char *mode : {"infer", "check"}) {
        const auto r = run_driver(std::string("--report=json --values --mode=") + mode + " " +
                                  data("undef_input.json"));
        ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.out;
        const json &p = r.reports.at(0).at("partitions").at(0);
        if (lowering.empty()) lowering = p.at("lowering");
        EXPECT_EQ(p.at("lowering"), lowering) << mode;
    }
    const auto r = run_driver("--report=json --values --mode=check " + data("undef_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.reports.at(0).at("check").at("passed"), 1);
    EXPECT_EQ(r.reports.at(0).at("outputs").at(0).at("values"), json::parse("[1,2,3,4,5,6]"));
}

TEST(DriverCheck, TensorsBeyondTheMachinesMemoryBudgetAreRefusedBeforeAllocating) {
    // 15 GiB of u8: a check holds several copies of it, more than a machine
    // below ~180 GB has. The driver must refuse it by its budget (exit 3,
    // out_of_memory, naming the limit) instead of allocating until the
    // system kills it. The address-space limit keeps a driver that does try
    // from hurting the machine: it then fails with bad_alloc, without the
    // budget's message. (Sanitizer runtimes reserve more address space than
    // that limit allows; their allocator caps large allocations instead.)
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const std::string cap = "ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=6000 "
                            "TSAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=6000 ";
#else
    const std::string cap = "ulimit -v 6000000; ";
#endif
    const std::string path = testing::TempDir() + "/beyond_budget.json";
    FILE *f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs(R"({"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "big", "kind": "Reshape", "domain": "ai.onnx", "version": 21,
       "inputs": [{"id": 0, "dtype": "u8", "shape": [16106127360], "stride": [1],
                   "layout_type": "strided", "property_type": "undef"},
                  {"id": 1, "dtype": "s64", "shape": [2], "stride": [1], "layout_type": "strided",
                   "property_type": "constant", "values": [15, -1]}],
       "outputs": [{"id": 2, "dtype": "u8", "shape": [-1, -1], "stride": [],
                    "layout_type": "strided", "property_type": "undef"}]}]})",
          f);
    fclose(f);
    for (const char *mode : {"check", "perf"}) {
        const std::string command = cap + RESHAPER_RUN_PATH +
                                    " --report=json --mode=" + mode + " " + path + " 2>/dev/null";
        FILE *pipe = popen(command.c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        std::string out;
        std::array<char, 4096> buf;
        std::size_t n;
        while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
        const int status = pclose(pipe);
        ASSERT_TRUE(WIFEXITED(status)) << mode << ": " << out;
        EXPECT_EQ(WEXITSTATUS(status), 3) << mode << ": " << out;
        const json rep = json::parse(out.substr(0, out.find('\n')));
        EXPECT_EQ(rep.at("error").at("code"), "out_of_memory") << mode;
        EXPECT_NE(rep.at("error").at("message").get<std::string>().find("memory budget"),
                  std::string::npos)
            << rep.at("error").at("message");
    }
}

TEST(DriverCheck, AZeroDimensionalShapeInputWithoutValuesGetsTheValueOne) {
    // The shape input of [1,1] -> [] is 0-D and has no values: the driver
    // feeds the one value a 0-D shape input may hold, 1, in every executing
    // mode (it used to feed no value at all and read past it).
    for (const char *mode : {"check", "perf"}) {
        const auto r = run_driver(std::string("--report=json --values --reps=1 --mode=") + mode +
                                  " " + data("scalar_shape_input.json"));
        ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.out;
        ASSERT_EQ(r.reports.size(), 1u) << mode;
        EXPECT_EQ(r.reports[0].at("status"), "ok") << mode;
    }
    const auto r = run_driver("--report=json --values --mode=check " + data("scalar_shape_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.reports.at(0).at("check").at("passed"), 1);
    EXPECT_EQ(r.reports.at(0).at("outputs").at(0).at("values"), json::parse("[2.5]"));
}

TEST(DriverInfer, APartitionThatCannotCompileAsGivenStillInfers) {
    // An input of layout any has no memory to execute on: infer reports the
    // shapes without a lowering, check says what is missing.
    auto r = run_driver("--report=json --mode=infer " + data("any_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_FALSE(r.reports.at(0).at("partitions").at(0).contains("lowering"));
    EXPECT_EQ(find_tensor(r.reports[0], 1)->at("shape"), json::parse("[6]"));
    r = run_driver("--report=json --mode=check " + data("any_input.json"));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.reports.at(0).at("error").at("code"), "invalid_arguments");
}

// ---- issue 9: found by a hostile user -------------------------------------------

TEST(DriverCheck, ValuesABroadcastLayoutCannotHoldExitTwoNamingTheTensor) {
    // f32 [2,2] with strides [0,1]: both rows share one address, so values
    // [1,2,3,4] cannot be held (they used to be fed as [3,4,3,4]).
    for (const char *mode : {"check", "perf"}) {
        const auto r = run_driver(std::string("--report=json --reps=1 --mode=") + mode + " " +
                                  data("broadcast_values.json"));
        EXPECT_EQ(r.exit_code, 2) << mode << ": " << r.out;
        ASSERT_EQ(r.reports.size(), 1u);
        const json &err = r.reports[0].at("error");
        EXPECT_EQ(err.at("code"), "invalid_shape");
        const std::string message = err.at("message");
        EXPECT_NE(message.find("tensor 0 with shape [2,2] and strides [0,1] cannot hold its values"),
                  std::string::npos) << message;
        EXPECT_NE(message.find("[values_fit_layout]"), std::string::npos) << message;
    }
}

TEST(DriverCheck, ZeroVolumeOutputsWithHugeDimsPassEveryMode) {
    // [0,6] -> [2^32, 2^32, 0] (allowzero) holds 0 bytes; so does
    // [2^32, 2^32, 2^32, 0], whose dense strides overflow int64.
    for (const char *file : {"zero_volume_huge_dims.json", "zero_volume_overflowing_strides.json"})
        for (const char *mode : {"infer", "check", "perf"}) {
            const auto r = run_driver(std::string("--report=json --reps=1 --mode=") + mode + " " + data(file));
            EXPECT_EQ(r.exit_code, 0) << file << " " << mode << ": " << r.out;
        }
}

TEST(DriverInfer, BenchdnnFilesWithAStrayPortOrAConsumersOtherShapeLoadWithWarnings) {
    // Contract section 1: the producer's shape stands, the stray port is
    // ignored, and the report's "warnings" names both.
    for (const char *mode : {"infer", "check"}) {
        const auto r = run_driver(std::string("--report=json --mode=") + mode + " " + data("benchdnn_forgiven.json"));
        ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.out;
        const json &rep = r.reports.at(0);
        ASSERT_EQ(rep.at("warnings").size(), 2u) << rep.dump();
        const std::string all = rep.at("warnings").dump();
        EXPECT_NE(all.find("input_ports[1] names tensor 42"), std::string::npos) << all;
        EXPECT_NE(all.find("tensor 1 has shape [6]"), std::string::npos) << all;
        EXPECT_EQ(find_tensor(rep, 1)->at("shape"), json::parse("[6]"));
    }
    const auto text = run_driver(data("benchdnn_forgiven.json"));
    EXPECT_NE(text.out.find("warning: input_ports[1] names tensor 42"), std::string::npos) << text.out;
}

TEST(DriverCheck, TheTensorLimitIsLoweredByTheEnvironmentAndSaysWhatWasNeeded) {
    // 2^40 f32 elements: refused before allocating, saying how much.
    const std::string path = testing::TempDir() + "/huge_dim.json";
    FILE *f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs(R"({"graph": [{"id": 0, "name": "r", "kind": "StaticReshape",
      "attrs": {"special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": [-1]}},
      "inputs": [{"id": 0, "dtype": "f32", "shape": [1099511627776], "layout_type": "strided", "property_type": "undef"}],
      "outputs": [{"id": 1, "dtype": "f32", "shape": [-1], "layout_type": "strided", "property_type": "undef"}]}]})",
          f);
    fclose(f);
    auto r = run_driver("--report=json " + path);
    EXPECT_EQ(r.exit_code, 3) << r.out;
    std::string message = r.reports.at(0).at("error").at("message");
    EXPECT_NE(message.find("needs 4 TiB (4398046511104 bytes)"), std::string::npos) << message;

    r = run_driver("--report=json " + data("small_values.json"));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const std::string command = "RESHAPER_MAX_TENSOR_BYTES=40 " + std::string(RESHAPER_RUN_PATH) +
                                " --report=json " + data("small_values.json") + " 2>/dev/null";
    FILE *pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    const int status = pclose(pipe);
    EXPECT_EQ(WEXITSTATUS(status), 3) << out;
    message = json::parse(out.substr(0, out.find('\n'))).at("error").at("message");
    EXPECT_NE(message.find("needs 48 bytes, more than the driver's memory budget of 40 bytes"), std::string::npos)
        << message;
}

TEST(DriverInfer, HelpNamesEveryExitStatusWithOutOfMemory) {
    const auto r = run_driver("--help");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("3"), std::string::npos);
    EXPECT_NE(r.out.find("out_of_memory"), std::string::npos) << r.out;
}

TEST(DriverCheck, EverySupportedPartitionCarriesItsPlanAndWhyNotAlias) {
    // A permuted input: no view exists, so the reshape moves data.
    const auto r = run_driver("--report=json " + data("permuted_input.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    bool saw_copy = false;
    std::vector<std::string> whys;
    for (const json &p : r.reports.at(0).at("partitions")) {
        if (!p.at("supported")) continue;
        const std::string plan = p.at("plan");
        const std::string lowering = p.at("lowering");
        EXPECT_EQ(plan.rfind(lowering, 0), 0u) << "the plan starts with its lowering: " << plan;
        EXPECT_NE(plan.find("->"), std::string::npos) << plan;
        if (lowering == "alias") {
            EXPECT_FALSE(p.contains("why_not_alias")) << p;
            continue;
        }
        saw_copy = true;
        whys.push_back(p.at("why_not_alias"));
    }
    EXPECT_TRUE(saw_copy) << r.out;
    // Partition 0: [4,3,5] strides [1,20,4] -> [4,15] is a view, with other
    // strides than the dense output given; partition 1: [3,5] strides [1,3]
    // -> [15] is none.
    ASSERT_EQ(whys.size(), 2u);
    EXPECT_EQ(whys[0], "the output's strides [15,1] are not the view's strides [1,4]");
    EXPECT_EQ(whys[1], "output dim 0 (size 15) spans input dims 0 and 1, which are not contiguous: "
                       "input dim 0 has stride 1, a view needs 15");
}

TEST(DriverNewcomer, HelpPrintsTheUsageAndExitsZero) {
    for (const char *flag : {"--help", "-h"}) {
        const auto r = run_driver(flag);
        EXPECT_EQ(r.exit_code, 0) << flag;
        EXPECT_NE(r.out.find("usage: reshaper-run [options] GRAPH.json"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("--mode=check"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("exit status"), std::string::npos) << r.out;
    }
}

TEST(DriverNewcomer, VersionNamesTheLibraryAndOneDnn) {
    const auto r = run_driver("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("reshaper 0."), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("oneDNN "), std::string::npos) << r.out;
    // The kernels' SIMD level: the one this CPU has unless capped.
    const std::string detected(reshaper::impl::to_string(reshaper::impl::detected_cpu_isa()));
    EXPECT_NE(r.out.find("kernels " + detected + " (CPU: " + detected + ")"), std::string::npos) << r.out;
}

TEST(DriverNewcomer, TheTextReportEndsWithASummaryLine) {
    const auto r = run_driver(source("examples/attention_reshapes.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::string out = r.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    const std::string last = out.substr(out.rfind('\n') + 1);
    EXPECT_EQ(last.rfind("summary: ok, 11 partitions, 4 claimed, lowerings: 3 alias, 0 reorder, 1 "
                         "kernel, check: 4 passed, 0 failed, ", 0), 0u) << last;
    EXPECT_EQ(last.substr(last.size() - 3), " ms") << last;

    const auto bad = run_driver(data("volume_mismatch.json"));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.out.find("summary: error, "), std::string::npos) << bad.out;
}

TEST(DriverVerbose, VerboseFileTakesTheLinesInsteadOfStderr) {
    const std::string path = testing::TempDir() + "/driver_verbose.txt";
    std::remove(path.c_str());
    const std::string err = testing::TempDir() + "/driver_stderr.txt";
    const auto r = run_driver("--mode=check " + data("permuted_input.json") + " 2>" + err + " #",
                              "RESHAPER_VERBOSE=2 RESHAPER_VERBOSE_FILE=" + path + " ");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const std::string lines = reshaper::test::file_text(path);
    EXPECT_NE(lines.find("reshaper_verbose,partition,cpu,partition 0,op 0 'flatten_transposed' StaticReshape,claimed"),
              std::string::npos) << lines;
    EXPECT_NE(lines.find("reshaper_verbose,lowering,cpu,partition 1,kernel,no alias: output dim 0"),
              std::string::npos) << lines;
    EXPECT_NE(lines.find("reshaper_verbose,compile,cpu,partition 0,"), std::string::npos) << lines;
    const std::string err_text = reshaper::test::file_text(err);
    EXPECT_EQ(err_text.find("reshaper_verbose"), std::string::npos) << err_text;
}

// reshaper-run with RESHAPER_GRAPH_DUMP: the graph and every compiled
// partition are dumped; replayed, each partition file gives its lowering.
TEST(DriverDump, DumpedPartitionsReplayToTheirLowering) {
    const std::string dir = testing::TempDir() + "/driver_dump";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto r = run_driver("--report=json " + source("examples/attention_reshapes.json"),
                              "RESHAPER_GRAPH_DUMP=graph,partition RESHAPER_GRAPH_DUMP_DIR=" + dir + " ");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::map<std::int64_t, std::string> lowering_of;
    for (const json &p : r.reports.at(0).at("partitions"))
        if (p.at("supported")) lowering_of[p.at("id")] = p.at("lowering");
    std::size_t graphs = 0, partitions = 0;
    for (const auto &e : std::filesystem::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("reshaper_graph_", 0) == 0) {
            ++graphs;
            EXPECT_EQ(run_driver("--mode=infer " + e.path().string()).exit_code, 0) << name;
            continue;
        }
        ASSERT_EQ(name.rfind("reshaper_partition_", 0), 0u) << name;
        ++partitions;
        const auto replay = run_driver("--report=json " + e.path().string());
        ASSERT_EQ(replay.exit_code, 0) << name << ": " << replay.out;
        const json &rep = replay.reports.at(0);
        std::ifstream in(e.path());
        const std::int64_t id = json::parse(in).at("reshaper_partition").at("id");
        EXPECT_EQ(rep.at("partitions").at(0).at("lowering"), lowering_of.at(id)) << name;
        EXPECT_EQ(rep.at("check").at("failed"), 0) << name;
    }
    EXPECT_EQ(graphs, 1u);
    EXPECT_EQ(partitions, lowering_of.size());
}

namespace {

// A graph of `count` chains t(2k) -> transpose -> t(2k+1) -> reshape, where
// every third chain's transpose output also feeds a second reshape (so its
// transpose is a partition of its own, and the two reshapes read what its
// compile wrote: a later level); chain `big` moves a [100,100] tensor, the
// others [4,8].
std::string side_by_side_graph(int count, int big) {
    std::string ops;
    int op_id = 0, tensor_id = 0;
    const auto tensor = [](int id, const std::string &shape) {
        return R"({"id": )" + std::to_string(id) + R"(, "dtype": "f32", "shape": )" + shape +
               R"(, "layout_type": "strided", "property_type": "undef"})";
    };
    const auto op = [&](const std::string &kind, const std::string &attrs, const std::string &in,
                        const std::string &out) {
        if (!ops.empty()) ops += ",\n";
        ops += R"({"id": )" + std::to_string(op_id) + R"(, "name": "op)" + std::to_string(op_id) + R"(", "kind": ")" +
               kind + R"(", "attrs": {)" + attrs + R"(}, "inputs": [)" + in + R"(], "outputs": [)" + out + "]}";
        ++op_id;
    };
    const std::string order = R"("order": {"type": "s64[]", "value": [1, 0]})";
    const auto reshape_to = [](const std::string &shape) {
        return R"("special_zero": {"type": "bool", "value": 0}, "shape": {"type": "s64[]", "value": )" + shape + "}";
    };
    for (int k = 0; k < count; ++k) {
        const bool is_big = k == big;
        const std::string in_shape = is_big ? "[100, 200]" : "[4, 8]", t_shape = is_big ? "[200, 100]" : "[8, 4]";
        const std::string flat = is_big ? "[20000]" : "[32]";
        const int a = tensor_id++, b = tensor_id++;
        op("StaticTranspose", order, tensor(a, in_shape), tensor(b, t_shape));
        op("StaticReshape", reshape_to(flat), tensor(b, t_shape), tensor(tensor_id++, flat));
        if (k % 3 == 0) op("StaticReshape", reshape_to(flat), tensor(b, t_shape), tensor(tensor_id++, flat));
    }
    return R"({"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [)" + ops + "]}";
}

// The report without its run times.
std::string without_times(const std::string &report) {
    std::string out;
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) {
        if (const auto at = line.rfind(", "); line.rfind("summary: ", 0) == 0 && at != std::string::npos)
            line.erase(at);
        out += line + "\n";
    }
    return out;
}

} // namespace

TEST(DriverCheck, PartitionsCheckedSideBySideReportAsOneAtATime) {
    const std::string path = testing::TempDir() + "/side_by_side.json";
    {
        std::ofstream(path) << side_by_side_graph(90, -1);
    }
    const driver_result one = run_driver("--threads=1 --mode=check " + path);
    const driver_result two = run_driver("--threads=2 --mode=check " + path);
    EXPECT_EQ(one.exit_code, 0) << one.out;
    EXPECT_EQ(two.exit_code, 0) << two.out;
    EXPECT_NE(one.out.find("check: 150 passed, 0 failed"), std::string::npos) << one.out;
    EXPECT_EQ(without_times(one.out), without_times(two.out));
    // Infer mode compiles side by side too: the same lowerings and layouts.
    const driver_result infer_one = run_driver("--threads=1 --mode=infer --report=json " + path);
    const driver_result infer_two = run_driver("--threads=2 --mode=infer --report=json " + path);
    EXPECT_EQ(infer_one.exit_code, 0) << infer_one.out;
    ASSERT_EQ(infer_one.reports.size(), 1u);
    ASSERT_EQ(infer_two.reports.size(), 1u);
    EXPECT_NE(infer_one.out.find("\"lowering\""), std::string::npos) << infer_one.out;
    EXPECT_EQ(infer_one.reports[0], infer_two.reports[0]);
    // A partition in the middle that fails (its tensor is over the limit):
    // the partitions before it are checked, none after it, with threads or not.
    {
        std::ofstream(path) << side_by_side_graph(90, 45);
    }
    const std::string limit = "RESHAPER_MAX_TENSOR_BYTES=10000 ";
    const driver_result failed_one = run_driver("--threads=1 --mode=check " + path, limit);
    const driver_result failed_two = run_driver("--threads=2 --mode=check " + path, limit);
    EXPECT_EQ(failed_one.exit_code, 3) << failed_one.out;
    EXPECT_EQ(failed_two.exit_code, 3) << failed_two.out;
    EXPECT_NE(failed_one.out.find("more than the driver's memory budget"), std::string::npos) << failed_one.out;
    const std::size_t passed_at = failed_one.out.rfind("check: ");
    ASSERT_NE(passed_at, std::string::npos) << failed_one.out;
    const int passed = std::stoi(failed_one.out.substr(passed_at + 7));
    EXPECT_GT(passed, 0) << failed_one.out;
    EXPECT_LT(passed, 150) << failed_one.out;
    EXPECT_EQ(without_times(failed_one.out), without_times(failed_two.out));
    // And as JSON: the same partitions, lowerings, tensors and outputs.
    const driver_result json_one = run_driver("--threads=1 --mode=check --values --report=json " + path, limit);
    const driver_result json_two = run_driver("--threads=2 --mode=check --values --report=json " + path, limit);
    ASSERT_EQ(json_one.reports.size(), 1u);
    ASSERT_EQ(json_two.reports.size(), 1u);
    EXPECT_EQ(json_one.reports[0], json_two.reports[0]);
}

// The reports' partition and tensor lists are made in strips of 64 rows
// side by side and written in order, at most 16 strips made ahead
// (piece_writer::append_in_strips): past 16 strips the strips' buffers are
// used again. With two threads strips finish out of order; the report must
// be one thread's, every row once and in order.
TEST(DriverCheck, ReportsOfManyStripsAreWrittenInOrder) {
    const std::string path = testing::TempDir() + "/many_strips.json";
    {
        std::ofstream(path) << side_by_side_graph(1500, -1); // 3,500 ops, 2,500 partitions, 5,000 tensors
    }
    const driver_result one = run_driver("--threads=1 --mode=check " + path);
    const driver_result two = run_driver("--threads=2 --mode=check " + path);
    ASSERT_EQ(one.exit_code, 0) << one.out;
    EXPECT_EQ(without_times(one.out), without_times(two.out));
    // The rows in order, each once: partition ids, then tensor ids, rising by one.
    std::istringstream lines(one.out);
    std::vector<long> parts, tensors;
    bool in_tensors = false;
    for (std::string line; std::getline(lines, line);) {
        if (line == "  tensors (after inference)") in_tensors = true;
        else if (in_tensors && line.rfind("    ", 0) == 0) tensors.push_back(std::stol(line.substr(4)));
        else if (!in_tensors && line.size() > 6 && line.rfind("  ", 0) == 0 && std::isdigit(static_cast<unsigned char>(line[5])))
            parts.push_back(std::stol(line.substr(2, 4)));
    }
    ASSERT_EQ(parts.size(), 2500u) << one.out.substr(0, 2000);
    ASSERT_EQ(tensors.size(), 5000u);
    for (std::size_t i = 0; i < parts.size(); ++i) ASSERT_EQ(parts[i], static_cast<long>(i));
    for (std::size_t i = 0; i < tensors.size(); ++i) ASSERT_EQ(tensors[i], static_cast<long>(i));
    const driver_result json_one = run_driver("--threads=1 --mode=check --report=json " + path);
    const driver_result json_two = run_driver("--threads=2 --mode=check --report=json " + path);
    ASSERT_EQ(json_one.reports.size(), 1u);
    ASSERT_EQ(json_two.reports.size(), 1u);
    EXPECT_EQ(json_one.reports[0].at("partitions"), json_two.reports[0].at("partitions"));
    EXPECT_EQ(json_one.reports[0].at("tensors"), json_two.reports[0].at("tensors"));
    EXPECT_EQ(json_one.reports[0].at("partitions").size(), 2500u);
}

// Issue 25, through the driver: the chain whose permuted dims' strides nest
// and the unsqueeze of a broadcast input are views, with the strides
// PyTorch gives them (PyTorch 1.13: [2,4] and [0,96,1]), and check mode
// holds them against the reference in place and into another buffer.
TEST(DriverCheck, ChainsThatAreViewsInPyTorchAreAliases) {
    for (const char *mode : {"infer", "check"}) {
        auto r = run_driver(std::string("--report=json --mode=") + mode + " " + data("nested_strides_chain.json"));
        ASSERT_EQ(r.exit_code, 0) << r.out;
        const json &p = r.reports.at(0).at("partitions").at(0);
        EXPECT_EQ(p.at("lowering"), "alias") << p.dump();
        EXPECT_EQ(find_tensor(r.reports[0], 3)->at("stride"), json::parse("[2, 4]")) << mode;

        r = run_driver(std::string("--report=json --mode=") + mode + " " + data("broadcast_unsqueeze.json"));
        ASSERT_EQ(r.exit_code, 0) << r.out;
        ASSERT_EQ(r.reports.at(0).at("partitions").size(), 2u);
        for (const json &part : r.reports[0].at("partitions")) EXPECT_EQ(part.at("lowering"), "alias") << part.dump();
        EXPECT_EQ(find_tensor(r.reports[0], 2)->at("stride"), json::parse("[0, 96, 1]")) << mode;
        EXPECT_EQ(find_tensor(r.reports[0], 4)->at("stride"), json::parse("[0, 96, 1]")) << mode;
        if (std::string(mode) == "check") {
            EXPECT_EQ(r.reports[0].at("check").at("failed"), 0);
        }
    }
}

// Issue 25: a tensor described with other strides in size-1 dims where it
// is made and where it is read (as benchdnn's matmul_select.json does)
// loads and checks; the strides handed on are the producer's.
TEST(DriverCheck, StridesOfSizeOneDimsMayDifferBetweenDescriptions) {
    const auto r = run_driver("--report=json --mode=check " + data("size_one_strides.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(find_tensor(r.reports.at(0), 2)->at("stride"), json::parse("[1024, 1024, 32, 1]"));
    bool aliased = false;
    for (const json &part : r.reports[0].at("partitions"))
        if (part.contains("lowering")) aliased = aliased || part.at("lowering") == "alias";
    EXPECT_TRUE(aliased) << r.out.substr(0, 2000);
    EXPECT_EQ(r.reports[0].at("check").at("failed"), 0);
}
