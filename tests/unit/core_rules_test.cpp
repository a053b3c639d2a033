// The rule table: docs/rules.md is generated from it, the enum and the rows
// are one list, an error carries its rule (with the table's status and the
// id at the end of its message), and no source writes an id as text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/fail.hpp"
#include "core/rules.hpp"
#include "io/graph_json.hpp"
#include "file_text_support.hpp"

namespace reshaper::impl {
namespace {

using reshaper::test::file_text;

// C++ text without its comments (string and character literals kept whole),
// so that a comment may show an example message.
std::string without_comments(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            const std::size_t start = i++;
            while (i < text.size() && text[i] != c) i += text[i] == '\\' ? 2 : 1;
            out.append(text, start, ++i - start);
        } else if (text.compare(i, 2, "//") == 0) {
            i = text.find('\n', i);
            if (i == std::string::npos) break;
        } else if (text.compare(i, 2, "/*") == 0) {
            i = text.find("*/", i);
            if (i == std::string::npos) break;
            i += 2;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

TEST(Rules, CheckedInDocsMatchTheTable) {
    EXPECT_TRUE(generate_rules_markdown() ==
                file_text(std::string(RESHAPER_SOURCE_DIR) + "/docs/rules.md"))
        << "docs/rules.md is stale: run build/bin/reshaper-gen-rules-doc > docs/rules.md";
}

TEST(Rules, EveryEnumValueHasItsRowAndIdsAreUniqueAndDescribed) {
    std::set<std::string_view> seen;
    const auto rows = all_rules();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const rule_info &r = rows[i];
        EXPECT_EQ(static_cast<std::size_t>(r.which), i) << r.id;
        EXPECT_EQ(&info(r.which), &r) << r.id;
        EXPECT_EQ(to_string(r.which), r.id);
        ASSERT_NE(find_rule(r.id), nullptr) << r.id;
        EXPECT_EQ(find_rule(r.id)->which, r.which);
        EXPECT_TRUE(seen.insert(r.id).second) << "rule " << r.id << " is listed twice";
        EXPECT_TRUE(std::regex_match(std::string(r.id), std::regex("[a-z][a-z0-9_]*"))) << r.id;
        EXPECT_FALSE(r.meaning.empty()) << r.id;
        EXPECT_FALSE(r.layer.empty()) << r.id;
        EXPECT_NE(r.code, status::success) << r.id;
    }
    // The enum's last value has the last row: no value without one.
    EXPECT_EQ(static_cast<std::size_t>(rule::internal_invariant) + 1, rows.size());
    EXPECT_EQ(find_rule("nonexistent_rule"), nullptr);
    EXPECT_EQ(info(rule::volume_mismatch).code, status::invalid_shape);
    EXPECT_EQ(info(rule::dims_at_least_minus_one).code, status::invalid_shape);
}

TEST(Rules, AnErrorTakesItsStatusFromTheTableAndEndsWithItsId) {
    const error e(rule::volume_mismatch, "shape [5,5] does not hold 24 elements", op_ref{3, "r", "StaticReshape"});
    EXPECT_EQ(e.rule_id(), rule::volume_mismatch);
    EXPECT_EQ(e.rule(), "volume_mismatch");
    EXPECT_EQ(e.code(), status::invalid_shape);
    EXPECT_STREQ(e.what(), "shape [5,5] does not hold 24 elements [volume_mismatch]");
    ASSERT_TRUE(e.op().has_value());
    EXPECT_EQ(e.op()->id, 3);
    // A message that wraps another error's keeps the one id it ends with.
    const error wrapped(e.rule_id(), std::string("op 3: ") + e.what());
    EXPECT_STREQ(wrapped.what(), "op 3: shape [5,5] does not hold 24 elements [volume_mismatch]");
    // An id of another rule at the end is not this error's: this one's follows.
    EXPECT_STREQ(error(rule::overflow, "x [volume_mismatch]").what(), "x [volume_mismatch] [overflow]");
    EXPECT_EQ(with_rule_id(rule::memory_limit, "out of memory"), "out of memory [memory_limit]");
}

TEST(Rules, FailThrowsTheErrorOfItsRule) {
    try {
        fail(rule::engine_available, "gpu engine 0 is unavailable");
        FAIL() << "fail() returned";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::unavailable);
        EXPECT_EQ(e.rule(), "engine_available");
        EXPECT_STREQ(e.what(), "gpu engine 0 is unavailable [engine_available]");
        EXPECT_FALSE(e.op().has_value());
    }
}

// Rule ids are enum values at every check: no C++ source of the library
// writes one as text at the end of a message ("... [volume_mismatch]"), where
// a typo or a renamed rule would pass the compiler. (The Python package's
// messages are Python: their ids must at least be in the table.)
TEST(Rules, NoSourceWritesARuleIdAsText) {
    const std::regex bracketed(R"(\[([a-z][a-z0-9_]*)\]")");
    std::size_t files = 0;
    for (const char *dir : {"src", "ops", "kernels"}) {
        for (const auto &entry :
             std::filesystem::recursive_directory_iterator(std::string(RESHAPER_SOURCE_DIR) + "/" + dir)) {
            const auto ext = entry.path().extension();
            if (ext != ".cpp" && ext != ".hpp" && ext != ".h") continue;
            ++files;
            const std::string text = without_comments(file_text(entry.path()));
            for (std::sregex_iterator it(text.begin(), text.end(), bracketed), end; it != end; ++it)
                ADD_FAILURE() << entry.path().filename() << " writes the rule id " << (*it)[0]
                              << " as text: name it as rule::" << (*it)[1] << " (core/fail.hpp)";
        }
    }
    EXPECT_GT(files, 100u); // the scan saw the sources

    const std::regex python_id(R"(\[([a-z][a-z0-9_]*)\]["}])");
    std::size_t python_ids = 0;
    for (const auto &entry :
         std::filesystem::recursive_directory_iterator(std::string(RESHAPER_SOURCE_DIR) + "/src/python")) {
        if (entry.path().extension() != ".py") continue;
        const std::string text = file_text(entry.path());
        for (std::sregex_iterator it(text.begin(), text.end(), python_id), end; it != end; ++it) {
            ++python_ids;
            EXPECT_NE(find_rule((*it)[1].str()), nullptr)
                << entry.path().filename() << " names rule '" << (*it)[1] << "', which the table does not list";
        }
    }
    EXPECT_GT(python_ids, 5u);
}

TEST(Rules, ReadingAGraphReportsTheRule) {
    try {
        read_graph_json("{ \"graph\": [ ");
        FAIL() << "malformed JSON was accepted";
    } catch (const error &e) {
        EXPECT_EQ(e.rule(), "json_syntax") << e.what();
        EXPECT_EQ(e.code(), info(rule::json_syntax).code);
    }
}

} // namespace
} // namespace reshaper::impl
