"""reshaper.torch: a PyTorch graph pass that runs a model's data-movement
calls through reshaper (interface contract, section 5.2; docs/python.md).

    import reshaper.torch
    m = reshaper.torch.compile(model, example_inputs)   # model in eval mode
    y = m(*example_inputs)                               # bit-identical to model(*example_inputs)
    s = reshaper.torch.summary(m)                        # what was claimed

The model is traced at ATen level with make_fx, once per input signature
(shapes, strides, dtypes, devices). Every maximal chain of data-movement calls
(each result consumed only by the next movement call) becomes one reshaper
partition, compiled for the strides the chain's input has and the strides
PyTorch gives its output. At run time an `alias` partition is a view of its
input (`as_strided`), any other writes a `torch.empty_strided` output through
the native execute entry; everything else runs as PyTorch runs it.
"""
import threading
import warnings as _warnings

import numpy as _np
import torch as _torch
from torch.fx.experimental.proxy_tensor import make_fx as _make_fx

from . import Error, Graph, LogicalTensor, Op, _dense_strides

__all__ = ["compile", "summary", "CompiledModule"]

_aten = _torch.ops.aten

# The data-movement calls (contract 5.2), by what they do to the logical
# values: a reshape (same row-major order, new shape), a permutation of the
# axes, or nothing (clone: only the layout of its result changes).
_RESHAPES = {_aten.view, _aten._unsafe_view, _aten._reshape_alias, _aten.reshape, _aten.squeeze,
             _aten.unsqueeze, _aten.flatten}
_PERMUTES = {_aten.permute, _aten.transpose, _aten.t, _aten.movedim}
_COPIES = {_aten.clone}
_MOVEMENT = _RESHAPES | _PERMUTES | _COPIES

# In-place ops that change a tensor's metadata, never its data: they do not
# make two tensors sharing storage observable.
_METADATA_ONLY = {_aten.as_strided_, _aten.squeeze_, _aten.unsqueeze_, _aten.t_, _aten.transpose_,
                  _aten.swapdims_, _aten.swapaxes_}

_DTYPES = {
    _torch.float32: "f32", _torch.float16: "f16", _torch.bfloat16: "bf16", _torch.float64: "f64",
    _torch.int8: "s8", _torch.uint8: "u8", _torch.int16: "s16", _torch.int32: "s32",
    _torch.int64: "s64", _torch.bool: "boolean", _torch.complex64: "c64", _torch.complex128: "c128",
}
# The oneDNN opset's StaticReshape / StaticTranspose take these; the other
# dtypes go through ai.onnx Reshape-14 (shape as a constant input) and Transpose-13.
_ONEDNN_DTYPES = {"f32", "f16", "bf16"}
_ONNX_VERSION = 14


def _packet(node):
    return getattr(node.target, "overloadpacket", None) if node.op == "call_function" else None


def _is_movement(node):
    return _packet(node) in _MOVEMENT


class _TensorInfo:
    """What one run of the traced graph showed of a node's tensor value;
    `storage` is a token equal for tensors sharing storage."""
    __slots__ = ("shape", "stride", "offset", "storage", "dtype", "device", "numel")

    def __init__(self, t, storage):
        self.shape = tuple(t.shape)
        self.stride = tuple(t.stride())
        self.offset = t.storage_offset()
        self.storage = storage
        self.dtype = t.dtype
        self.device = t.device
        self.numel = t.numel()


