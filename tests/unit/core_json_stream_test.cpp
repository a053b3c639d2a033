// The streaming reader (ops handed over one by one, issue 7) against the
// reader of a whole DOM that files were read with before: the same graph,
// or the same error (status, message, op, rule), on files made to differ
// where streaming could: repeated and unknown keys, nesting, numbers at
// the edges, escapes, empty lists, an error in an op with another error
// later in the text. The streamed read is also taken through the pipeline
// that reads the ops on a TBB worker (io/op_pipeline.hpp), and through the
// reading of ops side by side (io/parallel_read.hpp), from the text and in
// place from a file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <tbb/global_control.h>

#include "core/limits.hpp"
#include "io/graph_json.hpp"
#include "io/parallel_read.hpp"
#include "scoped_env.hpp"
#include "file_text_support.hpp"

using namespace reshaper::impl;

namespace {

using reshaper::impl::testing::scoped_env;

// What a read gave: the graph, or the error as the outside sees it.
struct outcome {
    std::optional<graph> g;
    std::string failure; // status, message, op, rule

    static outcome of(graph (*read)(std::string_view), const std::string &text) {
        outcome o;
        try {
            o.g = read(text);
        } catch (const error &e) {
            o.failure = std::string(to_string(e.code())) + " | " + e.what() + " | op " +
                        (e.op() ? describe(*e.op()) : "-") + " | rule " + std::string(e.rule());
        }
        return o;
    }
};

void expect_same_outcome(const outcome &a, const outcome &b, const std::string &text) {
    EXPECT_EQ(a.failure, b.failure) << text.substr(0, 300);
    EXPECT_EQ(a.g.has_value(), b.g.has_value()) << text.substr(0, 300);
    if (a.g && b.g) {
        EXPECT_EQ(*a.g, *b.g) << text.substr(0, 300);
        EXPECT_EQ(a.g->warnings, b.g->warnings);
    }
}

// The ops read on a second thread, `batch` at a time.
template <std::size_t batch>
graph read_pipelined(std::string_view text) {
    return detail::read_graph_json_pipelined(text, batch);
}

// The ops parsed side by side, `per_task` a task (io/parallel_read.hpp),
// from the text and, read in place, from a file holding it.
template <std::size_t per_task>
graph read_side_by_side(std::string_view text) {
    return detail::read_graph_json_side_by_side(text, per_task);
}
template <std::size_t per_task>
graph read_side_by_side_file(std::string_view text) {
    static int files = 0;
    const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                       ("reshaper_side_by_side_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(files++) + ".json");
    std::ofstream(path, std::ios::binary) << text;
    struct remove_file {
        std::filesystem::path path;
        ~remove_file() { std::filesystem::remove(path); }
    } const removed{path};
    return detail::read_graph_file_side_by_side(path.string(), per_task);
}

// Whether the ops of `text` were parsed side by side, not read in turn
// after all: the text read so, to a graph or to an op's error.
bool parsed_side_by_side(const std::string &text) {
    try {
        bool lost = false;
        return graph_io::read_graph_side_by_side(text, nullptr, current_limits().max_json_depth, 3, &lost).has_value();
    } catch (const error &) {
        return true;
    }
}

// Which pipelined reads expect_same adds: an op a batch and two a batch
// (small_batches), only the first, or only full batches of 256.
enum class pipelines { small_batches, one_op_a_batch, full_batches };

// Returns what both gave, for further checks. The streamed read also goes
// through the pipeline that reads ops on a second thread, in the batches
// `through` names (an op a batch: a hand-over per op; two: the parser
// waits for room).
outcome expect_same(const std::string &text, pipelines through = pipelines::small_batches) {
    const outcome streamed = outcome::of(read_graph_json, text);
    const outcome whole = outcome::of(detail::read_graph_json_whole, text);
    expect_same_outcome(streamed, whole, text);
    if (through == pipelines::small_batches || through == pipelines::one_op_a_batch)
        expect_same_outcome(outcome::of(read_pipelined<1>, text), whole, text);
    if (through == pipelines::small_batches) expect_same_outcome(outcome::of(read_pipelined<2>, text), whole, text);
    if (through == pipelines::full_batches) expect_same_outcome(outcome::of(read_pipelined<256>, text), whole, text);
    // Side by side: a task an op, a few ops a task (tasks end inside and
    // between ops' texts), and in place from a file.
    expect_same_outcome(outcome::of(read_side_by_side<1>, text), whole, text);
    expect_same_outcome(outcome::of(read_side_by_side<3>, text), whole, text);
    // (A file over the size limit is named in the message: not compared.)
    if (text.size() <= current_limits().max_graph_bytes) {
        expect_same_outcome(outcome::of(read_side_by_side_file<2>, text), whole, text);
        if (through == pipelines::full_batches)
            expect_same_outcome(outcome::of(read_side_by_side_file<128>, text), whole, text);
    }
    return streamed;
}

std::string tensor(int id, const std::string &extra = "") {
    return R"({"id": )" + std::to_string(id) +
           R"(, "dtype": "f32", "shape": [2, 3], "layout_type": "strided", "property_type": "undef")" + extra + "}";
}

// One StaticTranspose from tensor `in` to `in + 1`; `extra` goes into the op.
std::string op_json(int id, int in, const std::string &extra = "") {
    return R"({"id": )" + std::to_string(id) + R"(, "name": "t)" + std::to_string(id) +
           R"(", "kind": "StaticTranspose", "attrs": {"order": {"type": "s64[]", "value": [0, 1]}}, "inputs": [)" +
           tensor(in) + R"(], "outputs": [)" + tensor(in + 1) + "]" + extra + "}";
}

std::string file(const std::string &ops, const std::string &before = "", const std::string &after = "") {
    return "{" + before + R"("version": "3.3.0", "engine_kind": "cpu", "graph": [)" + ops + "]" + after + "}";
}

} // namespace

