// Reading JSON text into an ordered DOM in linear time, with a nesting
// limit, keeping what the decimal text of a number says beyond its double.
//
// nlohmann's own DOM parser loses two things values need: the sign of a
// bare integer `-0` (read as the integer 0) and, for a decimal whose
// double is exactly a tie of a narrower float format, which side of the tie
// the text lies on (see io/decimal_text.hpp). So the reader keeps `-0` as
// the float -0.0 and "boxes" such rare decimals: the DOM holds a NaN (which
// JSON text never yields) whose payload carries the double and the
// direction. Read numbers through number_of(); write DOM parts back out
// through unboxed().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace reshaper::impl {

using ojson = nlohmann::ordered_json;

// The elements of one array member of the top-level object, handed over
// one by one as each is read instead of being kept: a graph file's "graph"
// (its ops), so that reading it needs the memory of one op's DOM, not of
// the whole file's (issue 7). The DOM keeps the member, as an empty array.
struct streamed_array {
    std::string key;
    // Called as such an array opens. A repeated key opens another one, whose
    // elements replace the earlier ones' (the last value wins, as for any key).
    std::function<void()> start;
    // Each element, complete, in order.
    std::function<void(ojson &&)> element;
};

// Throws error(invalid_graph, "malformed JSON: ... [json_syntax]") for
// malformed text (with line and column) and for nesting deeper than
// `max_depth` arrays and objects. Exceptions from `stream`'s functions go
// through.
ojson parse_json(std::string_view text, std::uint64_t max_depth, const streamed_array *stream = nullptr);

// A JSON number: its nearest double, and the sign of (text - value): 0 when
// the double is the text's exact value or when the difference cannot change
// a rounding to any float format.
struct json_number {
    double value = 0;
    int beyond = 0;
};
// For any number (boxed or not); nothing for other JSON types.
std::optional<json_number> number_of(const ojson &j);

// A copy with boxed numbers back as plain doubles, for dumping.
ojson unboxed(const ojson &j);

} // namespace reshaper::impl
