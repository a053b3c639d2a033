// The one way to reject an input or a call: fail(rule::volume_mismatch,
// "shape [5,5] resolves to ...", o.ref()) throws the project's error with the
// status the rule table gives that rule, the message with " [volume_mismatch]"
// at its end for people, and the op to blame (if one is).
#pragma once

#include <optional>
#include <string>

#include "core/rule_id.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

[[noreturn]] void fail(rule r, std::string message, std::optional<op_ref> op = std::nullopt);

// `message` with " [id]" at its end, as fail() gives it: for checks that hand
// a violation back as a value (ops/reshape_rule.hpp's diagnostics) instead of
// throwing it.
std::string with_rule_id(rule r, std::string message);

} // namespace reshaper::impl