def _tensors(value):
    if isinstance(value, _torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors(v)


class _Recorder(_torch.fx.Interpreter):
    """Runs the traced graph once, recording each tensor value. Values are
    freed as eager frees them, so a storage address may come back for another
    tensor: a result shares storage only with tensors it was computed from
    (alive while it is computed), so it takes their token where it has their
    address and a new token otherwise."""

    def __init__(self, gm):
        super().__init__(gm)
        self.info = {}
        self.tokens = {}  # node -> {storage address: token} of every tensor in its value
        self.next_token = 0

    def run_node(self, n):
        value = super().run_node(n)
        known = {}
        for source in n.all_input_nodes:
            known.update(self.tokens.get(source, {}))
        mine = {}
        for t in _tensors(value):
            address = t.storage().data_ptr()
            token = known.get(address, mine.get(address))
            if token is None or t.numel() == 0:
                token = self.next_token
                self.next_token += 1
            mine[address] = token
            if t is value:
                self.info[n] = _TensorInfo(t, token)
        self.tokens[n] = mine
        return value


def _permutation(node, rank):
    """The axis order of a permuting call: output axis i is input axis perm[i].
    Read from the call itself applied to a meta tensor of distinct strides."""
    probe = _torch.empty([2] * rank, device="meta")
    out = node.target(probe, *node.args[1:], **node.kwargs)
    strides = probe.stride()
    return [strides.index(s) for s in out.stride()]


class _Chain:
    """One claimed chain at run time: everything decided at compile time."""
    __slots__ = ("in_stride", "size", "stride", "dtype", "alias", "lowering", "execute", "addresses",
                 "data_slot", "fallback", "keep")

    def run_fallback(self, x):
        for target, args, kwargs in self.fallback:
            x = target(x, *args, **kwargs)
        return x


def _run_chain(chain, x):
    # The traced graph fixes every stride; were one to differ, the chain runs
    # as PyTorch would run it rather than read the input wrongly.
    if x.stride() != chain.in_stride:
        return chain.run_fallback(x)
    if chain.alias:
        return x.as_strided(chain.size, chain.stride)
    out = _torch.empty_strided(chain.size, chain.stride, dtype=chain.dtype)
    addresses = chain.addresses
    if addresses is None:
        chain.execute([x.data_ptr()], [out.data_ptr()])
    else:
        addresses = list(addresses)
        addresses[chain.data_slot] = x.data_ptr()
        chain.execute(addresses, [out.data_ptr()])
    return out


# Compiled partitions, shared by every traced graph: the same chain on the
# same layouts (the blocks of a transformer, another signature's trace)
# compiles once.
_compiled = {}
_compiled_lock = threading.Lock()


def _compile_chain(dtype, in_shape, in_stride, steps, out_stride):
    """Builds and compiles the partition of one chain: steps are ("reshape",
    shape) or ("transpose", perm). Returns (compiled partition, constant arrays
    by tensor id)."""
    key = (dtype, in_shape, in_stride, steps, out_stride)
    with _compiled_lock:
        hit = _compiled.get(key)
    if hit is not None:
        return hit
    onednn = dtype in _ONEDNN_DTYPES
    g = Graph("cpu")
    constants = {}
    current = LogicalTensor(0, dtype, list(in_shape), list(in_stride))
    shape = list(in_shape)
    next_id = 1
    for op_id, (kind, arg) in enumerate(steps):
        if kind == "reshape":
            shape = list(arg)
        else:
            shape = [shape[a] for a in arg]
        out = LogicalTensor(next_id, dtype, shape)
        next_id += 1
        if kind == "reshape" and onednn:
            op = Op(op_id, "StaticReshape").set_attr("shape", shape, "s64[]").set_attr("special_zero", False)
            op.add_input(current)
        elif kind == "reshape":
            shape_lt = LogicalTensor(next_id, "s64", [len(shape)], property="constant")
            constants[next_id] = _np.array(shape, dtype=_np.int64)
            next_id += 1
            op = Op(op_id, "Reshape", domain="ai.onnx", version=_ONNX_VERSION).set_attr("allowzero", 1)
            op.add_input(current).add_input(shape_lt)
        elif onednn:
            op = Op(op_id, "StaticTranspose").set_attr("order", list(arg), "s64[]").add_input(current)
        else:
            op = Op(op_id, "Transpose", domain="ai.onnx", version=_ONNX_VERSION).set_attr("perm", list(arg), "s64[]")
            op.add_input(current)
        op.add_output(out)
        g.add_op(op)
        current = out
    for tid, values in constants.items():
        g.set_tensor_values(tid, values)
    parts = [p for p in g.partitions() if p.supported]
    if len(parts) != 1 or len(parts[0].ops) != len(steps):
        raise Error("unimplemented", "", f"the chain did not become one partition: {[p.ops for p in parts]}")
    out_lt = LogicalTensor(current.id, dtype, shape, list(out_stride))
    cp = parts[0].compile("cpu", inputs=[LogicalTensor(0, dtype, list(in_shape), list(in_stride))], outputs=[out_lt])
    hit = (cp, constants)
    with _compiled_lock:
        _compiled[key] = hit
    return hit


class _Traced:
    """The graph traced for one input signature, with its chains replaced."""

    def __init__(self, model, inputs):
        with _torch.no_grad():
            gm = _make_fx(model)(*inputs)
            recorder = _Recorder(gm)
            recorder.run(*inputs)
        self.gm = gm
        self.summary = _rewrite(gm, recorder.info)


class _Eager:
    """A signature make_fx could not trace: the model itself runs."""

    def __init__(self, model):
        self.gm = model
        self.summary = None


def _storages_at_risk(gm, info):
    """Storages whose sharing could be observed: written by an in-place op,
    or reachable from outside the graph (inputs, parameters, outputs)."""
    risky = set()
    for n in gm.graph.nodes:
        if n.op in ("placeholder", "get_attr") and n in info:
            risky.add(info[n].storage)
        elif n.op == "output":
            _torch.fx.node.map_arg(n.args, lambda x: risky.add(info[x].storage) if x in info else None)
        elif n.op == "call_function" and isinstance(n.target, _torch._ops.OpOverload):
            if n.target.overloadpacket in _METADATA_ONLY:
                continue
            for i, a in enumerate(n.target._schema.arguments):
                if a.alias_info is None or not a.alias_info.is_write:
                    continue
                value = n.args[i] if i < len(n.args) and not a.kwarg_only else n.kwargs.get(a.name)
                _torch.fx.node.map_arg(value, lambda x: risky.add(info[x].storage) if x in info else None)
    return risky


def _chains(gm):
    """Every maximal chain of movement calls, in graph order."""
    chains = []
    for n in gm.graph.nodes:
        if not _is_movement(n):
            continue
        producer = n.args[0]
        if isinstance(producer, _torch.fx.Node) and _is_movement(producer) and len(producer.users) == 1:
            continue  # continues the chain of its producer
        chain = [n]
        while len(chain[-1].users) == 1:
            (user,) = chain[-1].users
            if not _is_movement(user) or user.args[0] is not chain[-1]:
                break
            chain.append(user)
        chains.append(chain)
    return chains


def _is_reshape_view(shape, stride, out):
    """Whether `out` (a _reshape_alias of a tensor of `shape` and `stride`,
    whose strides are an argument) holds the row-major reshape of it."""
    try:
        view = _torch.empty_strided(shape, stride, device="meta").view(out.shape)
    except RuntimeError:
        return False
    return all(a == b for a, b, d in zip(view.stride(), out.stride, out.shape) if d != 1)


def _plan_chain(chain, info):
    """(steps, reason): the partition's steps, or why the chain stays PyTorch's."""
    source = chain[0].args[0]
    if not isinstance(source, _torch.fx.Node) or source not in info or any(n not in info for n in chain):
        return None, "input is not a traced tensor"
    a, z = info[source], info[chain[-1]]
    if a.device.type != "cpu":
        return None, f"device {a.device} (the pass runs on the CPU)"
    if a.dtype not in _DTYPES:
        return None, f"dtype {a.dtype} has no reshaper dtype"
    if z.dtype != a.dtype or z.numel != a.numel:
        return None, "changes dtype or volume (view as another dtype)"
    if a.numel == 0:
        return None, "zero volume: nothing to move"
    steps = []
    shape, stride = a.shape, a.stride
    for n in chain:
        packet, out_shape = _packet(n), info[n].shape
        if packet is _aten._reshape_alias and not _is_reshape_view(shape, stride, info[n]):
            return None, "a _reshape_alias whose strides are not those of the reshape's view"
        if packet in _RESHAPES:
            if out_shape != shape or not steps:
                steps.append(("reshape", out_shape))
        elif packet in _PERMUTES:
            perm = tuple(_permutation(n, len(shape)))
            if perm != tuple(range(len(shape))):
                steps.append(("transpose", perm))
        shape, stride = out_shape, info[n].stride
    if not steps:
        steps.append(("reshape", shape))  # a lone clone: a copy into the output's layout
    return tuple(steps), ""


def _rewrite(gm, info):
    at_risk = _storages_at_risk(gm, info)
    counts = {"movement_calls": 0, "claimed": 0, "partitions": 0, "alias": 0, "kernel": 0, "reorder": 0}
    reasons = {}
    counts["movement_calls"] = sum(1 for n in gm.graph.nodes if _is_movement(n))
    for index, chain in enumerate(_chains(gm)):
        steps, reason = _plan_chain(chain, info)
        runtime = None
        if steps is not None:
            runtime, reason = _build_runtime(chain, steps, info, at_risk)
        if runtime is None:
            reasons[reason] = reasons.get(reason, 0) + len(chain)
            continue
        name = f"_reshaper_chain_{index}"
        setattr(gm, name, runtime)
        last = chain[-1]
        with gm.graph.inserting_after(last), _warnings.catch_warnings():
            # fx warns of get_attr targets that are no module, parameter or buffer: ours is a plain object.
            _warnings.simplefilter("ignore", UserWarning)
            holder = gm.graph.get_attr(name)
        with gm.graph.inserting_after(holder):
            call = gm.graph.call_function(_run_chain, (holder, chain[0].args[0]))
        last.replace_all_uses_with(call)
        info[call] = info[last]  # a later chain may start from this one's result
        for n in reversed(chain):
            gm.graph.erase_node(n)
        counts["claimed"] += len(chain)
        counts["partitions"] += 1
        counts["alias" if runtime.alias else runtime.lowering] += 1
    gm.recompile()
    counts["unclaimed_reasons"] = reasons
    return counts


def _build_runtime(chain, steps, info, at_risk):
    """(runtime, reason): the compiled chain, or why it stays PyTorch's."""
    a, z = info[chain[0].args[0]], info[chain[-1]]
    try:
        cp, constants = _compile_chain(_DTYPES[a.dtype], a.shape, a.stride, steps, z.stride)
    except Error as e:
        return None, f"reshaper {e.code}: {e}"
    alias = cp.lowering == "alias"
    torch_views = z.storage == a.storage
    if alias:
        compiled = cp.outputs[0].strides or _dense_strides(z.shape)
        if any(c != t for c, t, d in zip(compiled, z.stride, z.shape) if d != 1):
            return None, (f"reshaper's alias strides {list(compiled)} differ from PyTorch's {list(z.stride)} "
                          f"beyond size-1 dims")
        if torch_views and z.offset != a.offset:
            return None, "PyTorch's view moves the storage offset"
    if alias != torch_views and {a.storage, z.storage} & at_risk:
        # PyTorch views where reshaper copies or the reverse: only safe where
        # nobody can observe the sharing (no in-place write, nothing outside).
        return None, ("PyTorch " + ("views" if torch_views else "copies") + " where reshaper "
                      + ("copies" if torch_views else "views") + ", and the storage is written in place or seen outside")
    rt = _Chain()
    rt.in_stride, rt.size, rt.stride, rt.dtype = a.stride, z.shape, z.stride, a.dtype
    rt.alias, rt.lowering = alias, cp.lowering
    rt.execute = cp._cp.execute_raw
    ids = [t.id for t in cp.inputs]
    rt.data_slot = ids.index(0)
    rt.addresses = None if ids == [0] else [0 if i == 0 else int(constants[i].ctypes.data) for i in ids]
    rt.fallback = [(n.target, tuple(n.args[1:]), dict(n.kwargs)) for n in chain]
    rt.keep = (cp, constants)
    return rt, ""


def _signature(inputs):
    key = []
    for x in inputs:
        if isinstance(x, _torch.Tensor):
            key.append((tuple(x.shape), x.stride(), x.dtype, x.device))
        else:
            try:
                hash(x)
                key.append((type(x), x))
            except TypeError:
                key.append((type(x), id(x)))
    return tuple(key)


class CompiledModule(_torch.nn.Module):
    """The model with its data-movement chains run by reshaper: one traced
    graph (a torch.fx.GraphModule) per input signature, traced on first use."""

    def __init__(self, model, example_inputs):
        super().__init__()
        self.__dict__["_model"] = model  # not a submodule: the parameters stay the model's own
        self.__dict__["_traced"] = {}
        self.__dict__["_example_key"] = _signature(example_inputs)
        self._trace(example_inputs, self._example_key)

    def _trace(self, inputs, key):
        traced = _Traced(self._model, inputs)
        self._traced[key] = traced
        return traced

    @property
    def graph_modules(self):
        """The GraphModules traced so far, one per input signature."""
        return [t.gm for t in self._traced.values() if isinstance(t, _Traced)]

    def forward(self, *inputs):
        key = _signature(inputs)
        traced = self._traced.get(key)
        if traced is None:
            try:
                traced = self._trace(inputs, key)
            except Exception as e:  # noqa: BLE001 - whatever make_fx raised, eager still answers
                _warnings.warn(f"reshaper.torch: tracing for a new input signature failed ({e!r}); "
                               "this signature runs eagerly")
                traced = self._traced[key] = _Eager(self._model)
        with _torch.no_grad():
            return traced.gm(*inputs)


def compile(model, example_inputs):
    """Traces `model` (a torch.nn.Module, in eval mode) on `example_inputs` (a
    tuple of tensors) and returns a CompiledModule computing exactly what the
    model computes, its data-movement chains run by reshaper."""
    if isinstance(example_inputs, _torch.Tensor):
        example_inputs = (example_inputs,)
    return CompiledModule(model, tuple(example_inputs))


def summary(module):
    """What the pass claimed in the graph traced for the example inputs:
    movement_calls, claimed, partitions, alias, kernel, reorder (contract 5.2),
    and unclaimed_reasons (movement calls left to PyTorch, by reason)."""
    if not isinstance(module, CompiledModule):
        raise Error("invalid_arguments", "api_argument", "summary() takes what reshaper.torch.compile returned")
    s = dict(module._traced[module._example_key].summary)
    s["unclaimed_reasons"] = dict(s["unclaimed_reasons"])
    return s
