// The executable half of a lowering: moves the elements of a partition's
// input buffer into its output buffer as the compiled plan says. Built once
// at compile time, immutable, safe to run from many threads at once.
#pragma once

#include <string>

namespace reshaper::impl {

struct movement_program;

class data_mover {
public:
    virtual ~data_mover() = default;
    // `src` / `dst`: the partition's data input and output buffers (host
    // pointers), distinct and not overlapping.
    virtual void run(const void *src, void *dst) const = 0;
    // How it moves them, in words, where it decided that at compile time
    // (the kernel's movement programs); "" otherwise.
    virtual std::string describe() const { return {}; }
    // The one movement program run() amounts to, when it is nothing else
    // (run_movement of it from src to dst: no temporaries, no steps around
    // it); null otherwise. A compiled partition's prepared execute runs it.
    virtual const movement_program *direct_program() const { return nullptr; }
};

} // namespace reshaper::impl
