// Every error names its rule, seen from the outside: the driver's JSON report
// on the bad-input corpus (tests/data/driver/bad: one graph file per rule,
// named after the rule it breaks) carries `error.rule`, and it is that rule, a
// row of docs/rules.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_output.hpp"
#include "file_text_support.hpp"

using nlohmann::json;

namespace {

std::string source(const std::string &rel) { return std::string(RESHAPER_SOURCE_DIR) + "/" + rel; }

// The ids docs/rules.md lists (its table's first column).
std::set<std::string> documented_rules() {
    const std::string md = reshaper::test::file_text(source("docs/rules.md"));
    const std::regex row(R"(\n\| `([a-z][a-z0-9_]*)` \|)");
    std::set<std::string> ids;
    for (std::sregex_iterator it(md.begin(), md.end(), row), end; it != end; ++it) ids.insert((*it)[1]);
    return ids;
}

TEST(DriverRules, EveryBadInputNamesTheRuleItBreaks) {
    const std::set<std::string> documented = documented_rules();
    ASSERT_GT(documented.size(), 50u);
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(source("tests/data/driver/bad")))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    ASSERT_GT(files.size(), 30u);

    // One run over every file (check mode: read, infer, compile, execute);
    // one report per file, in order.
    std::string command = std::string(RESHAPER_RUN_PATH) + " --report=json --mode=check";
    for (const auto &f : files) command += " '" + f.string() + "'";
    const auto [exit_code, out] = reshaper::test::run_command(command + " 2>/dev/null");
    EXPECT_EQ(exit_code, 2) << out;
    std::vector<json> reports;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] == '{') reports.push_back(json::parse(line));
    ASSERT_EQ(reports.size(), files.size()) << out;

    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string want = files[i].stem().string();
        const json &r = reports[i];
        ASSERT_EQ(r.value("status", ""), "error") << files[i] << " was accepted: " << r.dump();
        const json &e = r.at("error");
        const std::string got = e.value("rule", "");
        EXPECT_FALSE(got.empty()) << files[i] << ": " << e.dump();
        EXPECT_TRUE(documented.count(got)) << files[i] << ": rule '" << got << "' is not in docs/rules.md";
        EXPECT_EQ(got, want) << files[i] << ": " << e.dump();
        const std::string message = e.value("message", "");
        EXPECT_TRUE(message.size() > got.size() + 3 &&
                    message.compare(message.size() - got.size() - 3, std::string::npos, " [" + got + "]") == 0)
            << files[i] << ": the message does not end with its rule: " << message;
    }
}

} // namespace
