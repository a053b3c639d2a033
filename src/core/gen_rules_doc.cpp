// reshaper-gen-rules-doc: prints docs/rules.md (the table of rule ids).
#include <iostream>

#include "core/rules.hpp"

int main() {
    std::cout << reshaper::impl::generate_rules_markdown();
    return std::cout.good() ? 0 : 1;
}
