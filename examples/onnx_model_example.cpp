// ONNX models in, through the reshaper C++ API: reads a model (with
// symbolic dims bound, as ONNX Runtime's free dimension override does),
// lists what reshaper claims, compiles each claimed partition and executes
// it on zero-filled buffers (a shape input gets the values the model gives).
//   onnx_model_example MODEL.onnx [NAME=VALUE ...]
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <reshaper/reshaper.hpp>

int main(int argc, char **argv) try {
    if (argc < 2) {
        std::cerr << "usage: onnx_model_example MODEL.onnx [NAME=VALUE ...]\n";
        return 2;
    }
    std::map<std::string, std::int64_t> free_dims;
    for (int i = 2; i < argc; ++i) {
        const std::string binding = argv[i];
        const auto eq = binding.find('=');
        free_dims[binding.substr(0, eq)] = std::stoll(binding.substr(eq + 1));
    }
    auto graph = reshaper::graph::from_onnx(argv[1], free_dims);
    const reshaper::engine cpu(reshaper::engine_kind::cpu);
    int claimed = 0;
    for (const reshaper::partition &p : graph.partitions()) {
        if (!p.is_supported()) continue; // another backend's op (Conv, Concat, ...)
        ++claimed;
        const auto compiled = p.compile(cpu);
        // One buffer per compiled input: the model's values for a shape or
        // axes input, zeros for the data.
        std::vector<std::vector<std::uint8_t>> inputs;
        std::vector<const void *> input_pointers;
        for (const auto &lt : compiled.inputs()) {
            std::vector<std::uint8_t> values = graph.tensor_values(lt.id);
            if (values.empty()) values.assign(lt.mem_size() + 1, 0);
            inputs.push_back(std::move(values));
            input_pointers.push_back(inputs.back().data());
        }
        std::vector<std::vector<std::uint8_t>> outputs;
        std::vector<void *> output_pointers;
        for (std::size_t i = 0; i < compiled.outputs().size(); ++i) {
            outputs.emplace_back(compiled.output_mem_size(i) + 1);
            output_pointers.push_back(outputs.back().data());
        }
        compiled.execute_dynamic(input_pointers, output_pointers);
        const char *lowering[] = {"alias", "reorder", "kernel"};
        std::cout << "partition " << p.id() << ": ops";
        for (std::int64_t op : p.op_ids()) std::cout << ' ' << op;
        std::cout << " -> " << lowering[static_cast<int>(compiled.lowering())] << '\n';
    }
    std::cout << claimed << " partitions claimed, compiled and executed\n";
    return claimed > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const reshaper::error &e) {
    std::cerr << "onnx_model_example: " << e.what() << '\n';
    return EXIT_FAILURE;
}
