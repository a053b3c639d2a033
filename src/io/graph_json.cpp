#include "io/graph_json.hpp"

namespace reshaper::impl {} // namespace reshaper::impl
