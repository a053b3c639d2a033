"""reshaper.torch, the PyTorch graph pass (contract 5.2), on small hand-written
modules: each ATen data-movement call and chains of them, aliases as views,
kernels into outputs of PyTorch's strides (size-1 dims included), re-tracing
per input signature, in-place writes, dtypes beyond the oneDNN opset's."""
import os
import re

import pytest
import torch  # python3-torch: scripts/setup.sh installs it, so its absence fails here, loudly
from torch.fx.experimental.proxy_tensor import make_fx

import reshaper
import reshaper.torch as rtorch

SOURCE = os.environ.get("RESHAPER_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MOVEMENT = {"view", "_unsafe_view", "_reshape_alias", "reshape", "permute", "transpose", "t", "squeeze",
            "unsqueeze", "flatten", "movedim", "clone"}


def movement_calls(model, inputs):
    """The data-movement calls of a fresh make_fx trace, counted apart from the pass."""
    with torch.no_grad():
        g = make_fx(model)(*inputs)
    names = [n.target.overloadpacket.__name__ for n in g.graph.nodes
             if n.op == "call_function" and hasattr(n.target, "overloadpacket")]
    return [n for n in names if n in MOVEMENT]


def chain_runs(compiled, inputs):
    """(chain, input, output) of every reshaper partition run on `inputs` by
    the graph traced for their signature, and that graph's result."""
    runs = []
    key = rtorch._signature(inputs)
    gm = compiled._traced[key].gm

    class Spy(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op == "call_function" and n.target is rtorch._run_chain:
                chain = getattr(gm, n.args[0].target)
                runs.append((chain, self.env[n.args[1]], out))
            return out

    with torch.no_grad():
        result = Spy(gm, garbage_collect_values=False).run(*inputs)
    return runs, result


def assert_same(expected, got):
    """Bit-identical values and identical strides, through tuples and lists."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected)
        for e, g in zip(expected, got):
            assert_same(e, g)
        return
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    assert got.stride() == expected.stride()
    assert torch.equal(got, expected)


def run_both(model, *inputs):
    compiled = rtorch.compile(model, inputs)
    with torch.no_grad():
        expected = model(*inputs)
    got = compiled(*inputs)
    assert_same(expected, got)
    return compiled, got


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(len(shape))).to(dtype)


# Each Python-level call, and the ATen calls make_fx records for it.
SINGLE_CALLS = {
    "view": (lambda x: x.view(6, 4) * 2, {"view"}),
    "reshape_as_view": (lambda x: x.reshape(4, 6) * 2, {"_reshape_alias"}),
    "reshape_copies": (lambda x: x.transpose(0, 1).reshape(12, 2) * 2, {"transpose", "clone", "_unsafe_view"}),
    "flatten": (lambda x: x.flatten(1) * 2, {"_reshape_alias"}),
    "permute": (lambda x: x.permute(2, 0, 1) * 2, {"permute"}),
    "transpose": (lambda x: x.transpose(-1, 0) * 2, {"transpose"}),
    "t": (lambda x: x[0].t() * 2, {"t"}),
    "movedim": (lambda x: x.movedim(0, 2) * 2, {"permute"}),
    "squeeze_all": (lambda x: x[:1].squeeze() * 2, {"squeeze"}),
    "squeeze_dim": (lambda x: x[:, :1].squeeze(1) * 2, {"squeeze"}),
    "unsqueeze": (lambda x: x.unsqueeze(-1) * 2, {"unsqueeze"}),
    "contiguous_of_permuted": (lambda x: x.permute(1, 2, 0).contiguous() * 2, {"permute", "clone"}),
    "clone_of_permuted": (lambda x: (x + 0).permute(1, 2, 0).clone() * 2, {"permute", "clone"}),
    "clone_channels_last": (lambda x: (x + 0).unsqueeze(0).clone(memory_format=torch.channels_last) * 2,
                            {"unsqueeze", "clone"}),
    "reshape_of_expanded": (lambda x: x[:, :1].expand(2, 5, 4).reshape(10, 4) * 2, {"clone", "_unsafe_view"}),
    "aten_unsafe_view": (lambda x: torch.ops.aten._unsafe_view(x * 2, [24]), {"_unsafe_view"}),
    "aten_reshape_alias": (lambda x: torch.ops.aten._reshape_alias(x * 2, [3, 8], [8, 1]), {"_reshape_alias"}),
}


@pytest.mark.parametrize("name", sorted(SINGLE_CALLS))
def test_each_movement_call_runs_in_reshaper_bit_exact(name):
    fn, aten_calls = SINGLE_CALLS[name]
    model = Fn(fn).eval()
    x = randn(2, 3, 4)
    assert set(movement_calls(model, (x,))) == aten_calls
    compiled, _ = run_both(model, x)
    s = rtorch.summary(compiled)
    assert s["movement_calls"] == len(movement_calls(model, (x,)))
    assert s["claimed"] == s["movement_calls"]
    assert s["partitions"] == 1 == s["alias"] + s["kernel"] + s["reorder"]


def test_view_chain_is_an_alias_of_its_input_storage():
    model = Fn(lambda x: (x * 2).view(2, 12).unsqueeze(0).transpose(1, 2).squeeze(0) + 1).eval()
    compiled, _ = run_both(model, randn(2, 3, 4))
    s = rtorch.summary(compiled)
    assert (s["claimed"], s["partitions"], s["alias"]) == (4, 1, 1)
    ((chain, src, out),), _ = chain_runs(compiled, (randn(2, 3, 4),))
    assert chain.alias
    assert out.storage().data_ptr() == src.storage().data_ptr()
    assert out.data_ptr() == src.data_ptr()


def test_alias_returned_from_the_model_is_a_view_of_the_input():
    model = Fn(lambda x: x.view(4, 6)).eval()
    x = randn(2, 3, 4)
    _, out = run_both(model, x)
    assert out.storage().data_ptr() == x.storage().data_ptr()


def test_moving_chain_writes_a_new_tensor_with_pytorchs_strides():
    # split heads and merge them back, as attention does: a real move
    model = Fn(lambda x: (x + 1).view(2, 5, 3, 4).permute(0, 2, 1, 3).contiguous().view(2, 3, 20) * 2).eval()
    compiled, _ = run_both(model, randn(2, 5, 12))
    s = rtorch.summary(compiled)
    assert (s["claimed"], s["partitions"]) == (4, 1)
    assert s["kernel"] + s["reorder"] == 1
    ((chain, src, out),), _ = chain_runs(compiled, (randn(2, 5, 12),))
    assert not chain.alias
    assert out.storage().data_ptr() != src.storage().data_ptr()
    assert out.is_contiguous()


def test_size_one_strides_are_pytorchs_and_the_next_convolution_matches():
    # [1,C,1,W] permuted: the strides of the size-1 dims are whatever the
    # view gives; a convolution after it must see the same ones.
    conv = torch.nn.Conv2d(4, 3, 1)
    model = Fn(lambda x: conv((x + 0).permute(0, 3, 1, 2))).eval()
    x = randn(1, 1, 5, 4)
    with torch.no_grad():
        view = (x + 0).permute(0, 3, 1, 2)
    compiled, _ = run_both(model, x)
    ((chain, _, out),), _ = chain_runs(compiled, (x,))
    assert out.stride() == view.stride()
    # size-1 dims in a copying chain too: strides PyTorch's contiguous() gives
    model2 = Fn(lambda x: (x + 0).transpose(1, 3).contiguous().unsqueeze(2) * 1).eval()
    compiled2, got = run_both(model2, randn(1, 3, 1, 5))
    assert got.stride() == (15, 3, 3, 3, 1)


def test_chain_breaks_where_an_intermediate_has_another_user():
    def fn(x):
        h = (x + 1).view(2, 12)
        return h.t() * 2, h + 1  # h feeds the t() and the add: two chains
    compiled, _ = run_both(Fn(fn).eval(), randn(2, 3, 4))
    s = rtorch.summary(compiled)
    assert (s["movement_calls"], s["claimed"], s["partitions"]) == (2, 2, 2)


def test_another_input_signature_traces_again_and_stays_exact():
    model = Fn(lambda x: (x * 2).transpose(1, 2).reshape(x.shape[0], -1) + x.flatten(1)[:, :1]).eval()
    compiled = rtorch.compile(model, (randn(2, 3, 4),))
    before = rtorch.summary(compiled)
    for x in (randn(2, 3, 4), randn(5, 3, 4), randn(3, 7, 4), randn(4, 2, 3).transpose(0, 2),
              randn(2, 3, 4, dtype=torch.float64), randn(2, 3, 4, dtype=torch.bfloat16)):
        with torch.no_grad():
            expected = model(x)
        assert_same(expected, compiled(x))
        assert_same(expected, compiled(x))  # the kept trace, a second time
    assert len(compiled.graph_modules) == 6
    assert rtorch.summary(compiled) == before  # the summary stays the example's


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.uint8, torch.float64, torch.float16,
                                   torch.bfloat16, torch.int32, torch.complex64])
def test_dtypes_beyond_the_onednn_opset(dtype):
    model = Fn(lambda x: (x + x).permute(2, 0, 1).contiguous().view(4, 6) if dtype != torch.bool
               else (x | x).permute(2, 0, 1).contiguous().view(4, 6)).eval()
    x = (randn(2, 3, 4) * 10).to(dtype)
    compiled, _ = run_both(model, x)
    assert rtorch.summary(compiled)["claimed"] == 3


def test_clone_written_in_place_stays_a_copy():
    # reshaper would alias an identity clone; the add_ must not reach x
    def fn(x):
        y = x.clone()
        y.add_(1)
        return y
    model = Fn(fn).eval()
    x = randn(2, 3)
    before = x.clone()
    compiled, y = run_both(model, x)
    assert torch.equal(x, before)
    s = rtorch.summary(compiled)
    assert s["claimed"] == 0 and sum(s["unclaimed_reasons"].values()) == 1


def test_in_place_write_through_a_view_reaches_its_base():
    def fn(x):
        h = x * 1
        h.view(-1).add_(1)  # PyTorch writes h through the view
        return h
    compiled, y = run_both(Fn(fn).eval(), randn(2, 3))
    assert rtorch.summary(compiled)["alias"] == 1


def test_zero_volume_and_scalars_give_pytorchs_answer():
    model = Fn(lambda x: ((x * 2).view(0, 4).t() + 1, (x.sum() * 1).view(1).unsqueeze(0))).eval()
    run_both(model, torch.zeros(2, 0, 4))


def test_summary_of_anything_else_is_an_error():
    with pytest.raises(reshaper.Error) as e:
        rtorch.summary(torch.nn.Linear(2, 2))
    assert e.value.code == "invalid_arguments"


def test_the_example_of_docs_python_md_runs():
    text = open(os.path.join(SOURCE, "docs", "python.md")).read()
    section = text.split("## PyTorch: reshaper.torch", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/python.md", "exec"), {})


def test_reshape_alias_with_strides_of_no_reshape_stays_pytorchs():
    # _reshape_alias takes its strides as an argument: these read x transposed
    model = Fn(lambda x: torch.ops.aten._reshape_alias(x * 2, [4, 3], [1, 4]) + 1).eval()
    compiled, _ = run_both(model, randn(3, 4))
    s = rtorch.summary(compiled)
    assert s["claimed"] == 0
    assert list(s["unclaimed_reasons"].values()) == [1]


def test_a_signature_make_fx_cannot_trace_runs_eagerly():
    class Picky(torch.nn.Module):
        def forward(self, x):
            if x.shape[0] > 2:  # item() of a traced tensor fails under make_fx
                return x.t() * x.sum().item()
            return (x + 1).transpose(0, 1).contiguous()
    model = Picky().eval()
    compiled = rtorch.compile(model, (randn(2, 3),))
    x = randn(3, 3)
    with pytest.warns(UserWarning, match="runs eagerly"):
        assert_same(model(x), compiled(x))
    assert_same(model(x), compiled(x))  # remembered: no second attempt, no warning
    assert len(compiled.graph_modules) == 1
