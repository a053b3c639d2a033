// Reading JSON text into an ordered DOM in linear time, with a nesting
// limit, keeping what the decimal text of a number says beyond its double.
//
// The one JSON reader is RapidJSON's SAX reader (json_dom.cpp), with its own
// UTF-8 validation; where it refuses a text, its error offset becomes the
// line and column of the message. A number keeps two things a double alone
// loses: the sign of a bare integer `-0` (kept as the float -0.0) and, for a
// decimal whose double is exactly a tie of a narrower float format, which
// side of the tie the text lies on (see io/decimal_text.hpp): the node holds
// it beside the double (json_number::beyond). Read numbers through
// number_of().
//
// The DOM is flat (json_tree): every value one node in a vector, in text
// order, a container followed by its elements; strings in one pool. Reading
// a graph file builds one small tree per op and reuses its storage for the
// next, so an op costs no allocation of the DOM's own (issue 7: the per-op
// nlohmann DOM, a heap block per value, was a third of loading a large
// file). to_ojson() gives an nlohmann value of a tree for writing (extra
// fields written back, excerpts in messages): nlohmann is the writer only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace reshaper::impl {

using ojson = nlohmann::ordered_json;

class json_view;

// The nodes of one JSON value (see above).
class json_tree {
public:
    enum class kind : std::uint8_t { null, boolean, integer, unsigned_integer, floating, string, array, object };
    struct node {
        kind type = kind::null;
        // A boolean's value; for an object, whether a key repeats in it.
        bool flag = false;
        // A floating number's side of its double: json_number::beyond.
        std::int8_t beyond = 0;
        std::size_t end = 0;      // index one past the value's last node
        std::size_t children = 0; // of a container
        std::size_t key_at = 0, key_size = 0; // an object member's key, in the pool
        union {
            std::int64_t integer;
            std::uint64_t unsigned_integer;
            double floating;
            std::size_t string_at; // the string's text in the pool (its size in string_size)
        };
        std::size_t string_size = 0;
        node() : integer(0) {}
    };

    json_view root() const;
    bool empty() const { return nodes_.empty(); }

    // Appends a copy of `v` (a value of any tree) as a value of its own
    // after this tree's last and returns its node's index (json_view(*this,
    // index) reads it): a streamed element kept past its call. clear()
    // empties the tree and keeps its storage.
    std::size_t append_copy(json_view v);
    void clear() {
        nodes_.clear();
        pool_.clear();
    }

private:
    friend class json_view;
    friend class tree_builder;
    std::vector<node> nodes_;
    std::string pool_;
};

// One value of a json_tree. An object whose key repeats reads as nlohmann's
// DOM holds it: one member per key, at the key's first place, with its last
// value.
class json_view {
public:
    json_view(const json_tree &t, std::size_t index) : tree_(&t), index_(index) {}

    json_tree::kind type() const { return at().type; }
    bool is_null() const { return type() == json_tree::kind::null; }
    bool is_boolean() const { return type() == json_tree::kind::boolean; }
    bool is_string() const { return type() == json_tree::kind::string; }
    bool is_array() const { return type() == json_tree::kind::array; }
    bool is_object() const { return type() == json_tree::kind::object; }
    bool is_number() const {
        return type() == json_tree::kind::integer || type() == json_tree::kind::unsigned_integer ||
               type() == json_tree::kind::floating;
    }
    // nlohmann's names: "null", "boolean", "number", "string", "array", "object".
    const char *type_name() const;

    bool boolean() const { return at().flag; }
    std::int64_t integer() const { return at().integer; }
    std::uint64_t unsigned_integer() const { return at().unsigned_integer; }
    double floating() const { return at().floating; }
    // For a floating number: the sign of (text - floating()), see json_number.
    int beyond() const { return at().beyond; }
    std::string_view string() const { return {tree_->pool_.data() + at().string_at, at().string_size}; }

    // Elements of an array; members of an object (each key once).
    std::size_t size() const;

    // An array's elements in order: for (json_view e : v.elements()).
    class iterator {
    public:
        iterator(const json_tree &t, std::size_t i) : tree_(&t), i_(i) {}
        json_view operator*() const { return {*tree_, i_}; }
        iterator &operator++() {
            i_ = tree_->nodes_[i_].end;
            return *this;
        }
        bool operator!=(const iterator &o) const { return i_ != o.i_; }

    private:
        const json_tree *tree_;
        std::size_t i_;
    };
    struct range {
        iterator b, e;
        iterator begin() const { return b; }
        iterator end() const { return e; }
    };
    range elements() const { return {{*tree_, index_ + 1}, {*tree_, at().end}}; }

