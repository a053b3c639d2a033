"""reshaper.torch on real torchvision models (weights=None, offline): the
transformers and shuffles where data movement lives. Bit-exact against eager
(values and strides) at the example batch and at another batch (a re-trace),
every movement call claimed, aliases views of their input, moves not.

Inputs are as small as each model allows: Debian's torch runs its matrix
products on the reference BLAS, so maxvit_t (224x224 at least: seven-wide
windows at 1/32 scale) costs seconds a forward and is checked at its example
batch only; the other batch's re-trace is covered by the other models."""
import pytest
import torch
import torchvision  # python3-torchvision: scripts/setup.sh installs it

import reshaper.torch as rtorch
from test_torch import assert_same, chain_runs, movement_calls

# name: (constructor kwargs, example input shape, another batch or None)
MODELS = {
    "shufflenet_v2_x0_5": ({}, (1, 3, 64, 64), 2),
    "swin_t": ({}, (1, 3, 64, 64), 2),
    "convnext_tiny": ({}, (1, 3, 32, 32), 2),
    "vit_b_16": ({"image_size": 32}, (1, 3, 32, 32), 2),
    "maxvit_t": ({}, (1, 3, 224, 224), None),
    "mobilenet_v3_small": ({}, (1, 3, 32, 32), 2),
}


def check(model, compiled, x, call=True):
    """`call`: through the module (a new batch: traces); else the graph the
    example inputs traced runs alone (one forward less of the slow models)."""
    with torch.no_grad():
        expected = model(x)
    if call:
        assert_same(expected, compiled(x))
    runs, result = chain_runs(compiled, (x,))
    assert_same(expected, result)
    assert runs
    for chain, src, out in runs:
        shares = out.storage().data_ptr() == src.storage().data_ptr()
        assert shares == chain.alias
        assert out.stride() == chain.stride


@pytest.mark.parametrize("name", sorted(MODELS))
def test_torchvision_model_bit_exact_and_claimed(name):
    kwargs, shape, other_batch = MODELS[name]
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
    x = torch.randn(shape)
    compiled = rtorch.compile(model, (x,))
    s = rtorch.summary(compiled)
    assert s["movement_calls"] == len(movement_calls(model, (x,)))
    assert 0 < s["claimed"] == s["movement_calls"], s["unclaimed_reasons"]
    assert s["partitions"] == s["alias"] + s["kernel"] + s["reorder"] > 0
    check(model, compiled, x, call=False)
    if other_batch is not None:
        check(model, compiled, torch.randn((other_batch,) + shape[1:]))
        assert len(compiled.graph_modules) == 2
