// ONNX's own node tests (Debian's libonnx-testdata) for every op of the
// family: each model.onnx read through the C++ API (reshaper::graph::
// from_onnx), its one node claimed, compiled and executed on the test's
// input_N.pb tensors, the result compared by value with output_0.pb.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "onnx/onnx_model.hpp"
#include "reshaper/reshaper.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path node_test_root = "/usr/share/libonnx-testdata/data/node";

std::string file_bytes(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every node test of an op of the family (Reshape, Transpose, Squeeze,
// Unsqueeze, Flatten, all variants), by name.
std::vector<fs::path> family_node_tests() {
    std::vector<fs::path> dirs;
    if (!fs::is_directory(node_test_root)) return dirs;
    for (const auto &entry : fs::directory_iterator(node_test_root)) {
        const std::string name = entry.path().filename().string();
        for (const char *prefix : {"test_reshape", "test_transpose", "test_squeeze", "test_unsqueeze", "test_flatten"})
            if (name.rfind(prefix, 0) == 0 && fs::exists(entry.path() / "model.onnx")) dirs.push_back(entry.path());
    }
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

std::vector<fs::path> data_sets(const fs::path &dir) {
    std::vector<fs::path> sets;
    for (const auto &entry : fs::directory_iterator(dir))
        if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
            sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    return sets;
}

} // namespace

TEST(OnnxNodeTests, EveryTestOfTheFamilyRunsAndMatchesOnnxOutputsByValue) {
    const auto dirs = family_node_tests();
    // 1.12's data: 9 Flatten, 10 Reshape, 2 Squeeze, 7 Transpose, 8 Unsqueeze.
    ASSERT_GE(dirs.size(), 36u) << "libonnx-testdata is missing under " << node_test_root
                                << " (scripts/setup.sh installs it)";
    const reshaper::engine cpu(reshaper::engine_kind::cpu);
    std::size_t compared = 0;
    for (const fs::path &dir : dirs) {
        SCOPED_TRACE(dir.filename().string());
        auto g = reshaper::graph::from_onnx((dir / "model.onnx").string());
        const auto parts = g.partitions();
        ASSERT_EQ(parts.size(), 1u);
        ASSERT_TRUE(parts[0].is_supported()) << parts[0].reason();
        const auto cp = parts[0].compile(cpu);
        for (const fs::path &set : data_sets(dir)) {
            SCOPED_TRACE(set.filename().string());
            // Graph input k is tensor k (inputs come first in the numbering).
            std::vector<reshaper::impl::onnx_tensor> inputs;
            std::vector<const void *> input_pointers;
            for (const auto &lt : cp.inputs()) {
                inputs.push_back(reshaper::impl::read_onnx_tensor(
                    file_bytes(set / ("input_" + std::to_string(lt.id) + ".pb"))));
            }
            for (const auto &in : inputs) input_pointers.push_back(in.values.bytes.data());
            const auto expected = reshaper::impl::read_onnx_tensor(file_bytes(set / "output_0.pb"));
            std::vector<std::uint8_t> out(std::max<std::size_t>(expected.values.bytes.size(), 1), 0xA5);
            const auto resolved = cp.execute_dynamic(input_pointers, {out.data()});
            ASSERT_EQ(resolved.size(), 1u);
            EXPECT_EQ(resolved[0].dims, expected.shape);
            out.resize(expected.values.bytes.size());
            EXPECT_EQ(out, expected.values.bytes);
            ++compared;
        }
    }
    EXPECT_GE(compared, dirs.size());
}