TEST(GraphJsonStream, PlainFilesGiveTheSameGraph) {
    const outcome o = expect_same(file(op_json(0, 0) + ", " + op_json(1, 1) + ", " + op_json(2, 2)));
    ASSERT_TRUE(o.g);
    EXPECT_EQ(o.g->ops.size(), 3u);
    EXPECT_EQ(o.g->tensors.size(), 4u);
}

TEST(GraphJsonStream, RepeatedKeysTakeTheLastValue) {
    // "graph" twice: the last one holds the ops, whatever the first was.
    const std::string two = file(op_json(0, 0), "", R"(, "graph": [)" + op_json(5, 5) + ", " + op_json(6, 6) + "]");
    const outcome o = expect_same(two);
    ASSERT_TRUE(o.g);
    ASSERT_EQ(o.g->ops.size(), 2u);
    EXPECT_EQ(o.g->ops[0].id, 5);
    expect_same(file(op_json(0, 0), "", R"(, "graph": 7)"));                      // not an array in the end
    expect_same(file(op_json(0, 0), R"("graph": 7, )"));                          // an array in the end
    expect_same(file(op_json(0, 0, R"(, "kind": 3)"), "", R"(, "graph": [])"));  // a bad op replaced
    expect_same(file(op_json(0, 0), "", R"(, "graph": [)" + op_json(0, 0, R"(, "id": -1)") + "]"));
    // Inside ops and tensors, and the other top-level fields.
    expect_same(file(op_json(0, 0, R"(, "id": 4, "name": "again")")));
    expect_same(file(op_json(0, 0, R"(, "inputs": [)" + tensor(0, R"(, "shape": [3, 2], "id": 9)") + "]")));
    expect_same(file(op_json(0, 0), R"("version": 1, )"));
    expect_same(file(op_json(0, 0), "", R"(, "version": 1, "version": "3.4")"));
    // Two ops with one id.
    expect_same(file(op_json(0, 0) + ", " + op_json(0, 1)));
}

