// _reshaper_torch: the fast path's reads and makes of torch tensors through
// torch's C++ API (torch_bridge.hpp says why). A module of one attribute,
// `bridge`, a capsule holding the function table. Every function catches
// what torch throws: nothing crosses into the caller.
#include <ATen/ATen.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/disable_torch_function.h>

#include <exception>

#include "torch_bridge.hpp"

namespace {

using reshaper::python::torch_bridge;
using reshaper::python::torch_tensor_view;

bool read(PyObject *obj, torch_tensor_view *out) {
    // Exactly torch.Tensor (THPVariable_CheckExact also takes Parameter).
    if (THPVariableClass == nullptr || Py_TYPE(obj) != reinterpret_cast<PyTypeObject *>(THPVariableClass)) return false;
    try {
        // A torch-function mode would see each attribute read: left to the
        // general path, which reads them in Python.
        if (torch::check_has_torch_function(obj)) return false;
        const at::Tensor &t = THPVariable_Unpack(obj);
        if (!t.defined()) return false;
        out->scalar_type = static_cast<int>(t.scalar_type());
        out->strided = t.layout() == c10::kStrided;
        out->cpu = t.is_cpu();
        out->requires_grad = t.requires_grad();
        out->neg = t.is_neg();
        out->conj = t.is_conj();
        if (!out->strided || !out->cpu) return true; // sizes, strides and data of other layouts are not read
        const at::IntArrayRef sizes = t.sizes(), strides = t.strides();
        out->ndim = static_cast<std::int64_t>(sizes.size());
        out->sizes = sizes.data();
        out->strides = strides.data();
        out->data = t.data_ptr();
        return true;
    } catch (...) {
        if (PyErr_Occurred()) PyErr_Clear();
        return false;
    }
}

int scalar_type(PyObject *dtype) {
    return THPDtype_Check(dtype) ? static_cast<int>(reinterpret_cast<THPDtype *>(dtype)->scalar_type) : -1;
}

// Runs make() (an at::Tensor) and wraps it; any exception becomes a Python
// RuntimeError.
template <class Make>
PyObject *wrapped(const Make &make) {
    try {
        return THPVariable_Wrap(make());
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "reshaper._reshaper_torch: unknown error");
    }
    return nullptr;
}

PyObject *empty_strided(std::int64_t ndim, const std::int64_t *sizes, const std::int64_t *strides, int type) {
    return wrapped([&] {
        return at::empty_strided(at::IntArrayRef(sizes, static_cast<std::size_t>(ndim)),
                                 at::IntArrayRef(strides, static_cast<std::size_t>(ndim)),
                                 at::TensorOptions().dtype(static_cast<c10::ScalarType>(type)).device(at::kCPU));
    });
}

PyObject *view(PyObject *base, std::int64_t ndim, const std::int64_t *sizes) {
    return wrapped([&] { return THPVariable_Unpack(base).view(at::IntArrayRef(sizes, static_cast<std::size_t>(ndim))); });
}

PyObject *as_strided(PyObject *base, std::int64_t ndim, const std::int64_t *sizes, const std::int64_t *strides) {
    return wrapped([&] {
        return THPVariable_Unpack(base).as_strided(at::IntArrayRef(sizes, static_cast<std::size_t>(ndim)),
                                                   at::IntArrayRef(strides, static_cast<std::size_t>(ndim)));
    });
}

const torch_bridge bridge_table = {torch_bridge::current_version, &read, &scalar_type, &empty_strided, &view,
                                   &as_strided};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_reshaper_torch",
                          "reshaper's torch bridge (loaded by the reshaper package)", -1, nullptr, nullptr, nullptr,
                          nullptr, nullptr};

} // namespace

PyMODINIT_FUNC PyInit__reshaper_torch() {
    PyObject *m = PyModule_Create(&module_def);
    if (m == nullptr) return nullptr;
    PyObject *capsule = PyCapsule_New(const_cast<torch_bridge *>(&bridge_table),
                                      reshaper::python::torch_bridge_capsule_name, nullptr);
    if (capsule == nullptr || PyModule_AddObject(m, "bridge", capsule) != 0) {
        Py_XDECREF(capsule);
        Py_DECREF(m);
        return nullptr;
    }
    return m;
}
