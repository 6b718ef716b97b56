"""Older node forms import as the newest signature and compute what onnxruntime computes
for the original model."""

import numpy as np
import onnx
import pytest
from models.runners import onnxruntime_session
from onnx import TensorProto, helper

import bitfold
from bitfold.frontends.onnx import import_model
from bitfold.frontends.onnx.upgrades import upgrade

IR_VERSION = 8
"""Readable by onnxruntime 1.31 (onnx 1.23 writes a newer IR version than it reads)."""


def single_node_model(node, opset, x_shape, y_shape, extra_inputs=()) -> onnx.ModelProto:
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape), *extra_inputs]
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_VERSION)


X = np.arange(-6, 6, dtype=np.float32).reshape(1, 1, 3, 4) * np.float32(0.75)

CASES = {
    "clip_6": (helper.make_node("Clip", ["x"], ["y"], min=-2.0, max=3.0), 6, [1, 1, 3, 4], [1, 1, 3, 4]),
    "clip_6_max_only": (helper.make_node("Clip", ["x"], ["y"], max=1.0), 6, [1, 1, 3, 4], [1, 1, 3, 4]),
    "squeeze_11": (helper.make_node("Squeeze", ["x"], ["y"], axes=[0, 1]), 11, [1, 1, 3, 4], [3, 4]),
    "squeeze_11_all": (helper.make_node("Squeeze", ["x"], ["y"]), 11, [1, 1, 3, 4], [3, 4]),
    "unsqueeze_11": (helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 3]), 11, [1, 1, 3, 4], [1, 1, 1, 1, 3, 4]),
    "pad_2": (helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 2, 0, 0, 0, 1], value=1.5), 2, [1, 1, 3, 4], [1, 1, 4, 7]),
    "pad_2_reflect": (helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1], mode="reflect"), 2, [1, 1, 3, 4], [1, 1, 5, 6]),
    "slice_9": (
        helper.make_node("Slice", ["x"], ["y"], starts=[1, -3], ends=[3, 3], axes=[2, 3]), 9, [1, 1, 3, 4], [1, 1, 2, 2]
    ),
    "split_11": (
        helper.make_node("Split", ["x"], ["y", "rest"], axis=3, split=[1, 3]), 11, [1, 1, 3, 4], [1, 1, 3, 1]
    ),
    "upsample_7": (helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 3.0]), 7, [1, 1, 3, 4], [1, 1, 6, 12]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_old_form_matches_onnxruntime(name):
    node, opset, x_shape, y_shape = CASES[name]
    model = single_node_model(node, opset, x_shape, y_shape)
    (expected,) = onnxruntime_session(model, optimize=True).run(None, {"x": X})
    got = bitfold.run(import_model(model.SerializeToString()), [X])["y"]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("node", "opset"),
    [
        (helper.make_node("Resize", ["x", "scales"], ["y"], mode="nearest"), 10),
        (helper.make_node("Upsample", ["x", "scales"], ["y"], mode="linear"), 9),
        (helper.make_node("ReduceMean", ["x"], ["y"], axes=[1], keepdims=0), 13),
        (helper.make_node("Constant", [], ["y"], value_floats=[1.0, 2.0]), 13),
        *[(CASES[name][0], CASES[name][1]) for name in sorted(CASES)],
    ],
    ids=lambda value: value.op_type if isinstance(value, onnx.NodeProto) else str(value),
)
def test_upgraded_node_is_valid_in_the_newest_opset(node, opset):
    upgraded = upgrade(node, opset, lambda name: np.dtype(np.float32))
    newest = onnx.defs.onnx_opset_version()
    assert upgraded.opset in (opset, newest)
    context = onnx.checker.C.CheckerContext()
    context.ir_version = onnx.IR_VERSION
    context.opset_imports = {"": upgraded.opset}
    onnx.checker.check_node(upgraded.node, context)
    assert not {a.name for a in upgraded.node.attribute} - set(onnx.defs.get_schema(upgraded.node.op_type).attributes)