TEST(GraphJsonStream, UnknownKeysAreKeptOrIgnoredAlike) {
    const outcome o = expect_same(file(op_json(0, 0, R"(, "colour": {"deep": [1, [2, {"x": null}]]})"),
                                       R"("zeta": [1, 2.5, "s"], )", R"(, "alpha": {"b": true})"));
    ASSERT_TRUE(o.g);
    EXPECT_EQ(o.g->extra_fields.size(), 2u);
    expect_same(file(op_json(0, 0, R"(, "inputs": [)" + tensor(0, R"(, "note": "x")") + "]")));
}

TEST(GraphJsonStream, NestingLimitsAnywhere) {
    const scoped_env depth("RESHAPER_MAX_JSON_DEPTH", "8");
    const std::string deep = std::string(6, '[') + std::string(6, ']');
    expect_same(file(op_json(0, 0, R"(, "x": )" + deep)));                       // 9 levels in an op
    expect_same(file(op_json(0, 0), "", R"(, "x": )" + deep));                    // 7 at the top level
    expect_same(file(op_json(0, 0, R"(, "kind": 3)") + ", " + op_json(1, 1, R"(, "x": )" + deep)));
    expect_same(file(op_json(0, 0, R"(, "x": [[[1]]])")));                        // within the limit
}

TEST(GraphJsonStream, NumbersAtTheEdges) {
    const char *values[] = {"18446744073709551615", "9223372036854775807", "-9223372036854775808",
                            "-9223372036854775809", "1e308", "-0", "-0.0", "2.0", "1e400", "0.1e-400",
                            "3.4028235677973366e38", "1.00000005960464477550", "00", "1.", "-"};
    for (const char *v : values) {
        SCOPED_TRACE(v);
        expect_same(file(op_json(0, 0, std::string(R"(, "version": )") + v)));
        expect_same(file(R"({"id": )" + std::string(v) + R"(, "kind": "StaticTranspose", "inputs": [], "outputs": []})"));
        expect_same(file(op_json(0, 0), "", std::string(R"(, "x": [)") + v + "]"));
        expect_same(file(R"({"id": 0, "kind": "StaticTranspose", "attrs": {"order": {"type": "f32", "value": )" +
                         std::string(v) + R"(}}, "inputs": [], "outputs": []})"));
    }
}

