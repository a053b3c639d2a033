// Errors as values: one status enum shared by every layer, and one exception
// type that carries a status, a message and (when one op is to blame) the op.
// Internal code throws `error`; the C API and the driver turn it into a status
// and a message. Nothing else is thrown on purpose.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace reshaper::impl {

// The codes of the interface contract (section 2), in the C API's order.
enum class status : int {
    success = 0,
    invalid_arguments,
    invalid_graph,
    invalid_graph_op,
    invalid_shape,
    invalid_data_type,
    unimplemented,
    unavailable,
    out_of_memory,
    runtime_error,
};

// Contract spelling, e.g. "invalid_shape".
std::string_view to_string(status s);

// Identifies the op a message is about: as printed and as reported in JSON.
struct op_ref {
    std::int64_t id = -1;
    std::string name;
    std::string kind;
};

// "op 3 'Reshape_0' (StaticReshape)": how messages name an op.
std::string describe(const op_ref &o);

// The rule id a message names at its end ("... [volume_mismatch]"), when
// that id is in the rule table (core/rules.hpp); "" otherwise.
std::string_view rule_in_message(std::string_view message);

class error : public std::runtime_error {
public:
    // The rule is the one the message names at its end (see rule_in_message).
    error(status code, std::string message, std::optional<op_ref> op = std::nullopt)
        : std::runtime_error(std::move(message)), code_(code), op_(std::move(op)),
          rule_(rule_in_message(what())) {}
    // For messages that name their rule elsewhere ("... violates input_count (...)").
    error(status code, std::string message, std::optional<op_ref> op, std::string_view rule)
        : std::runtime_error(std::move(message)), code_(code), op_(std::move(op)), rule_(rule) {}

    status code() const noexcept { return code_; }
    const std::optional<op_ref> &op() const noexcept { return op_; }
    // The id of the rule that failed (core/rules.hpp), "" when none applies.
    const std::string &rule() const noexcept { return rule_; }

private:
    status code_;
    std::optional<op_ref> op_;
    std::string rule_;
};

} // namespace reshaper::impl
