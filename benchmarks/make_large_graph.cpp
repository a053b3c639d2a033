// Writes the large graph file of issue 7 (large_graph.hpp) for scaling runs
// of reshaper-run. Usage: make_large_graph OPS OUT.json
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "large_graph.hpp"

int main(int argc, char **argv) {
    char *end = nullptr;
    const long long ops = argc == 3 ? std::strtoll(argv[1], &end, 10) : -1;
    if (argc != 3 || *end != '\0' || ops < 0) {
        std::fputs("usage: make_large_graph OPS OUT.json\n", stderr);
        return 2;
    }
    std::ofstream out(argv[2], std::ios::binary);
    out << reshaper::bench::large_graph_json(ops);
    out.close();
    if (!out) {
        std::fprintf(stderr, "make_large_graph: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
