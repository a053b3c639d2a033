"""The Python module: load and build graphs, partitions, compile, execute on
numpy arrays and buffer-protocol objects, errors as reshaper.Error."""
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import reshaper

SOURCE = os.environ.get("RESHAPER_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
ATTENTION = os.path.join(SOURCE, "examples", "attention_reshapes.json")


def lt(id, dtype, shape, strides=None, property="undef", layout="strided"):
    return reshaper.LogicalTensor(id, dtype, shape, strides, layout=layout, property=property)


def static_reshape(id, name, src, dst, shape, special_zero=False):
    return (reshaper.Op(id, "StaticReshape", name).add_input(src).add_output(dst)
            .set_attr("shape", shape).set_attr("special_zero", special_zero))


def partitions_summary(graph):
    return [(p.id, p.supported, p.ops, p.reason, [vars(t) for t in p.inputs], [vars(t) for t in p.outputs])
            for p in graph.partitions()]


def test_from_file_partitions_the_attention_example():
    g = reshaper.Graph.from_file(ATTENTION)
    parts = g.partitions(policy="fusion")
    assert len(parts) == 11
    claimed = [p for p in parts if p.supported]
    assert [p.ops for p in claimed] == [[1, 2], [4, 5], [7, 8], [12, 13, 14]]
    assert all(p.reason for p in parts if not p.supported)
    assert reshaper.Graph.from_json(open(ATTENTION).read()).partitions(policy="debug")[0].id == 0


def test_execute_on_numpy_matches_numpy_reshape():
    g = reshaper.Graph.from_file(ATTENTION)
    merge = [p for p in g.partitions() if p.ops == [12, 13, 14]][0]
    cp = merge.compile(engine="cpu")
    assert cp.lowering in ("reorder", "kernel")
    assert "not contiguous" in cp.why_not_alias
    data_lt = [t for t in cp.inputs if t.dtype == "f32"][0]
    # The logical values of the [2,12,128,64] input: heads merged back.
    x = np.random.default_rng(0).standard_normal(data_lt.shape).astype(np.float32)
    (out,) = cp.execute([x])
    assert out.shape == (256, 768)
    np.testing.assert_array_equal(out, x.transpose(0, 2, 1, 3).reshape(256, 768))


def test_alias_partition_and_buffer_protocol_input():
    g = reshaper.Graph("cpu").add_op(static_reshape(0, "r", lt(0, "f32", [2, 3, 4]), lt(1, "f32", [-1, -1]), [4, 6]))
    (p,) = g.partitions()
    cp = p.compile()
    assert cp.lowering == "alias"
    assert cp.why_not_alias == ""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (out,) = cp.execute([memoryview(x)])  # any buffer-protocol object
    np.testing.assert_array_equal(out, x.reshape(4, 6))


def test_built_graph_equals_the_graph_from_its_json():
    g = reshaper.Graph("cpu")
    g.add_op(static_reshape(4, "k_split_heads", lt(7, "f32", [256, 768]), lt(8, "f32", [-1, -1, -1, -1]),
                            [2, 128, 12, 64]))
    g.add_op(reshaper.Op(1, "Reshape", "q_split_heads", domain="ai.onnx", version=14)
             .add_input(lt(2, "f32", [256, 768])).add_input(lt(3, "s64", [4], property="constant"))
             .add_output(lt(4, "f32", [-1, -1, -1, -1])).set_attr("allowzero", 0))
    g.set_tensor_values(3, [2, 128, 12, 64], dtype=np.int64)
    g.finalize()
    assert g.finalized
    again = reshaper.Graph.from_json(g.to_json())
    assert partitions_summary(again) == partitions_summary(g)
    assert again.to_json() == g.to_json()
    assert g.tensor(4).shape == [2, 128, 12, 64]


def test_errors_carry_code_rule_and_message():
    g = reshaper.Graph().add_op(static_reshape(3, "bad", lt(0, "f32", [2, 3]), lt(1, "f32", [-1, -1]), [5, 5]))
    with pytest.raises(reshaper.Error) as e:
        g.partitions()
    assert e.value.code == "invalid_shape"
    assert e.value.rule == "volume_mismatch"
    assert "op 3 'bad'" in str(e.value)
    with pytest.raises(reshaper.Error) as e:
        reshaper.Graph.from_json("{ \"graph\": [")
    assert (e.value.code, e.value.rule) == ("invalid_graph", "json_syntax")
    g2 = reshaper.Graph().add_op(static_reshape(0, "r", lt(0, "f32", [2, 3]), lt(1, "f32", [6]), [6]))
    with pytest.raises(reshaper.Error) as e:
        g2.add_op(static_reshape(0, "again", lt(1, "f32", [6]), lt(2, "f32", [6]), [6]))
    assert (e.value.code, e.value.rule) == ("invalid_graph", "unique_op_id")


def test_dynamic_shape_resolved_at_execute_from_threads():
    g = reshaper.Graph().add_op(
        reshaper.Op(0, "DynamicReshape", "dyn").add_input(lt(0, "f32", [2, 3, 4]))
        .add_input(lt(1, "s32", [3], property="variable")).add_output(lt(2, "f32", [-1, -1, -1]))
        .set_attr("special_zero", True))
    (p,) = g.partitions()
    cp = p.compile()
    assert cp.outputs[0].shape == [-1, -1, -1]
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    targets = [[4, 3, 2], [24, 1, 1], [0, -1, 2], [6, 2, 2]]
    results = {}

    def run(t):
        for _ in range(20):
            (out,) = cp.execute([x, np.array(t, dtype=np.int32)])
            results[tuple(t)] = out

    threads = [threading.Thread(target=run, args=(t,)) for t in targets]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results[(4, 3, 2)].shape == (4, 3, 2)
    assert results[(0, -1, 2)].shape == (2, 6, 2)
    for out in results.values():
        np.testing.assert_array_equal(out.ravel(), x.ravel())
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x, np.array([5, 5, 1], dtype=np.int32)])
    assert e.value.rule == "volume_mismatch"


