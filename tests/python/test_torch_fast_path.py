"""The native fast path of execute with torch tensors (_reshaper.FastPath):
it takes exactly the compiled tensors, gives what the general path gives
(bit-exact values, alias outputs sharing the input's storage), and declines
every other call, which the general path then validates or converts as
before: a change of shape, strides, dtype, device or layout between calls
is never run on the first call's assumptions.

Every test runs twice: with the torch bridge (_reshaper_torch, torch's C++
API) where it was built, and with tensors read through their Python
attributes (RESHAPER_TORCH_BRIDGE=0)."""
import os

import numpy as np
import pytest

import reshaper

torch = pytest.importorskip("torch")

T = reshaper.LogicalTensor


def bridge_built():
    try:
        from reshaper import _torch_bridge_info  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.fixture(autouse=True, params=["bridge", "attributes"])
def torch_reads(request, monkeypatch):
    """Which way the fast path reads and makes torch tensors (read when a
    compiled partition first meets a torch tensor: each test compiles its own)."""
    if request.param == "bridge" and not bridge_built():
        pytest.skip("the torch bridge was not built (needs libtorch-dev)")
    monkeypatch.setenv("RESHAPER_TORCH_BRIDGE", "1" if request.param == "bridge" else "0")
    return request.param


def compiled(op):
    (p,) = reshaper.Graph().add_op(op).partitions()
    return p.compile()


def transpose(dtype="f32", shape=(3, 5)):
    """ONNX Transpose (every dtype), reversing the axes: a movement."""
    return compiled(reshaper.Op(0, "Transpose", "t", domain="ai.onnx").add_input(T(0, dtype, list(shape)))
                    .add_output(T(1, dtype, [-1] * len(shape))).set_attr("perm", list(range(len(shape)))[::-1]))


def split(dtype="f32"):
    return compiled(reshaper.Op(0, "StaticReshape", "split").add_input(T(0, dtype, [4, 6]))
                    .add_output(T(1, dtype, [-1, -1, -1])).set_attr("shape", [4, 2, 3])
                    .set_attr("special_zero", False))


def warmed(cp, x):
    """The first execute makes the plan (general path) and hands torch over."""
    cp.execute([x])
    assert cp._fast is not None and cp._fast.has_torch
    assert cp._fast.has_torch_bridge == (os.environ["RESHAPER_TORCH_BRIDGE"] == "1")
    return cp


def same_bits(a, b):
    if a.dtype == torch.bool:
        return torch.equal(a, b)
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def test_exact_tensor_moves_into_a_new_tensor_bit_exact():
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)
    fast = cp._fast([x], None)
    assert fast is not None
    (out,) = fast
    assert type(out) is torch.Tensor and out.dtype == torch.float32
    assert out.shape == (5, 3) and out.stride() == (3, 1)
    assert torch.equal(out, x.t()) and out.storage().data_ptr() != x.storage().data_ptr()
    # The same through execute, a tuple of inputs too.
    assert torch.equal(cp.execute([x])[0], x.t()) and torch.equal(cp.execute((x,))[0], x.t())


@pytest.mark.parametrize("dtype,torch_dtype", [("bf16", torch.bfloat16), ("boolean", torch.bool),
                                               ("c64", torch.complex64), ("s64", torch.int64)])
def test_every_torch_dtype_is_taken(dtype, torch_dtype):
    bits = torch.from_numpy(np.random.default_rng(1).integers(0, 256, 2 * 3 * 4 * 16, dtype=np.uint8).reshape(2, 3, 64))
    if torch_dtype == torch.bool:
        x = (bits[:, :, :4] & 1).to(torch.bool)
    else:
        x = bits.view(torch_dtype)[:, :, :4].contiguous()
    cp = warmed(transpose(dtype, (2, 3, 4)), x)
    (out,) = cp._fast([x], None)
    assert same_bits(out, x.permute(2, 1, 0))


