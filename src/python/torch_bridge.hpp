// What the native fast path (reshaper_module.cpp, fast_path) asks of torch
// through torch's C++ API, in plain C types: _reshaper itself neither links
// nor includes torch. The bridge, _reshaper_torch (torch_bridge.cpp), is
// built only where torch's headers are (Debian: libtorch-dev), for the torch
// it was built against; the package loads it only when the torch the caller
// imported is that one (reshaper/__init__.py, _torch_bridge), and hands its
// capsule to FastPath.use_torch. Without it the fast path reads tensors
// through their Python attributes, as before.
//
// Why: each of the eight Python attribute reads of a tensor (dtype, layout,
// is_cpu, ..., data_ptr()) passes torch's torch-function check and error
// guard, 80-130 ns each on the Zen 3 EPYC, and torch.empty_like through
// its argument parser took 1.4-2 us; through the C++ API the whole read
// takes about 70 ns and a new tensor 1.1 us (docs/performance.md).
#pragma once

#include <Python.h>

#include <cstdint>

namespace reshaper::python {

// A torch tensor as the fast path checks it. sizes and strides point into
// the tensor and stay valid while it lives unchanged (the call, under the GIL).
struct torch_tensor_view {
    int scalar_type = -1;   // c10::ScalarType
    bool strided = false;   // layout torch.strided
    bool cpu = false;       // device cpu
    bool requires_grad = false, neg = false, conj = false;
    std::int64_t ndim = 0;
    const std::int64_t *sizes = nullptr, *strides = nullptr;
    void *data = nullptr;   // data_ptr(): the first element
};

struct torch_bridge {
    static constexpr std::uint32_t current_version = 1;
    std::uint32_t version = current_version;
    // Reads an exact torch.Tensor (no subclass, no torch-function mode
    // active) into *out: true. Anything else, or a tensor whose read throws
    // (no storage, symbolic sizes): false, no Python error set.
    bool (*read)(PyObject *tensor, torch_tensor_view *out);
    // The c10::ScalarType of a torch.dtype object; -1 for anything else.
    int (*scalar_type)(PyObject *dtype);
    // New tensors, as torch's Python functions of the same names give them
    // (a new reference; null with a Python error set on failure):
    // torch.empty_strided(sizes, strides, dtype=scalar_type) on the CPU,
    PyObject *(*empty_strided)(std::int64_t ndim, const std::int64_t *sizes, const std::int64_t *strides,
                               int scalar_type);
    // base.view(sizes) and base.as_strided(sizes, strides) (its storage offset kept).
    PyObject *(*view)(PyObject *base, std::int64_t ndim, const std::int64_t *sizes);
    PyObject *(*as_strided)(PyObject *base, std::int64_t ndim, const std::int64_t *sizes,
                            const std::int64_t *strides);
};

inline constexpr const char *torch_bridge_capsule_name = "reshaper._reshaper_torch.bridge";

} // namespace reshaper::python
