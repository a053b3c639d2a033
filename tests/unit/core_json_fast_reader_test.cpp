// The fast JSON reader (RapidJSON's SAX) against the reference (nlohmann's):
// wherever the fast one gives a tree it is the reference's tree, node for
// node and bit for bit; where it refuses, parse_json_tree gives exactly the
// reference's tree or error. On texts made to differ where the two
// libraries do: numbers at the edges, UTF-8, escapes, byte order marks, NUL
// bytes, nesting, and many random mutations of a graph file.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "io/json_dom.hpp"

using namespace reshaper::impl;

namespace {

constexpr std::uint64_t depth = 256;

// Every node alike, in order: the raw nodes, repeated keys and all.
void expect_same_tree(json_view a, json_view b, const std::string &where) {
    ASSERT_EQ(a.type(), b.type()) << where;
    switch (a.type()) {
    case json_tree::kind::null: break;
    case json_tree::kind::boolean: EXPECT_EQ(a.boolean(), b.boolean()) << where; break;
    case json_tree::kind::integer: EXPECT_EQ(a.integer(), b.integer()) << where; break;
    case json_tree::kind::unsigned_integer: EXPECT_EQ(a.unsigned_integer(), b.unsigned_integer()) << where; break;
    case json_tree::kind::floating: // boxed numbers are NaNs: their bits
        EXPECT_EQ(std::bit_cast<std::uint64_t>(a.floating()), std::bit_cast<std::uint64_t>(b.floating())) << where;
        break;
    case json_tree::kind::string: EXPECT_EQ(a.string(), b.string()) << where; break;
    case json_tree::kind::array:
    case json_tree::kind::object: {
        ASSERT_EQ(a.size(), b.size()) << where;
        std::vector<json_view> as, bs;
        for (json_view e : a.elements()) as.push_back(e);
        for (json_view e : b.elements()) bs.push_back(e);
        ASSERT_EQ(as.size(), bs.size()) << where;
        for (std::size_t i = 0; i < as.size(); ++i) {
            if (a.is_object()) {
                EXPECT_EQ(as[i].key(), bs[i].key()) << where;
            }
            expect_same_tree(as[i], bs[i], where + "/" + std::to_string(i));
        }
        break;
    }
    }
}

// What a reader gave: a tree, or the error's status and message.
struct outcome {
    std::optional<json_tree> tree;
    std::string failure;
};

template <typename Read>
outcome outcome_of(Read read) {
    outcome o;
    try {
        o.tree = read();
    } catch (const error &e) {
        o.failure = std::string(to_string(e.code())) + " | " + e.what();
    }
    return o;
}

// Returns whether the fast reader took the text.
bool expect_alike(const std::string &text) {
    const std::string shown = text.substr(0, 200);
    const outcome reference = outcome_of([&] { return detail::parse_json_tree_reference(text, depth); });
    const outcome fast = outcome_of([&] { return detail::parse_json_tree_fast(text, depth); });
    const outcome chosen = outcome_of([&] { return parse_json_tree(text, depth); });
    // The fast reader gives a tree or nothing; an error only as the
    // reference does (the nesting limit), word for word.
    if (!fast.failure.empty()) {
        EXPECT_EQ(fast.failure, reference.failure) << shown;
    }
    if (fast.tree) {
        EXPECT_TRUE(reference.tree.has_value()) << "the fast reader took what the reference refuses: " << shown
                                                << "\n" << reference.failure;
        if (reference.tree) expect_same_tree(fast.tree->root(), reference.tree->root(), shown);
    }
    EXPECT_EQ(chosen.failure, reference.failure) << shown;
    EXPECT_EQ(chosen.tree.has_value(), reference.tree.has_value()) << shown;
    if (chosen.tree && reference.tree) expect_same_tree(chosen.tree->root(), reference.tree->root(), shown);
    // Reading in place: what the fast reader gives, and where it gives
    // nothing, the text as it was (for the reference reader after it).
    std::string overwritten = text;
    const outcome fast_in_place = outcome_of([&] { return detail::parse_json_tree_fast_in_place(overwritten, depth); });
    EXPECT_EQ(fast_in_place.failure, fast.failure) << shown;
    EXPECT_EQ(fast_in_place.tree.has_value(), fast.tree.has_value()) << shown;
    if (fast_in_place.tree && fast.tree) expect_same_tree(fast_in_place.tree->root(), fast.tree->root(), shown);
    if (!fast_in_place.tree && fast_in_place.failure.empty()) {
        EXPECT_EQ(overwritten, text) << "not restored: " << shown;
    }
    overwritten = text;
    const outcome chosen_in_place = outcome_of([&] { return parse_json_tree_in_place(overwritten, depth); });
    EXPECT_EQ(chosen_in_place.failure, reference.failure) << shown;
    EXPECT_EQ(chosen_in_place.tree.has_value(), reference.tree.has_value()) << shown;
    if (chosen_in_place.tree && reference.tree)
        expect_same_tree(chosen_in_place.tree->root(), reference.tree->root(), shown);
    return fast.tree.has_value();
}

std::string sample_graph() {
    return R"({"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
{"id": 0, "name": "t\u00e9", "kind": "StaticTranspose", "attrs": {"order": {"type": "s64[]", "value": [1, 0]}},
 "inputs": [{"id": 0, "dtype": "f32", "shape": [4, 8], "stride": [8, 1], "layout_type": "strided", "property_type": "undef"}],
 "outputs": [{"id": 1, "dtype": "f32", "shape": [8, 4], "layout_type": "strided", "property_type": "constant",
              "values": [0.5, -0.0, 1e-3, 3.4028235677973366e38, 1.00000005960464477550, -7, 18446744073709551615, true, null]}]}
], "input_ports": [0], "output_ports": [1], "x": {"a": 1, "a": [2.5e+2, "\\\"\/\b\f\n\r\t"]}})";
}

