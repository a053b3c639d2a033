// reshaper-gen-ops-doc: prints docs/ops.md (the Markdown of every schema).
#include <iostream>

#include "ops/registry.hpp"

int main() {
    using namespace reshaper::impl;
    std::cout << generate_ops_markdown(op_registry::instance());
    return std::cout.good() ? 0 : 1;
}
