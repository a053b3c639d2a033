// _reshaper: the Python binding's native part, over the public C++ API
// (reshaper/reshaper.hpp). Buffers cross as addresses; the array handling
// (numpy, buffer protocol, DLPack, layouts) lives in reshaper/__init__.py.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reshaper/reshaper.hpp"
#include "torch_bridge.hpp"

namespace py = pybind11;
using namespace reshaper;

namespace {

const char *const dtype_names[] = {
    "undef", "f32", "f16", "bf16", "s8", "u8", "s32", "boolean", "f8_e5m2", "f8_e4m3", "s4", "u4",
    "f64", "s16", "u16", "u32", "s64", "u64", "c64", "c128", "string", "f8_e4m3fnuz",
    "f8_e5m2fnuz", "f8_e8m0", "f4_e2m1", "s2", "u2"};
const char *const layout_names[] = {"undef", "any", "strided", "opaque"};
const char *const property_names[] = {"undef", "variable", "constant"};
const char *const lowering_names[] = {"alias", "reorder", "kernel"};

template <std::size_t N>
int index_of(const char *const (&names)[N], const std::string &name, const char *what) {
    for (std::size_t i = 0; i < N; ++i)
        if (name == names[i]) return static_cast<int>(i);
    throw error(status::invalid_arguments, std::string("unknown ") + what + " '" + name + "'", "api_argument");
}

// Logical tensors cross as dicts: {"id", "dtype", "shape", "strides", "layout", "property", "format"}.
py::dict to_py(const logical_tensor &lt) {
    py::dict d;
    d["id"] = lt.id;
    d["dtype"] = dtype_names[static_cast<int>(lt.dtype)];
    d["shape"] = lt.dims;
    d["strides"] = lt.strides;
    d["layout"] = layout_names[static_cast<int>(lt.layout)];
    d["property"] = property_names[static_cast<int>(lt.property)];
    d["format"] = lt.format;
    return d;
}

logical_tensor from_py(const py::dict &d) {
    logical_tensor lt;
    lt.id = d["id"].cast<std::int64_t>();
    lt.dtype = static_cast<data_type>(index_of(dtype_names, d["dtype"].cast<std::string>(), "dtype"));
    lt.dims = d["shape"].cast<std::vector<std::int64_t>>();
    if (d.contains("strides") && !d["strides"].is_none())
        lt.strides = d["strides"].cast<std::vector<std::int64_t>>();
    if (d.contains("layout"))
        lt.layout = static_cast<layout_type>(index_of(layout_names, d["layout"].cast<std::string>(), "layout"));
    if (d.contains("property"))
        lt.property = static_cast<property_type>(
            index_of(property_names, d["property"].cast<std::string>(), "property"));
    if (d.contains("format")) lt.format = d["format"].cast<std::string>();
    return lt;
}

std::vector<py::dict> to_py(const std::vector<logical_tensor> &lts) {
    std::vector<py::dict> out;
    for (const auto &lt : lts) out.push_back(to_py(lt));
    return out;
}

std::vector<logical_tensor> from_py(const std::vector<py::dict> &ds) {
    std::vector<logical_tensor> out;
    for (const auto &d : ds) out.push_back(from_py(d));
    return out;
}

engine_kind engine_of(const std::string &name) {
    if (name == "cpu") return engine_kind::cpu;
    if (name == "gpu") return engine_kind::gpu;
    throw error(status::invalid_arguments, "engine must be cpu or gpu, got '" + name + "'", "api_argument");
}

std::vector<const void *> in_pointers(const std::vector<std::uintptr_t> &addresses) {
    std::vector<const void *> p;
    for (auto a : addresses) p.push_back(reinterpret_cast<const void *>(a));
    return p;
}
std::vector<void *> out_pointers(const std::vector<std::uintptr_t> &addresses) {
    std::vector<void *> p;
    for (auto a : addresses) p.push_back(reinterpret_cast<void *>(a));
    return p;
}

// The common call of CompiledPartition.execute done natively: numpy arrays,
// or torch tensors, of exactly the compiled dtypes, shapes and layouts in;
// new arrays of the same library (or views of the inputs, for alias
// outputs) out, or caller-given ones of the compiled layouts. The package
// (reshaper/__init__.py, _Plan) works out the specs once per compiled
// partition; run() answers None for any call it does not take, and the
// package's general path takes it (and says what is wrong, if anything),
// so every check of the general path stays. The general path per call cost
// 5-8 us above the C API's execute with numpy and 8-23 us with torch
// (a profile of 600k torch calls: 52% in the interpreter running it); this
// one about 1 with numpy (benchmarks/python_call_bench.py).
//
// torch is optional: the module neither links nor imports it. Once the
// caller has passed a torch tensor the package hands over what this path
// needs of torch (use_torch: the Tensor type, the strided layout,
// empty_strided, empty_like, the dtype objects); tensors are then read through their
// Python attributes (dtype, layout, is_cpu, requires_grad, is_neg(),
// shape, stride(), data_ptr()), each a C call into torch, with none of the
// general path's Python frames.
class fast_path {
public:
    struct tensor_spec {
        py::object np_dtype;                   // numpy dtype, or None where numpy holds none
        std::vector<py::ssize_t> shape, byte_strides, strides;
        std::vector<std::int64_t> shape64, strides64; // the same for the torch bridge
        int torch_scalar_type = -1;            // torch_dtype's c10::ScalarType, with the bridge
        bool complex = false;                  // c64, c128: a lazily conjugated tensor is declined
        py::ssize_t itemsize = 0;
        // Whether the strides are the dense row-major ones where a dim is not
        // 1: a torch tensor's is_contiguous() then says whether it addresses
        // memory as they do, without building stride()'s tuple.
        bool row_major = false;
        py::object torch_dtype;                // torch dtype object, or None; set by use_torch
        py::tuple shape_tuple, strides_tuple;  // for torch's empty_strided / as_strided
        py::dict empty_kwargs;                 // {"dtype": torch_dtype}
    };
    struct output_spec {
        tensor_spec tensor;
        int alias_input = -1;     // the input an alias output views, or -1
        py::ssize_t span = 0;     // elements of the buffer its strides reach
        bool dense = false;       // numpy's own strides for the shape
        bool in_torch[2] = {false, false}; // a torch tensor? by whether the first input is one
        bool torch_view = false;  // an alias of a dense input, dense itself: view(shape), cheaper than as_strided
        py::tuple empty_args;     // (shape, strides) of torch.empty_strided
        // A torch tensor standing for this output's metadata, made once in
        // use_torch, so that a call makes the output from it with no int
        // list for torch's argument parser to read (each int of a shape or
        // strides argument costs it an isinstance check against numpy's
        // integer): a torch_view alias is the input's view_as(template) (a
        // one-element tensor of the output's shape, zero strides), a move's
        // new tensor empty_like(template) (a tensor of the output's dtype,
        // shape and strides, made only for outputs of at most
        // template_max_bytes, and only where empty_like was seen to give
        // exactly the compiled strides). None: the calls with int lists.
        py::object torch_template;
    };

