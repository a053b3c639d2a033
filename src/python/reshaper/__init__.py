"""reshaper: the reshape-family backend from Python.

Load or build oneDNN Graph graphs, partition them, compile the partitions
reshaper claims and execute them on numpy arrays, torch tensors or any object
with the buffer protocol, __array_interface__ or DLPack, without copies where
the layout allows (an alias output is a view of its input). Every failure is a
reshaper.Error. See docs/python.md.

    import numpy as np, reshaper
    g = reshaper.Graph.from_file("examples/attention_reshapes.json")
    for p in g.partitions():
        if p.supported:
            cp = p.compile()
            outs = cp.execute([np.zeros(t.shape, np.float32) for t in cp.inputs])
"""
import functools as _functools
import operator as _operator
import os as _os
import sys as _sys
import warnings as _warnings

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


def _native_error(e):
    code, rule, message = e.args
    return Error(code, rule, message)


def _unexpected_error(where, e):
    """Any other failure inside the module, as a reshaper.Error."""
    if isinstance(e, MemoryError):
        return Error("out_of_memory", "memory_limit", f"{where}: out of memory [memory_limit]")
    return Error("invalid_arguments", "api_argument", f"{where}: {type(e).__name__}: {e} [api_argument]")


def _call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except _reshaper.NativeError as e:
        raise _native_error(e) from None


def version():
    """The library's version, "major.minor.patch"."""
    return _call(_reshaper.version)


# dtype name of the graph format -> (bytes per element, numpy dtype or None,
# torch dtype name or None): the dtypes the Python binding has arrays of.
_DTYPES = {
    "f32": (4, _np.float32, "float32"), "f16": (2, _np.float16, "float16"),
    "bf16": (2, None, "bfloat16"), "f64": (8, _np.float64, "float64"),
    "s8": (1, _np.int8, "int8"), "u8": (1, _np.uint8, "uint8"),
    "s16": (2, _np.int16, "int16"), "u16": (2, _np.uint16, None),
    "s32": (4, _np.int32, "int32"), "u32": (4, _np.uint32, None),
    "s64": (8, _np.int64, "int64"), "u64": (8, _np.uint64, None),
    "boolean": (1, _np.bool_, "bool"), "c64": (8, _np.complex64, "complex64"),
    "c128": (16, _np.complex128, "complex128"),
}
# dtype names <-> numpy dtypes (where numpy has one).
_NUMPY = {name: t for name, (_, t, _) in _DTYPES.items() if t is not None}


def _element_strides(lt):
    if lt.strides and len(lt.strides) == len(lt.shape):
        return lt.strides
    return list(_dense_strides(lt.shape))


def _numpy_dtype(name):
    if name not in _NUMPY:
        raise Error("unimplemented", "python_tensor_kind",
                    f"dtype {name} has no numpy equivalent in the Python binding [python_tensor_kind]")
    return _np.dtype(_NUMPY[name])


class LogicalTensor:
    """A logical tensor as in a graph file: id, dtype ("f32", ...), shape
    (-1: unknown), strides (elements; None: dense), layout ("strided", "any",
    "undef", "opaque"), property ("undef", "variable", "constant"), format
    (a oneDNN tag, for opaque)."""

    def __init__(self, id, dtype, shape, strides=None, layout="strided", property="undef", format=""):
        # operator.index: ints (numpy's too), never a float truncated.
        self.id = _operator.index(id)
        self.dtype = dtype
        self.shape = [_operator.index(d) for d in shape]
        self.strides = None if strides is None else [_operator.index(s) for s in strides]
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
            raise Error("invalid_arguments", "api_argument", f"unknown attribute type {type!r} [api_argument]")
        value = [v for v in value] if type.endswith("[]") else value
        _call(setters[type], name, value)
        return self


