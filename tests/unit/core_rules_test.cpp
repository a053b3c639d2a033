// The rule table: docs/rules.md is generated from it, every rule id the
// sources write into a message is in it, and errors carry their rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/rules.hpp"
#include "io/graph_json.hpp"

namespace reshaper::impl {
namespace {

std::string read_text(const std::filesystem::path &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(Rules, CheckedInDocsMatchTheTable) {
    EXPECT_TRUE(generate_rules_markdown() ==
                read_text(std::string(RESHAPER_SOURCE_DIR) + "/docs/rules.md"))
        << "docs/rules.md is stale: run build/bin/reshaper-gen-rules-doc > docs/rules.md";
}

TEST(Rules, IdsAreUniqueAndDescribed) {
    std::set<std::string_view> seen;
    for (const rule_info &r : all_rules()) {
        EXPECT_TRUE(seen.insert(r.id).second) << "rule " << r.id << " is listed twice";
        EXPECT_TRUE(std::regex_match(std::string(r.id), std::regex("[a-z][a-z0-9_]*"))) << r.id;
        EXPECT_FALSE(r.meaning.empty()) << r.id;
        EXPECT_NE(r.code, status::success) << r.id;
    }
    EXPECT_EQ(find_rule("nonexistent_rule"), nullptr);
    ASSERT_NE(find_rule("volume_mismatch"), nullptr);
    EXPECT_EQ(find_rule("volume_mismatch")->code, status::invalid_shape);
}

// Rule ids the sources name: "... [id]" at the end of a message literal, and
// literal ids passed to the fail()/violation() helpers that append them.
TEST(Rules, EveryIdTheSourcesUseIsInTheTable) {
    const std::regex bracketed(R"(\[([a-z][a-z0-9_]*)\]")");
    const std::regex helper_call(R"(\b(?:fail|violation)\(([\s\S]*?)\);)");
    const std::regex id_literal(R"#("([a-z][a-z0-9_]+)")#");
    std::size_t found = 0;
    for (const char *dir : {"src", "ops", "kernels"}) {
        for (const auto &entry :
             std::filesystem::recursive_directory_iterator(std::string(RESHAPER_SOURCE_DIR) + "/" + dir)) {
            if (entry.path().extension() != ".cpp") continue;
            const std::string text = read_text(entry.path());
            auto check = [&](const std::string &id) {
                ++found;
                EXPECT_NE(find_rule(id), nullptr)
                    << entry.path().filename() << " names rule '" << id
                    << "', which src/core/rules.cpp does not list";
            };
            for (std::sregex_iterator it(text.begin(), text.end(), bracketed), end; it != end; ++it)
                check((*it)[1]);
            for (std::sregex_iterator it(text.begin(), text.end(), helper_call), end; it != end; ++it) {
                const std::string args = (*it)[1];
                for (std::sregex_iterator l(args.begin(), args.end(), id_literal); l != end; ++l)
                    check((*l)[1]);
            }
        }
    }
    EXPECT_GT(found, 50u); // the scan saw the checks
}

TEST(Rules, AnErrorCarriesTheRuleItsMessageNames) {
    EXPECT_EQ(error(status::invalid_shape, "shape [5,5] ... [volume_mismatch]").rule(), "volume_mismatch");
    EXPECT_EQ(error(status::invalid_shape, "no rule here").rule(), "");
    EXPECT_EQ(error(status::invalid_shape, "values [1,2]").rule(), ""); // not an id in the table
    EXPECT_EQ(error(status::invalid_graph_op, "x violates input_count (...)", std::nullopt, "input_count").rule(),
              "input_count");
}

TEST(Rules, ReadingAGraphReportsTheRule) {
    try {
        read_graph_json("{ \"graph\": [ ");
        FAIL() << "malformed JSON was accepted";
    } catch (const error &e) {
        EXPECT_EQ(e.rule(), "json_syntax") << e.what();
        EXPECT_EQ(e.code(), find_rule("json_syntax")->code);
    }
}

} // namespace
} // namespace reshaper::impl
