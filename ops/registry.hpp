// The op registry: every schema this backend knows, keyed by
// (domain, kind, version).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ops/op_schema.hpp"

namespace reshaper::impl {

// The newest ai.onnx opset this registry knows: the bound of every ai.onnx
// op's version, whatever that op's own newest schema (contract section 1:
// opsets 26 to 28 add no version of the data-movement ops, so opset 28 selects
// Reshape-25, Transpose-25, ...). Raise it after checking that the new
// opsets change none of the registry's ops.
inline constexpr std::int64_t newest_onnx_opset = 28;

class op_registry {
public:
    // The registry with every reshape schema (built once, immutable).
    static const op_registry &instance();

    // Lookup. Default domain: the op's own version; nothing = the newest.
    // "ai.onnx": `version` is an opset version (1..newest_onnx_opset) and
    // selects the newest schema not newer than it. Returns nullptr when the
    // kind/domain is unknown or no schema matches (see resolve for the error).
    const op_schema *find(const std::string &domain, const std::string &kind,
                          std::optional<std::int64_t> version = std::nullopt) const;

    // The schema of `o`; throws error(invalid_graph_op) naming the op when
    // its kind is known but its version is not (below 1, above the newest:
    // the op's own for the default domain, newest_onnx_opset for ai.onnx).
    // Returns nullptr for kinds this backend does not handle at all.
    const op_schema *resolve(const op &o) const;

    bool handles_kind(const std::string &domain, const std::string &kind) const;
    // Every distinct op kind (with domain prefix for non-default domains:
    // "ai.onnx.Reshape"), for the plugin's capability list.
    std::vector<std::string> handled_kinds() const;

    const std::vector<op_schema> &schemas() const { return schemas_; }

private:
    op_registry();
    // The schemas of one (domain, kind), in table order.
    const std::vector<const op_schema *> *schemas_of(std::string_view domain, std::string_view kind) const;

    std::vector<op_schema> schemas_;
    // domain -> kind -> schemas: every op of a graph is looked up (several
    // times), so no scan of the table (issue 7: 100,000-op graphs).
    struct text_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    template <typename V>
    using by_text = std::unordered_map<std::string, V, text_hash, std::equal_to<>>;
    by_text<by_text<std::vector<const op_schema *>>> index_;
};

// Checks every row of a schema table as the registry needs it, and throws
// std::logic_error naming the row and the problem: an identity (domain, kind,
// version) twice or out of range, a port whose type variable no constraint
// defines, a constraint without types or without a port, an attribute whose
// default or bounds do not fit its kind, no infer_shapes, not exactly one
// form (reshape or movement), a form reading an input or attribute the row
// lacks, missing docs. The registry runs it on its own table when it is
// built (ops/schema_check.cpp).
void check_schema_table(const std::vector<op_schema> &schemas);

// Checks `o` against its schema: input/output counts, dtypes per type
// variable (a type variable binds once per op), required / unknown / wrongly
// typed attributes, attribute ranges. Reports the first violation as
// error(invalid_graph_op or invalid_data_type) whose message names the op
// (id, name, kind-version), the port or attribute, the rule and the value.
void verify_op(const op_schema &schema, const op &o, const graph &g);

// The attribute's value, or the schema default; nothing when absent without
// default.
std::optional<attribute_value> attribute_or_default(const op_schema &schema, const op &o,
                                                    const std::string &name);

// Markdown documentation of every schema (docs/ops.md is this text).
std::string generate_ops_markdown(const op_registry &registry);

} // namespace reshaper::impl
