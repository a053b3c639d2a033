// The rule ids as a type: one enumerator per row of core/rule_table.def, so a
// check names its rule as `rule::volume_mismatch` and the compiler, not a
// test over the sources, knows that the id exists. The table's other columns
// (status, layer, meaning) are in core/rules.hpp; this header is small so that
// core/status.hpp (the error type) can carry a rule.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>

namespace reshaper::impl {

enum class rule : std::uint16_t {
#define RULE(id, code, layer, meaning) id,
#include "core/rule_table.def"
#undef RULE
};

// The id as written in messages, docs/rules.md, the C API and the driver's
// JSON ("volume_mismatch").
std::string_view to_string(rule r);
// Prints the id (tests' failure messages).
std::ostream &operator<<(std::ostream &out, rule r);

} // namespace reshaper::impl
