"""execute without copies (contract 5.1): alias outputs are views of the
input's memory (numpy and torch), movements are bit-exact for every dtype
numpy or torch holds, outputs= fills caller arrays, zero-volume tensors of
every width, and every failure is a reshaper.Error with its code and rule."""
import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import reshaper

torch = pytest.importorskip("torch")

SOURCE = os.environ.get("RESHAPER_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

NUMPY_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "s8": np.int8, "u8": np.uint8,
                "s16": np.int16, "u16": np.uint16, "s32": np.int32, "u32": np.uint32, "s64": np.int64,
                "u64": np.uint64, "boolean": np.bool_, "c64": np.complex64, "c128": np.complex128}
TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
                "s8": torch.int8, "u8": torch.uint8, "s16": torch.int16, "s32": torch.int32,
                "s64": torch.int64, "boolean": torch.bool, "c64": torch.complex64, "c128": torch.complex128}


def lt(id, dtype, shape, strides=None, property="undef"):
    return reshaper.LogicalTensor(id, dtype, shape, strides, property=property)


def compiled(op, outputs=None):
    (p,) = reshaper.Graph().add_op(op).partitions()
    return p.compile(outputs=outputs)


def reshape(dtype, shape, target, strides=None, out=None):
    """StaticReshape of a [shape] input (strides: its layout) to [target]."""
    op = (reshaper.Op(0, "StaticReshape", "r").add_input(lt(0, dtype, shape, strides))
          .add_output(lt(1, dtype, [-1] * len(target))).set_attr("shape", target).set_attr("special_zero", False))
    return compiled(op, out)


def flatten(dtype, shape, axis):
    """ONNX Flatten (the newest version: every dtype): an alias of a dense input."""
    op = (reshaper.Op(0, "Flatten", "f", domain="ai.onnx").add_input(lt(0, dtype, shape))
          .add_output(lt(1, dtype, [-1, -1])).set_attr("axis", axis))
    return compiled(op)


def transpose(dtype, shape, perm):
    """ONNX Transpose (the newest version: every dtype): a movement."""
    op = (reshaper.Op(0, "Transpose", "t", domain="ai.onnx").add_input(lt(0, dtype, shape))
          .add_output(lt(1, dtype, [-1] * len(shape))).set_attr("perm", perm))
    return compiled(op)


def random_values(dtype_name, shape, seed=0):
    """Values covering the dtype's bits (NaN payloads and negative zeros included for floats)."""
    rng = np.random.default_rng(seed)
    if dtype_name == "boolean":
        return rng.integers(0, 2, shape).astype(np.bool_)
    dt = np.dtype(NUMPY_DTYPES[dtype_name])
    raw = rng.integers(0, 256, int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
    return raw.view(dt).reshape(shape)


def torch_values(dtype_name, shape, seed=0):
    if dtype_name == "bf16":
        bits = np.random.default_rng(seed).integers(-2**15, 2**15, shape, dtype=np.int16)
        return torch.from_numpy(bits).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(random_values(dtype_name, shape, seed)))