def test_alias_output_is_a_view_of_the_input_storage_offset_kept():
    base = torch.arange(48, dtype=torch.float32)
    x = base[24:].view(4, 6)  # storage offset 24
    cp = warmed(split(), x)
    assert cp.lowering == "alias"
    (view,) = cp._fast([x], None)
    assert view.shape == (4, 2, 3) and view.stride() == (6, 3, 1)
    assert view.storage_offset() == 24 and view.data_ptr() == x.data_ptr()
    assert view.storage().data_ptr() == base.storage().data_ptr()
    assert torch.equal(view, x.reshape(4, 2, 3)) and not view.requires_grad


def test_outputs_given_are_filled_and_returned():
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)
    out = torch.full((5, 3), -1.0)
    (r,) = cp._fast([x], [out])
    assert r is out and torch.equal(out, x.t())
    # An output of other strides or dtype is declined, and refused by the general path.
    wrong = torch.empty(3, 5).t()
    assert cp._fast([x], [wrong]) is None
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x], outputs=[wrong])
    assert e.value.rule == "execute_buffers" and "output 0 (tensor 1)" in str(e.value)
    assert cp._fast([x], [torch.empty(5, 3, dtype=torch.float64)]) is None
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x], outputs=[torch.empty(5, 3, dtype=torch.float64)])
    assert e.value.rule == "input_dtype_matches"


def test_a_change_between_calls_is_declined_and_validated():
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)

    def declined_then(given):
        assert cp._fast([given], None) is None
        return cp.execute([given])

    # dtype
    with pytest.raises(reshaper.Error) as e:
        declined_then(x.double())
    assert (e.value.code, e.value.rule) == ("invalid_arguments", "input_dtype_matches")
    assert "input 0 (tensor 0) has dtype f32" in str(e.value) and str(e.value).endswith("[input_dtype_matches]")
    # shape of another volume; of the same volume (the same logical values, read as the compiled shape)
    with pytest.raises(reshaper.Error) as e:
        declined_then(torch.zeros(3, 6))
    assert (e.value.code, e.value.rule) == ("invalid_shape", "boundary_shape")
    assert torch.equal(declined_then(x.reshape(15))[0], x.t())
    # strides: a non-contiguous input of the right shape is copied into the compiled layout first
    wide = torch.zeros(3, 10)
    wide[:, ::2] = x
    assert torch.equal(declined_then(wide[:, ::2])[0], x.t())
    assert torch.equal(declined_then(x.t().contiguous().t())[0], x.t())
    # device and layout
    with pytest.raises(reshaper.Error) as e:
        declined_then(torch.empty(3, 5, device="meta"))
    assert e.value.rule == "execute_buffers" and "meta" in str(e.value)
    with pytest.raises(reshaper.Error) as e:
        declined_then(x.to_sparse())
    assert e.value.rule == "execute_buffers"
    # requires_grad (read as data), a lazily negated tensor (read as its values), a subclass
    g = x.clone().requires_grad_()
    (out,) = declined_then(g)
    assert torch.equal(out, x.t()) and not out.requires_grad
    assert torch.equal(declined_then(torch._neg_view(x))[0], -x.t())
    assert torch.equal(declined_then(torch.nn.Parameter(x.clone(), requires_grad=False))[0], x.t())
    # numpy and torch mixed, numpy alone: outputs of the first input's library
    (n,) = cp.execute([x.numpy()])
    assert isinstance(n, np.ndarray) and np.array_equal(n, x.numpy().T)
    # After all that the exact tensor is taken again, and right.
    (again,) = cp._fast([x], None)
    assert torch.equal(again, x.t())


def test_a_lazily_conjugated_complex_input_is_read_as_its_values():
    x = torch.randn(3, 5, dtype=torch.complex64)
    cp = warmed(transpose("c64"), x)
    c = x.conj()
    assert cp._fast([c], None) is None
    (out,) = cp.execute([c])
    assert torch.equal(out, x.conj().resolve_conj().t()) and not out.is_conj()


