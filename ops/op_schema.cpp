#include "ops/op_schema.hpp"

namespace reshaper::impl {

std::string op_schema::versioned_name() const {
    std::string prefix = domain.empty() ? "" : domain + ".";
    return prefix + kind + "-" + std::to_string(since_version);
}

} // namespace reshaper::impl