# ---------------------------------------------------------------- execute --
# How arrays cross into execute and back. What depends only on the compiled
# partition (dtypes, strides, which output views which input, buffer sizes)
# is worked out once, at the first execute (_Plan); each call then only
# reads each object's dtype, shape, strides and address.
#
# The sharing path is chosen per object: torch tensors through data_ptr()
# and as_strided on the tensor itself (in torch 1.13 DLPack refuses bool and
# requires_grad tensors, and a tensor made from a capsule does not share the
# input's storage object); numpy arrays directly; other objects through the
# buffer protocol or __array_interface__ (np.asarray), and DLPack only when
# they offer nothing else (numpy cannot export bool or read-only arrays
# through DLPack, and torch cannot import numpy's u16/u32/u64).

class _NoTensor:
    """Stands for torch.Tensor while torch is not imported (no object is one)."""


_numpy_address = _reshaper.numpy_address
# What a zero-byte torch tensor (data_ptr() 0) crosses as: the C API takes
# NULL only where it knows the size is 0, which it does not for an output
# whose dims arrive at execute.
_NOWHERE_ARRAY = _np.zeros(1, _np.uint8)
_NOWHERE = _numpy_address(_NOWHERE_ARRAY)


_NUMPY_NAMES = {(_np.dtype(t).kind, _np.dtype(t).itemsize): name
                for name, (_, t, _) in _DTYPES.items() if t is not None}


def _numpy_dtype_name(dt):
    if dt.isnative and dt.fields is None and dt.subdtype is None:
        name = _NUMPY_NAMES.get((dt.kind, dt.itemsize))
        if name:
            return name
    return f"numpy {dt.str}"


_TORCH_NAMES = {}


def _torch_dtype_name(dtype, torch):
    if not _TORCH_NAMES:
        _TORCH_NAMES.update({getattr(torch, t): name for name, (_, _, t) in _DTYPES.items() if t})
    return _TORCH_NAMES.get(dtype) or f"torch {dtype}"


def _dense_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    return tuple(strides)


def _disjoint(shape, strides):
    """Whether no two elements surely share an address: each dim's stride,
    smallest first, steps over all the dims below it (a sufficient test; a
    layout it doubts only costs the check of the values copied into it)."""
    if 0 in shape:
        return True
    reach = 1
    for s, d in sorted((s, d) for d, s in zip(shape, strides) if d > 1):
        if s < reach:
            return False
        reach = s * d
    return True


def _same_layout(shape, strides, wanted):
    """Whether an array of `shape` with `strides` addresses memory as the
    compiled `wanted` strides do (same unit): the stride of a size-1 dim
    addresses nothing, nor do any strides of a zero-volume tensor."""
    if strides == wanted or 0 in shape:
        return True
    return all(s == w for d, s, w in zip(shape, strides, wanted) if d != 1)


class _Tensor:
    """One boundary tensor of a compiled partition, as execute uses it."""

    def __init__(self, lt, role, index):
        self.lt = lt
        self.what = f"{role} {index} (tensor {lt.id})"
        self.dtype = lt.dtype
        itemsize, np_type, self.torch_name = _DTYPES.get(lt.dtype, (0, None, None))
        self.np_dtype = _np.dtype(np_type) if np_type is not None else None
        self.itemsize = itemsize
        self.shape = tuple(lt.shape)
        self.dynamic = any(d < 0 for d in self.shape)
        self.strides = tuple(_element_strides(lt))
        self.byte_strides = tuple(s * itemsize for s in self.strides)
        self.volume = int(_np.prod(self.shape, dtype=_np.int64)) if not self.dynamic else -1
        self.span = (1 + sum((d - 1) * s for d, s in zip(self.shape, self.strides))) if self.volume > 0 else 0
        # Whether the layout may give several elements one address (a
        # broadcast input: stride 0): values copied into it must agree there
        # (the graph-file path's values_fit_layout).
        self.overlapping = not self.dynamic and not _disjoint(self.shape, self.strides)
        # Whether np.empty(shape) has the compiled strides (numpy's dense
        # strides, size-1 dims included; zero-volume arrays get all zeros).
        self.numpy_strides = self.volume > 0 and self.strides == _dense_strides(self.shape)
        self.alias_input = None  # the input position an alias output views
        # Whether an output is a torch tensor, by whether torch is wanted (the
        # first input is a torch tensor): as wanted, unless only the other
        # library holds the dtype (bf16: torch; u16, u32, u64: numpy).
        self.in_torch = (self.np_dtype is None, self.torch_name is not None)
        self.complex = lt.dtype in ("c64", "c128")
        self.mem_size = 0
        self.problem = None  # (code, rule, message) that keeps execute from running
        if lt.layout == "opaque":
            self.problem = ("unimplemented", "python_tensor_kind",
                            f"{self.what}: blocked layouts ({lt.format}) are not handled by the Python binding [python_tensor_kind]")
        elif self.np_dtype is None and self.torch_name is None:
            self.problem = ("unimplemented", "python_tensor_kind",
                            f"{self.what} has dtype {lt.dtype}, which neither numpy nor torch can hold [python_tensor_kind]")

    def dtype_error(self, got):
        return Error("invalid_arguments", "input_dtype_matches",
                     f"{self.what} has dtype {self.dtype}; an array of dtype {got} was given "
                     f"(execute casts nothing) [input_dtype_matches]")

    def shape_error(self, got, rule="boundary_shape", code="invalid_shape"):
        return Error(code, rule, f"{self.what} has shape {list(self.shape)}; an array of shape "
                                 f"{list(got)} was given [{rule}]")