    fast_path(compiled_partition cp, std::vector<tensor_spec> inputs, std::vector<output_spec> outputs,
              bool release_gil)
        : cp_(std::move(cp)), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
          release_gil_(release_gil),
          ndarray_type_(reinterpret_cast<PyTypeObject *>(py::module_::import("numpy").attr("ndarray").ptr())) {
        if (inputs_.size() > max_buffers || outputs_.size() > max_buffers)
            throw error(status::invalid_arguments, "fast_path: too many buffers", "api_argument");
    }

    // What torch gives this path: its Tensor type (exactly: subclasses such
    // as Parameter take the general path), torch.strided, torch.empty_strided
    // and the dtype object of each input and output (None: torch holds none).
    // `bridge`: the capsule of _reshaper_torch (torch_bridge.hpp) or None:
    // with it, tensors are read and made through torch's C++ API.
    void use_torch(py::handle tensor_type, py::object strided, py::object empty_strided, py::object empty_like,
                   const py::list &in_dtypes, const py::list &out_dtypes, py::object bridge) {
        if (in_dtypes.size() != inputs_.size() || out_dtypes.size() != outputs_.size())
            throw error(status::invalid_arguments, "fast_path.use_torch: one dtype per tensor", "api_argument");
        if (!PyType_Check(tensor_type.ptr()))
            throw error(status::invalid_arguments, "fast_path.use_torch: torch.Tensor is not a type", "api_argument");
        auto *type = reinterpret_cast<PyTypeObject *>(tensor_type.ptr());
        torch_.dtype.resolve(type, "dtype");
        torch_.layout.resolve(type, "layout");
        torch_.is_cpu.resolve(type, "is_cpu");
        torch_.requires_grad.resolve(type, "requires_grad");
        torch_.is_neg.resolve(type, "is_neg");
        torch_.is_conj.resolve(type, "is_conj");
        torch_.shape.resolve(type, "shape");
        torch_.stride.resolve(type, "stride");
        torch_.data_ptr.resolve(type, "data_ptr");
        torch_.as_strided.resolve(type, "as_strided");
        torch_.view.resolve(type, "view");
        torch_.view_as.resolve(type, "view_as");
        torch_.is_contiguous.resolve(type, "is_contiguous");
        if (!bridge.is_none()) {
            auto *b = static_cast<const python::torch_bridge *>(
                    PyCapsule_GetPointer(bridge.ptr(), python::torch_bridge_capsule_name));
            if (b == nullptr) throw py::error_already_set();
            if (b->version != python::torch_bridge::current_version)
                throw error(status::invalid_arguments, "fast_path.use_torch: a torch bridge of another version",
                            "api_argument");
            bridge_ = b;
            bridge_holder_ = std::move(bridge);
        }
        torch_tensor_type_ = type;
        torch_type_holder_ = py::reinterpret_borrow<py::object>(tensor_type);
        strided_ = std::move(strided);
        empty_strided_ = std::move(empty_strided);
        empty_like_ = std::move(empty_like);
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            inputs_[i].torch_dtype = in_dtypes[i];
            if (bridge_) inputs_[i].torch_scalar_type = bridge_->scalar_type(inputs_[i].torch_dtype.ptr());
        }
        for (std::size_t k = 0; k < outputs_.size(); ++k) {
            output_spec &o = outputs_[k];
            tensor_spec &t = o.tensor;
            t.torch_dtype = out_dtypes[k];
            if (bridge_) t.torch_scalar_type = bridge_->scalar_type(t.torch_dtype.ptr());
            t.empty_kwargs = py::dict();
            o.torch_template = py::none();
            if (t.torch_dtype.is_none()) continue;
            t.empty_kwargs["dtype"] = t.torch_dtype;
            if (bridge_) continue; // the bridge makes outputs without templates
            if (o.alias_input >= 0 && o.torch_view) {
                o.torch_template = empty_strided_(t.shape_tuple, as_tuple(std::vector<py::ssize_t>(t.shape.size(), 0)),
                                                  **t.empty_kwargs);
            } else if (o.alias_input < 0 && o.span * t.itemsize <= template_max_bytes) {
                py::object templ = empty_strided_(*o.empty_args, **t.empty_kwargs);
                py::object probe = empty_like_(templ);
                if (probe.attr("stride")().equal(t.strides_tuple) && py::object(probe.attr("dtype")).is(t.torch_dtype))
                    o.torch_template = std::move(templ);
            }
        }
    }

