#include "ops/registry.hpp"

#include <algorithm>
#include <cstdint>

#include "ops/reshape_schemas.hpp"

namespace reshaper::impl {
namespace {

// Domains whose op version is an opset version (newest schema not newer than
// it) rather than the op's own version (exact match).
bool versions_are_opsets(const std::string &domain) { return domain == "ai.onnx"; }

std::string qualified_kind(const std::string &domain, const std::string &kind) {
    return domain.empty() ? kind : domain + "." + kind;
}

} // namespace

op_registry::op_registry() : schemas_(make_reshape_schemas()) {}

const op_registry &op_registry::instance() {
    static const op_registry registry;
    return registry;
}

const op_schema *op_registry::find(const std::string &domain, const std::string &kind,
                                   std::optional<std::int64_t> version) const {
    const op_schema *newest = nullptr;
    const op_schema *chosen = nullptr;
    for (const op_schema &s : schemas_) {
        if (s.domain != domain || s.kind != kind) continue;
        if (!newest || s.since_version > newest->since_version) newest = &s;
        if (!version) continue;
        const bool fits = versions_are_opsets(domain) ? s.since_version <= *version
                                                      : s.since_version == *version;
        if (fits && (!chosen || s.since_version > chosen->since_version)) chosen = &s;
    }
    if (!version) return newest;
    // An opset newer than every schema we know may have changed the op.
    if (newest && *version > newest->since_version) return nullptr;
    return chosen;
}

const op_schema *op_registry::resolve(const op &o) const {
    if (!handles_kind(o.domain, o.kind)) return nullptr;
    if (const op_schema *s = find(o.domain, o.kind, o.version)) return s;

    std::string known;
    std::int64_t oldest = INT64_MAX, newest = 0;
    for (const op_schema &s : schemas_)
        if (s.domain == o.domain && s.kind == o.kind) {
            known += (known.empty() ? "" : ", ") + std::to_string(s.since_version);
            oldest = std::min<std::int64_t>(oldest, s.since_version);
            newest = std::max<std::int64_t>(newest, s.since_version);
        }
    const std::string name = qualified_kind(o.domain, o.kind);
    const std::string problem =
        versions_are_opsets(o.domain)
            ? "opset " + std::to_string(*o.version) + " is outside " + std::to_string(oldest) + ".." +
                  std::to_string(newest) +
                  ", the opsets covered by " + name + " schemas " + known
            : "version " + std::to_string(*o.version) + " is not defined; " + name +
                  " has versions " + known;
    throw error(status::invalid_graph_op, op_label(o, nullptr) + ": " + problem + " [version]",
                o.ref());
}

bool op_registry::handles_kind(const std::string &domain, const std::string &kind) const {
    return std::any_of(schemas_.begin(), schemas_.end(), [&](const op_schema &s) {
        return s.domain == domain && s.kind == kind;
    });
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
