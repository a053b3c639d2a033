#include "io/json_dom.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <locale.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/fail.hpp"
#include "core/limits.hpp"
#include "core/status.hpp"
#include "io/decimal_text.hpp"

// RapidJSON in a namespace of our own, so that no other copy linked into a
// program meets ours. Its SIMD scans are left off: they read whole aligned
// blocks past the text's end, and on a graph file's short strings they
// measured no faster than the plain loop (strings are scanned by
// Transcoder<graph_utf8, graph_utf8> below, within the text).
#define RAPIDJSON_NAMESPACE reshaper_rapidjson
#define RAPIDJSON_NAMESPACE_BEGIN namespace reshaper_rapidjson {
#define RAPIDJSON_NAMESPACE_END }
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
namespace rapidjson = reshaper_rapidjson;

namespace reshaper_rapidjson {

// A text read in place: RapidJSON's GenericInsituStringStream with the
// text's end, so that a string's run of plain characters (below) is found
// 16 bytes at a time where 16 bytes are left to read.
struct insitu_text {
    using Ch = char;
    insitu_text(char *text, char *end) : src_(text), dst_(nullptr), head_(text), end_(end) {}
    char Peek() const { return *src_; }
    char Take() { return *src_++; }
    std::size_t Tell() const { return static_cast<std::size_t>(src_ - head_); }
    void Put(char c) { *dst_++ = c; }
    char *PutBegin() { return dst_ = src_; }
    std::size_t PutEnd(char *begin) const { return static_cast<std::size_t>(dst_ - begin); }
    void Flush() {}
    char *Push(std::size_t count) {
        char *begin = dst_;
        dst_ += count;
        return begin;
    }
    void Pop(std::size_t count) { dst_ -= count; }
    char *src_, *dst_, *head_;
    const char *end_; // the terminating NUL
};
template <>
struct StreamTraits<insitu_text> {
    enum { copyOptimization = 1 };
};

// UTF-8 as RapidJSON reads it, with strings copied (or, read in place,
// passed over) a run of plain characters at a time. RapidJSON's string
// loop asks its Transcoder for one code unit per turn, after three tests
// of its own, and its branch at a string's end missed on nearly every one
// of a graph file's short strings (keys, names, dtypes): reading strings
// was a tenth of checking a 100,000-op file (callgrind). The loop only
// calls Transcode on a plain byte (not '"', '\\' or a control character),
// and a run ends before the next byte that is not plain, so the loop meets
// every quote, escape and control character (and its error offset) as
// before. Validation (texts that are not all ASCII) stays RapidJSON's, a
// code point at a time.
struct graph_utf8 : UTF8<char> {};

template <>
struct Transcoder<graph_utf8, graph_utf8> {
    static bool plain(char c) {
        return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\';
    }
    template <typename InputStream, typename OutputStream>
    RAPIDJSON_FORCEINLINE static bool Transcode(InputStream &is, OutputStream &os) {
        do os.Put(is.Take());
        while (plain(is.Peek()));
        return true;
    }
    // Read in place with nothing decoded yet (a text read in place holds no
    // escape: json_dom.cpp), reading and writing are at one place: the run
    // is passed over, not copied onto itself.
    RAPIDJSON_FORCEINLINE static bool Transcode(insitu_text &is, insitu_text &os) {
        if (&is != &os || is.src_ != is.dst_) {
            do os.Put(is.Take());
            while (plain(is.Peek()));
            return true;
        }
        char *p = is.src_ + 1;
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below = _mm_set1_epi8(0x1F);
        for (; is.end_ - p >= 16; p += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
            const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, below), below); // v <= 0x1F
            const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), control);
            if (const int mask = _mm_movemask_epi8(stop)) {
                p += __builtin_ctz(static_cast<unsigned>(mask));
                is.src_ = is.dst_ = p;
                return true;
            }
        }
#endif
        while (plain(*p)) ++p;
        is.src_ = is.dst_ = p;
        return true;
    }
    template <typename InputStream, typename OutputStream>
    RAPIDJSON_FORCEINLINE static bool TranscodeUnsafe(InputStream &is, OutputStream &os) {
        return Transcode(is, os);
    }
    template <typename InputStream, typename OutputStream>
    RAPIDJSON_FORCEINLINE static bool Validate(InputStream &is, OutputStream &os) {
        return UTF8<char>::Validate(is, os);
    }
};

} // namespace reshaper_rapidjson