    bool has_torch() const { return torch_tensor_type_ != nullptr; }
    bool has_torch_bridge() const { return bridge_ != nullptr; }

    // The outputs, or None when the call is not one this path takes.
    py::object run(py::handle inputs, py::handle outputs) const {
        if (!PyList_Check(inputs.ptr()) && !PyTuple_Check(inputs.ptr())) return py::none();
        const std::size_t n_in = static_cast<std::size_t>(PySequence_Fast_GET_SIZE(inputs.ptr()));
        if (n_in != inputs_.size()) return py::none();
        PyObject **in_items = PySequence_Fast_ITEMS(inputs.ptr());
        // All inputs numpy arrays or all torch tensors (mixed: the general path).
        const bool torch_wanted = n_in > 0 && torch_tensor_type_ != nullptr && Py_TYPE(in_items[0]) == torch_tensor_type_;
        const void *in_ptrs[max_buffers];
        // Held while the GIL is released: another thread may empty the list.
        py::object held[max_buffers];
        for (std::size_t i = 0; i < n_in; ++i) {
            void *data = nullptr;
            if (!(torch_wanted ? torch_matches(in_items[i], inputs_[i], false, &data)
                               : numpy_matches(in_items[i], inputs_[i], false, &data)))
                return py::none();
            in_ptrs[i] = data;
            held[i] = py::reinterpret_borrow<py::object>(in_items[i]);
        }
        void *out_ptrs[max_buffers];
        py::list results(outputs_.size());
        if (!outputs.is_none()) {
            if (!PyList_Check(outputs.ptr()) && !PyTuple_Check(outputs.ptr())) return py::none();
            if (static_cast<std::size_t>(PySequence_Fast_GET_SIZE(outputs.ptr())) != outputs_.size())
                return py::none();
            PyObject **out_items = PySequence_Fast_ITEMS(outputs.ptr());
            for (std::size_t k = 0; k < outputs_.size(); ++k) {
                PyObject *o = out_items[k];
                const bool is_torch = torch_tensor_type_ != nullptr && Py_TYPE(o) == torch_tensor_type_;
                if (!(is_torch ? torch_matches(o, outputs_[k].tensor, true, &out_ptrs[k])
                               : numpy_matches(o, outputs_[k].tensor, true, &out_ptrs[k])))
                    return py::none();
                results[k] = py::reinterpret_borrow<py::object>(o);
            }
        } else {
            for (std::size_t k = 0; k < outputs_.size(); ++k) {
                const output_spec &o = outputs_[k];
                const bool as_torch = o.in_torch[torch_wanted ? 1 : 0];
                py::object made;
                if (as_torch != torch_wanted) {
                    return py::none(); // the other library's output (bf16 from numpy, ...): the general path
                } else if (as_torch) {
                    if (bridge_) {
                        made = torch_output_by_bridge(o, o.alias_input >= 0 ? in_items[o.alias_input] : nullptr);
                        out_ptrs[k] = o.alias_input >= 0 ? const_cast<void *>(in_ptrs[o.alias_input])
                                                         : bridge_data(made.ptr());
                        if (out_ptrs[k] == nullptr) throw error(status::runtime_error,
                                                                "fast_path: torch gave a new tensor without data",
                                                                "internal_invariant");
                    } else if (o.alias_input >= 0) { // a view of the input tensor, its storage offset kept
                        PyObject *base = in_items[o.alias_input];
                        if (!o.torch_template.is_none()) {
                            made = py::reinterpret_steal<py::object>(torch_.view_as.call(base, o.torch_template.ptr()));
                            if (!made) PyErr_Clear(); // as_strided says the same, or why not
                        } else if (o.torch_view) {
                            made = py::reinterpret_steal<py::object>(torch_.view.call(base, o.tensor.shape_tuple.ptr()));
                            if (!made) PyErr_Clear(); // as_strided says the same, or why not
                        }
                        if (!made) {
                            made = py::reinterpret_steal<py::object>(
                                torch_.as_strided.call(base, o.tensor.shape_tuple.ptr(), o.tensor.strides_tuple.ptr()));
                            if (!made) throw py::error_already_set();
                        }
                        out_ptrs[k] = const_cast<void *>(in_ptrs[o.alias_input]);
                    } else if (!o.torch_template.is_none()) {
                        made = py::reinterpret_steal<py::object>(PyObject_CallOneArg(empty_like_.ptr(), o.torch_template.ptr()));
                        if (!made) throw py::error_already_set();
                        out_ptrs[k] = data_ptr(made.ptr());
                        if (out_ptrs[k] == nullptr) throw py::error_already_set();
                    } else {
                        made = py::reinterpret_steal<py::object>(PyObject_Call(
                            empty_strided_.ptr(), o.empty_args.ptr(), o.tensor.empty_kwargs.ptr()));
                        if (!made) throw py::error_already_set();
                        out_ptrs[k] = data_ptr(made.ptr());
                        if (out_ptrs[k] == nullptr) throw py::error_already_set();
                    }
                } else {
                    py::array a;
                    if (o.alias_input >= 0) { // a view of the input, run in place
                        a = py::array(o.tensor.np_dtype, o.tensor.shape, o.tensor.byte_strides,
                                      in_ptrs[o.alias_input], py::handle(in_items[o.alias_input]));
                    } else if (o.dense) {
                        a = py::array(o.tensor.np_dtype, o.tensor.shape, o.tensor.byte_strides);
                    } else { // the strides reach past the volume: a buffer of the span, viewed
                        py::array buffer(o.tensor.np_dtype, std::vector<py::ssize_t>{o.span});
                        a = py::array(o.tensor.np_dtype, o.tensor.shape, o.tensor.byte_strides,
                                      buffer.mutable_data(), buffer);
                    }
                    out_ptrs[k] = py::detail::array_proxy(a.ptr())->data;
                    made = std::move(a);
                }
                results[k] = std::move(made);
            }
        }
        reshaper_status_t st;
        if (release_gil_) {
            py::gil_scoped_release release; // other Python threads run meanwhile
            st = reshaper_compiled_partition_execute(cp_.get(), inputs_.size(), in_ptrs, outputs_.size(), out_ptrs);
        } else {
            st = reshaper_compiled_partition_execute(cp_.get(), inputs_.size(), in_ptrs, outputs_.size(), out_ptrs);
        }
        check(st);
        return results;
    }

