"""reshaper.Graph.from_onnx (interface contract 5.3): a model from a path or
from bytes, free_dims, executed and compared with ONNX's node test data."""
import os

import numpy as np
import pytest

import reshaper

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper, TensorProto  # noqa: E402

NODE_TESTS = "/usr/share/libonnx-testdata/data/node"


def channel_shuffle(groups=2):
    """torch.onnx.export's channel shuffle of x [batch, 8, 4, 4]: the group
    size as Div then Cast of the channels, Reshape, Transpose, Reshape."""
    i64 = lambda name, values, dims=None: helper.make_node(
        "Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, dims if dims is not None else [len(values)], values))
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        i64("i0", [0], []), i64("i1", [1], []),
        helper.make_node("Gather", ["s", "i0"], ["b"]),
        helper.make_node("Gather", ["s", "i1"], ["c"]),
        i64("g", [groups], []),
        helper.make_node("Div", ["c", "g"], ["cg"]),
        helper.make_node("Cast", ["cg"], ["cg64"], to=TensorProto.INT64),
        i64("axis0", [0]),
        helper.make_node("Unsqueeze", ["b", "axis0"], ["b1"]),
        helper.make_node("Unsqueeze", ["cg64", "axis0"], ["c1"]),
        i64("groups", [groups]), i64("hw", [4, 4]),
        helper.make_node("Concat", ["b1", "groups", "c1", "hw"], ["shape5"], axis=0),
        helper.make_node("Reshape", ["x", "shape5"], ["grouped"]),
        helper.make_node("Transpose", ["grouped"], ["swapped"], perm=[0, 2, 1, 3, 4]),
        i64("minus_one", [-1]),
        helper.make_node("Concat", ["b1", "minus_one", "hw"], ["shape4"], axis=0),
        helper.make_node("Reshape", ["swapped", "shape4"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "shuffle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_from_onnx_bytes_with_free_dims_claims_and_runs_the_shuffle():
    g = reshaper.Graph.from_onnx(channel_shuffle().SerializeToString(), free_dims={"batch": 3})
    chain = [p for p in g.partitions() if 14 in p.ops]
    assert len(chain) == 1 and chain[0].supported and chain[0].ops == [14, 15, 18]
    cp = chain[0].compile()
    x = np.arange(3 * 8 * 4 * 4, dtype=np.float32).reshape(3, 8, 4, 4)
    # The shape inputs (tensors 14 and 18) were folded to constants at
    # compile; execute takes them as the values the model computes.
    shapes = {0: x, 14: np.array([3, 2, 4, 4, 4], np.int64), 18: np.array([3, -1, 4, 4], np.int64)}
    assert sorted(t.id for t in cp.inputs) == [0, 14, 18]
    assert all(t.property == "constant" for t in cp.inputs if t.id != 0)
    inputs = [shapes[t.id] for t in cp.inputs]
    (y,) = cp.execute(inputs)
    want = x.reshape(3, 2, 4, 4, 4).transpose(0, 2, 1, 3, 4).reshape(3, 8, 4, 4)
    np.testing.assert_array_equal(y, want)


def test_from_onnx_path_unbound_batch_leaves_the_chain_unclaimed_with_the_reason(tmp_path):
    path = tmp_path / "shuffle.onnx"
    path.write_bytes(channel_shuffle().SerializeToString())
    parts = reshaper.Graph.from_onnx(str(path)).partitions()
    chain = [p for p in parts if 14 in p.ops][0]
    assert not chain.supported and "unknown rank" in chain.reason


@pytest.mark.skipif(not os.path.isdir(NODE_TESTS), reason="libonnx-testdata is not installed")
@pytest.mark.parametrize("name", ["test_transpose_all_permutations_3", "test_flatten_negative_axis2", "test_squeeze"])
def test_node_tests_match_onnx_outputs(name):
    d = os.path.join(NODE_TESTS, name)
    g = reshaper.Graph.from_onnx(os.path.join(d, "model.onnx"))
    (part,) = g.partitions()
    cp = part.compile()
    load = lambda f: numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "test_data_set_0", f)))
    inputs = [load(f"input_{t.id}.pb") for t in cp.inputs]
    (y,) = cp.execute(inputs)
    np.testing.assert_array_equal(y, load("output_0.pb"))


def test_bytes_that_are_no_model_raise_invalid_graph():
    with pytest.raises(reshaper.Error) as e:
        reshaper.Graph.from_onnx(b"this is no ONNX model")
    assert e.value.code == "invalid_graph"


@pytest.mark.parametrize("free_dims", [{"batch": -1}, {"batch": "2"}, {"batch": 2 ** 64}, {3: 2}])
def test_bad_free_dims_raise_invalid_arguments(free_dims):
    with pytest.raises(reshaper.Error) as e:
        reshaper.Graph.from_onnx(channel_shuffle().SerializeToString(), free_dims=free_dims)
    assert e.value.code == "invalid_arguments" and e.value.rule == "free_dim_value"