    // A member of an object by key.
    std::optional<json_view> find(std::string_view key) const;
    // The member's key, for a member of an object.
    std::string_view key() const { return {tree_->pool_.data() + at().key_at, at().key_size}; }
    // The members a reader of several fields asks for, found in one pass
    // over an object's members (a find per field walked them again for
    // each): `slots` names each key and the member of Fields it goes to;
    // keys not named are passed over, and a repeated key gives its last
    // value, as find does.
    template <typename Fields>
    using member_slot = std::pair<std::string_view, std::optional<json_view> Fields::*>;
    template <typename Fields, std::size_t N>
    Fields take_members(const member_slot<Fields> (&slots)[N]) const {
        Fields fields;
        for (json_view m : elements()) {
            const std::string_view key = m.key();
            for (const auto &[name, slot] : slots)
                if (key == name) {
                    fields.*slot = m;
                    break;
                }
        }
        return fields;
    }
    // Each member of an object once, in order: f(key, value).
    template <typename F>
    void for_each_member(F &&f) const {
        if (!at().flag) {
            for (json_view m : elements()) f(m.key(), m);
            return;
        }
        for (std::size_t i : deduplicated_members()) f(json_view(*tree_, i).key(), json_view(*tree_, i));
    }

private:
    friend class json_tree;
    // For an object whose key repeats: the node of each key's last value,
    // in the order of the keys' first places.
    std::vector<std::size_t> deduplicated_members() const;
    const json_tree::node &at() const { return tree_->nodes_[index_]; }
    const json_tree *tree_;
    std::size_t index_;
};

inline json_view json_tree::root() const { return {*this, 0}; }

// The elements of one array member of the top-level object, handed over
// one by one as each is read instead of being kept: a graph file's "graph"
// (its ops), so that reading it needs the memory of one op's DOM, not of
// the whole file's (issue 7). The tree keeps the member, as an empty array.
struct streamed_array {
    std::string key;
    // Called as such an array opens. A repeated key opens another one, whose
    // elements replace the earlier ones' (the last value wins, as for any key).
    std::function<void()> start;
    // Each element, complete, in order; valid during the call only.
    std::function<void(json_view)> element;
};

// Throws error(invalid_graph, "malformed JSON at line L, column C: ...
// [json_syntax]") for malformed text (RFC 8259, UTF-8; a byte order mark at
// the start is skipped) and for nesting deeper than `max_depth` arrays and
// objects. Exceptions from `stream`'s functions go through. Numbers past
// the range of a double are malformed, and so (RapidJSON's rule) is a
// number whose decimal exponent, less its fraction digits, passes 308 or an
// integer of more than 308 digits, even where its value would fit.
json_tree parse_json_tree(std::string_view text, std::uint64_t max_depth, const streamed_array *stream = nullptr);
// The same, free to write over `text` as it reads (faster: strings are not
// copied out of it); what `text` holds afterwards is unspecified.
json_tree parse_json_tree_in_place(std::string &text, std::uint64_t max_depth,
                                   const streamed_array *stream = nullptr);
// Reading a large graph file's ops side by side (io/parallel_read.hpp):
// the text outside its streamed array, and each op apart. Neither says
// why a text does not read: the caller then reads the whole text in turn
// (parse_json_tree), whose error is the one to give.
//
// The text as if [skip_from, skip_to) were not there, with `streamed_key`'s
// array (as for streamed_array) opening just before skip_from, there only,
// with no elements of its own; nothing when it does not read so.
std::optional<json_tree> parse_json_tree_around(std::string_view text, std::size_t skip_from, std::size_t skip_to,
                                                std::uint64_t max_depth, const std::string &streamed_key);
// One JSON value standing alone: text[begin, end) and nothing else.
class json_value_reader {
public:
    // `max_depth`: arrays and objects the value may nest (the nesting of
    // its place in the whole text already taken off).
    explicit json_value_reader(std::uint64_t max_depth);
    ~json_value_reader();
    json_value_reader(const json_value_reader &) = delete;
    json_value_reader &operator=(const json_value_reader &) = delete;
    // Appends the value to `into` as a value of its own after its last (as
    // json_tree::append_copy does) and returns its node's index; nothing
    // when the stretch is not exactly one well-formed value within the
    // nesting limit (`into` then holds a part of it). `ascii`: the stretch
    // holds no byte above 0x7F (no encoding to validate). In place (the
    // stretch holds no backslash), the closing quote of each string in it
    // becomes a NUL, as parse_json_tree_in_place leaves a text, and the
    // byte at `end` is written over while reading and put back.
    std::optional<std::size_t> read(char *text, std::size_t begin, std::size_t end, json_tree &into, bool in_place,
                                     bool ascii);

private:
    struct state;
    std::unique_ptr<state> state_;
};
// The same, as nlohmann's ordered DOM (for writing).
ojson parse_json(std::string_view text, std::uint64_t max_depth);
ojson to_ojson(json_view v);

// A JSON number: its nearest double, and the sign of (text - value): 0 when
// the double is the text's exact value or when the difference cannot change
// a rounding to any float format.
struct json_number {
    double value = 0;
    int beyond = 0;
};
// For a number; nothing for other JSON types.
std::optional<json_number> number_of(json_view v);

} // namespace reshaper::impl