TEST(GraphJsonStream, EscapesInNamesKeysAndStrings) {
    const outcome o = expect_same(file(R"({"id": 0, "name": "caf\u00e9 \ud83d\ude00 \"q\" \\ \/", "kind": "StaticTranspose",
        "attrs": {"order": {"type": "s64[]", "value": [0, 1]}}, "inputs": [)" + tensor(0) + R"(], "outputs": [)" +
                                       tensor(1) + "]}", R"("\u0076ersion": "2", )"));
    ASSERT_TRUE(o.g);
    EXPECT_EQ(o.g->ops[0].name, "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" \\ /");
    expect_same(file(R"({"id": 0, "kind": "Static\u0054ranspose", "inputs": [], "outputs": []})"));
    expect_same(file(R"({"id": 0, "name": "\ud83d", "kind": "X", "inputs": [], "outputs": []})"));
    expect_same(file(R"({"id": 0, "name": "\u0000", "kind": "X", "inputs": [], "outputs": []})"));
}

TEST(GraphJsonStream, EmptyListsAndObjects) {
    expect_same(file(""));
    expect_same("{\"graph\": []}");
    expect_same("{}");
    expect_same("[]");
    expect_same("{\"graph\": {}}");
    expect_same(file(R"({"id": 0, "kind": "StaticTranspose", "attrs": {}, "inputs": [], "outputs": []})"));
    expect_same(file(R"({})"));
    expect_same(file(R"([])"));
    expect_same(file(R"({"id": 0, "kind": "StaticTranspose", "inputs": [{}], "outputs": []})"));
    expect_same(file(op_json(0, 0), "", R"(, "input_ports": [], "output_ports": [])"));
}

TEST(GraphJsonStream, TheFirstErrorWinsAsBefore) {
    const std::string bad_op = op_json(0, 0, R"(, "kind": 3)");
    expect_same(file(bad_op + ", " + op_json(1, 1)) + " x");                 // a syntax error after a bad op
    expect_same(file(bad_op + ", " + op_json(1, 1, R"(, "id": "one")")));     // two bad ops
    expect_same(file(op_json(0, 0) + ", " + op_json(1, 5, R"(, "inputs": [)" + tensor(0, R"(, "dtype": "s8")") + "]")));
    expect_same(file(bad_op, R"("version": 2, )"));                      // a bad op and a bad top-level field
    expect_same(file(op_json(0, 0), R"("input_ports": [77], "output_ports": "x", )"));
    expect_same(file(op_json(0, 0), "", R"(, "input_ports": [0, 77], "output_ports": [1])"));
    {
        const scoped_env ops("RESHAPER_MAX_OPS", "2");
        expect_same(file(bad_op + ", " + op_json(1, 1) + ", " + op_json(2, 2)));   // the op limit before any op
        expect_same(file(op_json(0, 0) + ", " + op_json(1, 1)));
        expect_same(file(op_json(0, 0) + ", " + op_json(1, 1) + ", 3, 4"));
    }
    {
        const scoped_env bytes("RESHAPER_MAX_GRAPH_BYTES", "100");
        expect_same(file(op_json(0, 0)));
    }
}

TEST(GraphJsonStream, EveryByteChangeOfASmallFileReadsAlike) {
    const std::string text = file(op_json(0, 0) + ", " + op_json(1, 1, R"(, "attrs": {"order": {"type": "s64[]", "value": [1, 0]}})"),
                                  R"("fpmath_mode": "strict", )", R"(, "input_ports": [0], "output_ports": [2])");
    const char replacements[] = {'0', '-', '"', '[', ']', '{', '}', ',', ':', 'x', ' '};
    for (std::size_t i = 0; i < text.size(); ++i)
        for (char r : replacements) {
            if (text[i] == r) continue;
            std::string mutated = text;
            mutated[i] = r;
            expect_same(mutated, pipelines::one_op_a_batch); // thousands of texts: one pipeline each
            if (::testing::Test::HasFailure()) return; // one report, not thousands
        }
}

TEST(GraphJsonStream, EveryCorpusFileReadsAlike) {
    const std::filesystem::path dir = std::filesystem::path(RESHAPER_SHARED_DIR) / "corpus" / "onednn-graph";
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no corpus at " << dir;
    int files = 0;
    for (const auto &path : reshaper::test::json_files_below(dir)) {
        SCOPED_TRACE(path.string());
        const outcome o = expect_same(reshaper::test::file_text(path));
        EXPECT_TRUE(o.g) << o.failure; // every corpus file loads
        ++files;
    }
    EXPECT_GT(files, 0);
}

// Texts of a MiB and more are read through the pipeline when two threads may
// run: thousands of ops over many batches, with a bad op (or a syntax
// error) far into the text, read as the whole DOM reads them.
TEST(GraphJsonStream, LargeTextsReadOnASecondThreadAlike) {
    const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
    std::string ops;
    constexpr int count = 4000; // 1.2 MB
    for (int i = 0; i < count; ++i) ops.append(i ? ", " : "").append(op_json(i, 2 * i));
    const std::string text = file(ops);
    ASSERT_GT(text.size(), std::size_t{1} << 20);
    // read_graph_json takes the pipeline here (by size); so does the
    // pipelined read of 256 ops a batch, whatever the threads.
    const outcome o = expect_same(text, pipelines::full_batches);
    ASSERT_TRUE(o.g);
    EXPECT_EQ(o.g->ops.size(), static_cast<std::size_t>(count));
    EXPECT_EQ(o.g->ops.back().id, count - 1);
    const std::string bad = file(ops + ", " + op_json(count, 2 * count, R"(, "kind": 3)") + ", " + op_json(count + 1, 2 * count + 2));
    EXPECT_FALSE(expect_same(bad, pipelines::full_batches).g);
    EXPECT_FALSE(expect_same(bad + " x", pipelines::full_batches).g);
    EXPECT_FALSE(expect_same(file(ops + ", " + op_json(0, 2 * count)), pipelines::full_batches).g); // an op id used twice
}

// The pipeline's task runs on a worker of TBB's arena; with none to be had
// (one thread allowed) the reader takes its place once the queue is full,
// and reads the same graph, or the same first error, instead of waiting.
TEST(GraphJsonStream, PipelineWithoutAWorkerReadsInTurn) {
    const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    std::string ops;
    constexpr int count = 40;
    for (int i = 0; i < count; ++i) ops.append(i ? ", " : "").append(op_json(i, 2 * i));
    // An op a batch and two batches waiting at most: the queue fills at the third op.
    const outcome o = expect_same(file(ops), pipelines::one_op_a_batch);
    ASSERT_TRUE(o.g);
    EXPECT_EQ(o.g->ops.size(), static_cast<std::size_t>(count));
    const std::string bad = file(ops + ", " + op_json(count, 2 * count, R"(, "kind": 3)") + ", " + op_json(count + 1, 2 * count + 2));
    EXPECT_FALSE(expect_same(bad, pipelines::one_op_a_batch).g);
    EXPECT_FALSE(expect_same(bad + " x", pipelines::one_op_a_batch).g);
}

// Ops read side by side: the scan for their bounds must not be misled by
// brackets, braces, commas and escaped quotes inside strings, keys or
// values of any kind, nor by white space of every sort between them.
TEST(GraphJsonStream, SideBySideScanIsNotMisledByStrings) {
    const std::string tricky_names[] = {R"(a]b)", R"({[,]})", R"(q\"]},{\")", R"(\\)", R"(\\\")", R"(\\\"]\\)",
                                        R"(x\u005d\u007b)", R"(caf\u00e9 \u00e9\ud83d\ude00 ])", R"(\u00e9]})"};
    std::string ops;
    int id = 0;
    for (const std::string &name : tricky_names) {
        for (int k = 0; k < 3; ++k, ++id) {
            std::string op = op_json(id, 2 * id, R"(, "name": ")" + name + R"(", "note": [")" + name + R"(", {"k]": "}"}])");
            ops.append(id ? (k == 1 ? " \r\n\t,\n " : ",") : "").append(op);
        }
    }
    const std::string text = file(ops, R"("x": "]}", "graph\u0020": "a", )", R"(, "y": ["[", "{"])");
    EXPECT_FALSE(parsed_side_by_side(text)); // an escaped key before "graph": read in turn
    const std::string plain = file(ops, R"("x": "]}", )", R"(, "y": ["[", "{"])");
    EXPECT_TRUE(parsed_side_by_side(plain));
    expect_same(plain);
    const outcome o = expect_same(text);
    ASSERT_TRUE(o.g) << o.failure;
    EXPECT_EQ(o.g->ops.size(), static_cast<std::size_t>(id));
    EXPECT_EQ(o.g->ops[4].name, "{[,]}");
    EXPECT_EQ(o.g->ops[7].name, "q\"]},{\"");
    // Elements that are not objects, nested arrays, a byte order mark,
    // "graph" after other members and before them, and escaped.
    for (const std::string &good : {file(op_json(0, 0) + R"(, 3, "s]", [1, [2]], {}, null)"),
                                    "\xEF\xBB\xBF" + file(op_json(0, 0) + ", " + op_json(1, 1)),
                                    R"({"input_ports": [0], "engine_kind": "cpu", "graph": [)" + op_json(0, 0) + "]}",
                                    R"({"graph" : [ )" + op_json(0, 0) + " ] , \"version\"\n:\t\"1\" }",
                                    file(" \n"), file("")}) {
        EXPECT_TRUE(parsed_side_by_side(good)) << good;
        expect_same(good);
    }
    // Read in turn: "graph" escaped, twice, not an array.
    for (const std::string &other : {R"({"gr\u0061ph": [)" + op_json(0, 0) + R"(], "version": "1"})",
                                     file(op_json(0, 0), "", R"(, "graph": [)" + op_json(1, 1) + "]"),
                                     file(op_json(0, 0), R"("graph": [], )"), std::string(R"({"graph": 3})")}) {
        EXPECT_FALSE(parsed_side_by_side(other)) << other;
        expect_same(other);
    }
    // Malformed around and between the ops: the error of reading in turn.
    for (const std::string &bad : {file(op_json(0, 0) + ",, " + op_json(1, 1)), file(op_json(0, 0) + ", "),
                                   file(", " + op_json(0, 0)), file(op_json(0, 0) + " " + op_json(1, 1)),
                                   file(op_json(0, 0) + ", " + op_json(1, 1)) + "}", file(op_json(0, 0) + "]"),
                                   file(op_json(0, 0)).substr(0, 150), "{\"graph\": [" + op_json(0, 0),
                                   file(op_json(0, 0, R"(, "name": "a\x")")), file(op_json(0, 0, R"(, "n": [}])")),
                                   file(op_json(0, 0), R"("v": [}, )"), file(op_json(0, 0), "", R"(, "v": })")}) {
        EXPECT_FALSE(parsed_side_by_side(bad)) << bad;
        EXPECT_FALSE(expect_same(bad).g);
    }
}

