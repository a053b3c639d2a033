// Errors as values: one status enum shared by every layer, and one exception
// type that carries the rule that failed (and with it a status), a message and
// (when one op is to blame) the op. Internal code throws `error` through
// fail() (core/fail.hpp); the C API and the driver turn it into a status, a
// message and a rule id. Nothing else is thrown on purpose.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/rule_id.hpp"

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

class error : public std::runtime_error {
public:
    // A violation of rule `r` (core/rule_table.def): the status is the one
    // the table gives it, and the message ends with the id in brackets
    // ("... [volume_mismatch]"), appended here unless the message ends with
    // it already (one that wraps another error's message in context). Checks
    // throw it through fail() (core/fail.hpp).
    error(impl::rule r, std::string message, std::optional<op_ref> op = std::nullopt);

    status code() const noexcept { return code_; }
    const std::optional<op_ref> &op() const noexcept { return op_; }
    // The rule that failed, and its id ("volume_mismatch"): never empty.
    impl::rule rule_id() const noexcept { return rule_; }
    std::string_view rule() const noexcept;

private:
    status code_;
    std::optional<op_ref> op_;
    impl::rule rule_;
};

} // namespace reshaper::impl