namespace reshaper::impl {
using graph_reader = rapidjson::GenericReader<rapidjson::graph_utf8, rapidjson::graph_utf8>;
}

namespace reshaper::impl {

// A text read in place whose pages go back to the system once the reader
// is past them: a graph file's text was its size again in memory at the
// peak of reading it, beside the graph being built (issue 27). What a
// message needs of the text let go of is kept: how many lines it held and
// where the last of them began. Pages read as zeros once let go of.
class parsed_text_release {
public:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    parsed_text_release(const char *text, std::size_t size) : text_(text), size_(size) {}

    // The reader has come to `at`: whole pages more than a margin before it
    // go, a step of at least 1 MiB at a time (a system call each).
    void up_to(const char *at) {
        constexpr std::size_t margin = std::size_t{1} << 16, step = std::size_t{1} << 20;
        const auto pos = static_cast<std::size_t>(at - text_);
        if (pos > size_ || pos < released_ + margin + step) return;
        static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        const auto base = reinterpret_cast<std::uintptr_t>(text_);
        const std::uintptr_t to = (base + pos - margin) & ~(page - 1);
        const std::uintptr_t from = (base + released_ + page - 1) & ~(page - 1);
        if (to <= from) return;
        const std::size_t end = to - base;
        const char *first = text_ + released_, *last = text_ + end;
        newlines_ += static_cast<std::size_t>(std::count(first, last, '\n'));
        if (const void *nl = memrchr(first, '\n', static_cast<std::size_t>(last - first)))
            last_newline_ = static_cast<std::size_t>(static_cast<const char *>(nl) - text_);
        // Should the system refuse, the pages only stay.
        madvise(reinterpret_cast<void *>(from), to - from, MADV_DONTNEED);
        released_ = end;
    }
    // Bytes from the text's start whose text is gone (some may stay held).
    std::size_t released() const { return released_; }
    // Line breaks among them, and the offset of the last (none: no break).
    std::size_t newlines() const { return newlines_; }
    std::size_t last_newline() const { return last_newline_; }

private:
    const char *text_;
    std::size_t size_;
    std::size_t released_ = 0, newlines_ = 0, last_newline_ = none;
};

// RapidJSON's SAX events append nodes. Each value is handled a bounded
// number of times, so reading is linear; a repeated key is only flagged
// here, and resolved where the object is read (json_view). Numbers come as
// their text (kParseNumbersAsStringsFlag), which exact decimals need anyway.
// Returning false stops the reader; what was wrong is then in failure().
class tree_builder {
public:
    // `escapes`: whether the text holds a backslash (see lone_surrogate).
    tree_builder(std::uint64_t max_depth, const streamed_array *stream, bool escapes)
        : max_depth_(max_depth), stream_(stream), escapes_(escapes) {}

    // Read in place: what lies before each streamed element's text is let go
    // of as the element is handed over.
    void release_as_read(parsed_text_release *release) { release_ = release; }

