"""reshaper: the reshape-family backend from Python.

Load or build oneDNN Graph graphs, partition them, compile the partitions
reshaper claims and execute them on numpy arrays or any object with the buffer
protocol or DLPack (torch tensors). See docs/python.md.

    import numpy as np, reshaper
    g = reshaper.Graph.from_file("examples/attention_reshapes.json")
    for p in g.partitions():
        if p.supported:
            cp = p.compile()
            outs = cp.execute([np.zeros(t.shape, np.float32) for t in cp.inputs])
"""
import numpy as _np

from . import _reshaper

__all__ = ["Error", "LogicalTensor", "Op", "Graph", "Partition", "CompiledPartition", "version"]


class Error(Exception):
    """A failure of the library: `code` is the status name ("invalid_shape",
    ...), `rule` the id of the rule that failed (docs/rules.md, "" if none)."""

    def __init__(self, code, rule, message):
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.message = message


def _call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except _reshaper.NativeError as e:
        code, rule, message = e.args
        raise Error(code, rule, message) from None


def version():
    """The library's version, "major.minor.patch"."""
    return _call(_reshaper.version)


# dtype names of the graph format <-> numpy dtypes (where numpy has one).
_NUMPY = {
    "f32": _np.float32, "f16": _np.float16, "f64": _np.float64,
    "s8": _np.int8, "u8": _np.uint8, "s16": _np.int16, "u16": _np.uint16,
    "s32": _np.int32, "u32": _np.uint32, "s64": _np.int64, "u64": _np.uint64,
    "boolean": _np.bool_, "c64": _np.complex64, "c128": _np.complex128,
}


def _numpy_dtype(name):
    if name not in _NUMPY:
        raise Error("unimplemented", "", f"dtype {name} has no numpy equivalent in the Python binding")
    return _np.dtype(_NUMPY[name])


class LogicalTensor:
    """A logical tensor as in a graph file: id, dtype ("f32", ...), shape
    (-1: unknown), strides (elements; None: dense), layout ("strided", "any",
    "undef", "opaque"), property ("undef", "variable", "constant"), format
    (a oneDNN tag, for opaque)."""

    def __init__(self, id, dtype, shape, strides=None, layout="strided", property="undef", format=""):
        self.id = int(id)
        self.dtype = dtype
        self.shape = [int(d) for d in shape]
        self.strides = None if strides is None else [int(s) for s in strides]
        self.layout = layout
        self.property = property
        self.format = format

    @classmethod
    def _from_native(cls, d):
        return cls(d["id"], d["dtype"], d["shape"], d["strides"] or None, d["layout"], d["property"], d["format"])

    def _to_native(self):
        return {"id": self.id, "dtype": self.dtype, "shape": list(self.shape),
                "strides": list(self.strides) if self.strides else [], "layout": self.layout,
                "property": self.property, "format": self.format}

    def __eq__(self, other):
        return isinstance(other, LogicalTensor) and self._to_native() == other._to_native()

    def __repr__(self):
        return (f"LogicalTensor(id={self.id}, dtype={self.dtype!r}, shape={self.shape}, "
                f"strides={self.strides}, layout={self.layout!r}, property={self.property!r})")


def _native_lts(lts):
    return [lt._to_native() for lt in (lts or [])]


class Op:
    """An op to add to a Graph being built: Op(id, kind, name, domain="",
    version=0), then add_input/add_output (LogicalTensor) and set_attr."""

    def __init__(self, id, kind, name="", domain="", version=0):
        self._op = _call(_reshaper.Op, int(id), kind, name, domain, int(version))

    def add_input(self, lt):
        _call(self._op.add_input, lt._to_native())
        return self

    def add_output(self, lt):
        _call(self._op.add_output, lt._to_native())
        return self

    def set_attr(self, name, value, type=None):
        """Typed by the value (bool, int: s64, float: f32, str, a list of
        ints: s64[], of floats: f32[]) or by `type` ("bool", "s64", "s64[]",
        "f32", "f32[]", "string")."""
        if type is None:
            if isinstance(value, bool):
                type = "bool"
            elif isinstance(value, (int, _np.integer)):
                type = "s64"
            elif isinstance(value, (float, _np.floating)):
                type = "f32"
            elif isinstance(value, str):
                type = "string"
            else:
                items = list(value)
                type = "f32[]" if any(isinstance(v, (float, _np.floating)) for v in items) else "s64[]"
        setters = {"bool": self._op.set_attr_bool, "s64": self._op.set_attr_s64,
                   "s64[]": self._op.set_attr_s64s, "f32": self._op.set_attr_f32,
                   "f32[]": self._op.set_attr_f32s, "string": self._op.set_attr_str}
        if type not in setters:
            raise Error("invalid_arguments", "api_argument", f"unknown attribute type {type!r}")
        value = [v for v in value] if type.endswith("[]") else value
        _call(setters[type], name, value)
        return self


