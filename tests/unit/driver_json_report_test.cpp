// The JSON report is written straight as text, piece by piece (no DOM per
// partition): it must stay the DOM's dump byte for byte. Checked two ways:
// against reports the DOM writer wrote before (tests/data/driver/json_report,
// a file with warnings, an unsupported op, values, escapes and non-ASCII
// names, alias and kernel lowerings, and one whose check stops at an
// error), and as a fixed point of nlohmann's parse and dump on every report.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "command_output.hpp"
#include "file_text_support.hpp"

namespace {

const std::string report_dir = std::string(RESHAPER_SOURCE_DIR) + "/tests/data/driver/json_report";

using reshaper::test::file_text;

// The report of `file` (run from its directory, so that "graph" names it
// as the stored report does). The scalar kernels' plans read the same on
// every machine.
reshaper::test::command_output report_of(const std::string &file, const std::string &mode, int threads) {
    return reshaper::test::run_command("cd " + report_dir + " && RESHAPER_MAX_CPU_ISA=scalar " +
                                       std::string(RESHAPER_RUN_PATH) + " --report=json --mode=" + mode +
                                       " --threads=" + std::to_string(threads) + " " + file + " 2>/dev/null");
}

} // namespace

TEST(DriverJsonReport, IsTheReportTheDomWriterWroteByteForByte) {
    for (const char *name : {"mixed", "mixed_error"})
        for (const char *mode : {"check", "infer"})
            for (int threads : {1, 2}) {
                const auto r = report_of(std::string(name) + ".json", mode, threads);
                const std::string stored = file_text(report_dir + "/" + name + "." + mode + ".report");
                ASSERT_FALSE(stored.empty()) << name << " " << mode;
                EXPECT_EQ(r.out, stored) << name << " " << mode << " threads " << threads;
                // The stored check of mixed_error stops at its `any` input.
                const bool fails = std::string(name) == "mixed_error" && std::string(mode) == "check";
                EXPECT_EQ(r.exit_code, fails ? 2 : 0) << name << " " << mode;
                EXPECT_EQ(r.out.find("\"error\":") != std::string::npos, fails) << r.out;
                EXPECT_NE(r.out.find("\"warnings\":[\"input_ports[1] names tensor 42"), std::string::npos) << r.out;
            }
}

TEST(DriverJsonReport, EveryReportIsAFixedPointOfTheDomsParseAndDump) {
    for (const char *name : {"mixed.json", "mixed_error.json"})
        for (const char *mode : {"check", "infer"}) {
            const auto r = report_of(name, mode, 1);
            ASSERT_FALSE(r.out.empty()) << name << " " << mode;
            ASSERT_EQ(r.out.back(), '\n');
            const std::string line = r.out.substr(0, r.out.size() - 1);
            ASSERT_EQ(line.find('\n'), std::string::npos) << "one line per file";
            EXPECT_EQ(nlohmann::json::parse(line).dump(), line) << name << " " << mode;
        }
}
