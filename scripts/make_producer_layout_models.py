"""Build the fixtures of tests/models/producer_layouts/ (see its docstring): onnx.helper QDQ
graphs in the tf2onnx / tflite2onnx style, seeded int8 weights, one seeded float input each.

    python scripts/make_producer_layout_models.py [--output DIR]

Deterministic: the same onnx version writes the same files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "tests"))

from models import producer_layouts  # noqa: E402

IR_VERSION = 8
OPSET = 13


class Graph:
    """Nodes and initializers of one QDQ graph, built in order."""

    def __init__(self, seed: int):
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.rng = np.random.default_rng(seed)

    def constant(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, **attributes) -> str:
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attributes))
        return output

    def qdq(self, x: str, name: str, scale, zero_point, axis: int | None = None) -> str:
        """QuantizeLinear then DequantizeLinear of x to uint8 (per axis when `axis` is set)."""
        s = self.constant(f"{name}_scale", np.array(scale, np.float32))
        z = self.constant(f"{name}_zero_point", np.array(zero_point, np.uint8))
        kw = {} if axis is None else {"axis": axis}
        q = self.node("QuantizeLinear", [x, s, z], f"{name}_q", **kw)
        return self.node("DequantizeLinear", [q, s, z], f"{name}_dq", **kw)

    def weight(self, name: str, shape: tuple[int, ...], scale, axis: int | None = None) -> str:
        """A dequantized int8 weight of seeded values in [-50, 50] (no saturation anywhere)."""
        w = self.constant(f"{name}_quantized", self.rng.integers(-50, 51, shape).astype(np.int8))
        s = self.constant(f"{name}_scale", np.array(scale, np.float32))
        zeros = np.zeros(np.shape(scale), np.int8)
        z = self.constant(f"{name}_zero_point", zeros)
        kw = {} if axis is None else {"axis": axis}
        return self.node("DequantizeLinear", [w, s, z], name, **kw)

    def bias(self, name: str, channels: int, scale: float) -> str:
        b = self.constant(f"{name}_quantized", self.rng.integers(-200, 201, channels).astype(np.int32))
        s = self.constant(f"{name}_scale", np.array(scale, np.float32))
        z = self.constant(f"{name}_zero_point", np.array(0, np.int32))
        return self.node("DequantizeLinear", [b, s, z], name)

    def shape(self, name: str, values) -> str:
        return self.constant(name, np.array(values, np.int64))

    def model(self, input_shape, output: str, output_shape) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "producer_layout",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)],
            self.initializers,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="bitfold-tests")
        model.ir_version = IR_VERSION
        onnx.checker.check_model(model, full_check=True)
        return model


def nhwc_transpose_conv() -> onnx.ModelProto:
    g = Graph(1)
    x = g.node("Transpose", ["input"], "input_nchw", perm=[0, 3, 1, 2])
    x = g.qdq(x, "input_quant", 0.02, 128)
    x = g.node("Conv", [x, g.weight("conv_w", (8, 3, 3, 3), 0.01), g.bias("conv_b", 8, 0.0002)], "conv",
               pads=[1, 1, 1, 1])
    x = g.node("Relu", [x], "relu")
    x = g.qdq(x, "relu_quant", 0.04, 0)
    x = g.node("MaxPool", [x], "pool", kernel_shape=[2, 2], strides=[2, 2])
    x = g.node("Flatten", [x], "flatten", axis=1)
    x = g.node("Gemm", [x, g.weight("fc_w", (10, 512), 0.005), g.bias("fc_b", 10, 0.0002)], "fc", transB=1)
    x = g.qdq(x, "output", 0.1, 128)
    return g.model([1, 16, 16, 3], x, [1, 10])


def kws_reshape() -> onnx.ModelProto:
    g = Graph(2)
    x = g.node("Reshape", ["input", g.shape("mfcc_shape", [1, 1, 49, 10])], "mfcc")
    x = g.qdq(x, "input_quant", 0.05, 120)
    scales = (np.arange(8, dtype=np.float32) + 8) / 1000
    x = g.node("Conv", [x, g.weight("conv1_w", (8, 1, 3, 3), scales, axis=0)], "conv1", pads=[1, 1, 1, 1])
    x = g.node("Relu", [x], "relu1")
    x = g.qdq(x, "relu1_quant", 0.03, 0)
    x = g.node("Conv", [x, g.weight("conv2_w", (8, 8, 1, 1), 0.008)], "conv2")
    x = g.qdq(x, "conv2_quant", 0.05, 128)
    x = g.node("Reshape", [x, g.shape("flat_shape", [1, 3920])], "output")
    return g.model([1, 490], x, [1, 3920])


def nhwc_output_transpose() -> onnx.ModelProto:
    g = Graph(3)
    x = g.node("Transpose", ["input"], "input_nchw", perm=[0, 3, 1, 2])
    x = g.qdq(x, "input_quant", 0.02, 128)
    x = g.node("Conv", [x, g.weight("conv_w", (4, 3, 3, 3), 0.01)], "conv", pads=[1, 1, 1, 1])
    x = g.qdq(x, "conv_quant", 0.05, 128)
    x = g.node("Transpose", [x], "output", perm=[0, 2, 3, 1])
    return g.model([1, 8, 8, 3], x, [1, 8, 8, 4])


def nhwc_perchannel_movement() -> onnx.ModelProto:
    g = Graph(4)
    x = g.node("Transpose", ["input"], "input_nchw", perm=[0, 3, 1, 2])
    x = g.qdq(x, "input_quant", np.array([0.02, 0.03, 0.05], np.float32), np.array([128, 100, 140]), axis=1)
    x = g.node("MaxPool", [x], "pool", kernel_shape=[2, 2], strides=[2, 2])
    x = g.node("Transpose", [x], "output", perm=[0, 2, 3, 1])
    return g.model([1, 8, 8, 3], x, [1, 4, 4, 3])


BUILDERS = {
    "nhwc-transpose-conv": (nhwc_transpose_conv, (1, 16, 16, 3)),
    "kws-reshape": (kws_reshape, (1, 490)),
    "nhwc-output-transpose": (nhwc_output_transpose, (1, 8, 8, 3)),
    "nhwc-perchannel-movement": (nhwc_perchannel_movement, (1, 8, 8, 3)),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=producer_layouts.FIXTURES)
    arguments = parser.parse_args(argv)
    for seed, name in enumerate(producer_layouts.NAMES):
        build, input_shape = BUILDERS[name]
        onnx.save(build(), arguments.output / f"{name}.onnx")
        x = np.random.default_rng(seed).standard_normal(input_shape).astype(np.float32)
        np.save(arguments.output / f"{name}.input.npy", x)
    return 0


if __name__ == "__main__":
    sys.exit(main())
