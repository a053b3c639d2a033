#include "backend/view_strides.hpp"

namespace reshaper::impl {
// Implementation pending (issue 3).
} // namespace reshaper::impl
