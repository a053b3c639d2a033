// Fuzz target (a): a graph file from bytes through everything reshaper-run
// does before compiling: read, validate, infer, partition (both policies),
// and write back, which must read again as an equal graph. Bad input must
// end as an impl::error; anything else (a crash, a sanitizer report, another
// exception, a written graph that does not read back) is a finding. So is
// a text the fast JSON reader reads otherwise than the reference reader.
#include <bit>
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

bool same_tree(json_view a, json_view b) {
    if (a.type() != b.type()) return false;
    switch (a.type()) {
    case json_tree::kind::null: return true;
    case json_tree::kind::boolean: return a.boolean() == b.boolean();
    case json_tree::kind::integer: return a.integer() == b.integer();
    case json_tree::kind::unsigned_integer: return a.unsigned_integer() == b.unsigned_integer();
    case json_tree::kind::floating:
        return std::bit_cast<std::uint64_t>(a.floating()) == std::bit_cast<std::uint64_t>(b.floating());
    case json_tree::kind::string: return a.string() == b.string();
    case json_tree::kind::array:
    case json_tree::kind::object: break;
    }
    auto ea = a.elements().begin(), eb = b.elements().begin();
    const auto end_a = a.elements().end(), end_b = b.elements().end();
    for (; ea != end_a && eb != end_b; ++ea, ++eb) {
        if (a.is_object() && (*ea).key() != (*eb).key()) return false;
        if (!same_tree(*ea, *eb)) return false;
    }
    return !(ea != end_a) && !(eb != end_b);
}

// Whatever the fast reader takes, the reference reads alike.
void check_json_readers(std::string_view text) {
    constexpr std::uint64_t depth = 64;
    std::optional<json_tree> fast;
    bool fast_threw = false; // the nesting limit: the reference must refuse too
    try {
        fast = detail::parse_json_tree_fast(text, depth);
    } catch (const error &) {
        fast_threw = true;
    }
    std::optional<json_tree> reference;
    try {
        reference = detail::parse_json_tree_reference(text, depth);
    } catch (const error &) {
    }
    if (fast_threw && reference) std::abort();
    if (fast && (!reference || !same_tree(fast->root(), reference->root()))) std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    check_json_readers(text);
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