    bool Null() { return add(json_tree::kind::null); }
    bool Bool(bool b) {
        add_node(json_tree::kind::boolean).flag = b;
        return added();
    }
    bool RawNumber(const char *text, rapidjson::SizeType length, bool) {
        last_text_ = text;
        const std::string_view token(text, length);
        const bool integral = token.find_first_of(".eE") == std::string_view::npos;
        if (integral && token.front() == '-') {
            std::int64_t v = 0;
            if (const auto r = std::from_chars(token.data(), token.data() + token.size(), v); r.ec == std::errc()) {
                // "-0": keep its sign, as the float -0.0 (values may hold it).
                if (v == 0) return add_float(-0.0, 0);
                add_node(json_tree::kind::integer).integer = v;
                return added();
            }
        } else if (integral) {
            std::uint64_t v = 0;
            if (const auto r = std::from_chars(token.data(), token.data() + token.size(), v); r.ec == std::errc()) {
                add_node(json_tree::kind::unsigned_integer).unsigned_integer = v;
                return added();
            }
        }
        // An integer past 64 bits is a float. strtod's rounding (correct), in
        // the C locale, over a copy that ends in a NUL (read in place, the
        // number's text is followed by the next).
        static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
        const std::string terminated(token);
        const double d = strtod_l(terminated.c_str(), nullptr, c_locale);
        if (!std::isfinite(d)) return refuse("number " + terminated + " is beyond the range of a double");
        // A double that may be a tie of a narrower format keeps the side of
        // the tie its text lies on.
        return add_float(d, may_be_narrow_tie(d) ? compare_decimal(token, d) : 0);
    }
    bool Int(int) { return false; } // numbers come as text (kParseNumbersAsStringsFlag)
    bool Uint(unsigned) { return false; }
    bool Int64(std::int64_t) { return false; }
    bool Uint64(std::uint64_t) { return false; }
    bool Double(double) { return false; }
    bool String(const char *text, rapidjson::SizeType length, bool) {
        last_text_ = text;
        const std::string_view s(text, length);
        if (escapes_ && lone_surrogate(s)) return refuse_surrogate();
        const std::size_t at = tree_.pool_.size();
        tree_.pool_.append(s);
        json_tree::node &n = add_node(json_tree::kind::string, at);
        n.string_at = at;
        n.string_size = s.size();
        return added();
    }
    bool Key(const char *text, rapidjson::SizeType length, bool) {
        last_text_ = text;
        const std::string_view k(text, length);
        if (escapes_ && lone_surrogate(k)) return refuse_surrogate();
        key_at_ = tree_.pool_.size();
        key_size_ = k.size();
        tree_.pool_.append(k);
        // A key that repeats has its sketch bit set already: only then is
        // the object searched as it closes (key_repeats). Sketched here, as
        // each key is read, and not by walking the members again at the
        // close (a twentieth of checking a large graph file, perf).
        if (!open_.empty()) {
            open_container &object = open_.back();
            const std::uint64_t bit = key_sketch(k);
            object.maybe_repeats |= (object.key_sketches & bit) != 0;
            object.key_sketches |= bit;
        }
        return true;
    }
    bool StartObject() { return open(json_tree::kind::object); }
    bool StartArray() { return open(json_tree::kind::array); }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool EndArray(rapidjson::SizeType) { return close(); }

    // Why the builder stopped the reader; empty when it did not.
    const std::string &failure() const { return failure_; }
    json_tree take() { return std::move(tree_); }
    // Another value, appended after the last of `into` (json_value_reader):
    // the builder's own storage kept.
    void restart(json_tree &&into, bool escapes) {
        tree_ = std::move(into);
        escapes_ = escapes;
        open_.clear();
        key_at_ = key_size_ = value_pool_mark_ = 0;
        last_text_ = nullptr;
        failure_.clear();
    }
    std::size_t nodes() const { return tree_.nodes_.size(); }

private:
    // An open container: its node, where the pool stood before it (an
    // element of a streamed array gives its nodes and text back once handed
    // over), and whether its elements are streamed.
    struct open_container {
        std::size_t index;
        std::size_t pool_mark;
        bool streamed;
        // An object's keys: their key_sketch bits, and whether one was set
        // twice (a key may repeat).
        bool maybe_repeats = false;
        std::uint64_t key_sketches = 0;
    };

    // One bit of 64 for a key, from its length and end letters: a graph
    // file's objects, whose keys differ in those, set no bit twice.
    static std::uint64_t key_sketch(std::string_view k) {
        const unsigned mix = k.empty() ? 0u
                                       : static_cast<unsigned>(k.size()) * 7u +
                                             static_cast<unsigned char>(k.front()) * 3u +
                                             static_cast<unsigned char>(k.back());
        return std::uint64_t{1} << (mix % 64);
    }

    bool refuse(std::string why) {
        failure_ = std::move(why);
        return false;
    }

    // RapidJSON 1.1.0 validates the text's UTF-8 but decodes an escaped low
    // surrogate without a high one before it (\udc00) into the three bytes
    // ED B0 80, which are no UTF-8. Well-formed text has no ED followed by
    // A0-BF (surrogates), so those bytes in a decoded string can only come
    // from such an escape (a pair decodes into four bytes F0-F4 ...), so a
    // text without a backslash is not searched (a memchr per string and key
    // was 5% of checking a large graph file, perf).
    static bool lone_surrogate(std::string_view s) {
        for (const char *p = s.data(), *end = s.data() + s.size();
             (p = static_cast<const char *>(std::memchr(p, 0xED, static_cast<std::size_t>(end - p)))) != nullptr;
             ++p)
            if (end - p > 1 && static_cast<unsigned char>(p[1]) >= 0xA0) return true;
        return false;
    }
    bool refuse_surrogate() {
        return refuse("a string holds a lone UTF-16 surrogate escape (\\udc00-\\udfff without a \\ud800-\\udbff "
                      "before it)");
    }

