// The rule ids: one table of every check that can reject an input or a call
// (core/rule_table.def: id, the status it gives, where it is checked, what it
// requires), so that errors are data. A check fails with
// fail(rule::volume_mismatch, "...") (core/fail.hpp): the error's status is
// the table's, its message ends with the id ("... [volume_mismatch]") and
// error::rule() gives it; the C API (reshaper_get_last_error_rule) and the
// driver's JSON report (`error.rule`) hand it out, and docs/rules.md is
// generated from the table (reshaper-gen-rules-doc; a test fails when it is
// stale).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/rule_id.hpp"
#include "core/status.hpp"

namespace reshaper::impl {

struct rule_info {
    rule which;
    std::string_view id;
    status code;            // the status a violation gives
    std::string_view layer; // where it is checked: io, onnx, graph, op, shape, compile, execute, api, driver
    std::string_view meaning;
};

// Every rule, grouped by layer, in the enum's order: all_rules()[r] is rule r's row.
std::span<const rule_info> all_rules();
const rule_info &info(rule r);
// nullptr for an id that is not in the table (the C API and the driver take ids as text).
const rule_info *find_rule(std::string_view id);

// The Markdown of docs/rules.md.
std::string generate_rules_markdown();

} // namespace reshaper::impl
