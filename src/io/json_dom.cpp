#include "io/json_dom.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/status.hpp"
#include "io/decimal_text.hpp"

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
    bool number_float(double d, const std::string &token) {
        if (boxable(d) && may_be_narrow_tie(d)) {
            if (const int beyond = compare_decimal(token, d); beyond != 0) return add_float(box(d, beyond));
        }
        return add_float(d);
    }
    bool string(std::string &s) {
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
    bool key(std::string &k) {
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
            throw error(status::invalid_graph,
                        "malformed JSON: nesting deeper than " + std::to_string(max_depth_) +
                            " levels (RESHAPER_MAX_JSON_DEPTH) [json_syntax]");
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
            std::array<std::string_view, scan_limit> keys;
            std::size_t n = 0;
            for (json_view m : members.elements()) {
                for (std::size_t j = 0; j < n; ++j)
                    if (keys[j] == m.key()) return true;
                keys[n++] = m.key();
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

json_tree parse_json_tree(std::string_view text, std::uint64_t max_depth, const streamed_array *stream) {
    tree_builder builder(max_depth, stream);
    if (!ojson::sax_parse(text.begin(), text.end(), &builder)) {
        // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." minus the tag.
        std::string what = builder.error_text();
        if (auto tag_end = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag_end != std::string::npos)
            what.erase(0, tag_end + 2);
        throw error(status::invalid_graph, "malformed JSON: " + what + " [json_syntax]");
    }
    return builder.take();
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

std::optional<json_view> json_view::find(std::string_view key) const {
    // Without a repeated key the first match is the only one; with one,
    // the last value wins.
    std::optional<json_view> found;
    for (json_view m : elements())
        if (m.key() == key) {
            found = m;
            if (!at().flag) break;
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