def test_alias_of_a_changed_input_is_still_a_view():
    base = torch.arange(24, dtype=torch.float32)
    cp = warmed(split(), base.view(4, 6))
    flat = base.clone()  # the same volume, another shape: declined, viewed by the general path
    assert cp._fast([flat], None) is None
    (view,) = cp.execute([flat])
    assert view.storage().data_ptr() == flat.storage().data_ptr() and torch.equal(view, flat.view(4, 2, 3))


def test_alias_with_size_one_dims_keeps_the_compiled_strides():
    # torch's view would choose the strides of size-1 dims: as_strided gives the compiled ones.
    cp = compiled(reshaper.Op(0, "StaticReshape", "r").add_input(T(0, "f32", [4, 6]))
                  .add_output(T(1, "f32", [-1, -1, -1])).set_attr("shape", [4, 1, 6]).set_attr("special_zero", False))
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    want = tuple(cp.outputs[0].strides or (6, 6, 1))
    cp = warmed(cp, x)
    (view,) = cp._fast([x], None)
    assert view.stride() == want and view.data_ptr() == x.data_ptr() and torch.equal(view, x.reshape(4, 1, 6))


def test_each_call_moves_into_its_own_new_tensor_of_the_compiled_strides():
    # Small outputs are made from a tensor kept at the first call (empty_like); the
    # output is new each call, never that tensor nor the last call's output.
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)
    (a,) = cp._fast([x], None)
    (b,) = cp._fast([x + 1], None)
    assert a.storage().data_ptr() != b.storage().data_ptr()
    assert torch.equal(a, x.t()) and torch.equal(b, (x + 1).t())
    assert a.stride() == b.stride() == (3, 1) and not b.requires_grad
    b.resize_(100)  # torch-allocated: resizable like any new tensor
    # A size-1 dim keeps the compiled stride; an output past the template size (64 KiB) too.
    for shape in ((1, 3, 5), (1, 160, 120)):
        y = torch.randn(*shape)
        cp = transpose("f32", shape)
        want = tuple(cp.outputs[0].strides or ())
        cp = warmed(cp, y)
        (out,) = cp._fast([y], None)
        assert out.shape == shape[::-1] and torch.equal(out, y.permute(2, 1, 0))
        if want:
            assert out.stride() == want
        assert out.stride() == cp.execute([y.clone()])[0].stride()


def test_alias_view_is_new_each_call_and_shares_the_input():
    x = torch.arange(24, dtype=torch.float32).view(4, 6)
    cp = warmed(split(), x)
    (v1,) = cp._fast([x], None)
    (v2,) = cp._fast([x], None)
    assert v1 is not v2 and v1.data_ptr() == v2.data_ptr() == x.data_ptr()
    x2 = torch.zeros(4, 6)
    (v3,) = cp._fast([x2], None)
    assert v3.data_ptr() == x2.data_ptr() and v3.stride() == (6, 3, 1)
    v3[0, 0, 0] = 7.0
    assert x2[0, 0] == 7.0


def test_execute_after_the_first_call_takes_every_argument_form_and_is_collected():
    import gc
    import weakref
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)
    assert "execute" in vars(cp)  # the native execute, from the first call on
    out = torch.empty(5, 3)
    assert cp.execute([x], outputs=[out])[0] is out and torch.equal(out, x.t())
    assert cp.execute([x], [out])[0] is out
    assert torch.equal(cp.execute(inputs=[x])[0], x.t())
    assert torch.equal(cp.execute(inputs=[x], outputs=None)[0], x.t())
    # Declined calls still end in the general path's errors.
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x, x])
    assert e.value.rule == "execute_buffers"
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x], outputs=[torch.empty(5, 3, dtype=torch.float64)])
    assert e.value.rule == "input_dtype_matches"
    with pytest.raises(TypeError):
        cp.execute()
    with pytest.raises(TypeError):
        cp.execute([x], nonsense=1)
    # The native execute refers back to the partition: a cycle the collector frees.
    ref = weakref.ref(cp)
    del cp, e  # e's traceback holds the general path's frames, and so the partition
    gc.collect()
    assert ref() is None