// Many ops over many tasks, with an error in the middle of them: a bad op
// (the first bad op's error, the ops after it still read for syntax), a
// syntax error inside an op, and both.
TEST(GraphJsonStream, SideBySideErrorsInTheMiddle) {
    std::string before, after;
    constexpr int count = 600;
    for (int i = 0; i < count; ++i) before.append(i ? ", " : "").append(op_json(i, 2 * i, R"(, "name": "n{)" + std::to_string(i) + R"(]\"")"));
    for (int i = count + 1; i < 2 * count; ++i) after.append(", ").append(op_json(i, 2 * i));
    const std::string good = file(before + ", " + op_json(count, 2 * count) + after);
    EXPECT_TRUE(parsed_side_by_side(good));
    const outcome o = expect_same(good, pipelines::full_batches);
    ASSERT_TRUE(o.g) << o.failure;
    EXPECT_EQ(o.g->ops.size(), static_cast<std::size_t>(2 * count));
    EXPECT_EQ(o.g->ops[5].name, "n{5]\"");
    const std::string bad_op = op_json(count, 2 * count, R"(, "kind": 3)");
    const std::string bad_text = op_json(count, 2 * count, R"(, "kind": "X" "Y")");
    EXPECT_TRUE(parsed_side_by_side(file(before + ", " + bad_op + after))); // the op's error, without reading again
    EXPECT_FALSE(parsed_side_by_side(file(before + ", " + bad_text + after)));
    EXPECT_FALSE(expect_same(file(before + ", " + bad_op + after), pipelines::full_batches).g);
    EXPECT_FALSE(expect_same(file(before + ", " + bad_text + after), pipelines::full_batches).g);
    EXPECT_FALSE(expect_same(file(before + ", " + bad_op + after + ", " + bad_text), pipelines::full_batches).g);
    EXPECT_FALSE(expect_same(file(before + ", " + bad_op + after) + " x", pipelines::full_batches).g);
    EXPECT_FALSE(expect_same(file(before + ", " + op_json(3, 2 * count) + after), pipelines::full_batches).g); // id twice
    {
        const scoped_env depth("RESHAPER_MAX_JSON_DEPTH", "6");
        EXPECT_FALSE(expect_same(file(before + ", " + op_json(count, 2 * count, R"(, "x": [[[[1]]]])") + after),
                                 pipelines::full_batches)
                             .g);
    }
}
