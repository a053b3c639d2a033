// What this backend claims on each engine kind, for the partitioner
// (partition/partitioner.hpp's backend_support): the one place that knows
// which ops an engine can move.
#pragma once

#include "core/engine_kind.hpp"
#include "partition/partitioner.hpp"

namespace reshaper::impl {

// cpu: every op of the family (our own kernels move every dtype and
// layout). gpu: the ops whose data oneDNN's reorder moves bit for bit
// (dnnl_reorder_type): compile lowers to a reorder exactly for those, and
// our own kernels run on the CPU only. Lives as long as the program.
const backend_support &backend_claims(engine_kind kind);

} // namespace reshaper::impl
