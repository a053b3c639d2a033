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

// The common call of CompiledPartition.execute done natively: numpy arrays
// of exactly the compiled dtypes, shapes and layouts in, new numpy arrays
// (or views of the inputs, for alias outputs) out, or caller-given arrays
// of the compiled layouts. The package (reshaper/__init__.py, _Plan) works
// out the specs once per compiled partition; run() answers None for any
// call it does not take, and the package's general path takes it (and
// says what is wrong, if anything). The general path per call cost 5-8 us
// above the C API's execute, this one about 1 (benchmarks/python_call_bench.py).
class numpy_fast_path {
public:
    struct tensor_spec {
        py::dtype dtype;
        std::vector<py::ssize_t> shape, byte_strides;
    };
    struct output_spec {
        tensor_spec tensor;
        int alias_input = -1;     // the input an alias output views, or -1
        py::ssize_t span = 0;     // elements of the buffer its strides reach
        bool dense = false;       // numpy's own strides for the shape
    };

    numpy_fast_path(compiled_partition cp, std::vector<tensor_spec> inputs, std::vector<output_spec> outputs,
                    bool release_gil)
        : cp_(std::move(cp)), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
          release_gil_(release_gil),
          ndarray_type_(reinterpret_cast<PyTypeObject *>(py::module_::import("numpy").attr("ndarray").ptr())) {
        if (inputs_.size() > max_buffers || outputs_.size() > max_buffers)
            throw error(status::invalid_arguments, "numpy_fast_path: too many buffers", "api_argument");
    }

    // The outputs, or None when the call is not one this path takes.
    py::object run(py::handle inputs, py::handle outputs) const {
        if (!PyList_Check(inputs.ptr()) && !PyTuple_Check(inputs.ptr())) return py::none();
        if (static_cast<std::size_t>(PySequence_Fast_GET_SIZE(inputs.ptr())) != inputs_.size()) return py::none();
        PyObject **in_items = PySequence_Fast_ITEMS(inputs.ptr());
        const void *in_ptrs[max_buffers];
        // Held while the GIL is released: another thread may empty the list.
        py::object held[max_buffers];
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            if (!matches(in_items[i], inputs_[i], false)) return py::none();
            in_ptrs[i] = py::detail::array_proxy(in_items[i])->data;
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
                if (!matches(out_items[k], outputs_[k].tensor, true)) return py::none();
                out_ptrs[k] = py::detail::array_proxy(out_items[k])->data;
                results[k] = py::reinterpret_borrow<py::object>(out_items[k]);
            }
        } else {
            for (std::size_t k = 0; k < outputs_.size(); ++k) {
                const output_spec &o = outputs_[k];
                py::array made;
                if (o.alias_input >= 0) { // a view of the input, run in place
                    made = py::array(o.tensor.dtype, o.tensor.shape, o.tensor.byte_strides,
                                     in_ptrs[o.alias_input], py::handle(in_items[o.alias_input]));
                } else if (o.dense) {
                    made = py::array(o.tensor.dtype, o.tensor.shape, o.tensor.byte_strides);
                } else { // the strides reach past the volume: a buffer of the span, viewed
                    py::array buffer(o.tensor.dtype, std::vector<py::ssize_t>{o.span});
                    made = py::array(o.tensor.dtype, o.tensor.shape, o.tensor.byte_strides, buffer.mutable_data(),
                                     buffer);
                }
                out_ptrs[k] = py::detail::array_proxy(made.ptr())->data;
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

private:
    static constexpr std::size_t max_buffers = 8;

    // An ndarray (not a subclass) of the dtype and shape, addressing memory
    // as the strides do (a size-1 dim's stride addresses nothing); outputs
    // writeable too.
    bool matches(PyObject *obj, const tensor_spec &spec, bool written) const {
        if (Py_TYPE(obj) != ndarray_type_) return false;
        const auto *a = py::detail::array_proxy(obj);
        if (a->descr != spec.dtype.ptr() &&
            !py::detail::npy_api::get().PyArray_EquivTypes_(a->descr, spec.dtype.ptr()))
            return false;
        if (static_cast<std::size_t>(a->nd) != spec.shape.size()) return false;
        for (int d = 0; d < a->nd; ++d)
            if (a->dimensions[d] != spec.shape[d] || (spec.shape[d] != 1 && a->strides[d] != spec.byte_strides[d]))
                return false;
        if (written && !(a->flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_)) return false;
        return true;
    }

    compiled_partition cp_;
    std::vector<tensor_spec> inputs_;
    std::vector<output_spec> outputs_;
    bool release_gil_;
    PyTypeObject *ndarray_type_;
};

} // namespace

PYBIND11_MODULE(_reshaper, m) {
    m.doc() = "reshaper's native binding (use the reshaper package)";

    // reshaper.error -> _reshaper.NativeError(code, rule, message); the
    // package turns it into reshaper.Error.
    static py::exception<error> native_error(m, "NativeError");
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

    py::class_<numpy_fast_path>(m, "NumpyFastPath")
        .def(py::init([](const compiled_partition &cp, const py::list &inputs, const py::list &outputs,
                         bool release_gil) {
                 // inputs: (dtype, shape, byte strides); outputs: the same plus
                 // (alias input or -1, span in elements, dense).
                 std::vector<numpy_fast_path::tensor_spec> in;
                 for (const py::handle t : inputs)
                     in.push_back({t[py::int_(0)].cast<py::dtype>(), t[py::int_(1)].cast<std::vector<py::ssize_t>>(),
                                   t[py::int_(2)].cast<std::vector<py::ssize_t>>()});
                 std::vector<numpy_fast_path::output_spec> out;
                 for (const py::handle t : outputs)
                     out.push_back({{t[py::int_(0)].cast<py::dtype>(), t[py::int_(1)].cast<std::vector<py::ssize_t>>(),
                                     t[py::int_(2)].cast<std::vector<py::ssize_t>>()},
                                    t[py::int_(3)].cast<int>(), t[py::int_(4)].cast<py::ssize_t>(),
                                    t[py::int_(5)].cast<bool>()});
                 return numpy_fast_path(cp, std::move(in), std::move(out), release_gil);
             }))
        .def("__call__", &numpy_fast_path::run, py::arg("inputs"), py::arg("outputs") = py::none());

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