    // The torch outputs' (shape, strides) argument tuples, made once.
    void finish_specs() {
        for (tensor_spec &t : inputs_) {
            make_tuples(t);
            py::ssize_t step = 1;
            t.row_major = true;
            for (std::size_t d = t.shape.size(); d-- > 0;) {
                if (t.shape[d] != 1 && t.strides[d] != step) t.row_major = false;
                step *= t.shape[d];
            }
        }
        for (output_spec &o : outputs_) {
            make_tuples(o.tensor);
            o.tensor.shape64.assign(o.tensor.shape.begin(), o.tensor.shape.end());
            o.tensor.strides64.assign(o.tensor.strides.begin(), o.tensor.strides.end());
            o.empty_args = py::make_tuple(o.tensor.shape_tuple, o.tensor.strides_tuple);
        }
    }

private:
    static constexpr std::size_t max_buffers = 8;
    // The largest output given an empty_like template (which holds as many
    // bytes): beyond it the move itself outweighs the int lists' parsing.
    static constexpr py::ssize_t template_max_bytes = 64 << 10;

    // One attribute or method of torch.Tensor, looked up once on the type:
    // its descriptor is then called directly, without the per-call
    // attribute lookup (torch.Tensor instances have a __dict__, so each
    // lookup also searches it). A member the type does not give as a C
    // descriptor (a Python override) is looked up by name each call.
    struct torch_member {
        py::object name, descr;
        bool getset = false, method = false;

        void resolve(PyTypeObject *type, const char *member) {
            name = py::reinterpret_steal<py::object>(PyUnicode_InternFromString(member));
            PyObject *d = _PyType_Lookup(type, name.ptr()); // borrowed
            descr = py::reinterpret_borrow<py::object>(d);
            getset = d != nullptr && Py_IS_TYPE(d, &PyGetSetDescr_Type);
            method = d != nullptr && Py_IS_TYPE(d, &PyMethodDescr_Type);
        }
        // obj.member (an attribute), a new reference or null with an error set.
        PyObject *get(PyObject *obj) const {
            if (getset) return Py_TYPE(descr.ptr())->tp_descr_get(descr.ptr(), obj, reinterpret_cast<PyObject *>(Py_TYPE(obj)));
            return PyObject_GetAttr(obj, name.ptr());
        }
        // obj.member(args...), a new reference or null with an error set.
        template <class... Args>
        PyObject *call(PyObject *obj, Args... args) const {
            PyObject *argv[] = {obj, args...};
            if (method) return PyObject_Vectorcall(descr.ptr(), argv, 1 + sizeof...(Args), nullptr);
            return PyObject_VectorcallMethod(name.ptr(), argv, 1 + sizeof...(Args), nullptr);
        }
    };
    struct torch_members {
        torch_member dtype, layout, is_cpu, requires_grad, is_neg, is_conj, shape, stride, data_ptr, as_strided, view,
            view_as, is_contiguous;
    };

    static py::tuple as_tuple(const std::vector<py::ssize_t> &v) {
        py::tuple t(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) t[i] = py::int_(v[i]);
        return t;
    }
    static void make_tuples(tensor_spec &t) {
        t.shape_tuple = as_tuple(t.shape);
        t.strides_tuple = as_tuple(t.strides);
    }

