// Fuzz target (a): a graph file from bytes through everything reshaper-run
// does before compiling: read, validate, infer, partition (both policies),
// and write back, which must read again as an equal graph. Bad input must
// end as an impl::error; anything else (a crash, a sanitizer report, another
// exception, a written graph that does not read back) is a finding. So is
// a text the JSON reader reads otherwise than nlohmann's parser, the oracle.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "backend/claims.hpp"
#include "io/graph_json.hpp"
#include "io/json_dom.hpp"
#include "ops/graph_inference.hpp"
#include "partition/partitioner.hpp"

using namespace reshaper::impl;

namespace {

bool nests_deeper(const ojson &j, std::uint64_t levels) {
    if (!j.is_structured()) return false;
    if (levels == 0) return true;
    for (const auto &e : j)
        if (nests_deeper(e, levels - 1)) return true;
    return false;
}

// Ours against the oracle's value (json_dom.hpp: each key once, a bare -0
// the float -0.0).
bool same_value(json_view a, const ojson &b) {
    switch (a.type()) {
    case json_tree::kind::null: return b.is_null();
    case json_tree::kind::boolean: return b.is_boolean() && a.boolean() == b.get<bool>();
    case json_tree::kind::integer:
        return b.is_number_integer() && !b.is_number_unsigned() && a.integer() == b.get<std::int64_t>();
    case json_tree::kind::unsigned_integer: return b.is_number_unsigned() && a.unsigned_integer() == b.get<std::uint64_t>();
    case json_tree::kind::floating:
        if (b.is_number_integer()) return b.get<std::int64_t>() == 0 && a.floating() == 0 && std::signbit(a.floating());
        return b.is_number_float() &&
               std::bit_cast<std::uint64_t>(a.floating()) == std::bit_cast<std::uint64_t>(b.get<double>());
    case json_tree::kind::string: return b.is_string() && a.string() == b.get_ref<const std::string &>();
    case json_tree::kind::array: {
        if (!b.is_array() || a.size() != b.size()) return false;
        std::size_t i = 0;
        for (json_view e : a.elements())
            if (!same_value(e, b[i++])) return false;
        return true;
    }
    case json_tree::kind::object: {
        if (!b.is_object() || a.size() != b.size()) return false;
        bool same = true;
        auto it = b.begin();
        a.for_each_member([&](std::string_view key, json_view value) {
            same = same && key == it.key() && same_value(value, it.value());
            ++it;
        });
        return same;
    }
    }
    return false;
}

// What the reader takes, the oracle reads alike; what the oracle takes, the
// reader takes, unless it nests too deep or holds a number RapidJSON calls
// too big (json_dom.hpp).
void check_json_reader(std::string_view text) {
    constexpr std::uint64_t depth = 64;
    std::optional<json_tree> ours;
    std::string refusal;
    try {
        ours = parse_json_tree(text, depth);
    } catch (const error &e) {
        refusal = e.what();
    }
    if (text.find('\0') != std::string_view::npos) {
        // A NUL byte: the reader refuses it, where nlohmann stops reading.
        if (ours) std::abort();
        return;
    }
    const ojson expected = ojson::parse(text.begin(), text.end(), nullptr, false);
    if (expected.is_discarded()) {
        if (ours) std::abort();
        return;
    }
    if (ours) {
        if (!same_value(ours->root(), expected)) std::abort();
        return;
    }
    if (refusal.find("nesting deeper than") != std::string::npos ? !nests_deeper(expected, depth)
                                                                 : refusal.find("number too big") == std::string::npos)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    check_json_reader(text);
    graph g;
    try {
        g = read_graph_json(text);
    } catch (const error &) {
        return 0;
    }
    // What was read writes out and reads back as the same graph.
    try {
        if (!(read_graph_json(write_graph_json(g)) == g)) std::abort();
    } catch (const error &) {
        // A graph holding an op that names a tensor it lacks cannot be written.
    }
    try {
        infer_graph_shapes(g);
        for (auto policy : {partition_policy::fusion, partition_policy::debug})
            for (engine_kind engine : {engine_kind::cpu, engine_kind::gpu})
                get_partitions(g, policy, backend_claims(engine));
    } catch (const error &) {
    }
    return 0;
}
