// The JSON reader (RapidJSON's SAX, io/json_dom.hpp) against nlohmann's
// parser as the oracle: it takes exactly the texts the oracle takes (but
// for numbers RapidJSON calls too big, see NumbersReadAsTheOracleReadsThem)
// and reads the same values, node for node and bit for bit; where it
// refuses, its error names the line and column and the rule; reading in
// place gives the same tree or the same error, word for word. On texts made
// to differ where JSON readers do: numbers at the edges, UTF-8, escapes,
// byte order marks, NUL bytes, nesting, and many random mutations of a
// graph file.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.hpp"
#include "io/json_dom.hpp"
#include "file_text_support.hpp"

using namespace reshaper::impl;

namespace {

constexpr std::uint64_t depth = 256;

// The oracle's value, as nlohmann's DOM holds a text (a repeated key: one
// member at its first place, with its last value).
std::optional<ojson> oracle(const std::string &text) {
    ojson j = ojson::parse(text, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

std::size_t nesting(const ojson &j) {
    std::size_t deepest = 0;
    if (j.is_structured())
        for (const auto &e : j) deepest = std::max(deepest, nesting(e));
    return j.is_structured() ? deepest + 1 : 0;
}

// Our value against the oracle's, member for member (each key once, as
// json_view reads an object), numbers bit for bit. A bare "-0" is ours the
// float -0.0 (values keep its sign), the oracle's the integer 0.
void expect_same_value(json_view a, const ojson &b, const std::string &where) {
    switch (a.type()) {
    case json_tree::kind::null: EXPECT_TRUE(b.is_null()) << where; break;
    case json_tree::kind::boolean:
        ASSERT_TRUE(b.is_boolean()) << where;
        EXPECT_EQ(a.boolean(), b.get<bool>()) << where;
        break;
    case json_tree::kind::integer:
        ASSERT_TRUE(b.is_number_integer() && !b.is_number_unsigned()) << where;
        EXPECT_EQ(a.integer(), b.get<std::int64_t>()) << where;
        break;
    case json_tree::kind::unsigned_integer:
        ASSERT_TRUE(b.is_number_unsigned()) << where;
        EXPECT_EQ(a.unsigned_integer(), b.get<std::uint64_t>()) << where;
        break;
    case json_tree::kind::floating:
        if (b.is_number_integer() && b.get<std::int64_t>() == 0) {
            EXPECT_TRUE(a.floating() == 0 && std::signbit(a.floating())) << where;
            break;
        }
        ASSERT_TRUE(b.is_number_float()) << where;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(a.floating()), std::bit_cast<std::uint64_t>(b.get<double>())) << where;
        break;
    case json_tree::kind::string:
        ASSERT_TRUE(b.is_string()) << where;
        EXPECT_EQ(a.string(), b.get<std::string>()) << where;
        break;
    case json_tree::kind::array: {
        ASSERT_TRUE(b.is_array()) << where;
        ASSERT_EQ(a.size(), b.size()) << where;
        std::size_t i = 0;
        for (json_view e : a.elements()) {
            expect_same_value(e, b[i], where + "/" + std::to_string(i));
            ++i;
        }
        break;
    }
    case json_tree::kind::object: {
        ASSERT_TRUE(b.is_object()) << where;
        ASSERT_EQ(a.size(), b.size()) << where;
        auto it = b.begin();
        a.for_each_member([&](std::string_view key, json_view value) {
            ASSERT_TRUE(it != b.end()) << where;
            EXPECT_EQ(key, it.key()) << where;
            expect_same_value(value, it.value(), where + "/" + std::string(key));
            ++it;
        });
        break;
    }
    }
}

// What a reading gave: a tree, or the error's status and message.
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

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// Returns whether the reader took the text. `known_refusal`: a text the
// oracle takes and the reader refuses (RapidJSON's rule for numbers).
bool expect_alike(const std::string &text, bool known_refusal = false) {
    const std::string shown = text.substr(0, 200);
    const std::optional<ojson> expected = oracle(text);
    const outcome read = outcome_of([&] { return parse_json_tree(text, depth); });
    if (read.tree) {
        EXPECT_TRUE(expected.has_value()) << "the reader took what the oracle refuses: " << shown;
        if (expected) expect_same_value(read.tree->root(), *expected, shown);
    } else if (contains(read.failure, "nesting deeper than")) {
        EXPECT_TRUE(!expected || nesting(*expected) > depth) << shown << "\n" << read.failure;
    } else {
        EXPECT_EQ(expected.has_value(), known_refusal) << "the reader refused what the oracle takes: " << shown
                                                       << "\n" << read.failure;
        // The outside's words: where, what, and the rule.
        EXPECT_TRUE(contains(read.failure, "invalid_graph | malformed JSON at line ")) << read.failure;
        EXPECT_TRUE(contains(read.failure, ", column ")) << read.failure;
        EXPECT_TRUE(read.failure.ends_with(" [json_syntax]")) << read.failure;
    }
    // Reading in place: the same tree or the same error, word for word.
    std::string overwritten = text;
    const outcome in_place = outcome_of([&] { return parse_json_tree_in_place(overwritten, depth); });
    EXPECT_EQ(in_place.failure, read.failure) << shown;
    EXPECT_EQ(in_place.tree.has_value(), read.tree.has_value()) << shown;
    if (in_place.tree && expected) expect_same_value(in_place.tree->root(), *expected, shown);
    return read.tree.has_value();
}

std::string sample_graph() {
    return R"({"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
{"id": 0, "name": "t\u00e9", "kind": "StaticTranspose", "attrs": {"order": {"type": "s64[]", "value": [1, 0]}},
 "inputs": [{"id": 0, "dtype": "f32", "shape": [4, 8], "stride": [8, 1], "layout_type": "strided", "property_type": "undef"}],
 "outputs": [{"id": 1, "dtype": "f32", "shape": [8, 4], "layout_type": "strided", "property_type": "constant",
              "values": [0.5, -0.0, 1e-3, 3.4028235677973366e38, 1.00000005960464477550, -7, 18446744073709551615, true, null]}]}
], "input_ports": [0], "output_ports": [1], "x": {"a": 1, "a": [2.5e+2, "\\\"\/\b\f\n\r\t"]}})";
}

