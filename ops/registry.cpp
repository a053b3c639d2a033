#include "ops/registry.hpp"

#include <algorithm>
#include <cstdint>

#include "ops/movement_schemas.hpp"
#include "ops/reshape_schemas.hpp"
#include "core/fail.hpp"

namespace reshaper::impl {
namespace {

// Domains whose op version is an opset version (newest schema not newer than
// it) rather than the op's own version (exact match).
bool versions_are_opsets(const std::string &domain) { return domain == "ai.onnx"; }

std::string qualified_kind(const std::string &domain, const std::string &kind) {
    return domain.empty() ? kind : domain + "." + kind;
}

// Every family's table, in the order docs/ops.md lists them.
std::vector<op_schema> all_schemas() {
    std::vector<op_schema> all;
    for (auto make : {make_reshape_schemas, make_transpose_schemas, make_squeeze_schemas,
                      make_flatten_schemas}) {
        std::vector<op_schema> family = make();
        all.insert(all.end(), std::make_move_iterator(family.begin()),
                   std::make_move_iterator(family.end()));
    }
    return all;
}

// The schema of `version` among one kind's candidates (see find).
const op_schema *choose_version(const std::vector<const op_schema *> &candidates, const std::string &domain,
                                std::optional<std::int64_t> version) {
    const op_schema *newest = nullptr;
    const op_schema *chosen = nullptr;
    for (const op_schema *schema : candidates) {
        const op_schema &s = *schema;
        if (!newest || s.since_version > newest->since_version) newest = &s;
        if (!version) continue;
        const bool fits = versions_are_opsets(domain) ? s.since_version <= *version
                                                      : s.since_version == *version;
        if (fits && (!chosen || s.since_version > chosen->since_version)) chosen = &s;
    }
    if (!version) return newest;
    // An opset newer than the domain's newest we know may have changed the op.
    if (versions_are_opsets(domain) && (*version < 1 || *version > newest_onnx_opset))
        return nullptr;
    return chosen;
}

} // namespace

op_registry::op_registry() : schemas_(all_schemas()) {
    check_schema_table(schemas_);
    for (const op_schema &s : schemas_) index_[s.domain][s.kind].push_back(&s);
}

const std::vector<const op_schema *> *op_registry::schemas_of(std::string_view domain,
                                                              std::string_view kind) const {
    const auto d = index_.find(domain);
    if (d == index_.end()) return nullptr;
    const auto k = d->second.find(kind);
    return k == d->second.end() ? nullptr : &k->second;
}

const op_registry &op_registry::instance() {
    static const op_registry registry;
    return registry;
}

const op_schema *op_registry::find(const std::string &domain, const std::string &kind,
                                   std::optional<std::int64_t> version) const {
    const auto *candidates = schemas_of(domain, kind);
    return candidates ? choose_version(*candidates, domain, version) : nullptr;
}

const op_schema *op_registry::resolve(const op &o) const {
    // One lookup of the kind: resolve runs for every op at every phase.
    const auto *candidates = schemas_of(o.domain, o.kind);
    if (!candidates) return nullptr;
    if (const op_schema *s = choose_version(*candidates, o.domain, o.version)) return s;

    std::string known;
    std::int64_t oldest = INT64_MAX;
    for (const op_schema &s : schemas_)
        if (s.domain == o.domain && s.kind == o.kind) {
            known += (known.empty() ? "" : ", ") + std::to_string(s.since_version);
            oldest = std::min<std::int64_t>(oldest, s.since_version);
        }
    const std::string name = qualified_kind(o.domain, o.kind);
    std::string problem;
    if (!versions_are_opsets(o.domain))
        problem = "version " + std::to_string(*o.version) + " is not defined; " + name +
                  " has versions " + known;
    else if (*o.version < 1 || *o.version > newest_onnx_opset)
        problem = "opset " + std::to_string(*o.version) + " is outside 1.." +
                  std::to_string(newest_onnx_opset) + ", the " + o.domain +
                  " opsets this registry knows (" + name + " has schemas " + known + ")";
    else // a kind whose oldest schema is newer than 1 (none so far)
        problem = "opset " + std::to_string(*o.version) + " is older than " + name +
                  "'s oldest schema, " + std::to_string(oldest) + " (schemas " + known + ")";
    fail(rule::version, op_label(o, nullptr) + ": " + problem,
         o.ref());
}

bool op_registry::handles_kind(const std::string &domain, const std::string &kind) const {
    return schemas_of(domain, kind) != nullptr;
}

std::vector<std::string> op_registry::handled_kinds() const {
    std::vector<std::string> kinds;
    for (const op_schema &s : schemas_) {
        std::string k = qualified_kind(s.domain, s.kind);
        if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(std::move(k));
    }
    return kinds;
}

std::optional<attribute_value> attribute_or_default(const op_schema &schema, const op &o,
                                                    const std::string &name) {
    if (const attribute_value *v = o.find_attr(name)) return *v;
    for (const attribute_spec &a : schema.attributes)
        if (a.name == name) return a.default_value;
    return std::nullopt;
}

} // namespace reshaper::impl
