"""Writes the .onnx inputs of the FileCheck tests beside this script (deterministic; run it
again after changing a recipe): `python tests/filecheck/frontends/onnx/Inputs/make_inputs.py`."""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[3]))  # tests/, for the shared model recipes (tests/models/)
from models.shape_computations import attention_shapes  # noqa: E402
IR_VERSION = 10
"""Readable by onnxruntime 1.31 (it reads IR versions up to 13; onnx 1.23 writes 14)."""


def qdq_conv() -> onnx.ModelProto:
    """x -> QuantizeLinear (uint8, per tensor) -> DequantizeLinear -> Conv (int8 weights,
    per-channel DequantizeLinear on axis 0, default axis on the activations) -> Relu."""
    constants = [
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zero_point"),
        numpy_helper.from_array(np.array([[[[1, -2], [3, -4]]], [[[-5, 6], [-7, 8]]]], np.int8), "w_q"),
        numpy_helper.from_array(np.array([0.01, 0.02], np.float32), "w_scale"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"], name="quantize_x"),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"], name="dequantize_x"),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale"], ["w"], name="dequantize_w", axis=0),
        helper.make_node("Conv", ["x_dq", "w"], ["conv"], name="conv", pads=[1, 1, 0, 0]),
        helper.make_node("Relu", ["conv"], ["y"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes, "qdq_conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])],
        constants,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=IR_VERSION)


def clip_opset6() -> onnx.ModelProto:
    """Clip of opset 6 (a ReLU6), whose bounds are attributes (inputs since opset 11), then
    QuantizeLinear / DequantizeLinear of opset 10."""
    constants = [
        numpy_helper.from_array(np.array(0.1, np.float32), "scale"),
        numpy_helper.from_array(np.array(0, np.int8), "zero_point"),
    ]
    nodes = [
        helper.make_node("Clip", ["x"], ["clipped"], name="clip", min=0.0, max=6.0),
        helper.make_node("QuantizeLinear", ["clipped", "scale", "zero_point"], ["q"], name="quantize"),
        helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["y"], name="dequantize"),
    ]
    graph = helper.make_graph(
        nodes, "clip_opset6",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        constants,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)], ir_version=IR_VERSION)


if __name__ == "__main__":
    onnx.save(qdq_conv(), HERE / "qdq_conv.onnx")
    onnx.save(clip_opset6(), HERE / "clip_opset6.onnx")
    onnx.save(attention_shapes(), HERE / "attention_shapes.onnx")
