"""Building the attention example's reshapes in Python (as
examples/builder_example.c does in C), then partitioning, compiling and
executing them on numpy arrays, checked against numpy's reshape; then an
invalid op and its reshaper.Error. Run with PYTHONPATH=build/python."""
import sys

import numpy as np

import reshaper


def lt(id, shape, dtype="f32", strides=None, property="undef"):
    return reshaper.LogicalTensor(id, dtype, shape, strides, property=property)


def static_reshape(id, name, src, dst, shape, special_zero=False):
    return (reshaper.Op(id, "StaticReshape", name).add_input(src).add_output(dst)
            .set_attr("shape", shape).set_attr("special_zero", special_zero))


def build_attention_reshapes():
    g = reshaper.Graph("cpu")
    # q_split_heads: ONNX Reshape (opset 14) with a constant shape input.
    g.add_op(reshaper.Op(1, "Reshape", "q_split_heads", domain="ai.onnx", version=14)
             .add_input(lt(2, [256, 768])).add_input(lt(3, [4], "s64", property="constant"))
             .add_output(lt(4, [2, 128, 12, 64])).set_attr("allowzero", 0))
    g.set_tensor_values(3, [2, 128, 12, 64], dtype=np.int64)
    g.add_op(static_reshape(4, "k_split_heads", lt(7, [256, 768]), lt(8, [2, 128, 12, 64]), [2, 128, 12, 64]))
    g.add_op(static_reshape(7, "v_split_heads", lt(11, [256, 768]), lt(12, [2, 128, 12, 64]), [2, 128, 12, 64]))
    # merge_heads then flatten_tokens, on the transposed context [2,12,128,64].
    g.add_op(static_reshape(13, "merge_heads", lt(17, [2, 128, 12, 64], strides=[98304, 64, 8192, 1]),
                            lt(18, [-1, -1, -1]), [0, 0, 768], special_zero=True))
    g.add_op(static_reshape(14, "flatten_tokens", lt(18, [-1, -1, -1]), lt(19, [-1, -1]), [-1, 768]))
    return g.finalize()


def main():
    g = build_attention_reshapes()
    rng = np.random.default_rng(0)
    checked = 0
    for p in g.partitions():
        if not p.supported:
            continue
        cp = p.compile()
        data = [t for t in cp.inputs if t.dtype == "f32"][0]
        x = rng.standard_normal(data.shape).astype(np.float32)
        args = [x if t.dtype == "f32" else np.array([2, 128, 12, 64], dtype=np.int64) for t in cp.inputs]
        (out,) = cp.execute(args)
        assert np.array_equal(out, x.reshape(out.shape)), f"partition {p.id}: wrong result"
        print(f"  partition {p.id} ops {p.ops}: {cp.lowering}: {cp.plan}"
              + (f"; not an alias: {cp.why_not_alias}" if cp.why_not_alias else "") + " -> checked")
        checked += 1
    bad = reshaper.Graph().add_op(static_reshape(0, "bad_reshape", lt(0, [256, 768]), lt(1, [-1, -1]), [5, 5]))
    try:
        bad.finalize()
        print("an invalid graph was accepted")
        return 1
    except reshaper.Error as e:
        print(f"invalid graph: {e.code} [rule {e.rule}]: {e}")
        if (e.code, e.rule) != ("invalid_shape", "volume_mismatch"):
            return 1
    print(f"builder example (Python): all {checked} partitions checked")
    return 0 if checked == 4 else 1


if __name__ == "__main__":
    sys.exit(main())