    // A tensor's data_ptr(), or null with an error set.
    void *data_ptr(PyObject *t) const {
        PyObject *r = torch_.data_ptr.call(t);
        if (r == nullptr) return nullptr;
        void *p = PyLong_AsVoidPtr(r);
        Py_DECREF(r);
        return p;
    }

    // Whether a Python sequence of ints equals `want` where `skip_ones` of
    // `dims` (the size-1 dims' strides address nothing).
    static bool ints_equal(PyObject *seq, const std::vector<py::ssize_t> &want, const std::vector<py::ssize_t> *dims) {
        if (!PyTuple_Check(seq) || static_cast<std::size_t>(PyTuple_GET_SIZE(seq)) != want.size()) return false;
        for (std::size_t d = 0; d < want.size(); ++d) {
            if (dims != nullptr && (*dims)[d] == 1) continue;
            const py::ssize_t v = PyLong_AsSsize_t(PyTuple_GET_ITEM(seq, d));
            if (v == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                return false;
            }
            if (v != want[d]) return false;
        }
        return true;
    }

    // An ndarray (not a subclass) of the dtype and shape, addressing memory
    // as the strides do (a size-1 dim's stride addresses nothing); outputs
    // writeable too.
    bool numpy_matches(PyObject *obj, const tensor_spec &spec, bool written, void **data) const {
        if (Py_TYPE(obj) != ndarray_type_ || spec.np_dtype.is_none()) return false;
        const auto *a = py::detail::array_proxy(obj);
        if (a->descr != spec.np_dtype.ptr() &&
            !py::detail::npy_api::get().PyArray_EquivTypes_(a->descr, spec.np_dtype.ptr()))
            return false;
        if (static_cast<std::size_t>(a->nd) != spec.shape.size()) return false;
        for (int d = 0; d < a->nd; ++d)
            if (a->dimensions[d] != spec.shape[d] || (spec.shape[d] != 1 && a->strides[d] != spec.byte_strides[d]))
                return false;
        if (written && !(a->flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_)) return false;
        *data = a->data;
        return true;
    }

    // A torch.Tensor (not a subclass) as the general path takes it without
    // change: a strided CPU tensor of the dtype and shape, addressing memory
    // as the strides do, not lazily negated (nor conjugated, if complex), an
    // input without requires_grad (the general path detaches it; an alias
    // output is then a view of the detached tensor). Any failure to read an
    // attribute declines the call (the general path then reports it).
    bool torch_matches(PyObject *obj, const tensor_spec &spec, bool written, void **data) const {
        if (Py_TYPE(obj) != torch_tensor_type_ || spec.torch_dtype.is_none()) return false;
        if (bridge_) return bridge_matches(obj, spec, written, data);
        const bool ok = torch_reads(obj, spec, written, data);
        if (PyErr_Occurred()) PyErr_Clear();
        return ok && *data != nullptr;
    }

    bool torch_reads(PyObject *obj, const tensor_spec &spec, bool written, void **data) const {
        const torch_members &n = torch_;
        auto attr_is = [obj](const torch_member &m, PyObject *want) {
            PyObject *v = m.get(obj);
            if (v == nullptr) return false;
            const bool same = v == want;
            Py_DECREF(v);
            return same;
        };
        auto method_is = [obj](const torch_member &m, PyObject *want) {
            PyObject *v = m.call(obj);
            if (v == nullptr) return false;
            const bool same = v == want;
            Py_DECREF(v);
            return same;
        };
        auto method_is_false = [&method_is](const torch_member &m) { return method_is(m, Py_False); };
        if (!attr_is(n.dtype, spec.torch_dtype.ptr()) || !attr_is(n.layout, strided_.ptr()) ||
            !attr_is(n.is_cpu, Py_True))
            return false;
        if (!written && !attr_is(n.requires_grad, Py_False)) return false;
        if (!method_is_false(n.is_neg) || (spec.complex && !method_is_false(n.is_conj))) return false;
        {
            PyObject *shape = n.shape.get(obj);
            if (shape == nullptr) return false;
            const bool same = ints_equal(shape, spec.shape, nullptr);
            Py_DECREF(shape);
            if (!same) return false;
        }
        if (spec.row_major) {
            if (!method_is(n.is_contiguous, Py_True)) return false;
        } else {
            PyObject *strides = n.stride.call(obj);
            if (strides == nullptr) return false;
            const bool same = ints_equal(strides, spec.strides, &spec.shape);
            Py_DECREF(strides);
            if (!same) return false;
        }
        *data = data_ptr(obj);
        return true;
    }