// The same, ASCII without a backslash (what the fast reader reads in place):
// its escapes replaced.
std::string plain_sample_graph() {
    std::string g = sample_graph();
    for (const auto &[escaped, plain] : {std::pair<std::string, std::string>{R"("t\u00e9")", R"("te")"},
                                         {R"("\\\"\/\b\f\n\r\t")", R"("", 1.5)"}}) {
        const std::size_t at = g.find(escaped);
        EXPECT_NE(at, std::string::npos) << escaped;
        if (at != std::string::npos) g.replace(at, escaped.size(), plain);
    }
    EXPECT_TRUE(std::all_of(g.begin(), g.end(), [](char c) { return c != '\\' && static_cast<unsigned char>(c) < 0x80; }));
    return g;
}

} // namespace

TEST(JsonFastReader, TakesGraphFilesAsTheReferenceReadsThem) {
    EXPECT_TRUE(expect_alike(sample_graph()));
    EXPECT_TRUE(expect_alike(plain_sample_graph()));
    // Refused where the text ends, and a string's quote written over: put back.
    EXPECT_FALSE(expect_alike(plain_sample_graph().substr(0, 300)));
    EXPECT_FALSE(expect_alike(plain_sample_graph() + "x"));
    EXPECT_TRUE(expect_alike("\xEF\xBB\xBF" + sample_graph())); // a byte order mark
    EXPECT_TRUE(expect_alike(" [] "));
    EXPECT_TRUE(expect_alike("\"\""));
    EXPECT_TRUE(expect_alike("-0"));
    const std::filesystem::path dir = std::filesystem::path(RESHAPER_SHARED_DIR) / "corpus" / "onednn-graph";
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no corpus at " << dir;
    int files = 0;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        SCOPED_TRACE(entry.path().string());
        EXPECT_TRUE(expect_alike(text.str()));
        ++files;
    }
    EXPECT_GT(files, 0);
}

TEST(JsonFastReader, NumbersReadAsTheReferenceReadsThem) {
    const char *numbers[] = {
        "0", "-0", "-0.0", "0.0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
        "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "1e309", "1e400", "-1e400", "1e-400", "0.1e-400",
        "4.9e-324", "2.4e-324", "2.5e-324", "1e-2147483649", "1E5", "1e+5", "1.5e-5", "3.4028235677973366e38",
        "1.00000005960464477550", "0.000001e310", "00", "01",
        "-", "-a", "1.", ".5", "1e", "1e+", "+1", "0x10", "1.5.5", "Infinity", "NaN", "-Infinity"};
    for (const char *n : numbers) {
        SCOPED_TRACE(n);
        expect_alike(n);
        expect_alike(std::string("[") + n + "]");
        expect_alike(std::string("{\"v\": ") + n + "}");
    }
    // Integers of more than 308 digits.
    expect_alike("1" + std::string(308, '0'));
    expect_alike("1" + std::string(400, '0'));
    expect_alike("17976931348623158" + std::string(292, '0'));
    expect_alike("0." + std::string(400, '0') + "1");
}

TEST(JsonFastReader, StringsReadAsTheReferenceReadsThem) {
    const std::string strings[] = {
        R"("plain")", R"("\u00e9\u20ac\ud83d\ude00")", R"("\ud83d")", R"("\ude00")", R"("\ud83d\u0041")",
        R"("\ud83dx")", R"("\u0000")", R"("\uZZZZ")", R"("\x")", "\"tab\there\"", "\"line\nbreak\"",
        "\"caf\xC3\xA9\"", "\"\xC3\"", "\"\xC0\x80\"", "\"\xC1\xBF\"", "\"\xE0\x80\x80\"", "\"\xE0\xA0\x80\"",
        "\"\xED\xA0\x80\"", "\"\xED\x9F\xBF\"", "\"\xEF\xBF\xBF\"", "\"\xF0\x8F\xBF\xBF\"", "\"\xF0\x90\x80\x80\"",
        "\"\xF4\x8F\xBF\xBF\"", "\"\xF4\x90\x80\x80\"", "\"\xF5\x80\x80\x80\"", "\"\xFF\"", "\"\x80\"",
        "\"\xE2\x82\"", "\"unterminated", "\"\x7F\""};
    for (const std::string &s : strings) {
        SCOPED_TRACE(s);
        expect_alike(s);
        expect_alike("{" + s + ": 1}");
        expect_alike("[" + s + ", 2]");
        // After and before 0 to 17 ASCII letters: the UTF-8 check takes
        // eight ASCII bytes at a time, so each byte above comes at every
        // place in and after such a block.
        for (std::size_t k = 0; k <= 17; ++k) {
            const std::string letters = std::string("abcdefghijklmnopq").substr(0, k);
            expect_alike("\"" + letters + s.substr(1));
            expect_alike(s.substr(0, s.size() - 1) + letters + s.back());
        }
    }
}