    // `text_at`: where the value's own text starts in the pool, when it has one.
    json_tree::node &add_node(json_tree::kind type, std::size_t text_at = std::string::npos) {
        value_pool_mark_ = text_at == std::string::npos ? tree_.pool_.size() : text_at;
        const std::size_t index = tree_.nodes_.size();
        json_tree::node &n = tree_.nodes_.emplace_back();
        n.type = type;
        n.end = index + 1;
        if (!open_.empty()) {
            const open_container &parent = open_.back();
            json_tree::node &p = tree_.nodes_[parent.index];
            if (p.type == json_tree::kind::object) {
                n.key_at = key_at_;
                n.key_size = key_size_;
                // The key came before the value: the pool mark is the key's.
                value_pool_mark_ = key_at_;
            }
            if (!parent.streamed) ++p.children;
        }
        return tree_.nodes_.back();
    }

    bool add_float(double d, int beyond) {
        json_tree::node &n = add_node(json_tree::kind::floating);
        n.floating = d;
        n.beyond = static_cast<std::int8_t>(beyond);
        return added();
    }
    bool add(json_tree::kind type) {
        add_node(type);
        return added();
    }

    // A value is complete: the last node, or the container closed last.
    bool added(std::size_t index, std::size_t pool_mark) {
        if (!open_.empty() && open_.back().streamed) {
            stream_->element(json_view(tree_, index));
            tree_.nodes_.resize(index);
            tree_.pool_.resize(pool_mark);
            if (release_ && last_text_) release_->up_to(last_text_);
        }
        return true;
    }
    bool added() { return added(tree_.nodes_.size() - 1, value_pool_mark_); }

    bool open(json_tree::kind type) {
        if (open_.size() >= max_depth_)
            fail(rule::json_syntax,
                 "malformed JSON: nesting deeper than " + std::to_string(max_depth_) +
                     " levels (RESHAPER_MAX_JSON_DEPTH" +
                     (max_depth_ >= json_depth_ceiling ? ", which cannot go above " +
                                                             std::to_string(json_depth_ceiling)
                                                       : std::string()) +
                     ")");
        const bool member_of_top = open_.size() == 1 && tree_.nodes_[open_[0].index].type == json_tree::kind::object;
        const bool streamed = stream_ && type == json_tree::kind::array && member_of_top &&
                              std::string_view(tree_.pool_).substr(key_at_, key_size_) == stream_->key;
        add_node(type);
        open_.push_back({tree_.nodes_.size() - 1, value_pool_mark_, streamed});
        if (streamed) stream_->start();
        return true;
    }

    bool close() {
        const open_container done = open_.back();
        open_.pop_back();
        json_tree::node &n = tree_.nodes_[done.index];
        n.end = tree_.nodes_.size();
        if (n.type == json_tree::kind::object) n.flag = done.maybe_repeats && key_repeats(done.index);
        return added(done.index, done.pool_mark);
    }

    bool key_repeats(std::size_t object) const {
        const json_view members(tree_, object);
        constexpr std::size_t scan_limit = 16;
        if (tree_.nodes_[object].children <= scan_limit) {
            // A key is compared with the earlier ones only when its sketch
            // was seen before.
            const auto sketch = key_sketch;
            std::uint64_t seen = 0;
            std::array<std::string_view, scan_limit> keys;
            std::size_t n = 0;
            for (json_view m : members.elements()) {
                const std::string_view key = m.key();
                const std::uint64_t bit = sketch(key);
                if (seen & bit)
                    for (std::size_t j = 0; j < n; ++j)
                        if (keys[j] == key) return true;
                seen |= bit;
                keys[n++] = key;
            }
            return false;
        }
        std::unordered_set<std::string_view> seen;
        for (json_view m : members.elements())
            if (!seen.insert(m.key()).second) return true;
        return false;
    }

