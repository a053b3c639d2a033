#include "kernels/strided_copy.hpp"

namespace reshaper::impl {
// Implementation pending (issue 3).
} // namespace reshaper::impl
