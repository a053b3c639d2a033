#!/usr/bin/env python3
"""Writes examples/attention_reshapes.json: the reshapes of one transformer
self-attention block (batch 2, sequence 128, 12 heads of 64), with the
MatMul / StaticTranspose / SoftMax ops around them that other backends own.
Kept as a script so the example can be regenerated; the JSON is checked in."""
import json
import sys

B, S, H, D = 2, 128, 12, 64
E = H * D
next_id = [0]
ops = []


def lt(shape, dtype="f32", layout="strided", prop="undef", values=None):
    t = {"id": next_id[0], "dtype": dtype, "shape": shape, "stride": dense(shape),
         "layout_type": layout, "property_type": prop}
    if values is not None:
        t["values"] = values
    next_id[0] += 1
    return t


def dense(shape):
    strides, run = [], 1
    for d in reversed(shape):
        strides.insert(0, run)
        run *= max(d, 1)
    return strides


def op(kind, name, inputs, outputs, attrs=None, **ext):
    o = {"id": len(ops), "name": name, "kind": kind}
    o.update(ext)
    o["attrs"] = attrs or {}
    o["inputs"] = inputs
    o["outputs"] = outputs
    ops.append(o)
    return outputs[0]


def static_reshape(name, x, shape, out_shape, special_zero=False):
    out = lt(out_shape)
    return op("StaticReshape", name, [x], [out], {
        "special_zero": {"type": "bool", "value": int(special_zero)},
        "shape": {"type": "s64[]", "value": shape}})


def transpose(name, x, order, as_view=False):
    out = lt([x["shape"][i] for i in order])
    if as_view:  # the transposed tensor is a strided view of its input
        out["stride"] = [x["stride"][i] for i in order]
    return op("StaticTranspose", name, [x], [out], {"order": {"type": "s64[]", "value": order}})


def matmul(name, a, b, out_shape, transpose_b=False):
    out = lt(out_shape)
    return op("MatMul", name, [a, b], [out], {
        "transpose_a": {"type": "bool", "value": 0},
        "transpose_b": {"type": "bool", "value": int(transpose_b)}})


x = lt([B * S, E])
heads = {}
for which in ("q", "k", "v"):
    w = lt([E, E], prop="constant")
    proj = matmul(f"{which}_proj", x, w, [B * S, E])
    # [B*S, E] -> [B, S, H, D]: ONNX Reshape with a constant shape input for q,
    # oneDNN StaticReshape (special_zero copies nothing here) for k and v.
    if which == "q":
        shape = lt([4], dtype="s64", prop="constant", values=[B, S, H, D])
        split = lt([B, S, H, D])
        split = op("Reshape", "q_split_heads", [proj, shape], [split],
                   {"allowzero": {"type": "s64", "value": 0}}, domain="ai.onnx", version=14)
    else:
        split = static_reshape(f"{which}_split_heads", proj, [B, S, H, D], [B, S, H, D])
    heads[which] = transpose(f"{which}_transpose", split, [0, 2, 1, 3])

scores = matmul("scores", heads["q"], heads["k"], [B, H, S, S], transpose_b=True)
probs = lt([B, H, S, S])
op("SoftMax", "softmax", [scores], [probs], {"axis": {"type": "s64", "value": 3}})
context = matmul("context", probs, heads["v"], [B, H, S, D])
# The merge transpose hands over a strided view (no copy), so the reshape
# chain after it cannot alias: it reorders into dense [B*S, E].
merged = transpose("merge_transpose", context, [0, 2, 1, 3], as_view=True)
# [B, S, H, D] -> [B, S, E] -> [B*S, E]: a chain the partitioner fuses. The
# first keeps B and S with special_zero copies.
merged = static_reshape("merge_heads", merged, [0, 0, E], [B, S, E], special_zero=True)
flat = static_reshape("flatten_tokens", merged, [-1, E], [B * S, E])
wo = lt([E, E], prop="constant")
out = matmul("out_proj", flat, wo, [B * S, E])

graph = {"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
json.dump(graph, sys.stdout, indent=2)
print()