def test_an_input_is_taken_whatever_the_stride_of_a_size_one_dim_and_declined_if_not_dense():
    base = torch.randn(3, 5)
    cp = warmed(transpose("f32", (1, 3, 5)), base.view(1, 3, 5))
    odd = base.as_strided((1, 3, 5), (99, 5, 1))  # the size-1 dim's stride addresses nothing
    (out,) = cp._fast([odd], None)
    assert torch.equal(out, base.view(1, 3, 5).permute(2, 1, 0))
    wide = torch.randn(3, 10)
    assert cp._fast([wide[:, ::2].view(1, 3, 5)], None) is None
    assert cp._fast([base.t().contiguous().t().view(1, 3, 5)], None) is None
    assert torch.equal(cp.execute([wide[:, ::2].view(1, 3, 5)])[0], wide[:, ::2].reshape(1, 3, 5).permute(2, 1, 0))


def test_a_zero_dim_tensor_is_taken_and_a_one_element_one_dim_tensor_declined():
    cp = compiled(reshaper.Op(0, "StaticReshape", "r").add_input(T(0, "f32", []))
                  .add_output(T(1, "f32", [-1, -1])).set_attr("shape", [1, 1]).set_attr("special_zero", False))
    x = torch.tensor(2.5)
    cp = warmed(cp, x)
    (view,) = cp._fast([x], None)
    assert view.shape == (1, 1) and view.data_ptr() == x.data_ptr() and view.item() == 2.5
    one = torch.tensor([2.5])
    assert cp._fast([one], None) is None
    (out,) = cp.execute([one])  # the same volume: read as the compiled shape
    assert out.shape == (1, 1) and out.item() == 2.5
    # A 0-dim input of a move, and a 0-dim output made new.
    t = warmed(transpose("s32", ()), torch.tensor(7, dtype=torch.int32))
    (r,) = t._fast([torch.tensor(-3, dtype=torch.int32)], None)
    assert r.shape == () and r.dtype == torch.int32 and r.item() == -3


def test_wrong_device_dtype_strides_and_grad_are_declined_then_refused_or_read():
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)
    for given in (x.to(torch.float16), x.to(torch.int32), torch.empty(3, 5, device="meta"), x.t().contiguous().t(),
                  x.clone().requires_grad_(), torch._neg_view(x), x.to_sparse()):
        assert cp._fast([given], None) is None
    with pytest.raises(reshaper.Error) as e:
        cp.execute([torch.empty(3, 5, device="meta")])
    assert e.value.rule == "execute_buffers"
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x.to(torch.int32)])
    assert e.value.rule == "input_dtype_matches"
    # An output given on another device or read-only layout is declined too, and refused.
    assert cp._fast([x], [torch.empty(5, 3, device="meta")]) is None
    with pytest.raises(reshaper.Error):
        cp.execute([x], outputs=[torch.empty(5, 3, device="meta")])
    # A requires_grad output given is written (as the general path does).
    out = torch.zeros(5, 3, requires_grad=True)
    with torch.no_grad():
        (r,) = cp._fast([x], [out])
    assert r is out and torch.equal(out.detach(), x.t())


def test_a_torch_function_mode_sees_the_general_path():
    from torch.overrides import TorchFunctionMode

    seen = []

    class Count(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
    cp = warmed(transpose(), x)
    with Count():
        (out,) = cp.execute([x])
    assert torch.equal(out, x.t()) and seen  # the mode saw the reads, whichever path ran
    (again,) = cp._fast([x], None)
    assert torch.equal(again, x.t())


def test_the_bridge_is_loaded_only_for_the_torch_it_was_built_for(monkeypatch):
    if not bridge_built():
        pytest.skip("the torch bridge was not built (needs libtorch-dev)")
    assert reshaper._torch_bridge(torch) is not None or os.environ["RESHAPER_TORCH_BRIDGE"] == "0"

    class OtherTorch:
        __version__ = "0.0.1"
        __file__ = torch.__file__
    assert reshaper._torch_bridge(OtherTorch) is None

    class ElsewhereTorch:
        __version__ = torch.__version__
        __file__ = "/nowhere/torch/__init__.py"
    assert reshaper._torch_bridge(ElsewhereTorch) is None
