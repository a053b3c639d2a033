#include "backend/verbose.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace reshaper::impl {

std::string verbose_tensor(const logical_tensor &lt) {
    std::string text = std::string(to_string(lt.dtype)) + ":" + dims_to_string(lt.shape) + ":";
    switch (lt.layout) {
    case layout_type::opaque: return text + lt.format.get();
    case layout_type::any: return text + "any";
    case layout_type::strided:
    case layout_type::undef: break;
    }
    const auto strides = lt.strides.get().empty() ? dense_strides(lt.shape) : std::optional(lt.strides.get());
    return text + (strides ? dims_to_string(*strides) : "?");
}

} // namespace reshaper::impl
