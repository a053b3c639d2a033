// The SIMD levels this machine can run, lowest first: the kernels tests run
// every case at each of them, so each level is checked where it exists.
#pragma once

#include <vector>

#include "kernels/cpu_isa.hpp"

namespace reshaper::impl::testing {

inline std::vector<cpu_isa> levels_here() {
    std::vector<cpu_isa> levels;
    for (cpu_isa l : {cpu_isa::scalar, cpu_isa::avx2, cpu_isa::avx512})
        if (l <= detected_cpu_isa()) levels.push_back(l);
    return levels;
}

} // namespace reshaper::impl::testing