def same_bits(a, b):
    if isinstance(a, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        # reshape(-1): flat, stride 1 (contiguous() keeps odd strides of size-1 dims)
        a = a.reshape(-1).view(torch.uint8) if a.dtype != torch.bool else a.reshape(-1).to(torch.uint8)
        b = b.reshape(-1).view(torch.uint8) if b.dtype != torch.bool else b.reshape(-1).to(torch.uint8)
        return torch.equal(a, b)
    return a.shape == b.shape and a.dtype == b.dtype and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def complex32(t):
    with warnings.catch_warnings():  # "ComplexHalf support is experimental"
        warnings.simplefilter("ignore")
        return t.to(torch.complex32)


def shares_storage(a, b):
    return a.storage().data_ptr() == b.storage().data_ptr()


# ---------------------------------------------------------------- aliases --

@pytest.mark.parametrize("dtype", sorted(NUMPY_DTYPES))
def test_numpy_alias_output_is_a_view_of_the_input(dtype):
    cp = flatten(dtype, [2, 3, 4], 2)
    assert cp.lowering == "alias"
    x = random_values(dtype, (2, 3, 4))
    (out,) = cp.execute([x])
    assert isinstance(out, np.ndarray)
    assert np.shares_memory(out, x)
    assert out.ctypes.data == x.ctypes.data
    assert same_bits(out, x.reshape(6, 4))


@pytest.mark.parametrize("dtype", sorted(TORCH_DTYPES))
def test_torch_alias_output_is_a_view_of_the_input_storage(dtype):
    cp = flatten(dtype, [2, 3, 4], 2)
    base = torch_values(dtype, (40,))
    x = base[16:].view(2, 3, 4)  # a storage offset: the view starts where x does
    (out,) = cp.execute([x])
    assert isinstance(out, torch.Tensor) and out.dtype == TORCH_DTYPES[dtype]
    assert shares_storage(out, x)
    assert out.data_ptr() == x.data_ptr()
    assert same_bits(out, x.reshape(6, 4))


def test_alias_views_keep_the_compiled_strides_of_size_one_dims():
    # The output compiled as [4,1,6] with the size-1 dim's stride 1 (not 6).
    cp = reshape("f32", [2, 3, 4], [4, 1, 6], out=[lt(1, "f32", [4, 1, 6], [6, 1, 1])])
    assert cp.lowering == "alias"
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    (out,) = cp.execute([x])
    assert out.stride() == (6, 1, 1) and shares_storage(out, x)
    (npout,) = cp.execute([x.numpy()])
    assert npout.strides == (24, 4, 4) and np.shares_memory(npout, x.numpy())


def test_transposed_input_in_its_compiled_layout_is_viewed_not_copied():
    # Compiled input [3,4] with strides [1,3]: a transposed array is that layout.
    cp = reshape("f32", [3, 4], [12], strides=[1, 3])
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    assert cp.lowering in ("kernel", "reorder")  # [12] dense from a transposed buffer moves
    (out,) = cp.execute([base.T])
    np.testing.assert_array_equal(out, base.T.reshape(12))
    op = (reshaper.Op(0, "StaticTranspose", "back").add_input(lt(0, "f32", [3, 4], [1, 3]))
          .add_output(lt(1, "f32", [-1, -1])).set_attr("order", [1, 0]))
    cp_alias = compiled(op)
    assert cp_alias.lowering == "alias"
    (view,) = cp_alias.execute([base.T])
    assert np.shares_memory(view, base) and view.strides == (12, 4)
    np.testing.assert_array_equal(view, base)
    tb = torch.from_numpy(base)
    (tview,) = cp_alias.execute([tb.T])
    assert shares_storage(tview, tb) and torch.equal(tview, tb)
    # The same partition given a dense [3,4] array: copied into the compiled
    # layout first, the values still right.
    (copied,) = cp_alias.execute([np.ascontiguousarray(base.T)])
    np.testing.assert_array_equal(copied, base)


def test_requires_grad_tensors_are_read_as_data():
    cp = reshape("f32", [2, 3, 4], [4, 6])
    x = torch.randn(2, 3, 4, requires_grad=True)
    (out,) = cp.execute([x])
    assert shares_storage(out, x) and not out.requires_grad
    assert torch.equal(out, x.detach().reshape(4, 6))
    (moved,) = transpose("f32", [2, 3, 4], [2, 0, 1]).execute([x])
    assert torch.equal(moved, x.detach().permute(2, 0, 1)) and not moved.requires_grad


def test_read_only_numpy_arrays_and_bool():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x.flags.writeable = False
    (view,) = reshape("f32", [2, 3, 4], [4, 6]).execute([x])
    assert np.shares_memory(view, x) and not view.flags.writeable
    (moved,) = transpose("f32", [2, 3, 4], [1, 0, 2]).execute([x])
    np.testing.assert_array_equal(moved, x.transpose(1, 0, 2))
    b = np.random.default_rng(1).integers(0, 2, (2, 3, 4)).astype(bool)
    b.flags.writeable = False
    (bview,) = flatten("boolean", [2, 3, 4], 3).execute([b])
    assert np.shares_memory(bview, b) and bview.dtype == np.bool_
    tb = torch.from_numpy(b.copy())
    (tmoved,) = transpose("boolean", [2, 3, 4], [2, 1, 0]).execute([tb])
    assert tmoved.dtype == torch.bool and torch.equal(tmoved, tb.permute(2, 1, 0))


def test_other_sharing_paths_buffer_protocol_array_interface_dlpack():
    cp = flatten("u16", [2, 3, 4], 2)
    x = random_values("u16", (2, 3, 4))

    class ArrayInterface:
        def __init__(self, a):
            self.__array_interface__ = a.__array_interface__

    class DLPackOnly:
        def __init__(self, a):
            self._a = a

        def __dlpack__(self, stream=None):
            return self._a.__dlpack__()

        def __dlpack_device__(self):
            return self._a.__dlpack_device__()

    for obj in (memoryview(x), ArrayInterface(x), DLPackOnly(x)):
        (out,) = cp.execute([obj])
        assert isinstance(out, np.ndarray) and np.shares_memory(out, x), type(obj)
        assert same_bits(out, x.reshape(6, 4))


def test_dynamic_reshape_alias_is_a_view_too():
    op = (reshaper.Op(0, "DynamicReshape", "dyn").add_input(lt(0, "f32", [2, 3, 4]))
          .add_input(lt(1, "s32", [2], property="variable")).add_output(lt(2, "f32", [-1, -1]))
          .set_attr("special_zero", False))
    cp = compiled(op)
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    (out,) = cp.execute([x, np.array([3, 8], dtype=np.int32)])
    assert out.shape == (3, 8) and out.stride() == (8, 1) and shares_storage(out, x)
    # Zero volume, the output's dims known only at execute (issue 25: f32
    # outputs of zero volume raised numpy's ValueError).
    empty_op = (reshaper.Op(0, "DynamicReshape", "dyn0").add_input(lt(0, "f32", [2, 0, 4]))
                .add_input(lt(1, "s32", [2], property="variable")).add_output(lt(2, "f32", [-1, -1]))
                .set_attr("special_zero", False))
    empty = compiled(empty_op)
    for given in (np.zeros((2, 0, 4), np.float32), torch.zeros(2, 0, 4)):
        (out,) = empty.execute([given, np.array([0, 8], dtype=np.int32)])
        assert tuple(out.shape) == (0, 8) and isinstance(out, type(given))
    with pytest.raises(reshaper.Error) as e:  # shape values as floats: no cast to 4
        cp.execute([x, np.array([6.0, 4.5])])
    assert (e.value.code, e.value.rule) == ("invalid_arguments", "input_dtype_matches")


# -------------------------------------------------------------- movements --

@pytest.mark.parametrize("dtype", sorted(NUMPY_DTYPES))
def test_numpy_movement_is_bit_exact(dtype):
    cp = transpose(dtype, [3, 5, 4], [2, 0, 1])
    x = random_values(dtype, (3, 5, 4), seed=2)
    (out,) = cp.execute([x])
    assert isinstance(out, np.ndarray) and not np.shares_memory(out, x)
    assert same_bits(out, np.ascontiguousarray(x.transpose(2, 0, 1)))
    # An input not in the compiled (dense) layout is copied into it first.
    wide = random_values(dtype, (3, 5, 8), seed=3)
    (out2,) = cp.execute([wide[:, :, ::2]])
    assert same_bits(out2, np.ascontiguousarray(wide[:, :, ::2].transpose(2, 0, 1)))


@pytest.mark.parametrize("dtype", sorted(TORCH_DTYPES))
def test_torch_movement_is_bit_exact(dtype):
    cp = transpose(dtype, [3, 5, 4], [2, 0, 1])
    x = torch_values(dtype, (3, 5, 4), seed=4)
    (out,) = cp.execute([x])
    assert isinstance(out, torch.Tensor) and out.dtype == x.dtype
    assert same_bits(out, x.permute(2, 0, 1).contiguous())
    noncontiguous = torch_values(dtype, (5, 3, 4), seed=5).transpose(0, 1)
    (out2,) = cp.execute([noncontiguous])
    assert same_bits(out2, noncontiguous.permute(2, 0, 1).contiguous())
    # A conjugated complex tensor is read as its values, not its raw memory.
    if x.is_complex():
        (out3,) = cp.execute([x.conj()])
        assert same_bits(out3, x.conj().resolve_conj().permute(2, 0, 1))


def test_random_dtypes_shapes_and_input_layouts_against_numpy_and_torch():
    """A seeded differential run over the input conversion: random dtype,
    shape (zero-volume ones too), op (ONNX Transpose or Flatten), array kind
    and input layout (dense, permuted memory, a stepped slice); every output
    bit-exact against numpy's or torch's own, dense inputs of alias
    partitions viewed, never copied."""
    rng = np.random.default_rng(2024)
    dtypes = sorted(set(NUMPY_DTYPES) | set(TORCH_DTYPES))
    for case in range(120):
        dtype = dtypes[rng.integers(len(dtypes))]
        rank = int(rng.integers(1, 5))
        shape = [int(rng.integers(0 if rng.random() < 0.1 else 1, 5)) for _ in range(rank)]
        use_torch = dtype not in NUMPY_DTYPES or (dtype in TORCH_DTYPES and rng.random() < 0.5)
        values = torch_values(dtype, shape, case) if use_torch else random_values(dtype, tuple(shape), case)
        if rng.random() < 0.5:
            perm = [int(a) for a in rng.permutation(rank)]
            cp = transpose(dtype, shape, perm)
            expect = values.permute(perm) if use_torch else values.transpose(perm)
        else:
            axis = int(rng.integers(0, rank + 1))
            cp = flatten(dtype, shape, axis)
            rows = int(np.prod(shape[:axis], dtype=np.int64))
            expect = values.reshape(rows, -1 if rows else int(np.prod(shape[axis:], dtype=np.int64)))
        layout = int(rng.integers(3))
        if layout == 0:
            x = values
        elif layout == 1:  # the same values, their memory in another order
            order = [int(a) for a in rng.permutation(rank)]
            back = [int(a) for a in np.argsort(order)]
            x = (values.permute(order).contiguous().permute(back) if use_torch
                 else np.ascontiguousarray(values.transpose(order)).transpose(back))
        else:  # every second element of a buffer twice as wide
            wide = [2 * d for d in shape]
            big = torch.zeros(wide, dtype=values.dtype) if use_torch else np.zeros(wide, values.dtype)
            step = tuple(slice(None, None, 2) for _ in shape)
            big[step] = values
            x = big[step]
        (out,) = cp.execute([x])
        where = f"case {case}: {dtype} {shape} layout {layout} {cp.lowering}"
        assert isinstance(out, torch.Tensor) == use_torch, where
        assert same_bits(out, expect), where
        if cp.lowering == "alias" and layout == 0 and 0 not in shape:
            assert (shares_storage(out, values) if use_torch else np.shares_memory(out, values)), where


def test_broadcast_input_layout_takes_agreeing_values_only():
    # A [8,96] input of strides [0,1] (a positional encoding, expanded).
    op = (reshaper.Op(0, "StaticReshape", "b").add_input(lt(0, "f32", [8, 96], [0, 1]))
          .add_output(lt(1, "f32", [-1, -1, -1])).set_attr("shape", [8, 1, 96]).set_attr("special_zero", False))
    cp = compiled(op)
    pe = torch.randn(96).expand(8, 96)
    for given in (pe, pe.contiguous(), pe.numpy().copy()):
        (out,) = cp.execute([given])
        assert np.array_equal(np.asarray(out), pe.numpy().reshape(8, 1, 96))
    for given in (torch.randn(8, 96), np.random.default_rng(0).standard_normal((8, 96)).astype(np.float32)):
        with pytest.raises(reshaper.Error) as e:
            cp.execute([given])
        assert (e.value.code, e.value.rule) == ("invalid_shape", "values_fit_layout")


# ---------------------------------------------------------------- outputs= --

def test_outputs_are_filled_and_returned():
    cp = transpose("f32", [2, 3, 4], [2, 0, 1])
    x = np.random.default_rng(6).standard_normal((2, 3, 4)).astype(np.float32)
    out = np.empty((4, 2, 3), np.float32)
    result = cp.execute([x], outputs=[out])
    assert result[0] is out
    np.testing.assert_array_equal(out, x.transpose(2, 0, 1))
    tout = torch.empty(4, 2, 3)
    (r,) = cp.execute([torch.from_numpy(x)], outputs=[tout])
    assert r is tout and torch.equal(tout, torch.from_numpy(x).permute(2, 0, 1))
    # An alias partition copies into the caller's array.
    alias = flatten("s16", [2, 3, 4], 2)
    y = random_values("s16", (2, 3, 4))
    dst = np.zeros((6, 4), np.int16)
    (r,) = alias.execute([y], outputs=[dst])
    assert r is dst and not np.shares_memory(dst, y) and same_bits(dst, y.reshape(6, 4))
    for bad, rule in ((np.empty((4, 2, 3), np.float64), "input_dtype_matches"),
                      (np.empty((4, 6), np.float32), "execute_buffers"),
                      (np.empty((3, 2, 4), np.float32).transpose(2, 1, 0), "execute_buffers"),
                      (np.empty((4, 2, 3), np.float32)[::1].copy().view(np.float32)[:0], "execute_buffers")):
        with pytest.raises(reshaper.Error) as e:
            cp.execute([x], outputs=[bad])
        assert (e.value.code, e.value.rule) == ("invalid_arguments", rule)
    ro = np.empty((4, 2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x], outputs=[ro])
    assert e.value.rule == "execute_buffers"


# -------------------------------------------------------------- zero size --

@pytest.mark.parametrize("dtype", sorted(set(NUMPY_DTYPES) | set(TORCH_DTYPES)))
def test_zero_volume_tensors_of_every_width(dtype):
    for cp in (transpose(dtype, [0, 3, 5], [2, 0, 1]), flatten(dtype, [2, 0, 4], 1)):
        shape = tuple(cp.inputs[0].shape)
        expect = tuple(cp.outputs[0].shape)
        if dtype in NUMPY_DTYPES:
            (out,) = cp.execute([np.zeros(shape, NUMPY_DTYPES[dtype])])
            assert out.shape == expect and out.dtype == NUMPY_DTYPES[dtype]
        if dtype in TORCH_DTYPES:
            (tout,) = cp.execute([torch.zeros(shape, dtype=TORCH_DTYPES[dtype])])
            assert tuple(tout.shape) == expect and tout.dtype == TORCH_DTYPES[dtype]


# ----------------------------------------------------------------- errors --

@pytest.mark.parametrize("given, dtype", [
    (np.array([2**24 + 1] * 24, np.int64), "f32"),       # would become 16777216.0
    (np.full(24, np.nan), "s64"),                        # would become INT64_MIN
    (np.arange(24, dtype=np.float32), "f16"),
    (np.arange(24, dtype=np.uint16), "s16"),
    (np.arange(24, dtype=np.int16), "bf16"),             # numpy has no bf16: no reinterpretation
    (np.arange(24, dtype=">f4"), "f32"),                 # big-endian: not the compiled dtype
    (torch.arange(24, dtype=torch.int16), "u16"),
    (torch.arange(24, dtype=torch.float32), "bf16"),
    (complex32(torch.arange(24, dtype=torch.float32)), "c64"),
])
def test_an_input_of_another_dtype_is_refused(given, dtype):
    cp = flatten(dtype, [24], 1)
    with pytest.raises(reshaper.Error) as e:
        cp.execute([given])
    assert (e.value.code, e.value.rule) == ("invalid_arguments", "input_dtype_matches")
    assert str(e.value).endswith("[input_dtype_matches]") and dtype in str(e.value)


@pytest.mark.parametrize("dtype", ["s4", "u4", "s2", "u2", "f8_e4m3", "f8_e5m2", "f4_e2m1", "string"])
def test_dtypes_no_array_holds_are_unimplemented_whatever_the_volume(dtype):
    for shape in ([2, 4], [0, 4]):
        cp = flatten(dtype, shape, 1)
        for given in (np.zeros(shape, np.uint8), torch.zeros(shape, dtype=torch.uint8)):
            with pytest.raises(reshaper.Error) as e:
                cp.execute([given])
            assert e.value.code == "unimplemented" and dtype in str(e.value)
            assert e.value.rule == "python_tensor_kind"


def test_native_errors_never_escape():
    # A rank-22 partition (from a graph file, which has no rank limit): its
    # tensors are above RESHAPER_MAX_NDIMS when they cross the C API.
    small = reshaper.Graph().add_op(
        reshaper.Op(0, "StaticReshape", "deep").add_input(lt(0, "f32", [1, 1])).add_output(lt(1, "f32", [-1]))
        .set_attr("shape", [1]).set_attr("special_zero", False))
    doc = json.loads(small.to_json())
    doc["graph"][0]["inputs"][0].update(shape=[1] * 22, stride=[1] * 22)
    deep = reshaper.Graph.from_json(json.dumps(doc))
    calls = [lambda: deep.partitions()[0].inputs, lambda: deep.partitions()[0].compile().inputs,
             lambda: deep.partitions()[0].compile().execute([np.zeros([1] * 22, np.float32)]),
             lambda: deep.tensor(0)]
    cp = reshape("f32", [2, 3], [6])
    calls += [
        lambda: reshaper.Graph.from_json(5),
        lambda: reshaper.Graph.from_file(os.path.join(SOURCE, "no", "such.json")),
        lambda: reshaper.Graph("tpu"),
        lambda: reshaper.LogicalTensor(0, "f32", [4.5]),
        lambda: reshaper.Op(0, "StaticReshape").set_attr("shape", object()),
        lambda: reshaper.Op(0, "StaticReshape").add_input("not a tensor"),
        lambda: reshaper.Graph().add_op(None),
        lambda: reshaper.Graph().set_tensor_values(0, [4.5], dtype=np.int64),
        lambda: reshaper.Graph().partitions(policy=3),
        lambda: cp.execute(None),
        lambda: cp.execute([object()]),
        lambda: cp.execute([np.zeros((2, 3), np.float32)], outputs=[object()]),
        lambda: cp.execute([torch.zeros(2, 3).to_sparse()]),
        lambda: cp.execute([np.zeros((2, 3), np.float32), np.zeros(1)]),
        lambda: cp.execute([np.zeros((3, 3), np.float32)]),
    ]
    for number, call in enumerate(calls):
        with pytest.raises(reshaper.Error) as e:
            call()
            print("call", number, "did not raise")
        assert e.value.code and isinstance(e.value.rule, str)
        assert not isinstance(e.value, reshaper._reshaper.NativeError)


# ---------------------------------------------------------------- the doc --

def python_blocks(markdown):
    return re.findall(r"```python\n(.*?)```", markdown, re.S)


def test_the_docs_examples_run():
    """The code of the sections "Load a graph, compile, execute" and
    "Zero-copy execution" of docs/python.md, run as one script."""
    text = open(os.path.join(SOURCE, "docs", "python.md")).read()
    script = ""
    for title in ("## Load a graph, compile, execute", "## Zero-copy execution"):
        section = text[text.index(title):]
        section = section[:section.index("\n## ", 1)]
        blocks = python_blocks(section)
        assert blocks, title
        script += "\n".join(blocks)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=SOURCE,
                       env=os.environ)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "input_dtype_matches" in r.stdout
