// The executable half of a lowering: moves the elements of a partition's
// input buffer into its output buffer as the compiled plan says. Built once
// at compile time, immutable, safe to run from many threads at once.
#pragma once

namespace reshaper::impl {

class data_mover {
public:
    virtual ~data_mover() = default;
    // `src` / `dst`: the partition's data input and output buffers (host
    // pointers), distinct and not overlapping.
    virtual void run(const void *src, void *dst) const = 0;
};

} // namespace reshaper::impl
