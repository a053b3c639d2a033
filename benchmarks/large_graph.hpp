// The large graph file of issue 7, from its one generator: `ops` ops as
// ops / 4 independent chains StaticTranspose, StaticReshape, StaticReshape,
// StaticTranspose over an f32 [4, 8] tensor, so that every chain is one
// partition (its transposes compose into one movement). With
// `chain_length` 1 every op is a StaticTranspose of its own: as many
// partitions as ops, the most compile-and-check work per op. partition_bench
// reads the text from memory; make_large_graph writes it to a file for
// scaling runs of reshaper-run:
//
//     build/bin/make_large_graph 100000 /tmp/g100k.json [CHAIN_LENGTH]
//     /usr/bin/time -v build/bin/reshaper-run --threads=1 --mode=check /tmp/g100k.json
//
// Goals: a 100,000-op file loaded and checked in 1 s with a peak RSS of at
// most 5x its size, every stage linear (10x the ops at most 11x the time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace reshaper::bench {

inline std::string large_graph_json(std::int64_t ops, int chain_length = 4) {
    struct step {
        const char *kind;
        const char *attrs;
        std::vector<int> shape; // of its output
    };
    // One chain, from an input of [4, 8].
    static const step chain[] = {
        {"StaticTranspose", R"("order":{"type":"s64[]","value":[1,0]})", {8, 4}},
        {"StaticReshape", R"("shape":{"type":"s64[]","value":[32]},"special_zero":{"type":"bool","value":0})", {32}},
        {"StaticReshape", R"("shape":{"type":"s64[]","value":[2,16]},"special_zero":{"type":"bool","value":0})", {2, 16}},
        {"StaticTranspose", R"("order":{"type":"s64[]","value":[1,0]})", {16, 2}},
    };
    const std::vector<int> input_shape{4, 8};
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "..." + string.
    std::string text = R"({"version":"3.3.0","engine_kind":"cpu","fpmath_mode":"strict","graph":[)" "\n";
    const auto tensor = [&text](std::int64_t id, const std::vector<int> &shape) {
        text.append(R"({"id":)").append(std::to_string(id)).append(R"(,"dtype":"f32","shape":[)");
        for (std::size_t k = 0; k < shape.size(); ++k) text.append(k ? "," : "").append(std::to_string(shape[k]));
        text.append(R"(],"layout_type":"strided","property_type":"undef"})");
    };
    std::int64_t next_tensor = 0, current = 0;
    std::vector<int> shape = input_shape;
    for (std::int64_t i = 0; i < ops; ++i) {
        const step &s = chain[i % chain_length];
        if (i % chain_length == 0) { // a new chain on a new input
            current = next_tensor++;
            shape = input_shape;
        }
        const std::int64_t produced = next_tensor++;
        text.append(i ? "," : "").append(R"({"id":)").append(std::to_string(i)).append(R"(,"name":"op)");
        text.append(std::to_string(i)).append(R"(","kind":")").append(s.kind).append(R"(","attrs":{)");
        text.append(s.attrs).append(R"(},"inputs":[)");
        tensor(current, shape);
        text.append(R"(],"outputs":[)");
        tensor(produced, s.shape);
        text.append("]}\n");
        current = produced;
        shape = s.shape;
    }
    return text.append("]}\n");
}

} // namespace reshaper::bench
