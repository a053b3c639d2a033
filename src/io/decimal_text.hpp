// Exact comparison of a JSON number's decimal text with a double, so that
// values can be rounded once, straight from the text to their dtype.
//
// A decimal x read with strtod gives d, the double nearest x. Rounding d
// again to a narrower format F gives the same result as rounding x to F
// unless d is exactly a tie of F (halfway between two values of F): every
// tie of a format of at most 52 fraction bits is itself a double, so x and d
// lie on the same side of any tie other than d. At a tie the direction of x
// from d decides, and this file computes it.
#pragma once

#include <string_view>

namespace reshaper::impl {

// The sign of x - d: -1, 0 or +1, for the JSON number text `text` (as the
// JSON grammar allows it: -?int(.frac)?([eE][+-]?exp)?) and a finite `d`.
// Exact for any length of text; time linear in its length plus the size of
// d's exponent.
int compare_decimal(std::string_view text, double d);

// Whether `d` might be a tie of a float format narrower than f64 (f32 and
// below): zero, or at most 25 significant bits.
bool may_be_narrow_tie(double d);

} // namespace reshaper::impl
