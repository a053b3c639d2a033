#include "layout/view_strides.hpp"

namespace reshaper::impl {

} // namespace reshaper::impl