    std::uint64_t max_depth_;
    const streamed_array *stream_;
    bool escapes_;
    parsed_text_release *release_ = nullptr;
    const char *last_text_ = nullptr; // of the last string, key or number read in place
    json_tree tree_;
    std::vector<open_container> open_; // innermost last
    std::size_t key_at_ = 0, key_size_ = 0; // of the object member that comes next
    std::size_t value_pool_mark_ = 0;       // where the pool stood before the last value
    std::string failure_;
};

namespace {

// The text as RapidJSON's input stream: a NUL at its end (parse_json_tree
// refuses a text with a NUL of its own), no terminator needed.
struct bounded_text {
    using Ch = char;
    const char *at, *begin, *end;
    char Peek() const { return at == end ? '\0' : *at; }
    char Take() { return at == end ? '\0' : *at++; }
    std::size_t Tell() const { return static_cast<std::size_t>(at - begin); }
    // Only for writing in place, which this stream is not read with.
    char *PutBegin() { return nullptr; }
    void Put(char) {}
    void Flush() {}
    std::size_t PutEnd(char *) { return 0; }
};

// How a text is read, chosen per text (RapidJSON's flags are template
// arguments). Numbers as text always. Encoding validated, unless the text
// is all ASCII: then it has no encoding to get wrong, and validating each
// byte of a graph file cost 5-10% of reading it. Recursive (a call per level
// of nesting, faster) up to the deepest limit the limits allow
// (json_depth_ceiling, core/limits.hpp); iterative (its own stack) for a
// deeper limit, which only a test asks for, so that no limit can exhaust
// the thread's stack.
template <unsigned flags, typename Stream>
rapidjson::ParseResult read_text(graph_reader &reader, Stream &in, tree_builder &builder, bool ascii,
                                 std::uint64_t max_depth) {
    constexpr unsigned base = flags | rapidjson::kParseNumbersAsStringsFlag;
    constexpr unsigned validate = rapidjson::kParseValidateEncodingFlag, iterative = rapidjson::kParseIterativeFlag;
    if (max_depth <= json_depth_ceiling)
        return ascii ? reader.Parse<base>(in, builder) : reader.Parse<base | validate>(in, builder);
    return ascii ? reader.Parse<base | iterative>(in, builder) : reader.Parse<base | validate | iterative>(in, builder);
}

// Whether every byte of `text` is ASCII. Blocks without an early exit, so
// that the compiler vectorises the scan.
bool all_ascii(std::string_view text) {
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    const std::size_t n = text.size();
    constexpr std::size_t block = 64;
    std::size_t i = 0;
    for (; i + block <= n; i += block) {
        unsigned char high = 0;
        for (std::size_t k = 0; k < block; ++k) high |= p[i + k];
        if (high & 0x80) return false;
    }
    for (; i < n; ++i)
        if (p[i] & 0x80) return false;
    return true;
}

constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";

// "line 3, column 14" of the byte at `offset` (both from 1; a column
// counts bytes). `gone`: what of the text's start was let go of.
std::string line_and_column(std::string_view text, std::size_t offset, const parsed_text_release *gone) {
    offset = std::min(offset, text.size());
    const std::size_t from = gone ? std::min(gone->released(), offset) : 0;
    const std::string_view before = text.substr(from, offset - from);
    const std::size_t line = 1 + (gone ? gone->newlines() : 0) +
                             static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    std::size_t line_start = before.rfind('\n');
    if (line_start != std::string_view::npos) line_start += from;
    else if (gone && gone->last_newline() != parsed_text_release::none) line_start = gone->last_newline();
    const std::size_t column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The text around `offset` on its line, for a message: printable ASCII as
// it is, other bytes as \xNN; "" for an empty stretch (the text's end).
std::string text_near(std::string_view text, std::size_t offset, const parsed_text_release *gone) {
    constexpr std::size_t before = 24, after = 24;
    offset = std::min(offset, text.size());
    std::size_t from = std::max(offset > before ? offset - before : 0, gone ? std::min(gone->released(), offset) : 0);
    if (const std::size_t nl = text.substr(from, offset - from).rfind('\n'); nl != std::string_view::npos) from += nl + 1;
    std::size_t to = std::min(text.size(), offset + after);
    if (const std::size_t nl = text.substr(offset, to - offset).find('\n'); nl != std::string_view::npos) to = offset + nl;
    std::string out;
    for (const char c : text.substr(from, to - from)) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7F) {
            out.push_back(c);
        } else {
            static constexpr char hex[] = "0123456789ABCDEF";
            out.append("\\x").push_back(hex[u >> 4]);
            out.push_back(hex[u & 0xF]);
        }
    }
    return out;
}

[[noreturn]] void malformed(std::string_view text, std::size_t offset, const std::string &what,
                            const parsed_text_release *gone = nullptr) {
    const std::string near = text_near(text, offset, gone);
    fail(rule::json_syntax, "malformed JSON at " + line_and_column(text, offset, gone) +
                                           (offset >= text.size() ? " (the end of the text)" : "") + ": " + what +
                                           (near.empty() ? "" : "; the text there: '" + near + "'"));
}

// What RapidJSON says of an error, in the message's words: "Invalid value."
// as "invalid value".
std::string reader_words(rapidjson::ParseErrorCode code) {
    std::string words = rapidjson::GetParseError_En(code);
    if (!words.empty() && words.back() == '.') words.pop_back();
    if (!words.empty()) words.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(words.front())));
    return words;
}