    // torch_reads through the bridge: the same tests on what torch's C++
    // API gives (the strides compared where a dim is not 1, which is what
    // is_contiguous() tests of row-major strides).
    bool bridge_matches(PyObject *obj, const tensor_spec &spec, bool written, void **data) const {
        python::torch_tensor_view v;
        if (!bridge_->read(obj, &v)) return false;
        if (spec.torch_scalar_type < 0 || v.scalar_type != spec.torch_scalar_type || !v.strided || !v.cpu) return false;
        if ((!written && v.requires_grad) || v.neg || (spec.complex && v.conj)) return false;
        if (static_cast<std::size_t>(v.ndim) != spec.shape.size()) return false;
        for (std::size_t d = 0; d < spec.shape.size(); ++d)
            if (v.sizes[d] != spec.shape[d] || (spec.shape[d] != 1 && v.strides[d] != spec.strides[d])) return false;
        *data = v.data;
        return v.data != nullptr;
    }
    // A new output tensor through the bridge: a view of `base` (an alias:
    // view(shape) where torch's view gives the compiled strides, else
    // as_strided), or a new tensor of the compiled strides.
    py::object torch_output_by_bridge(const output_spec &o, PyObject *base) const {
        const tensor_spec &t = o.tensor;
        const auto n = static_cast<std::int64_t>(t.shape64.size());
        PyObject *made = nullptr;
        if (base != nullptr) {
            if (o.torch_view) {
                made = bridge_->view(base, n, t.shape64.data());
                if (made == nullptr) PyErr_Clear(); // as_strided says the same, or why not
            }
            if (made == nullptr) made = bridge_->as_strided(base, n, t.shape64.data(), t.strides64.data());
        } else {
            made = bridge_->empty_strided(n, t.shape64.data(), t.strides64.data(), t.torch_scalar_type);
        }
        if (made == nullptr) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(made);
    }
    // The first element of a tensor the bridge made.
    void *bridge_data(PyObject *made) const {
        python::torch_tensor_view v;
        return bridge_->read(made, &v) ? v.data : nullptr;
    }

    compiled_partition cp_;
    std::vector<tensor_spec> inputs_;
    std::vector<output_spec> outputs_;
    bool release_gil_;
    PyTypeObject *ndarray_type_;
    PyTypeObject *torch_tensor_type_ = nullptr;
    py::object torch_type_holder_, strided_, empty_strided_, empty_like_;
    torch_members torch_;
    const python::torch_bridge *bridge_ = nullptr;
    py::object bridge_holder_; // the capsule, kept while bridge_ is used
};

// _reshaper.NativeError, set at import: the raw call below raises it itself.
PyObject *native_error_type = nullptr;

// fast_path::run of the fast_path in `capsule` (whose context holds the
// FastPath object): the outputs, None (declined), or null with an error set.
PyObject *run_fast_path(PyObject *capsule, PyObject *inputs, PyObject *outputs) {
    const auto *f = static_cast<const fast_path *>(PyCapsule_GetPointer(capsule, "reshaper.fast_path"));
    if (f == nullptr) return nullptr;
    try {
        return f->run(inputs, outputs).release().ptr();
    } catch (py::error_already_set &e) {
        e.restore();
    } catch (const error &e) {
        py::tuple a = py::make_tuple(to_string(e.code()), e.rule(), std::string(e.what()));
        PyErr_SetObject(native_error_type, a.ptr());
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
}

// fast_path::run as a METH_FASTCALL function, f(inputs, outputs=None),
// without pybind11's argument dispatch. Its self is the capsule.
PyObject *fast_path_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "FastPath.call(inputs, outputs=None)");
        return nullptr;
    }
    return run_fast_path(self, args[0], nargs == 2 ? args[1] : Py_None);
}
PyMethodDef fast_path_call_def = {"call", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fast_path_call)),
                                  METH_FASTCALL, "run(inputs, outputs=None) of this FastPath"};

// A compiled partition's execute(inputs, outputs=None) itself, as a C
// function the package sets on the CompiledPartition: the fast path, and
// the package's general path (`fallback`, called with the same arguments)
// for every call it declines, fails (the general path then checks the call
// again and raises the reshaper.Error it warrants) or whose arguments are
// not (inputs[, outputs]) / (inputs, outputs=...). That spares each call the
// Python frame of a method (docs/python.md). Its self is the tuple (capsule,
// fallback): a tuple, so the garbage collector sees the fallback (a bound
// method of the CompiledPartition that holds this function: a cycle).
PyObject *guarded_execute(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *capsule = PyTuple_GET_ITEM(self, 0), *fallback = PyTuple_GET_ITEM(self, 1);
    const Py_ssize_t n_kw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *inputs = nullptr, *outputs = Py_None;
    if (n_kw == 0 && (nargs == 1 || nargs == 2)) {
        inputs = args[0];
        if (nargs == 2) outputs = args[1];
    } else if (n_kw == 1 && nargs == 1 && PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) &&
               PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "outputs") == 0) {
        inputs = args[0];
        outputs = args[1];
    }
    if (inputs != nullptr) {
        PyObject *result = run_fast_path(capsule, inputs, outputs);
        if (result != nullptr && result != Py_None) return result;
        if (result == nullptr) PyErr_Clear();
        else Py_DECREF(result);
    }
    return PyObject_Vectorcall(fallback, args, static_cast<std::size_t>(nargs), kwnames);
}
PyMethodDef guarded_execute_def = {
    "execute", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(guarded_execute)),
    METH_FASTCALL | METH_KEYWORDS,
    "execute(inputs, outputs=None): see reshaper.CompiledPartition.execute"};