def _as_array(obj):
    """A numpy view of `obj` (numpy array, buffer protocol, DLPack) without copying."""
    if isinstance(obj, _np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__"):
        try:
            return _np.from_dlpack(obj)
        except (TypeError, RuntimeError, BufferError, AttributeError):
            pass
    return _np.asarray(obj)


class CompiledPartition:
    """A compiled partition: .lowering ("alias", "reorder", "kernel"),
    .inputs, .outputs (LogicalTensor), .plan, .why_not_alias, .execute()."""

    def __init__(self, native):
        self._cp = native

    @property
    def lowering(self):
        return self._cp.lowering

    @property
    def inputs(self):
        return [LogicalTensor._from_native(d) for d in self._cp.inputs]

    @property
    def outputs(self):
        return [LogicalTensor._from_native(d) for d in self._cp.outputs]

    @property
    def plan(self):
        return self._cp.plan

    @property
    def why_not_alias(self):
        return self._cp.why_not_alias

    def execute(self, inputs):
        """One array per compiled input, in order, holding the tensor's
        logical values (numpy, buffer protocol or DLPack; used in place when
        its dtype and strides are the compiled layout's, else copied into
        it). Returns one numpy array per output, of its logical shape (known
        at execute also when the shape values arrive only then)."""
        lts = self.inputs
        if len(inputs) != len(lts):
            raise Error("invalid_arguments", "execute_buffers",
                        f"the partition takes {len(lts)} inputs, got {len(inputs)}")
        keep, in_addresses = [], []
        for i, (obj, lt) in enumerate(zip(inputs, lts)):
            buf = _input_buffer(_as_array(obj), lt, i)
            keep.append(buf)
            in_addresses.append(buf.ctypes.data)
        out_lts = self.outputs
        out_buffers = []
        for k, lt in enumerate(out_lts):
            size = _call(self._cp.output_mem_size, k)
            out_buffers.append(_np.empty(max(size, 1), dtype=_np.uint8))
        resolved = _call(self._cp.execute_addresses, in_addresses, [b.ctypes.data for b in out_buffers])
        return [_logical_array(b, LogicalTensor._from_native(d)) for b, d in zip(out_buffers, resolved)]


def _element_strides(lt):
    if lt.strides and len(lt.strides) == len(lt.shape):
        return lt.strides
    strides, step = [], 1
    for d in reversed(lt.shape):
        strides.insert(0, step)
        step *= max(d, 1)
    return strides


def _input_buffer(arr, lt, index):
    if lt.layout == "opaque":
        raise Error("unimplemented", "", f"input {index}: blocked layouts ({lt.format}) are not handled by the Python binding")
    dtype = _numpy_dtype(lt.dtype)
    shape = [int(d) for d in arr.shape]
    if -1 in lt.shape:
        raise Error("invalid_shape", "input_shape_known", f"input {index} (tensor {lt.id}) has unknown dims {lt.shape}")
    if shape != lt.shape and arr.size == _np.prod(lt.shape, dtype=_np.int64):
        arr = arr.reshape(lt.shape) if arr.ndim != len(lt.shape) else arr
    if [int(d) for d in arr.shape] != lt.shape:
        raise Error("invalid_shape", "boundary_shape",
                    f"input {index} (tensor {lt.id}) has shape {lt.shape}, got an array of shape {list(arr.shape)}")
    strides = _element_strides(lt)
    itemsize = dtype.itemsize
    if arr.dtype == dtype and all(s * itemsize == b or d == 1 for s, b, d in zip(strides, arr.strides, arr.shape)):
        return arr  # already in the compiled layout: used in place
    span = 1 + sum((d - 1) * s for d, s in zip(lt.shape, strides)) if all(d > 0 for d in lt.shape) else 1
    buf = _np.zeros(max(span, 1), dtype=dtype)
    view = _np.lib.stride_tricks.as_strided(buf, shape=lt.shape, strides=[s * itemsize for s in strides])
    view[...] = arr.astype(dtype, copy=False)
    return buf


def _logical_array(raw, lt):
    dtype = _numpy_dtype(lt.dtype)
    strides = _element_strides(lt)
    view = _np.lib.stride_tricks.as_strided(raw.view(dtype), shape=lt.shape,
                                            strides=[s * dtype.itemsize for s in strides])
    return _np.array(view)  # its own memory, of the logical shape


class Partition:
    """A partition of a graph: .id, .supported, .ops (op ids), .inputs,
    .outputs (LogicalTensor), .reason (why not supported), .compile()."""

    def __init__(self, native):
        self._p = native

    id = property(lambda self: self._p.id)
    supported = property(lambda self: self._p.supported)
    ops = property(lambda self: list(self._p.ops))
    reason = property(lambda self: self._p.reason)

    @property
    def inputs(self):
        return [LogicalTensor._from_native(d) for d in self._p.inputs]

    @property
    def outputs(self):
        return [LogicalTensor._from_native(d) for d in self._p.outputs]

    def compile(self, engine="cpu", inputs=None, outputs=None):
        """Compiles for `engine`; `inputs`/`outputs`: LogicalTensors as the
        caller has them (matched by id; the partition's own when absent)."""
        return CompiledPartition(_call(self._p.compile, engine, _native_lts(inputs), _native_lts(outputs)))


class Graph:
    """A graph: Graph.from_file(path), Graph.from_json(text), or built in
    code: Graph(engine="cpu"), add_op(Op), set_tensor_values, finalize()."""

    def __init__(self, engine="cpu", _native=None):
        self._g = _native if _native is not None else _call(_reshaper.Graph, engine)

    @classmethod
    def from_file(cls, path):
        return cls(_native=_call(_reshaper.Graph.from_file, str(path)))

    @classmethod
    def from_json(cls, text):
        return cls(_native=_call(_reshaper.Graph.from_json, text))

    @classmethod
    def from_onnx(cls, path_or_bytes, free_dims=None):
        """An ONNX model: a path, or the bytes of a serialized model
        (bytes, bytearray, memoryview); free_dims binds symbolic dims
        ({"batch": 2}) before shape inference."""
        dims = {}
        for name, value in dict(free_dims or {}).items():
            if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int) \
                    or not 0 <= value < 2 ** 63:
                raise Error("invalid_arguments", "free_dim_value",
                            f"free_dims maps a dim_param name to an int >= 0, got {name!r}: {value!r} [free_dim_value]")
            dims[name] = value
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            return cls(_native=_call(_reshaper.Graph.from_onnx_bytes, bytes(path_or_bytes), dims))
        return cls(_native=_call(_reshaper.Graph.from_onnx, str(path_or_bytes), dims))

    def add_op(self, op):
        _call(self._g.add_op, op._op)
        return self

    def set_tensor_values(self, tensor_id, values, dtype=None):
        """Row-major values of an input tensor (a constant shape input, ...)."""
        arr = _np.ascontiguousarray(values, dtype=dtype)
        _call(self._g.set_tensor_values_address, int(tensor_id), arr.ctypes.data, arr.nbytes)
        return self

    def finalize(self):
        _call(self._g.finalize)
        return self

    @property
    def finalized(self):
        return self._g.finalized

    def to_json(self):
        return _call(self._g.to_json)

    def tensor(self, tensor_id):
        return LogicalTensor._from_native(_call(self._g.tensor, int(tensor_id)))

    def partitions(self, policy="fusion", engine="cpu"):
        return [Partition(p) for p in _call(self._g.partitions, policy, engine)]
