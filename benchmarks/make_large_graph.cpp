// Writes the large graph file of issue 7 (large_graph.hpp) for scaling runs
// of reshaper-run. Usage: make_large_graph OPS OUT.json [CHAIN_LENGTH: 1-4, default 4]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "large_graph.hpp"

int main(int argc, char **argv) {
    char *end = nullptr;
    const long long ops = argc == 3 || argc == 4 ? std::strtoll(argv[1], &end, 10) : -1;
    const int chain_length = argc == 4 ? std::atoi(argv[3]) : 4;
    if (ops < 0 || *end != '\0' || chain_length < 1 || chain_length > 4) {
        std::fputs("usage: make_large_graph OPS OUT.json [CHAIN_LENGTH: 1-4, default 4]\n", stderr);
        return 2;
    }
    std::ofstream out(argv[2], std::ios::binary);
    out << reshaper::bench::large_graph_json(ops, chain_length);
    out.close();
    if (!out) {
        std::fprintf(stderr, "make_large_graph: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