# The torch bridge (_reshaper_torch: the fast path's reads and makes of
# torch tensors through torch's C++ API, src/python/torch_bridge.hpp):
# loaded, once, only when it was built and the torch the caller imported is
# the one it was built against (the same version from the same directory:
# it links that torch's libraries, which another torch must not have loaded
# beside its own). None: the fast path reads tensors through their Python
# attributes. RESHAPER_TORCH_BRIDGE=0 leaves it out (the tests run both;
# read when a compiled partition first meets a torch tensor).
def _torch_bridge(torch):
    if _os.environ.get("RESHAPER_TORCH_BRIDGE", "1") == "0":
        return None
    try:
        from . import _torch_bridge_info as info
    except ImportError:
        return None
    if getattr(torch, "__version__", None) != info.torch_version or \
            _os.path.realpath(_os.path.dirname(getattr(torch, "__file__", None) or "")) != info.torch_dir:
        return None
    try:
        from . import _reshaper_torch
    except ImportError:
        return None
    return _reshaper_torch.bridge


class _Plan:
    """What execute needs of a compiled partition, worked out once."""

    def __init__(self, cp):
        in_lts = [LogicalTensor._from_native(d) for d in cp.inputs]
        out_lts = [LogicalTensor._from_native(d) for d in cp.outputs]
        self.inputs = [_Tensor(lt, "input", i) for i, lt in enumerate(in_lts)]
        self.outputs = [_Tensor(lt, "output", k) for k, lt in enumerate(out_lts)]
        position = {lt.id: i for i, lt in enumerate(in_lts)}
        viewed_input = {out_id: in_id for in_id, out_id in cp.inplace_pairs}
        for k, spec in enumerate(self.outputs):
            spec.mem_size = cp.output_mem_size(k)
            if spec.lt.id in viewed_input:
                spec.alias_input = position.get(viewed_input[spec.lt.id])
        self.dynamic = any(spec.dynamic for spec in self.outputs)
        self.alias_outputs = [k for k, spec in enumerate(self.outputs) if spec.alias_input is not None]
        self.problem = next((t.problem for t in self.inputs + self.outputs if t.problem), None)
        if self.problem is None:
            self.problem = next((("invalid_shape", "input_shape_known",
                                  f"{t.what} has unknown dims {list(t.shape)} [input_shape_known]")
                                 for t in self.inputs if t.dynamic), None)
        self.fast = self._fast_path(cp)

    # Moves of fewer bytes keep the GIL: releasing and taking it again costs
    # more than other threads would wait.
    _RELEASE_GIL_BYTES = 256 << 10

    def _fast_path(self, cp):
        """The native path of the common call (numpy arrays or torch tensors
        of exactly the compiled dtypes, shapes and layouts;
        _reshaper.FastPath), or None where this partition has none: its
        per-call work, here, is a tuple per tensor, once. torch's part is
        added by _use_torch once a torch tensor has been passed."""
        specs = self.inputs + self.outputs
        if self.problem or self.dynamic or len(self.inputs) > 8 or len(self.outputs) > 8 or any(
                t.volume <= 0 or min(t.strides, default=0) < 0 for t in specs):
            return None
        moved = sum(t.mem_size for t in self.outputs if t.alias_input is None)

        def spec(t):
            return (t.np_dtype, list(t.shape), list(t.strides), t.itemsize, t.complex)

        def dense(t):  # without size-1 dims, whose strides torch's view would choose
            return t.strides == _dense_strides(t.shape) and 1 not in t.shape

        def torch_view(t):  # torch's view(shape) of the input gives exactly the compiled strides
            return t.alias_input is not None and dense(t) and dense(self.inputs[t.alias_input])
        return _reshaper.FastPath(
            cp, [spec(t) for t in self.inputs],
            [spec(t) + (-1 if t.alias_input is None else t.alias_input, t.span, bool(t.numpy_strides),
                        t.in_torch[False], t.in_torch[True], torch_view(t)) for t in self.outputs],
            moved >= self._RELEASE_GIL_BYTES)

    def _use_torch(self, torch):
        """Hands torch's objects to the native path (once: torch is there),
        and the torch bridge where there is one for this torch."""
        def dtype(t):
            return getattr(torch, t.torch_name) if t.torch_name else None
        self.fast.use_torch(torch.Tensor, torch.strided, torch.empty_strided, torch.empty_like,
                            [dtype(t) for t in self.inputs], [dtype(t) for t in self.outputs],
                            _torch_bridge(torch))

    def run(self, cp, inputs, outputs):
        if self.problem:
            raise Error(*self.problem)
        if len(inputs) != len(self.inputs):
            raise Error("invalid_arguments", "execute_buffers",
                        f"the partition takes {len(self.inputs)} inputs, got {len(inputs)} [execute_buffers]")
        torch = _sys.modules.get("torch")  # a torch tensor exists only once the caller imported torch
        tensor_type = torch.Tensor if torch is not None else _NoTensor
        if torch is not None and self.fast is not None and not self.fast.has_torch \
                and any(isinstance(obj, tensor_type) for obj in list(inputs) + list(outputs or [])):
            self._use_torch(torch)
        bases, addresses = [], []
        for spec, obj in zip(self.inputs, inputs):
            if isinstance(obj, tensor_type):
                obj = _torch_input(obj, spec, torch)
                addresses.append(obj.data_ptr() or _NOWHERE)
            else:
                obj = _numpy_input(obj, spec)
                addresses.append(_numpy_address(obj))
            bases.append(obj)
        if outputs is not None:
            return self._run_into(cp, addresses, outputs, torch, tensor_type)
        torch_wanted = bool(inputs) and isinstance(inputs[0], tensor_type)
        results, out_addresses = [], []
        for spec in self.outputs:
            if spec.alias_input is not None:  # run in place: the output is the input's memory
                results.append(None)
                out_addresses.append(addresses[spec.alias_input])
            elif spec.in_torch[torch_wanted]:
                torch = torch or _import_torch()
                out = _torch_output(spec, torch)
                results.append(out)
                out_addresses.append(out.data_ptr() or _NOWHERE)
            else:
                out = _numpy_output(spec)
                results.append(out)
                out_addresses.append(_numpy_address(out))
        if not self.dynamic:
            cp.execute_raw(addresses, out_addresses)
            for k in self.alias_outputs:
                spec = self.outputs[k]
                results[k] = _view(bases[spec.alias_input], spec, spec.shape, spec.strides,
                                   spec.in_torch[torch_wanted], torch)
            return results
        shapes = [tuple(d["shape"]) for d in cp.execute_addresses(addresses, out_addresses)]
        for k, spec in enumerate(self.outputs):
            shape = shapes[k]
            if spec.alias_input is not None:
                strides = spec.strides if not spec.dynamic else _dense_strides(shape)
                results[k] = _view(bases[spec.alias_input], spec, shape, strides,
                                   spec.in_torch[torch_wanted], torch or _sys.modules.get("torch"))
            elif spec.dynamic:
                results[k] = results[k].reshape(shape)  # the dense raw buffer, as its dims
        return results

    def _run_into(self, cp, addresses, outputs, torch, tensor_type):
        outputs = list(outputs)
        if len(outputs) != len(self.outputs):
            raise Error("invalid_arguments", "execute_buffers",
                        f"the partition has {len(self.outputs)} outputs, outputs= gave {len(outputs)} [execute_buffers]")
        out_addresses = []
        for spec, obj in zip(self.outputs, outputs):
            if spec.dynamic:
                raise Error("invalid_arguments", "execute_buffers",
                            f"{spec.what} has dims known only at execute ({list(spec.shape)}); outputs= takes "
                            f"outputs whose shape is known after compile [execute_buffers]")
            if isinstance(obj, tensor_type):
                _check_torch_output(obj, spec, torch)
                out_addresses.append(obj.data_ptr() or _NOWHERE)
            elif isinstance(obj, _np.ndarray):
                _check_numpy_output(obj, spec)
                out_addresses.append(_numpy_address(obj))
            else:
                raise Error("invalid_arguments", "execute_buffers",
                            f"{spec.what}: outputs= takes numpy arrays or torch tensors, got "
                            f"{type(obj).__name__} [execute_buffers]")
        cp.execute_raw(addresses, out_addresses)
        return outputs


