// The rule ids: one table of every check that can reject an input or a call
// (id, the status it gives, what it requires), so that errors are data. An
// error names its rule at the end of its message ("... [volume_mismatch]")
// and error::rule() gives the id; the C API (reshaper_get_last_error_rule)
// and the driver's JSON report (`error.rule`) hand it out, and docs/rules.md
// is generated from this table (reshaper-gen-rules-doc; a test fails when it
// is stale). A test also checks that every id written in a message is here.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace reshaper::impl {

struct rule_info {
    std::string_view id;
    status code;            // the status a violation gives
    std::string_view layer; // where it is checked: io, graph, op, shape, compile, execute, api, driver
    std::string_view meaning;
};

// Every rule, grouped by layer.
std::span<const rule_info> all_rules();
// nullptr for an id that is not in the table.
const rule_info *find_rule(std::string_view id);

// The Markdown of docs/rules.md.
std::string generate_rules_markdown();

} // namespace reshaper::impl