// `text` is the whole text (for the message); the reading starts `skipped`
// bytes into it (after a byte order mark).
[[noreturn]] void refused(std::string_view text, std::size_t skipped, const graph_reader &reader,
                          const tree_builder &builder, const parsed_text_release *gone = nullptr) {
    const std::size_t offset = skipped + reader.GetErrorOffset();
    if (reader.GetParseErrorCode() == rapidjson::kParseErrorTermination && !builder.failure().empty())
        malformed(text, offset, builder.failure(), gone);
    malformed(text, offset, reader_words(reader.GetParseErrorCode()), gone);
}

// RapidJSON reads a NUL as the end of the text: one inside it is malformed.
void refuse_nul(std::string_view text) {
    if (const void *nul = std::memchr(text.data(), 0, text.size()))
        malformed(text, static_cast<std::size_t>(static_cast<const char *>(nul) - text.data()), "a NUL byte");
}

std::size_t skipped_mark(std::string_view text) { return text.starts_with(byte_order_mark) ? byte_order_mark.size() : 0; }

} // namespace

json_tree parse_json_tree(std::string_view text, std::uint64_t max_depth, const streamed_array *stream) {
    refuse_nul(text);
    if (text.size() >= std::numeric_limits<rapidjson::SizeType>::max())
        malformed(text, 0, "a text of 4 GiB or more"); // RapidJSON's lengths are 32-bit
    const std::size_t skipped = skipped_mark(text);
    tree_builder builder(max_depth, stream, std::memchr(text.data(), '\\', text.size()) != nullptr);
    graph_reader reader;
    bounded_text in{text.data() + skipped, text.data() + skipped, text.data() + text.size()};
    if (read_text<0>(reader, in, builder, all_ascii(text), max_depth).IsError()) refused(text, skipped, reader, builder);
    return builder.take();
}

json_tree parse_json_tree_in_place(std::string &text, std::uint64_t max_depth, const streamed_array *stream) {
    // In place, RapidJSON hands strings and numbers over as pointers into the
    // text instead of copying each a character at a time (a quarter of its
    // time in a graph file). Only a text without escapes: then the one write
    // it makes is a NUL over each string's closing quote, which putting the
    // quotes back undoes for the message of an error (an escape decoded in
    // place would move the text, and its lines, under the error's offset).
    if (text.find('\\') != std::string::npos) return parse_json_tree(text, max_depth, stream);
    refuse_nul(text);
    if (text.size() >= std::numeric_limits<rapidjson::SizeType>::max()) malformed(text, 0, "a text of 4 GiB or more");
    const std::size_t skipped = skipped_mark(text);
    tree_builder builder(max_depth, stream, false);
    parsed_text_release release(text.data(), text.size());
    builder.release_as_read(&release);
    graph_reader reader;
    rapidjson::insitu_text in(text.data() + skipped, text.data() + text.size());
    if (read_text<rapidjson::kParseInsituFlag>(reader, in, builder, all_ascii(text), max_depth).IsError()) {
        std::replace(text.begin() + static_cast<std::ptrdiff_t>(release.released()), text.end(), '\0', '"');
        refused(text, skipped, reader, builder, &release);
    }
    return builder.take();
}

