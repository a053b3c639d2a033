// The scan that finds a graph file's ops for reading them side by side
// (io/parallel_read.hpp): on arrays made of random elements whose bounds
// are known as they are made (strings full of brackets, commas, quotes and
// backslashes, runs of backslashes across the scan's 64-byte blocks, white
// space of every kind), the elements and the closing bracket it finds are
// those made, however many it is asked for at a time; and texts that are
// no such array are refused.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "io/parallel_read.hpp"

using namespace reshaper::impl::graph_io;

namespace {

struct made {
    std::string text;
    std::size_t first = 0; // after the '['
    std::vector<text_span> elements;
    std::size_t close = 0;
};

std::string random_string(std::mt19937 &rng) {
    static const std::string pieces[] = {"a", "]", "[", "{", "}", ",", "\\\"", "\\\\", "\\\\\\\\", "\\\\\\\"", " ", ":", "\\n", "x\\u005d"};
    std::string s = "\"";
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) s += pieces[rng() % std::size(pieces)];
    // A long run of backslashes now and then, across a block's end.
    if (rng() % 8 == 0) s += std::string(2 * (rng() % 40), '\\');
    return s + "\"";
}

std::string random_white(std::mt19937 &rng) {
    static const char white[] = {' ', '\n', '\r', '\t'};
    std::string s;
    for (int n = static_cast<int>(rng() % 4); n > 0; --n) s += white[rng() % 4];
    return s;
}

std::string random_value(std::mt19937 &rng, int depth) {
    switch (depth > 3 ? rng() % 3 : rng() % 5) {
    case 0: return std::to_string(rng() % 1000);
    case 1: return random_string(rng);
    case 2: return rng() % 2 ? "null" : "true";
    case 3: {
        std::string s = "[";
        s += random_white(rng);
        for (int n = static_cast<int>(rng() % 4), i = 0; i < n; ++i) {
            if (i) s += ',';
            s += random_value(rng, depth + 1);
            s += random_white(rng);
        }
        return s + "]";
    }
    default: {
        std::string s = "{";
        s += random_white(rng);
        for (int n = static_cast<int>(rng() % 4), i = 0; i < n; ++i) {
            if (i) s += ", ";
            s += random_string(rng);
            s += random_white(rng);
            s += ':';
            s += random_value(rng, depth + 1);
        }
        return s + random_white(rng) + "}";
    }
    }
}

made random_array(std::mt19937 &rng, int count) {
    made m;
    m.text = "{\"graph\":";
    m.text += random_white(rng);
    m.text += '[';
    m.first = m.text.size();
    for (int i = 0; i < count; ++i) {
        m.text += random_white(rng);
        const std::string v = random_value(rng, 1);
        m.elements.push_back({m.text.size(), m.text.size() + v.size()});
        m.text += v + random_white(rng) + (i + 1 < count ? "," : "");
    }
    m.text += random_white(rng);
    m.close = m.text.size();
    m.text += "]}";
    return m;
}

} // namespace

TEST(GraphOpsScan, FindsTheElementsMade) {
    std::mt19937 rng(7);
    for (int round = 0; round < 400; ++round) {
        const made m = random_array(rng, static_cast<int>(rng() % 60));
        SCOPED_TRACE(m.text);
        ASSERT_EQ(find_top_level_array(m.text, "graph"), m.first - 1);
        for (std::size_t per_call : {std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {
            array_elements_scan scan(m.text, m.first);
            std::vector<text_span> found;
            while (!scan.closed()) {
                const std::size_t before = found.size();
                ASSERT_TRUE(scan.next(per_call, found));
                ASSERT_TRUE(scan.closed() || found.size() >= before + per_call);
            }
            EXPECT_EQ(found, m.elements);
            EXPECT_EQ(scan.close(), m.close);
        }
    }
}

TEST(GraphOpsScan, RefusesWhatIsNoArrayOfElements) {
    const std::string pad(100, ' '); // some cases in the 64-byte blocks, some in the tail
    for (const std::string &body : {std::string("1,,2]"), std::string(",1]"), std::string("1,]"), std::string("1, 2"),
                                    std::string("\"]"), std::string("[1, 2"), std::string("1, \"a\0\"]", 8)}) {
        for (const bool padded : {false, true}) {
            const std::string text = "{\"graph\": [" + (padded ? pad : "") + body + (padded ? pad : "");
            array_elements_scan scan(text, 11);
            std::vector<text_span> found;
            bool read = true;
            while (read && !scan.closed()) read = scan.next(4, found);
            EXPECT_FALSE(read) << text;
        }
    }
    // An empty array is one.
    array_elements_scan empty(std::string_view("[ \n]"), 1);
    std::vector<text_span> none;
    EXPECT_TRUE(empty.next(4, none));
    EXPECT_TRUE(empty.closed() && none.empty() && empty.close() == 3);
}

TEST(GraphOpsScan, FindsTheArrayOfAKeyAtTheTopLevelOnly) {
    EXPECT_EQ(find_top_level_array(R"({"graph": [1]})", "graph"), 10u);
    EXPECT_EQ(find_top_level_array("\xEF\xBB\xBF {\"a\": {\"graph\": [2]}, \"b\": \"graph\", \"graph\" :\n[]}", "graph"), 50u);
    EXPECT_EQ(find_top_level_array("{\"a\": \"x\\\"}\", \"graph\": []}", "graph"), 23u);
    EXPECT_FALSE(find_top_level_array(R"({"graph": 1})", "graph"));
    EXPECT_FALSE(find_top_level_array(R"({"gr\u0061ph": []})", "graph"));
    EXPECT_FALSE(find_top_level_array(R"({"a\"": 1, "graph": []})", "graph")); // an escape in a key before
    EXPECT_FALSE(find_top_level_array(R"([{"graph": []}])", "graph"));
    EXPECT_FALSE(find_top_level_array(R"({"a" 1, "graph": []})", "graph"));
}