// The same, ASCII without a backslash (what the reader reads in place):
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

// `odd` at every place in a string of 150 ASCII letters, as an array's
// element (and, `as_key_too`, as an object's key): read alike in place and
// not.
void expect_alike_at_every_place(const std::string &odd, bool as_key_too) {
    const std::string letters(150, 'x');
    for (std::size_t at = 0; at <= letters.size(); ++at) {
        SCOPED_TRACE(at);
        const std::string text = letters.substr(0, at) + odd + letters.substr(at);
        expect_alike("[\"" + text + "\"]");
        if (as_key_too) expect_alike("{\"" + text + "\": 1}");
    }
}

} // namespace

TEST(JsonReader, TakesGraphFilesAsTheOracleReadsThem) {
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
    for (const auto &path : reshaper::test::json_files_below(dir)) {
        SCOPED_TRACE(path.string());
        EXPECT_TRUE(expect_alike(reshaper::test::file_text(path)));
        ++files;
    }
    EXPECT_GT(files, 0);
}

TEST(JsonReader, NumbersReadAsTheOracleReadsThem) {
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
    // Integers of more than 308 digits (appended: GCC 12 warns falsely of
    // an overlapping memcpy for "literal" + std::string(n, c)).
    const auto followed_by_zeros = [](std::string head, std::size_t zeros) { return head.append(zeros, '0'); };
    expect_alike(followed_by_zeros("1", 308));
    expect_alike(followed_by_zeros("1", 400));
    // RapidJSON's rule: an integer of 309 digits at DBL_MAX is too big,
    // although strtod rounds it down to DBL_MAX (the oracle takes it).
    expect_alike(followed_by_zeros("17976931348623158", 292), true);
    expect_alike(followed_by_zeros("0.", 400) + "1");
    // The side of a tie of a narrower format, kept beside the double:
    // 1 + 2^-24 is halfway between two floats; the text lies above it.
    const json_tree tie = parse_json_tree("[1.00000005960464477550, 1.000000059604644775390625, 0.5]", depth);
    std::vector<json_number> read;
    for (json_view e : tie.root().elements()) read.push_back(*number_of(e));
    ASSERT_EQ(read.size(), 3u);
    EXPECT_EQ(read[0].value, 1.0 + 0x1p-24);
    EXPECT_EQ(read[0].beyond, 1);
    EXPECT_EQ(read[1].value, 1.0 + 0x1p-24);
    EXPECT_EQ(read[1].beyond, 0); // the tie itself
    EXPECT_EQ(read[2].beyond, 0);
}

