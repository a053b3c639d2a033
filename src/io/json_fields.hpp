// Reading the fields of a graph file's JSON (io/json_dom.hpp's tree): where
// a field is read from (context: the prefix of messages and the op to
// blame), and each field as the type it must have, with an error naming the
// field and the value. Internal to src/io.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/fail.hpp"
#include "core/graph.hpp"
#include "core/status.hpp"
#include "io/json_dom.hpp"

namespace reshaper::impl::graph_io {

// Ordered objects (ojson, io/json_dom.hpp) keep a file's key order, so extra
// fields stay verbatim and written files list fields in oneDNN's order.
// Deeper input is refused while reading (RESHAPER_MAX_JSON_DEPTH), before
// anything recurses over it (dumping and copying JSON values recurse). Real
// files nest 7 levels.
std::string dump(const ojson &j, int indent = -1);
// A JSON value, shortened for messages.
std::string excerpt(json_view j);
std::string in_quotes(std::string_view s);

// Where a field is read from: the prefix of messages and the op to blame.
// Its text is made only for a message: a large file's fields are read by
// the million and almost never fail (issue 7).
struct context {
    enum class form { text, op_at_index, op_id, op, port, tensor, attr };
    form shape = form::text;
    std::string_view text;          // form text; port: "input" or "output"; attr: its name
    std::int64_t number = 0;        // an index, an id or a port's position
    const op *blamed = nullptr;     // form op and the places inside it
    const context *outer = nullptr; // port, tensor and attr: where they are

    static context of(std::string_view text) { return {form::text, text}; }
    static context of_op(const op &o) { return {form::op, {}, 0, &o}; }
    context port(bool output, std::size_t position) const {
        return {form::port, output ? "output" : "input", static_cast<std::int64_t>(position), blamed, this};
    }
    context tensor(tensor_id id) const { return {form::tensor, {}, id, blamed, this}; }
    context attr(std::string_view name) const { return {form::attr, name, 0, blamed, this}; }

    std::string where() const {
        switch (shape) {
        case form::text: break;
        case form::op_at_index: return "op at index " + std::to_string(number) + " of \"graph\"";
        case form::op_id: return "op " + std::to_string(number);
        case form::op: return describe(blamed->ref());
        case form::port: return std::string(text) + " " + std::to_string(number) + " of " + outer->where();
        case form::tensor: return "tensor " + std::to_string(number) + " at " + outer->where();
        case form::attr: return outer->where() + ": attr " + std::string(text);
        }
        return std::string(text);
    }
    std::optional<op_ref> blame() const { return blamed ? std::optional<op_ref>(blamed->ref()) : std::nullopt; }

    [[noreturn]] void fail(rule r, const std::string &what) const { impl::fail(r, where() + ": " + what, blame()); }
};

// An integer-valued JSON number (2 and 2.0 alike) as int64; nothing for
// anything else, fractions and integers outside int64.
std::optional<std::int64_t> exact_int64(json_view j);

inline std::optional<json_view> find_field(json_view object, std::string_view key) { return object.find(key); }
json_view require_field(json_view object, std::string_view key, const context &ctx);
// The same for a field found already (`key` names it in the message).
json_view require_field(const std::optional<json_view> &found, std::string_view key, const context &ctx);

// The fields as the type they must have (field_type, naming the field).
[[noreturn]] void wrong_json_type(json_view v, std::string_view field, std::string_view expected,
                                  const context &ctx);
std::int64_t as_int(json_view v, std::string_view field, const context &ctx);
std::int64_t as_id(json_view v, std::string_view field, const context &ctx); // non-negative
std::string_view as_string(json_view v, std::string_view field, const context &ctx);
json_view as_array(json_view v, std::string_view field, const context &ctx);
dims_t as_int_list(json_view v, std::string_view field, const context &ctx);

} // namespace reshaper::impl::graph_io
