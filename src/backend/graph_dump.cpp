#include "backend/graph_dump.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "io/graph_json.hpp"

namespace reshaper::impl {
namespace {

bool dump_enabled(std::string_view what) {
    const char *value = std::getenv("RESHAPER_GRAPH_DUMP");
    if (!value) return false;
    std::string_view list(value);
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (list.substr(0, comma) == what) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

// Creates a new file (O_EXCL: never one that exists) and writes `text`.
void write_new_file(const char *kind, const std::string &text) {
    static std::atomic<unsigned long> counter{0};
    const char *dir = std::getenv("RESHAPER_GRAPH_DUMP_DIR");
    const std::string prefix = std::string(dir && *dir ? dir : ".") + "/reshaper_" + kind + "_" +
                               std::to_string(static_cast<long>(getpid())) + "_";
    for (int attempt = 0; attempt < 1000; ++attempt) {
        const std::string path = prefix + std::to_string(counter.fetch_add(1)) + ".json";
        const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0 && errno == EEXIST) continue; // another run's file: keep it
        if (fd < 0) {
            std::fprintf(stderr, "reshaper: cannot write graph dump %s: %s\n", path.c_str(),
                         std::strerror(errno));
            return;
        }
        std::size_t written = 0;
        while (written < text.size()) {
            const ssize_t n = write(fd, text.data() + written, text.size() - written);
            if (n <= 0) break;
            written += static_cast<std::size_t>(n);
        }
        close(fd);
        if (written != text.size())
            std::fprintf(stderr, "reshaper: graph dump %s is incomplete\n", path.c_str());
        return;
    }
    std::fprintf(stderr, "reshaper: no free name for a graph dump under %s\n", prefix.c_str());
}

// Dumping is a debugging aid: it never fails the call that triggers it.
template <typename Make>
void dump(const char *kind, Make &&make_text) {
    try {
        write_new_file(kind, make_text());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "reshaper: graph dump of a %s failed: %s\n", kind, e.what());
    }
}

} // namespace

void dump_finalized_graph(const graph &g) {
    if (!dump_enabled("graph")) return;
    dump("graph", [&] { return write_graph_json(g) + "\n"; });
}

graph partition_as_graph(const graph &g, const partition &p,
                               const compiled_partition &compiled) {
    graph sub;
    sub.version = g.version;
    sub.engine_kind = std::string(to_string(compiled.target_engine().kind()));
    sub.fpmath_mode = g.fpmath_mode;
    for (std::size_t index : p.op_indices) {
        const op &o = g.ops.at(index);
        sub.ops.push_back(o);
        for (const auto &ids : {o.inputs, o.outputs})
            for (tensor_id id : ids) sub.tensors.emplace(id, g.tensor(id));
    }
    // The boundary as compiled; values (constant shape inputs) as in the graph.
    for (const auto &lts : {compiled.inputs(), compiled.outputs()})
        for (const logical_tensor &lt : lts) {
            logical_tensor &slot = sub.tensors[lt.id];
            auto values = lt.values ? lt.values : slot.values;
            slot = lt;
            if (values && values->type == lt.dtype) slot.values = std::move(values);
        }
    sub.extra_fields["reshaper_partition"] =
        "{\"id\": " + std::to_string(p.id) + ", \"lowering\": \"" +
        std::string(to_string(compiled.lowering())) + "\"}";
    return sub;
}

void dump_compiled_partition(const graph &g, const partition &p,
                             const compiled_partition &compiled) {
    if (!dump_enabled("partition")) return;
    dump("partition", [&] { return write_graph_json(partition_as_graph(g, p, compiled)) + "\n"; });
}

} // namespace reshaper::impl
