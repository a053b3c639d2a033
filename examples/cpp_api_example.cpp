// The reshaper C++ API: the same steps as c_api_example.c with RAII handles
// and exceptions, on an input whose buffer is column-major, so the backend
// has to move data instead of aliasing it.
#include <cstdint>
#include <iostream>
#include <vector>

#include <reshaper/reshaper.hpp>

namespace {

const char *const graph_json = R"({ "version": "3.3.0", "engine_kind": "cpu", "graph": [
  { "id": 0, "name": "Reshape_0", "kind": "StaticReshape",
    "attrs": { "special_zero": {"type": "bool", "value": 0},
               "shape": {"type": "s64[]", "value": [6, 2]} },
    "inputs":  [ {"id": 0, "dtype": "f32", "shape": [3, 4], "stride": [4, 1],
                  "layout_type": "strided", "property_type": "undef"} ],
    "outputs": [ {"id": 1, "dtype": "f32", "shape": [6, 2], "stride": [2, 1],
                  "layout_type": "strided", "property_type": "undef"} ] } ] })";

const char *name(reshaper::lowering_kind k) {
    switch (k) {
    case reshaper::lowering_kind::alias: return "alias";
    case reshaper::lowering_kind::reorder: return "reorder";
    case reshaper::lowering_kind::kernel: return "kernel";
    }
    return "?";
}

} // namespace

int main() try {
    auto graph = reshaper::graph::from_json(graph_json);
    const auto partitions = graph.partitions();
    const reshaper::partition &reshape = partitions.at(0);

    // Compile for the buffers we really have: [3, 4] stored column-major.
    reshaper::logical_tensor input(0, reshaper::data_type::f32, {3, 4},
                                   reshaper::layout_type::strided, {1, 3});
    reshaper::engine cpu(reshaper::engine_kind::cpu);
    const auto compiled = reshape.compile(cpu, {input}, reshape.outputs());
    std::cout << "lowering: " << name(compiled.lowering()) << "\n"
              << compiled.lowering_details() << "\n";

    // Column-major storage of the row-major values 0..11.
    std::vector<float> src(12), dst(compiled.outputs().at(0).mem_size() / sizeof(float));
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) src[c * 3 + r] = static_cast<float>(r * 4 + c);
    compiled.execute({src.data()}, {dst.data()});

    for (std::size_t i = 0; i < dst.size(); ++i) {
        if (dst[i] != static_cast<float>(i)) {
            std::cerr << "element " << i << ": " << dst[i] << "\n";
            return 1;
        }
    }
    std::cout << "ok: 12 elements in row-major order\n";

    // Failures are reshaper::error with the status and the library's message.
    try {
        reshaper::engine gpu(reshaper::engine_kind::gpu);
    } catch (const reshaper::error &e) {
        std::cout << "gpu: " << reshaper::to_string(e.code()) << ": " << e.what() << "\n";
    }
    return 0;
} catch (const reshaper::error &e) {
    std::cerr << reshaper::to_string(e.code()) << ": " << e.what() << "\n";
    return 1;
}