def test_strided_numpy_view_is_taken_in_its_layout():
    # The compiled input is a transposed buffer: [3,4] with strides [1,3].
    g = reshaper.Graph().add_op(static_reshape(0, "flat", lt(0, "f32", [3, 4], [1, 3]), lt(1, "f32", [-1]), [12]))
    (p,) = g.partitions()
    cp = p.compile()
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    view = base.T  # logical [3,4], element strides [1,3]: used in place
    (out,) = cp.execute([view])
    np.testing.assert_array_equal(out, view.reshape(12))
    (out2,) = cp.execute([np.ascontiguousarray(view)])  # other strides: copied into the layout
    np.testing.assert_array_equal(out2, view.reshape(12))


def test_the_python_builder_example_runs():
    import subprocess
    import sys
    script = os.path.join(SOURCE, "examples", "builder_example.py")
    r = subprocess.run([sys.executable, script], capture_output=True, text=True, env=os.environ)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all 4 partitions checked" in r.stdout


class _DLPackOnly:
    """An object that offers nothing but DLPack (as a torch tensor does)."""

    def __init__(self, array):
        self._a = array

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_input():
    g = reshaper.Graph().add_op(static_reshape(0, "r", lt(0, "f32", [2, 3, 4]), lt(1, "f32", [-1, -1]), [6, 4]))
    (p,) = g.partitions()
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (out,) = p.compile().execute([_DLPackOnly(x)])
    np.testing.assert_array_equal(out, x.reshape(6, 4))


def test_packed_dtypes_cross_by_name_but_have_no_numpy_arrays():
    # Sub-byte types (4-bit, 2-bit) describe tensors and compile; numpy has
    # no such dtypes, so executing on arrays is refused.
    for dtype in ("s4", "u4", "s2", "u2"):
        g = reshaper.Graph().add_op(
            reshaper.Op(0, "Reshape", "r").add_input(lt(0, dtype, [2, 4]))
            .add_input(lt(1, "s64", [1], property="constant")).add_output(lt(2, dtype, [-1]))
            .set_attr("special_zero", False))
        g.set_tensor_values(1, [8], dtype=np.int64)
        (p,) = g.partitions()
        assert (p.inputs[0].dtype, p.outputs[0].dtype, p.outputs[0].shape) == (dtype, dtype, [8])
        assert reshaper.Graph.from_json(g.to_json()).tensor(2).dtype == dtype
        cp = p.compile()
        with pytest.raises(reshaper.Error) as e:
            cp.execute([np.zeros((2, 4), dtype=np.uint8), np.array([8], dtype=np.int64)])
        assert e.value.code == "unimplemented"
        assert dtype in str(e.value)


