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
#include <string_view>

#include <nlohmann/json.hpp>

namespace reshaper::impl {

using ojson = nlohmann::ordered_json;

// Throws error(invalid_graph, "malformed JSON: ... [json_syntax]") for
// malformed text (with line and column) and for nesting deeper than
// `max_depth` arrays and objects.
ojson parse_json(std::string_view text, std::uint64_t max_depth);

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