// A text all ASCII without a backslash skips the UTF-8 check of each string
// (a scan of 64-byte blocks decides): an ill-formed byte or a lone surrogate
// escape at any place in or after such a block is still refused.
TEST(JsonFastReader, OneNonAsciiByteOrEscapeAnywhereIsSeen) {
    const std::string letters(150, 'x');
    for (const std::string odd : {"\xED\xA0\x80", "\xFF", "\xC3\xA9", "\\ud83d", "\\u0041"})
        for (std::size_t at = 0; at <= letters.size(); ++at) {
            SCOPED_TRACE(at);
            expect_alike("[\"" + letters.substr(0, at) + odd + letters.substr(at) + "\"]");
        }
}

TEST(JsonFastReader, EverythingElseAlike) {
    const std::string texts[] = {
        "", " ", "{}", "[]", "{} x", "{}\n{}", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{,}", "{\"a\":1,}",
        "[[[]]]", "[", "]", "{", "}", "true", "tru", "nul", "null x", "[true, false, null]", "\xEF\xBB\xBF",
        "\xEF\xBB", "\xEF\xBB\xBF[1]", " \xEF\xBB\xBF[1]", std::string("[1]\0", 4), std::string("[\0]", 3),
        std::string("\"a\0b\"", 5), "[1]\t\r\n ", "\v[1]", "\f[1]", "{\"a\":1}/**/", "// c\n[1]"};
    for (const std::string &t : texts) {
        SCOPED_TRACE(t);
        expect_alike(t);
    }
}

TEST(JsonFastReader, NestingAtTheLimit) {
    for (std::uint64_t levels : {depth - 1, depth, depth + 1, depth * 4}) {
        SCOPED_TRACE(levels);
        expect_alike(std::string(levels, '[') + std::string(levels, ']'));
        std::string objects;
        for (std::uint64_t i = 0; i < levels; ++i) objects += "{\"a\":";
        expect_alike(objects + "1" + std::string(levels, '}'));
    }
    // Deeper limits than the fast reader recurses to go to the reference.
    const std::string deep = std::string(5000, '[') + std::string(5000, ']');
    EXPECT_FALSE(detail::parse_json_tree_fast(deep, 10000).has_value());
    EXPECT_FALSE(parse_json_tree(deep, 10000).empty());
}

TEST(JsonFastReader, RandomMutationsOfAGraphFileReadAlike) {
    const std::string base = sample_graph();
    const std::string alphabet = "0123456789-+.eE\"\\/[]{}:, \ntfnulx\xC3\xA9\xED\xA0\x80\xFF";
    std::mt19937 random(20261124);
    int taken = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text = base;
        const int edits = 1 + static_cast<int>(random() % 3);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = random() % text.size();
            const char c = alphabet[random() % alphabet.size()];
            switch (random() % 3) {
            case 0: text[at] = c; break;
            case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
            default: text.erase(at, 1 + random() % 4); break;
            }
        }
        taken += expect_alike(text) ? 1 : 0;
        if (::testing::Test::HasFailure()) return; // one report, not thousands
    }
    // Most mutations break the text; some do not, and those the fast reader takes.
    EXPECT_GT(taken, 50);
}

TEST(JsonFastReader, ARestartStreamsTheElementsAgain) {
    // A text the fast reader refuses only at its end, after two streamed
    // ops: the reference reads it again from the start, so the stream sees
    // a second start and the same elements again (as for a repeated key),
    // then the reference's error.
    const std::string text = R"({"graph": [{"id": 1}, {"id": 2}], "x": tru})";
    std::vector<std::int64_t> ids;
    int starts = 0;
    const streamed_array ops{"graph", [&] {
                                 ++starts;
                                 ids.clear();
                             },
                             [&](json_view op) { ids.push_back(op.find("id")->integer()); }};
    try {
        parse_json_tree(text, depth, &ops);
        FAIL() << "no error";
    } catch (const error &e) {
        EXPECT_NE(std::string(e.what()).find("line 1, column 43"), std::string::npos) << e.what();
    }
    EXPECT_EQ(starts, 2);
    EXPECT_EQ(ids, (std::vector<std::int64_t>{1, 2}));
}
