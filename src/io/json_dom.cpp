#include "io/json_dom.hpp"

#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
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

// nlohmann's SAX events build the DOM. Each value is handled a bounded
// number of times, so reading is linear: no callback parser (nlohmann's
// walks the parent at every closing brace), and objects are assembled here
// (nlohmann's ordered_map looks a key up by a linear scan at each insertion
// and copies every member when it grows, its keys being const).
class dom_builder {
public:
    dom_builder(std::string_view text, std::uint64_t max_depth, const streamed_array *stream)
        : text_(text), max_depth_(max_depth), stream_(stream) {}

    bool null() { return add(nullptr); }
    bool boolean(bool b) { return add(b); }
    bool number_integer(std::int64_t v) {
        // "-0" is read as the integer 0: keep its sign as the float -0.0.
        const std::string_view token = next_number_token();
        if (v == 0 && !token.empty() && token.front() == '-') return add(-0.0);
        return add(v);
    }
    bool number_unsigned(std::uint64_t v) {
        next_number_token();
        return add(v);
    }
    bool number_float(double d, const std::string &token) {
        next_number_token();
        if (boxable(d) && may_be_narrow_tie(d)) {
            if (const int beyond = compare_decimal(token, d); beyond != 0) return add(box(d, beyond));
        }
        return add(d);
    }
    bool string(std::string &s) { return add(std::move(s)); }
    bool binary(ojson::binary_t &b) { return add(std::move(b)); }

    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool key(std::string &k) {
        key_ = std::move(k);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) {
        error_ = e.what();
        return false;
    }

    const std::string &error_text() const { return error_; }
    ojson take() { return std::move(root_); }

private:
    // An open array (its elements so far) or object (its members in order,
    // indexed by key once there are many: a repeated key keeps its first
    // place and takes the last value, as nlohmann does).
    struct frame {
        std::string key; // its own, when it is a member of an object
        bool is_object = false;
        bool streamed = false; // an array whose elements go to stream_
        ojson array;
        std::vector<std::pair<std::string, ojson>> members;
        std::unique_ptr<std::unordered_map<std::string, std::size_t>> index;

        void add_member(std::string key, ojson v) {
            constexpr std::size_t scan_limit = 16;
            if (index) {
                if (auto it = index->find(key); it != index->end()) {
                    members[it->second].second = std::move(v);
                    return;
                }
                index->emplace(key, members.size());
            } else {
                for (auto &m : members)
                    if (m.first == key) {
                        m.second = std::move(v);
                        return;
                    }
                if (members.size() == scan_limit) {
                    index = std::make_unique<std::unordered_map<std::string, std::size_t>>();
                    for (std::size_t i = 0; i < members.size(); ++i) index->emplace(members[i].first, i);
                    index->emplace(key, members.size());
                }
            }
            members.emplace_back(std::move(key), std::move(v));
        }

        ojson finish() {
            if (!is_object) return std::move(array);
            ojson object(ojson::value_t::object);
            // ordered_map is a vector of its members: filled directly, once.
            auto &list = static_cast<std::vector<std::pair<const std::string, ojson>> &>(
                object.get_ref<ojson::object_t &>());
            list.reserve(members.size());
            for (auto &[k, v] : members) list.emplace_back(std::move(k), std::move(v));
            return object;
        }
    };

    bool add(ojson v) {
        if (frames_.empty()) root_ = std::move(v);
        else if (frames_.back().streamed) stream_->element(std::move(v));
        else if (frames_.back().is_object) frames_.back().add_member(std::move(key_), std::move(v));
        else frames_.back().array.push_back(std::move(v));
        return true;
    }

    bool open(bool is_object) {
        if (frames_.size() >= max_depth_)
            throw error(status::invalid_graph,
                        "malformed JSON: nesting deeper than " + std::to_string(max_depth_) +
                            " levels (RESHAPER_MAX_JSON_DEPTH) [json_syntax]");
        frame f;
        if (!frames_.empty() && frames_.back().is_object) f.key = std::move(key_);
        f.is_object = is_object;
        f.streamed = stream_ && !is_object && frames_.size() == 1 && frames_[0].is_object && f.key == stream_->key;
        if (f.streamed) stream_->start();
        if (!is_object) f.array = ojson::array();
        frames_.push_back(std::move(f));
        return true;
    }

    bool close() {
        ojson done = frames_.back().finish();
        key_ = std::move(frames_.back().key);
        frames_.pop_back();
        return add(std::move(done));
    }

    // Events come in the text's order, so one forward scan finds each
    // number's token (nlohmann does not pass the text of integers).
    std::string_view next_number_token() {
        const std::size_t n = text_.size();
        while (pos_ < n) {
            const char c = text_[pos_];
            if (c == '"') {
                for (++pos_; pos_ < n && text_[pos_] != '"'; ++pos_)
                    if (text_[pos_] == '\\') ++pos_;
                ++pos_;
                continue;
            }
            if (c == '-' || (c >= '0' && c <= '9')) {
                const std::size_t start = pos_;
                while (pos_ < n && std::string_view("0123456789+-.eE").find(text_[pos_]) != std::string_view::npos)
                    ++pos_;
                return text_.substr(start, pos_ - start);
            }
            ++pos_;
        }
        return {};
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::uint64_t max_depth_;
    const streamed_array *stream_;
    ojson root_;
    std::vector<frame> frames_; // the open containers, innermost last
    std::string key_;           // of the object member that comes next
    std::string error_;
};

} // namespace

ojson parse_json(std::string_view text, std::uint64_t max_depth, const streamed_array *stream) {
    dom_builder builder(text, max_depth, stream);
    if (!ojson::sax_parse(text.begin(), text.end(), &builder)) {
        // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." minus the tag.
        std::string what = builder.error_text();
        if (auto tag_end = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag_end != std::string::npos)
            what.erase(0, tag_end + 2);
        throw error(status::invalid_graph, "malformed JSON: " + what + " [json_syntax]");
    }
    return builder.take();
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