namespace {
// The text as if [skip_from, skip_to) were not there (parse_json_tree_around).
struct skipping_text {
    using Ch = char;
    const char *at, *begin, *end, *skip_from, *skip_to;
    void pass() {
        if (at == skip_from) at = skip_to;
    }
    char Peek() {
        pass();
        return at == end ? '\0' : *at;
    }
    char Take() {
        pass();
        return at == end ? '\0' : *at++;
    }
    std::size_t Tell() const { return static_cast<std::size_t>(at - begin); }
    char *PutBegin() { return nullptr; }
    void Put(char) {}
    void Flush() {}
    std::size_t PutEnd(char *) { return 0; }
};
} // namespace

std::optional<json_tree> parse_json_tree_around(std::string_view text, std::size_t skip_from, std::size_t skip_to,
                                                std::uint64_t max_depth, const std::string &streamed_key) {
    if (text.size() >= std::numeric_limits<rapidjson::SizeType>::max() || skip_from > skip_to || skip_to > text.size())
        return std::nullopt;
    const std::size_t skipped = skipped_mark(text);
    if (skip_from < skipped) return std::nullopt;
    skipping_text in{text.data() + skipped, text.data() + skipped, text.data() + text.size(), text.data() + skip_from,
                     text.data() + skip_to};
    int starts = 0;
    bool elsewhere = false;
    // The stream has just taken the array's '[' when it opens.
    const streamed_array stream{streamed_key,
                                [&] {
                                    ++starts;
                                    elsewhere |= in.at != in.skip_from;
                                },
                                [&](json_view) { elsewhere = true; }};
    // Escapes assumed and the encoding validated: the stretch is small.
    tree_builder builder(max_depth, &stream, true);
    graph_reader reader;
    try {
        if (read_text<0>(reader, in, builder, false, max_depth).IsError()) return std::nullopt;
    } catch (const error &) { // the nesting limit
        return std::nullopt;
    }
    if (starts != 1 || elsewhere) return std::nullopt;
    return builder.take();
}

struct json_value_reader::state {
    explicit state(std::uint64_t max_depth) : builder(max_depth, nullptr, false), max_depth(max_depth) {}
    graph_reader reader;
    tree_builder builder;
    std::uint64_t max_depth;
};

json_value_reader::json_value_reader(std::uint64_t max_depth) : state_(std::make_unique<state>(max_depth)) {}
json_value_reader::~json_value_reader() = default;

std::optional<std::size_t> json_value_reader::read(char *text, std::size_t begin, std::size_t end, json_tree &into,
                                                   bool in_place, bool ascii) {
    state &s = *state_;
    if (end - begin >= std::numeric_limits<rapidjson::SizeType>::max()) return std::nullopt;
    s.builder.restart(std::move(into), !in_place && std::memchr(text + begin, '\\', end - begin) != nullptr);
    const std::size_t root = s.builder.nodes();
    bool read = false;
    try {
        if (in_place) {
            // The stream ends at a NUL: one over the byte after the value,
            // put back whatever happens.
            struct put_back {
                char *at;
                char byte;
                ~put_back() { *at = byte; }
            } const end_byte{text + end, text[end]};
            text[end] = '\0';
            rapidjson::insitu_text in(text + begin, text + end);
            read = !read_text<rapidjson::kParseInsituFlag>(s.reader, in, s.builder, ascii, s.max_depth).IsError();
        } else {
            bounded_text in{text + begin, text + begin, text + end};
            read = !read_text<0>(s.reader, in, s.builder, ascii, s.max_depth).IsError();
        }
    } catch (const error &) { // the nesting limit
        read = false;
    }
    into = s.builder.take();
    if (!read) return std::nullopt;
    return root;
}

ojson parse_json(std::string_view text, std::uint64_t max_depth) {
    return to_ojson(parse_json_tree(text, max_depth).root());
}

// ---- reading a tree ---------------------------------------------------------------

const char *json_view::type_name() const {
    switch (type()) {
    case json_tree::kind::null: return "null";
    case json_tree::kind::boolean: return "boolean";
    case json_tree::kind::string: return "string";
    case json_tree::kind::array: return "array";
    case json_tree::kind::object: return "object";
    default: return "number";
    }
}

std::size_t json_view::size() const {
    if (is_object() && at().flag) return deduplicated_members().size();
    return at().children;
}