// The capsule of a FastPath's fast_path, its context holding the FastPath.
py::capsule fast_path_capsule(py::object self) {
    auto *f = &self.cast<fast_path &>();
    py::capsule owner(static_cast<void *>(f), "reshaper.fast_path", [](PyObject *capsule) {
        Py_XDECREF(static_cast<PyObject *>(PyCapsule_GetContext(capsule)));
    });
    if (PyCapsule_SetContext(owner.ptr(), self.release().ptr()) != 0) throw py::error_already_set();
    return owner;
}

} // namespace

PYBIND11_MODULE(_reshaper, m) {
    m.doc() = "reshaper's native binding (use the reshaper package)";

    // reshaper.error -> _reshaper.NativeError(code, rule, message); the
    // package turns it into reshaper.Error.
    static py::exception<error> native_error(m, "NativeError");
    native_error_type = native_error.ptr();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const error &e) {
            py::object cls = native_error;
            PyErr_SetObject(cls.ptr(),
                            py::make_tuple(to_string(e.code()), e.rule(), std::string(e.what())).ptr());
        }
    });

    // The address of a numpy array's first element (what
    // arr.__array_interface__["data"][0] gives, without building the dict).
    m.def("numpy_address", [](const py::array &a) { return reinterpret_cast<std::uintptr_t>(a.data()); },
          py::arg("array").noconvert());

    m.def("version", [] {
        reshaper_version_t v;
        check(reshaper_get_version(&v));
        return std::string(v.string);
    });

    py::class_<op>(m, "Op")
        .def(py::init([](std::int64_t id, const std::string &kind, const std::string &name,
                         const std::string &domain, std::int64_t version) {
                 op o(id, kind, name);
                 if (!domain.empty() || version != 0) o.set_domain(domain, version);
                 return o;
             }),
             py::arg("id"), py::arg("kind"), py::arg("name") = "", py::arg("domain") = "",
             py::arg("version") = 0)
        .def("add_input", [](op &o, const py::dict &lt) { o.add_input(from_py(lt)); })
        .def("add_output", [](op &o, const py::dict &lt) { o.add_output(from_py(lt)); })
        .def("set_attr_bool", [](op &o, const std::string &n, bool v) { o.set_attr(n, v); })
        .def("set_attr_s64", [](op &o, const std::string &n, std::int64_t v) { o.set_attr(n, v); })
        .def("set_attr_s64s", [](op &o, const std::string &n, const std::vector<std::int64_t> &v) { o.set_attr(n, v); })
        .def("set_attr_f32", [](op &o, const std::string &n, float v) { o.set_attr(n, v); })
        .def("set_attr_f32s", [](op &o, const std::string &n, const std::vector<float> &v) { o.set_attr(n, v); })
        .def("set_attr_str", [](op &o, const std::string &n, const std::string &v) { o.set_attr(n, v); });

    py::class_<fast_path>(m, "FastPath")
        .def(py::init([](const compiled_partition &cp, const py::list &inputs, const py::list &outputs,
                         bool release_gil) {
                 // inputs: (numpy dtype or None, shape, element strides, itemsize, complex);
                 // outputs: the same plus (alias input or -1, span in elements, dense,
                 // torch output when the first input is numpy, when it is torch, view(shape) for its alias).
                 auto spec = [](const py::handle t) {
                     fast_path::tensor_spec s;
                     s.np_dtype = py::reinterpret_borrow<py::object>(t[py::int_(0)]);
                     if (!s.np_dtype.is_none()) s.np_dtype = s.np_dtype.cast<py::dtype>();
                     s.shape = t[py::int_(1)].cast<std::vector<py::ssize_t>>();
                     s.strides = t[py::int_(2)].cast<std::vector<py::ssize_t>>();
                     s.itemsize = t[py::int_(3)].cast<py::ssize_t>();
                     for (auto st : s.strides) s.byte_strides.push_back(st * s.itemsize);
                     s.complex = t[py::int_(4)].cast<bool>();
                     s.torch_dtype = py::none();
                     return s;
                 };
                 std::vector<fast_path::tensor_spec> in;
                 for (const py::handle t : inputs) in.push_back(spec(t));
                 std::vector<fast_path::output_spec> out;
                 for (const py::handle t : outputs) {
                     fast_path::output_spec o;
                     o.tensor = spec(t);
                     o.alias_input = t[py::int_(5)].cast<int>();
                     o.span = t[py::int_(6)].cast<py::ssize_t>();
                     o.dense = t[py::int_(7)].cast<bool>();
                     o.in_torch[0] = t[py::int_(8)].cast<bool>();
                     o.in_torch[1] = t[py::int_(9)].cast<bool>();
                     o.torch_view = t[py::int_(10)].cast<bool>();
                     out.push_back(std::move(o));
                 }
                 fast_path f(cp, std::move(in), std::move(out), release_gil);
                 f.finish_specs();
                 return f;
             }))
        .def("use_torch", &fast_path::use_torch)
        .def_property_readonly("has_torch", &fast_path::has_torch)
        .def_property_readonly("has_torch_bridge", &fast_path::has_torch_bridge)
        .def_property_readonly("call", [](py::object self) {
            py::capsule owner = fast_path_capsule(std::move(self));
            PyObject *fn = PyCFunction_NewEx(&fast_path_call_def, owner.ptr(), nullptr);
            if (fn == nullptr) throw py::error_already_set();
            return py::reinterpret_steal<py::object>(fn);
        })
        // execute(inputs, outputs=None) for a CompiledPartition: this path,
        // else fallback(*args, **kwargs) (guarded_execute).
        .def("guarded_execute", [](py::object self, py::object fallback) {
            py::tuple state = py::make_tuple(fast_path_capsule(std::move(self)), std::move(fallback));
            PyObject *fn = PyCFunction_NewEx(&guarded_execute_def, state.ptr(), nullptr);
            if (fn == nullptr) throw py::error_already_set();
            return py::reinterpret_steal<py::object>(fn);
        })
        .def("__call__", &fast_path::run, py::arg("inputs"), py::arg("outputs") = py::none());

    py::class_<compiled_partition>(m, "CompiledPartition")
        .def_property_readonly("lowering", [](const compiled_partition &c) {
            return std::string(lowering_names[static_cast<int>(c.lowering())]);
        })
        .def_property_readonly("inputs", [](const compiled_partition &c) { return to_py(c.inputs()); })
        .def_property_readonly("outputs", [](const compiled_partition &c) { return to_py(c.outputs()); })
        .def_property_readonly("plan", &compiled_partition::lowering_details)
        .def_property_readonly("why_not_alias", &compiled_partition::why_not_alias)
        .def("output_mem_size", &compiled_partition::output_mem_size, py::arg("index") = 0)
        .def("execute_addresses",
             [](const compiled_partition &c, const std::vector<std::uintptr_t> &in,
                const std::vector<std::uintptr_t> &out) {
                 std::vector<logical_tensor> resolved;
                 {
                     py::gil_scoped_release release; // other Python threads run meanwhile
                     resolved = c.execute_dynamic(in_pointers(in), out_pointers(out));
                 }
                 return to_py(resolved);
             })
        // The lean path of the package's execute (outputs whose dims are
        // known after compile): no resolved tensors to build and return.
        .def("execute_raw",
             [](const compiled_partition &c, const std::vector<std::uintptr_t> &in,
                const std::vector<std::uintptr_t> &out) {
                 const auto in_p = in_pointers(in);
                 const auto out_p = out_pointers(out);
                 py::gil_scoped_release release;
                 c.execute(in_p, out_p);
             })
        .def_property_readonly("inplace_pairs", &compiled_partition::inplace_pairs)
        // The C handle (reshaper_compiled_partition_t) as an address, for
        // calling the C API directly (ctypes; benchmarks/python_call_bench.py).
        .def_property_readonly("c_handle", [](const compiled_partition &c) {
            return reinterpret_cast<std::uintptr_t>(c.get());
        });

    py::class_<partition>(m, "Partition")
        .def_property_readonly("id", &partition::id)
        .def_property_readonly("supported", &partition::is_supported)
        .def_property_readonly("ops", &partition::op_ids)
        .def_property_readonly("inputs", [](const partition &p) { return to_py(p.inputs()); })
        .def_property_readonly("outputs", [](const partition &p) { return to_py(p.outputs()); })
        .def_property_readonly("reason", &partition::reason)
        .def("compile",
             [](const partition &p, const std::string &engine_name, const std::vector<py::dict> &inputs,
                const std::vector<py::dict> &outputs) {
                 return p.compile(engine(engine_of(engine_name)), from_py(inputs), from_py(outputs));
             },
             py::arg("engine") = "cpu", py::arg("inputs") = std::vector<py::dict>{},
             py::arg("outputs") = std::vector<py::dict>{});

    py::class_<graph>(m, "Graph")
        .def(py::init([](const std::string &engine_name) { return graph(engine_of(engine_name)); }),
             py::arg("engine") = "cpu")
        .def_static("from_json", &graph::from_json)
        .def_static("from_file", &graph::from_file)
        // ONNX models in: a path or a serialized model, free dims name -> value.
        .def_static("from_onnx", [](const std::string &path, const std::map<std::string, std::int64_t> &free_dims) {
            return graph::from_onnx(path, free_dims);
        })
        .def_static("from_onnx_bytes", [](const py::bytes &model, const std::map<std::string, std::int64_t> &free_dims) {
            return graph::from_onnx_bytes(std::string(model), free_dims);
        })
        .def("add_op", [](graph &g, const op &o) { g.add_op(o); })
        .def("set_tensor_values_address", [](graph &g, std::int64_t id, std::uintptr_t address, std::size_t bytes) {
            g.set_tensor_values(id, reinterpret_cast<const void *>(address), bytes);
        })
        .def("finalize", [](graph &g) { g.finalize(); })
        .def_property_readonly("finalized", &graph::is_finalized)
        .def("infer_shapes", &graph::infer_shapes)
        .def("to_json", &graph::to_json)
        .def("tensor", [](const graph &g, std::int64_t id) { return to_py(g.tensor(id)); })
        .def("partitions",
             [](graph &g, const std::string &policy, const std::string &engine_name) {
                 if (policy != "fusion" && policy != "debug")
                     throw error(status::invalid_arguments,
                                 "policy must be fusion or debug, got '" + policy + "'", "api_argument");
                 return g.partitions(policy == "fusion" ? partition_policy::fusion : partition_policy::debug,
                                     engine_of(engine_name));
             },
             py::arg("policy") = "fusion", py::arg("engine") = "cpu");
}