TEST(JsonReader, StringsReadAsTheOracleReadsThem) {
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

// An ill-formed byte or a lone surrogate escape at any place in a string
// of ASCII letters is refused, in place and not.
TEST(JsonReader, OneNonAsciiByteOrEscapeAnywhereIsSeen) {
    for (const std::string odd : {"\xED\xA0\x80", "\xFF", "\xC3\xA9", "\\ud83d", "\\u0041"})
        expect_alike_at_every_place(odd, false);
}

// A quote or control character at any place in a long ASCII string, read
// in place (16 bytes a load where 16 are left, Transcoder<graph_utf8,
// graph_utf8>) and not: each ends the string's run where it stands.
TEST(JsonReader, AQuoteOrControlCharacterAnywhereEndsTheRun) {
    for (const std::string odd : {"\t", "\n", "\x01", "\x1F", "\", \""}) expect_alike_at_every_place(odd, true);
}

TEST(JsonReader, EverythingElseAlike) {
    const std::string texts[] = {
        "", " ", "{}", "[]", "{} x", "{}\n{}", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{,}", "{\"a\":1,}",
        "[[[]]]", "[", "]", "{", "}", "true", "tru", "nul", "null x", "[true, false, null]", "\xEF\xBB\xBF",
        "\xEF\xBB", "\xEF\xBB\xBF[1]", " \xEF\xBB\xBF[1]", std::string("[1]\0", 4), std::string("[\0]", 3),
        std::string("\"a\0b\"", 5), "[1]\t\r\n ", "\v[1]", "\f[1]", "{\"a\":1}/**/", "// c\n[1]"};
    for (const std::string &t : texts) {
        SCOPED_TRACE(t);
        // The oracle reads a NUL as the end of the text (and takes "[1]\0",
        // whatever follows); JSON text holds none, the reader refuses it.
        expect_alike(t, t == std::string("[1]\0", 4));
    }
}

// take_members finds, in one pass, each member its table names as the
// oracle reads it (a repeated key: its last value), leaves the others
// unset and passes over the keys it does not name.
TEST(JsonReader, TakeMembersFindsEachNamedMemberAsTheOracleDoes) {
    struct fields {
        std::optional<json_view> a, bb, ccc;
    };
    constexpr json_view::member_slot<fields> slots[] = {{"a", &fields::a}, {"bb", &fields::bb}, {"ccc", &fields::ccc}};
    for (const std::string text : {R"({"a":1,"bb":"two","x":3})", R"({"bb":1,"a":2,"bb":[3,4],"a":{"ccc":5}})",
                                   R"({})", R"({"ccc":null,"b":1,"aa":2,"ccc":-0.5})", R"({"A":1,"bb ":2})"}) {
        const json_tree tree = parse_json_tree(text, depth);
        const ojson want = *oracle(text);
        const fields got = tree.root().take_members(slots);
        for (const auto &[name, slot] : slots) {
            const std::string where = text + " " + std::string(name);
            const auto member = want.find(std::string(name));
            ASSERT_EQ((got.*slot).has_value(), member != want.end()) << where;
            if (member != want.end()) expect_same_value(*(got.*slot), *member, where);
        }
    }
}

TEST(JsonReader, NestingAtTheLimit) {
    for (std::uint64_t levels : {depth - 1, depth, depth + 1, depth * 4}) {
        SCOPED_TRACE(levels);
        expect_alike(std::string(levels, '[') + std::string(levels, ']'));
        std::string objects;
        for (std::uint64_t i = 0; i < levels; ++i) objects += "{\"a\":";
        expect_alike(objects + "1" + std::string(levels, '}'));
    }
    // The reader keeps its own stack: a limit far above the ceiling reads
    // as deep a text without recursing.
    const std::string deep = std::string(5000, '[') + std::string(5000, ']');
    EXPECT_FALSE(parse_json_tree(deep, 10000).empty());
}

TEST(JsonReader, RandomMutationsOfAGraphFileReadAlike) {
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
    // Most mutations break the text; some do not, and those the reader takes.
    EXPECT_GT(taken, 50);
}

TEST(JsonReader, AStreamSeesEachElementOnceThenTheError) {
    // A text malformed only at its end, after two streamed ops: the stream
    // has seen them once each when the reader stops with its error.
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
    EXPECT_EQ(starts, 1);
    EXPECT_EQ(ids, (std::vector<std::int64_t>{1, 2}));
}

// Read in place with a streamed array, the text behind the reader is let go
// of (a MiB at a time, a margin behind it): the stream sees every element
// and an error late in the text names the line, column and text that a
// reading of the whole text names, however the text breaks its lines.
TEST(JsonReader, TextLetGoOfAsReadKeepsErrorsWordForWord) {
    const std::string element = R"({"id": 12345, "kind": "StaticTranspose", "shape": [4, 8, 16]})";
    for (const std::string_view layout : {"a line each", "one line", "one break early"}) {
        SCOPED_TRACE(layout);
        std::string text = "{\"graph\": [";
        if (layout == "one break early") text += "\n";
        constexpr std::size_t count = 60000; // about 4 MiB
        for (std::size_t i = 0; i < count; ++i) {
            if (i > 0) text += ",";
            if (layout == "a line each") text += "\n";
            text += element;
        }
        const std::string well_formed = text + "], \"x\": true}";
        const std::string malformed = text + ", {\"id\": tru}]}";
        std::size_t seen = 0;
        const streamed_array ops{"graph", [&] { seen = 0; }, [&](json_view) { ++seen; }};

        std::string overwritten = well_formed;
        EXPECT_FALSE(parse_json_tree_in_place(overwritten, depth, &ops).empty());
        EXPECT_EQ(seen, count);

        const outcome whole = outcome_of([&] { return parse_json_tree(malformed, depth, &ops); });
        overwritten = malformed;
        const outcome in_place = outcome_of([&] { return parse_json_tree_in_place(overwritten, depth, &ops); });
        EXPECT_EQ(seen, count);
        EXPECT_TRUE(contains(whole.failure, "malformed JSON at line ")) << whole.failure;
        EXPECT_EQ(in_place.failure, whole.failure);
    }
}

TEST(JsonReader, ErrorsSayWhereAndWhat) {
    const struct {
        std::string text;
        std::string message;
    } cases[] = {
        {"{\"a\": [1,\n 2 3]}", "malformed JSON at line 2, column 4: missing a comma or ']' after an array element; "
                               "the text there: ' 2 3]}' [json_syntax]"},
        {"[1e400]", "malformed JSON at line 1, column 2: number too big to be stored in double; the text "
                    "there: '[1e400]' [json_syntax]"},
        {"[1.7976931348623159e308]", "malformed JSON at line 1, column 2: number 1.7976931348623159e308 is beyond "
                                     "the range of a double; the text there: '[1.7976931348623159e308]' "
                                     "[json_syntax]"},
        {"[\"\xff\"]", "malformed JSON at line 1, column 3: invalid encoding in string; the text there: "
                      "'[\"\\xFF\"]' [json_syntax]"},
        {"[\"a\", \"\\udc00\"]", "malformed JSON at line 1, column 15: a string holds a lone UTF-16 surrogate "
                                  "escape"},
        {"[1", "malformed JSON at line 1, column 3 (the end of the text): missing a comma or ']' after an array "
               "element; the text there: '[1' [json_syntax]"},
        {std::string("[1,\0 2]", 7), "malformed JSON at line 1, column 4: a NUL byte"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.text);
        try {
            parse_json_tree(c.text, depth);
            ADD_FAILURE() << "no error";
        } catch (const error &e) {
            EXPECT_EQ(e.code(), status::invalid_graph);
            EXPECT_TRUE(std::string(e.what()).starts_with(c.message)) << e.what();
        }
    }
}