def test_builder_chain_of_the_family_matches_numpy():
    # ONNX Unsqueeze -> Transpose -> Flatten, built in code: one partition,
    # one movement, the same values numpy's expand_dims/transpose/reshape give.
    unsq = (reshaper.Op(0, "Unsqueeze", "u", domain="ai.onnx", version=21)
            .add_input(lt(0, "f32", [6, 8])).add_input(lt(1, "s64", [1], property="constant"))
            .add_output(lt(2, "f32", [-1, -1, -1])))
    perm = (reshaper.Op(1, "Transpose", "t", domain="ai.onnx", version=21)
            .add_input(lt(2, "f32", [-1, -1, -1])).add_output(lt(3, "f32", [-1, -1, -1]))
            .set_attr("perm", [2, 0, 1]))
    flat = (reshaper.Op(2, "Flatten", "f", domain="ai.onnx", version=21)
            .add_input(lt(3, "f32", [-1, -1, -1])).add_output(lt(4, "f32", [-1, -1]))
            .set_attr("axis", 1))
    g = reshaper.Graph("cpu").add_op(unsq).add_op(perm).add_op(flat)
    g.set_tensor_values(1, np.array([0], dtype=np.int64))
    (p,) = g.partitions()
    assert p.ops == [0, 1, 2]
    cp = p.compile()
    assert cp.lowering in ("kernel", "reorder")
    assert "chain composed" in cp.plan
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    axes = np.array([0], dtype=np.int64)
    (out,) = cp.execute([x, axes])
    np.testing.assert_array_equal(out, np.expand_dims(x, 0).transpose(2, 0, 1).reshape(8, 6))


def test_numpy_fast_path_agrees_with_the_general_path():
    # The native path (_reshaper.FastPath) takes calls whose arrays are
    # exactly the compiled ones; anything else falls to the general path,
    # which gives the same values and the same errors.
    T = reshaper.LogicalTensor
    (p,) = reshaper.Graph().add_op(reshaper.Op(0, "StaticTranspose", "t").add_input(T(0, "f32", [3, 5]))
                                   .add_output(T(1, "f32", [-1, -1])).set_attr("order", [1, 0])).partitions()
    cp = p.compile()
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    (first,) = cp.execute([x])  # makes the plan (general path)
    assert cp._fast is not None
    (fast,) = cp.execute([x])
    np.testing.assert_array_equal(first, x.T)
    np.testing.assert_array_equal(fast, x.T)
    assert fast.flags.owndata and fast.shape == (5, 3) and fast.strides == (12, 4)
    # Declined, then done by the general path: another shape of the same
    # volume, a non-contiguous view, a tuple of inputs, caller's outputs.
    assert cp._fast([x.reshape(15)], None) is None
    np.testing.assert_array_equal(cp.execute([x.reshape(15)])[0], x.T)
    wide = np.zeros((3, 10), np.float32)
    wide[:, ::2] = x
    assert cp._fast([wide[:, ::2]], None) is None
    np.testing.assert_array_equal(cp.execute([wide[:, ::2]])[0], x.T)
    np.testing.assert_array_equal(cp.execute((x,))[0], x.T)
    out = np.full((5, 3), -1, np.float32)
    assert cp.execute([x], outputs=[out])[0] is out
    np.testing.assert_array_equal(out, x.T)
    read_only = np.zeros((5, 3), np.float32)
    read_only.flags.writeable = False
    assert cp._fast([x], [read_only]) is None
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x], outputs=[read_only])
    assert e.value.rule == "execute_buffers"
    with pytest.raises(reshaper.Error) as e:
        cp.execute([x.astype(np.float64)])
    assert e.value.rule == "input_dtype_matches"


def test_numpy_fast_path_alias_output_views_its_input():
    g = reshaper.Graph("cpu").add_op(static_reshape(0, "r", lt(0, "f32", [2, 3, 4]), lt(1, "f32", [-1, -1]), [4, 6]))
    (p,) = g.partitions()
    cp = p.compile()
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    cp.execute([x])
    assert cp._fast is not None
    (view,) = cp.execute([x])
    assert view.shape == (4, 6) and view.ctypes.data == x.ctypes.data and np.shares_memory(view, x)
    np.testing.assert_array_equal(view, x.reshape(4, 6))
    x.flags.writeable = False
    (view,) = cp.execute([x])
    assert not view.flags.writeable


def test_the_module_imports_and_executes_without_torch():
    # torch is optional: with it unimportable, numpy calls take the general
    # path and then the native one, and nothing imports torch.
    code = """
import sys
sys.modules["torch"] = None  # import torch raises ImportError
import numpy as np, reshaper
T = reshaper.LogicalTensor
(p,) = reshaper.Graph().add_op(reshaper.Op(0, "StaticTranspose", "t").add_input(T(0, "f32", [3, 5]))
                               .add_output(T(1, "f32", [-1, -1])).set_attr("order", [1, 0])).partitions()
cp = p.compile()
x = np.arange(15, dtype=np.float32).reshape(3, 5)
for _ in range(2):
    (out,) = cp.execute([x])
    assert np.array_equal(out, x.T)
assert cp._fast is not None and not cp._fast.has_torch and sys.modules["torch"] is None
print("ok")
"""
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