std::size_t json_tree::append_copy(json_view v) {
    const json_tree &from = *v.tree_;
    const std::size_t first = v.index_, last = from.nodes_[first].end, base = nodes_.size();
    // The value's keys and strings, as one range of its pool: the builder
    // appends them in text order, so they lie together (a copy per key and
    // string was a fifth of the parsing thread's time, perf). Bytes of
    // other values inside the range would only be copied along.
    std::size_t lo = from.pool_.size(), hi = 0;
    const auto cover = [&](std::size_t at, std::size_t size) {
        if (size == 0) return;
        lo = std::min(lo, at);
        hi = std::max(hi, at + size);
    };
    for (std::size_t i = first; i < last; ++i) {
        const node &n = from.nodes_[i];
        cover(n.key_at, n.key_size);
        if (n.type == kind::string) cover(n.string_at, n.string_size);
    }
    if (lo > hi) lo = hi = 0; // no text at all
    const std::size_t pool_base = pool_.size();
    pool_.append(from.pool_, lo, hi - lo);
    nodes_.insert(nodes_.end(), from.nodes_.begin() + static_cast<std::ptrdiff_t>(first),
                  from.nodes_.begin() + static_cast<std::ptrdiff_t>(last));
    // Indices and pool offsets moved by the copy's place in this tree; an
    // empty key or string (or a node with none) points at the range's start.
    const auto moved = [&](std::size_t at, std::size_t size) { return size == 0 ? pool_base : at - lo + pool_base; };
    for (std::size_t i = base; i < nodes_.size(); ++i) {
        node &n = nodes_[i];
        n.end = n.end - first + base;
        n.key_at = moved(n.key_at, n.key_size);
        if (n.type == kind::string) n.string_at = moved(n.string_at, n.string_size);
    }
    return base;
}

std::optional<json_view> json_view::find(std::string_view key) const {
    // Without a repeated key the first match is the only one; with one,
    // the last value wins.
    std::optional<json_view> found;
    for (json_view m : elements()) {
        const json_tree::node &n = tree_->nodes_[m.index_];
        // Length and first letter before the bytes (most keys differ in those).
        if (n.key_size != key.size() || (n.key_size != 0 && tree_->pool_[n.key_at] != key.front())) continue;
        if (m.key() == key) {
            found = m;
            if (!at().flag) break;
        }
    }
    return found;
}

std::vector<std::size_t> json_view::deduplicated_members() const {
    std::vector<std::size_t> members;
    std::unordered_map<std::string_view, std::size_t> place; // key -> position in members
    for (json_view m : elements()) {
        auto [it, first] = place.emplace(m.key(), members.size());
        if (first) members.push_back(m.index_);
        else members[it->second] = m.index_;
    }
    return members;
}

ojson to_ojson(json_view v) {
    switch (v.type()) {
    case json_tree::kind::null: return nullptr;
    case json_tree::kind::boolean: return v.boolean();
    case json_tree::kind::integer: return v.integer();
    case json_tree::kind::unsigned_integer: return v.unsigned_integer();
    case json_tree::kind::floating: return v.floating();
    case json_tree::kind::string: return std::string(v.string());
    case json_tree::kind::array: {
        ojson out = ojson::array();
        out.get_ref<ojson::array_t &>().reserve(v.size());
        for (json_view e : v.elements()) out.push_back(to_ojson(e));
        return out;
    }
    case json_tree::kind::object: break;
    }
    ojson out(ojson::value_t::object);
    // ordered_map is a vector of its members: filled directly, once (its
    // own insertion scans every key).
    auto &list = static_cast<std::vector<std::pair<const std::string, ojson>> &>(out.get_ref<ojson::object_t &>());
    list.reserve(v.size());
    v.for_each_member([&](std::string_view key, json_view value) { list.emplace_back(key, to_ojson(value)); });
    return out;
}

std::optional<json_number> number_of(json_view v) {
    switch (v.type()) {
    case json_tree::kind::floating: return json_number{v.floating(), v.beyond()};
    case json_tree::kind::unsigned_integer: return json_number{static_cast<double>(v.unsigned_integer()), 0};
    case json_tree::kind::integer: return json_number{static_cast<double>(v.integer()), 0};
    default: return std::nullopt;
    }
}

} // namespace reshaper::impl
