#include "io/json_dom.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <locale.h>
#include <memory>
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
// measured no faster than the plain loop.
#define RAPIDJSON_NAMESPACE reshaper_rapidjson
#define RAPIDJSON_NAMESPACE_BEGIN namespace reshaper_rapidjson {
#define RAPIDJSON_NAMESPACE_END }
#include <rapidjson/reader.h>
namespace rapidjson = reshaper_rapidjson;

namespace reshaper::impl {
namespace {

// ---- boxed numbers -------------------------------------------------------------
// A quiet NaN whose 51-bit payload is: bit 0 the direction (1: the text is
// above the double), bits 1-24 the double's top 24 fraction bits (the rest
// are zero: only doubles of at most 25 significant bits are boxed), bits
// 25-35 its biased exponent, bit 36 its sign, bits 37-50 a tag.

constexpr std::uint64_t quiet_nan = 0x7FF8'0000'0000'0000;
constexpr std::uint64_t box_tag = std::uint64_t{0x2A5C} << 37;
constexpr std::uint64_t tag_mask = std::uint64_t{0x3FFF} << 37;

bool boxable(double d) {
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const std::uint64_t exponent = (bits >> 52) & 0x7FF;
    const std::uint64_t low_fraction = bits & ((std::uint64_t{1} << 28) - 1);
    return low_fraction == 0 && (exponent != 0 || d == 0) && exponent != 0x7FF;
}

double box(double d, int beyond) {
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const std::uint64_t payload = (bits >> 63) << 36 | ((bits >> 52) & 0x7FF) << 25 |
                                  ((bits >> 28) & 0xFF'FFFF) << 1 | (beyond > 0 ? 1 : 0);
    return std::bit_cast<double>(quiet_nan | box_tag | payload);
}

std::optional<json_number> unbox(double boxed) {
    const auto bits = std::bit_cast<std::uint64_t>(boxed);
    if ((bits & ~((std::uint64_t{1} << 51) - 1) & ~(std::uint64_t{1} << 63)) != quiet_nan ||
        (bits & tag_mask) != box_tag)
        return std::nullopt;
    const std::uint64_t d = ((bits >> 36) & 1) << 63 | ((bits >> 25) & 0x7FF) << 52 | ((bits >> 1) & 0xFF'FFFF) << 28;
    return json_number{std::bit_cast<double>(d), (bits & 1) ? 1 : -1};
}

// ---- the reader -------------------------------------------------------------------

} // namespace

// nlohmann's SAX events append nodes. Each value is handled a bounded number
// of times, so reading is linear: no callback parser (nlohmann's walks the
// parent at every closing brace) and no nlohmann objects (its ordered_map
// looks a key up by a linear scan at each insertion); a repeated key is
// only flagged here, and resolved where the object is read (json_view).
class tree_builder {
public:
    tree_builder(std::uint64_t max_depth, const streamed_array *stream)
        : max_depth_(max_depth), stream_(stream) {}

    bool null() { return add(json_tree::kind::null); }
    bool boolean(bool b) {
        add_node(json_tree::kind::boolean).flag = b;
        return added();
    }
    bool number_integer(std::int64_t v) {
        // nlohmann reports an integer here only when its text starts with a
        // minus (others come as number_unsigned), so 0 here is the text "-0",
        // read as the integer 0: keep its sign as the float -0.0.
        if (v == 0) return add_float(-0.0);
        add_node(json_tree::kind::integer).integer = v;
        return added();
    }
    bool number_unsigned(std::uint64_t v) {
        add_node(json_tree::kind::unsigned_integer).unsigned_integer = v;
        return added();
    }
    bool number_float(double d, std::string_view token) {
        if (boxable(d) && may_be_narrow_tie(d)) {
            if (const int beyond = compare_decimal(token, d); beyond != 0) return add_float(box(d, beyond));
        }
        return add_float(d);
    }
    bool string(std::string_view s) {
        const std::size_t at = tree_.pool_.size();
        tree_.pool_.append(s);
        json_tree::node &n = add_node(json_tree::kind::string, at);
        n.string_at = at;
        n.string_size = s.size();
        return added();
    }
    bool binary(ojson::binary_t &) { return add(json_tree::kind::null); } // never in JSON text

    bool start_object(std::size_t) { return open(json_tree::kind::object); }
    bool start_array(std::size_t) { return open(json_tree::kind::array); }
    bool key(std::string_view k) {
        key_at_ = tree_.pool_.size();
        key_size_ = k.size();
        tree_.pool_.append(k);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) {
        error_ = e.what();
        return false;
    }

    const std::string &error_text() const { return error_; }
    json_tree take() { return std::move(tree_); }

private:
    // An open container: its node, where the pool stood before it (an
    // element of a streamed array gives its nodes and text back once handed
    // over), and whether its elements are streamed.
    struct open_container {
        std::size_t index;
        std::size_t pool_mark;
        bool streamed;
    };

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

    bool add_float(double d) {
        add_node(json_tree::kind::floating).floating = d;
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
        if (n.type == json_tree::kind::object) n.flag = key_repeats(done.index);
        return added(done.index, done.pool_mark);
    }

    bool key_repeats(std::size_t object) const {
        const json_view members(tree_, object);
        constexpr std::size_t scan_limit = 16;
        if (tree_.nodes_[object].children <= scan_limit) {
            // A key is compared with the earlier ones only when its length
            // and end letters were seen before: graph files' objects, whose
            // keys differ in those, compare none.
            const auto sketch = [](std::string_view k) {
                const unsigned mix = k.empty() ? 0u
                                               : static_cast<unsigned>(k.size()) * 7u +
                                                     static_cast<unsigned char>(k.front()) * 3u +
                                                     static_cast<unsigned char>(k.back());
                return std::uint64_t{1} << (mix % 64);
            };
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
    json_tree tree_;
    std::vector<open_container> open_; // innermost last
    std::size_t key_at_ = 0, key_size_ = 0; // of the object member that comes next
    std::size_t value_pool_mark_ = 0;       // where the pool stood before the last value
    std::string error_;
};

// ---- the fast reader: RapidJSON's SAX ------------------------------------------
// nlohmann's lexer reads a character at a time through an input adapter and
// builds every string one push_back at a time: it was a third of loading a
// 100,000-op file (issue 7). RapidJSON's reader scans strings and
// whitespace with SIMD and hands over numbers as their text, which the
// tree needs anyway (exact decimals). nlohmann stays the reference: any
// text the fast reader refuses is read again from its start by nlohmann,
// which says what is wrong in its own words (line and column), or reads it
// should RapidJSON be stricter somewhere than nlohmann. A restart is invisible to a streamed array: its start() is called again
// and its elements come again, as for a repeated key. What RapidJSON
// accepts and nlohmann does not (ill-formed UTF-8 in a string, a lone
// surrogate escape, a number whose double overflows) the handler below
// refuses; the differential tests read every text both ways.
namespace {

// RFC 3629's well-formed UTF-8 (no overlong forms, no surrogates, nothing
// past U+10FFFF), as nlohmann's lexer accepts it.
bool well_formed_utf8(std::string_view s) {
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = 0;
        unsigned low = 0x80, high = 0xBF; // the range of the second byte
        if (c >= 0xC2 && c <= 0xDF) length = 2;
        else if (c == 0xE0) length = 3, low = 0xA0;
        else if (c == 0xED) length = 3, high = 0x9F;
        else if (c >= 0xE1 && c <= 0xEF) length = 3;
        else if (c == 0xF0) length = 4, low = 0x90;
        else if (c == 0xF4) length = 4, high = 0x8F;
        else if (c >= 0xF1 && c <= 0xF3) length = 4;
        else return false;
        if (n - i < length || p[i + 1] < low || p[i + 1] > high) return false;
        for (std::size_t k = 2; k < length; ++k)
            if ((p[i + k] & 0xC0) != 0x80) return false;
        i += length;
    }
    return true;
}

// Whether `text` is ASCII without a backslash: then each of its strings is
// its own bytes, all ASCII, and well formed; checking them one by one was
// 1.6% of loading a graph file. Blocks without an early exit, so that the
// compiler vectorises the scan.
bool plain_ascii(std::string_view text) {
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    const std::size_t n = text.size();
    constexpr std::size_t block = 64;
    std::size_t i = 0;
    for (; i + block <= n; i += block) {
        unsigned char outside = 0;
        for (std::size_t k = 0; k < block; ++k)
            outside |= static_cast<unsigned char>((p[i + k] & 0x80) | (p[i + k] == '\\'));
        if (outside) return false;
    }
    for (; i < n; ++i)
        if (p[i] >= 0x80 || p[i] == '\\') return false;
    return true;
}

// RapidJSON's events into a tree_builder, numbers read as nlohmann's lexer
// reads them. Returning false stops the reader (the text is then read again
// by nlohmann). `check_utf8` false: the text is plain_ascii.
class rapidjson_events {
public:
    rapidjson_events(tree_builder &b, bool check_utf8) : b_(b), check_utf8_(check_utf8) {}

    bool Null() { return b_.null(); }
    bool Bool(bool v) { return b_.boolean(v); }
    bool RawNumber(const char *text, rapidjson::SizeType length, bool) {
        const std::string_view token(text, length);
        const bool integral = token.find_first_of(".eE") == std::string_view::npos;
        if (integral && token.front() == '-') {
            std::int64_t v = 0;
            if (const auto r = std::from_chars(token.data(), token.data() + token.size(), v); r.ec == std::errc())
                return b_.number_integer(v);
        } else if (integral) {
            std::uint64_t v = 0;
            if (const auto r = std::from_chars(token.data(), token.data() + token.size(), v); r.ec == std::errc())
                return b_.number_unsigned(v);
        }
        // An integer past 64 bits is a float, as for nlohmann; strtod's
        // rounding (correct), in the C locale, over a copy that ends in a
        // NUL (read in place, the number's text is followed by the next).
        static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
        const std::string terminated(token);
        const double d = strtod_l(terminated.c_str(), nullptr, c_locale);
        if (!std::isfinite(d)) return false; // nlohmann: "number overflow"
        return b_.number_float(d, token);
    }
    bool Int(int) { return false; } // numbers come as text (kParseNumbersAsStringsFlag)
    bool Uint(unsigned) { return false; }
    bool Int64(std::int64_t) { return false; }
    bool Uint64(std::uint64_t) { return false; }
    bool Double(double) { return false; }
    bool String(const char *text, rapidjson::SizeType length, bool) {
        const std::string_view s(text, length);
        return (!check_utf8_ || well_formed_utf8(s)) && b_.string(s);
    }
    bool Key(const char *text, rapidjson::SizeType length, bool) {
        const std::string_view s(text, length);
        return (!check_utf8_ || well_formed_utf8(s)) && b_.key(s);
    }
    bool StartObject() { return b_.start_object(0); }
    bool EndObject(rapidjson::SizeType) { return b_.end_object(); }
    bool StartArray() { return b_.start_array(0); }
    bool EndArray(rapidjson::SizeType) { return b_.end_array(); }

private:
    tree_builder &b_;
    bool check_utf8_;
};

// The text as RapidJSON's input stream: a NUL at its end (a text with a NUL
// of its own goes to nlohmann), no terminator needed.
struct bounded_text {
    using Ch = char;
    const char *at, *begin, *end;
    char Peek() const { return at == end ? '\0' : *at; }
    char Take() { return at == end ? '\0' : *at++; }
    std::size_t Tell() const { return static_cast<std::size_t>(at - begin); }
    // Only for writing in place, which the reader is not asked to do.
    char *PutBegin() { return nullptr; }
    void Put(char) {}
    void Flush() {}
    std::size_t PutEnd(char *) { return 0; }
};

// The fast reader recurses once per level of nesting: past this limit on
// nesting the text goes to nlohmann's reader, which does not (the limits
// allow no more, core/limits.hpp: json_depth_ceiling; tests ask for more).
constexpr std::uint64_t fast_reader_max_depth = 1024;

} // namespace

namespace detail {

namespace {

// Whether RapidJSON can read `text`: it reads a NUL as the end of the text,
// string lengths in 32 bits, and recurses once per level of nesting.
bool fast_reader_takes(std::string_view text, std::uint64_t max_depth) {
    return max_depth <= fast_reader_max_depth && text.size() < std::numeric_limits<rapidjson::SizeType>::max() &&
           !std::memchr(text.data(), 0, text.size());
}

// The fast reader over a text it takes (fast_reader_takes), copying strings
// out of it; `check_utf8` false only for a plain_ascii text.
std::optional<json_tree> read_by_copy(std::string_view text, std::uint64_t max_depth,
                                      const streamed_array *stream, bool check_utf8) {
    // The byte order mark nlohmann skips at the very start.
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    tree_builder builder(max_depth, stream);
    rapidjson_events events(builder, check_utf8);
    rapidjson::Reader reader;
    bounded_text in{text.data(), text.data(), text.data() + text.size()};
    if (reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(in, events).IsError()) return std::nullopt;
    return builder.take();
}

} // namespace

std::optional<json_tree> parse_json_tree_fast(std::string_view text, std::uint64_t max_depth,
                                              const streamed_array *stream) {
    if (!fast_reader_takes(text, max_depth)) return std::nullopt;
    return read_by_copy(text, max_depth, stream, !plain_ascii(text));
}

std::optional<json_tree> parse_json_tree_fast_in_place(std::string &text, std::uint64_t max_depth,
                                                       const streamed_array *stream) {
    if (!fast_reader_takes(text, max_depth)) return std::nullopt;
    if (!plain_ascii(text)) return read_by_copy(text, max_depth, stream, true);
    // In place, RapidJSON hands strings and numbers over as pointers into the
    // text instead of copying each a character at a time (a quarter of its
    // time in a graph file). With no escape to decode, the one write it
    // makes is a NUL over each string's closing quote; the text holds no
    // NUL of its own, so where it refuses the text, putting the quotes back
    // restores it for the reference reader.
    tree_builder builder(max_depth, stream);
    rapidjson_events events(builder, false);
    rapidjson::Reader reader;
    rapidjson::InsituStringStream in(text.data());
    const bool read = !reader.Parse<rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag>(in, events)
                           .IsError();
    if (read) return builder.take();
    std::replace(text.begin(), text.end(), '\0', '"');
    return std::nullopt;
}

json_tree parse_json_tree_reference(std::string_view text, std::uint64_t max_depth, const streamed_array *stream) {
    tree_builder builder(max_depth, stream);
    if (!ojson::sax_parse(text.begin(), text.end(), &builder)) {
        // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." minus the tag.
        std::string what = builder.error_text();
        if (auto tag_end = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag_end != std::string::npos)
            what.erase(0, tag_end + 2);
        fail(rule::json_syntax, "malformed JSON: " + what);
    }
    return builder.take();
}

} // namespace detail

json_tree parse_json_tree(std::string_view text, std::uint64_t max_depth, const streamed_array *stream) {
    if (std::optional<json_tree> tree = detail::parse_json_tree_fast(text, max_depth, stream)) return std::move(*tree);
    return detail::parse_json_tree_reference(text, max_depth, stream);
}

json_tree parse_json_tree_in_place(std::string &text, std::uint64_t max_depth, const streamed_array *stream) {
    if (std::optional<json_tree> tree = detail::parse_json_tree_fast_in_place(text, max_depth, stream))
        return std::move(*tree);
    return detail::parse_json_tree_reference(text, max_depth, stream);
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
    case json_tree::kind::floating: {
        const double d = v.floating();
        if (std::isnan(d))
            if (auto boxed = unbox(d)) return boxed;
        return json_number{d, 0};
    }
    case json_tree::kind::unsigned_integer: return json_number{static_cast<double>(v.unsigned_integer()), 0};
    case json_tree::kind::integer: return json_number{static_cast<double>(v.integer()), 0};
    default: return std::nullopt;
    }
}

std::optional<json_number> number_of(const ojson &j) {
    if (j.is_number_float()) {
        const double d = j.get<double>();
        if (std::isnan(d))
            if (auto boxed = unbox(d)) return boxed;
        return json_number{d, 0};
    }
    if (j.is_number_unsigned()) return json_number{static_cast<double>(j.get<std::uint64_t>()), 0};
    if (j.is_number_integer()) return json_number{static_cast<double>(j.get<std::int64_t>()), 0};
    return std::nullopt;
}

ojson unboxed(const ojson &j) {
    if (j.is_number_float()) return number_of(j)->value;
    if (j.is_array()) {
        ojson out = ojson::array();
        for (const auto &e : j) out.push_back(unboxed(e));
        return out;
    }
    if (j.is_object()) {
        // Keys are unique already: appended directly (ordered_map's own
        // insertion scans every key, quadratic in the object's size).
        ojson out(ojson::value_t::object);
        auto &list = static_cast<std::vector<std::pair<const std::string, ojson>> &>(
            out.get_ref<ojson::object_t &>());
        list.reserve(j.size());
        for (auto it = j.begin(); it != j.end(); ++it) list.emplace_back(it.key(), unboxed(it.value()));
        return out;
    }
    return j;
}

} // namespace reshaper::impl