def _import_torch():
    import torch
    return torch


def _as_numpy(obj, spec):
    """A numpy array over `obj`'s memory (buffer protocol, __array_interface__,
    DLPack when it offers nothing else; other objects, e.g. lists, as numpy
    reads them)."""
    if hasattr(obj, "__dlpack__") and not (hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__")):
        try:
            memoryview(obj)
        except TypeError:
            try:
                return _np.from_dlpack(obj)
            except (TypeError, RuntimeError, BufferError, ValueError) as e:
                raise Error("invalid_arguments", "execute_buffers",
                            f"{spec.what}: numpy cannot read this DLPack object ({e}) [execute_buffers]") from None
    return _np.asarray(obj)


def _numpy_input(a, spec):
    if not isinstance(a, _np.ndarray):
        a = _as_numpy(a, spec)
    dt = a.dtype
    if dt is not spec.np_dtype and dt != spec.np_dtype:
        raise spec.dtype_error(_numpy_dtype_name(dt))
    if a.shape != spec.shape:
        if a.size != spec.volume:
            raise spec.shape_error(a.shape)
        a = a.reshape(spec.shape)  # the same logical values, of another shape
    if a.strides != spec.byte_strides and not _same_layout(spec.shape, a.strides, spec.byte_strides):
        buf = _np.zeros(spec.span, spec.np_dtype)
        view = _np.ndarray(spec.shape, spec.np_dtype, buf, 0, spec.byte_strides)
        view[...] = a  # the same dtype: a copy into the compiled layout, no cast
        if spec.overlapping and view.tobytes() != _np.ascontiguousarray(a).tobytes():
            raise _disagreeing_values(spec)
        a = view
    return a


def _torch_input(t, spec, torch):
    if not t.is_cpu or t.layout is not torch.strided:
        raise Error("invalid_arguments", "execute_buffers",
                    f"{spec.what}: a {t.layout} tensor on {t.device}; execute takes strided CPU tensors "
                    f"[execute_buffers]")
    name = _TORCH_NAMES.get(t.dtype) or _torch_dtype_name(t.dtype, torch)
    if name != spec.dtype:
        raise spec.dtype_error(name)
    if t.requires_grad:
        t = t.detach()  # read as data: no autograd
    if t.is_neg() or (spec.complex and t.is_conj()):
        t = t.resolve_conj().resolve_neg()  # the values, not the lazily negated or conjugated memory
    if t.shape != spec.shape:
        if t.numel() != spec.volume:
            raise spec.shape_error(tuple(t.shape))
        t = t.reshape(spec.shape)
    if t.stride() != spec.strides and not _same_layout(spec.shape, t.stride(), spec.strides):
        buf = torch.zeros(spec.span, dtype=t.dtype)
        view = buf.as_strided(spec.shape, spec.strides)
        if not spec.overlapping:
            view.copy_(t)  # same dtype: a copy into the compiled layout, no cast
        else:  # copy_ refuses a view that writes one address twice: scatter by address
            addresses = torch.zeros(spec.shape, dtype=torch.int64)
            for axis, (d, stride) in enumerate(zip(spec.shape, spec.strides)):
                steps = [1] * len(spec.shape)
                steps[axis] = d
                addresses += (torch.arange(d) * stride).view(steps)
            buf[addresses.reshape(-1)] = t.reshape(-1)
            if not torch.equal(_torch_bytes(view, torch), _torch_bytes(t, torch)):
                raise _disagreeing_values(spec)
        t = view
    return t


def _disagreeing_values(spec):
    return Error("invalid_shape", "values_fit_layout",
                 f"{spec.what}: its layout (strides {list(spec.strides)}) gives several elements one "
                 f"address, and the values given differ there [values_fit_layout]")


def _torch_bytes(t, torch):
    flat = t.reshape(-1)  # stride 1 (contiguous() keeps odd strides of size-1 dims)
    return flat.view(torch.uint8) if t.dtype is not torch.bool else flat.to(torch.uint8)


def _numpy_output(spec):
    if spec.dynamic:  # dims known after execute: a dense buffer of the bytes
        return _np.empty(spec.mem_size // spec.itemsize, spec.np_dtype)
    if spec.numpy_strides:
        return _np.empty(spec.shape, spec.np_dtype)
    return _np.ndarray(spec.shape, spec.np_dtype, _np.empty(spec.span, spec.np_dtype), 0, spec.byte_strides)


def _torch_output(spec, torch):
    dtype = getattr(torch, spec.torch_name)
    if spec.dynamic:
        return torch.empty(spec.mem_size // spec.itemsize, dtype=dtype)
    return torch.empty_strided(spec.shape, spec.strides, dtype=dtype)


def _view(base, spec, shape, strides, in_torch, torch):
    """The output of an alias: `base` (the input's memory) with the output's
    shape and strides, as a torch tensor or a numpy array."""
    base_is_torch = torch is not None and isinstance(base, torch.Tensor)
    if in_torch:
        if not base_is_torch:
            with _warnings.catch_warnings():  # a read-only array stays read-only to us
                _warnings.simplefilter("ignore")
                base = torch.from_numpy(base)
        return base.as_strided(shape, strides, base.storage_offset())
    if base_is_torch:
        base = base.numpy()
    byte_strides = spec.byte_strides if strides is spec.strides else tuple(s * spec.itemsize for s in strides)
    if base.flags.c_contiguous:  # its buffer spans exactly its bytes
        return _np.ndarray(shape, base.dtype, base, 0, byte_strides)
    return _np.lib.stride_tricks.as_strided(base, shape, byte_strides)


def _check_torch_output(t, spec, torch):
    name = _torch_dtype_name(t.dtype, torch)
    if name != spec.dtype:
        raise spec.dtype_error(name)
    if t.device.type != "cpu" or t.layout is not torch.strided or t.is_conj() or t.is_neg():
        raise Error("invalid_arguments", "execute_buffers",
                    f"{spec.what}: outputs= takes strided CPU tensors without lazy conjugation [execute_buffers]")
    if t.shape != spec.shape:
        raise spec.shape_error(tuple(t.shape), "execute_buffers", "invalid_arguments")
    if not _same_layout(spec.shape, t.stride(), spec.strides):
        raise Error("invalid_arguments", "execute_buffers",
                    f"{spec.what} has strides {list(spec.strides)}; outputs= gave a tensor of strides "
                    f"{list(t.stride())} [execute_buffers]")


def _check_numpy_output(a, spec):
    if a.dtype != spec.np_dtype:
        raise spec.dtype_error(_numpy_dtype_name(a.dtype))
    if a.shape != spec.shape:
        raise spec.shape_error(a.shape, "execute_buffers", "invalid_arguments")
    if not _same_layout(spec.shape, a.strides, spec.byte_strides):
        raise Error("invalid_arguments", "execute_buffers",
                    f"{spec.what} has strides {list(spec.byte_strides)} (bytes); outputs= gave an array of "
                    f"strides {list(a.strides)} [execute_buffers]")
    if not a.flags.writeable:
        raise Error("invalid_arguments", "execute_buffers",
                    f"{spec.what}: outputs= gave a read-only array [execute_buffers]")


class CompiledPartition:
    """A compiled partition: .lowering ("alias", "reorder", "kernel"),
    .inputs, .outputs (LogicalTensor), .plan, .why_not_alias, .execute()."""

    def __init__(self, native):
        self._cp = native
        self._execution = None  # the _Plan, made at the first execute
        self._fast = None  # its native path for numpy arrays and torch tensors (_Plan.fast), once made

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

    def execute(self, inputs, outputs=None):
        """One array per compiled input, in order, holding the tensor's
        logical values: numpy arrays, torch tensors, or any buffer-protocol,
        __array_interface__ or DLPack object, of the compiled dtype (nothing
        is cast). An input whose layout is the compiled one is used in place;
        any other is copied into it. Returns one array per output, of its
        logical shape and compiled strides: torch tensors when the first
        input is a torch tensor, numpy arrays otherwise. An alias output is a
        view of its input's memory. `outputs`: caller-allocated arrays of the
        compiled outputs' dtype, shape and strides, filled and returned.

        From the first call on, where the partition has a native path
        (_Plan.fast), the instance's own `execute` is that path as a C
        function (FastPath.guarded_execute), which runs the common call itself
        and hands every other call to _execute_general."""
        return self._execute_general(inputs, outputs)

    execute._guarded = True

    def _execute_general(self, inputs, outputs=None):
        try:
            return (self._execution or self._make_execution()).run(self._cp, inputs, outputs)
        except Error:
            raise
        except _reshaper.NativeError as e:
            raise _native_error(e) from None
        except Exception as e:
            raise _unexpected_error("CompiledPartition.execute", e) from None

    def _make_execution(self):
        self._execution = _Plan(self._cp)
        self._fast = self._execution.fast
        if self._fast is not None:
            self.execute = self._fast.guarded_execute(self._execute_general)
        return self._execution


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
        given = _np.asarray(values)
        arr = _np.ascontiguousarray(given, dtype=dtype)
        if arr.dtype != given.dtype and not _np.array_equal(
                arr.astype(given.dtype), given, equal_nan=given.dtype.kind in "fc"):
            raise Error("invalid_data_type", "value_fits_dtype",
                        f"tensor {tensor_id}: values {given.ravel()[:8].tolist()} do not all fit dtype "
                        f"{arr.dtype} [value_fits_dtype]")
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


# Every failure of the module is a reshaper.Error: each public function,
# method and property (those added later too) runs inside this guard.
def _guarded(fn, where):
    @_functools.wraps(fn)
    def guarded(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Error:
            raise
        except _reshaper.NativeError as e:
            raise _native_error(e) from None
        except Exception as e:
            raise _unexpected_error(where, e) from None
    guarded._guarded = True
    return guarded


def _guard_class(cls):
    for name, attr in list(vars(cls).items()):
        if name.startswith("_") and name != "__init__":
            continue
        where = f"{cls.__name__}.{name}"
        if isinstance(attr, property):
            setattr(cls, name, property(_guarded(attr.fget, where), doc=attr.__doc__))
        elif isinstance(attr, (classmethod, staticmethod)):
            setattr(cls, name, type(attr)(_guarded(attr.__func__, where)))
        elif callable(attr) and not getattr(attr, "_guarded", False):
            setattr(cls, name, _guarded(attr, where))


version = _guarded(version, "version")
for _cls in (LogicalTensor, Op, Graph, Partition, CompiledPartition):
    _guard_class(_cls)
del _cls
