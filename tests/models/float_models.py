"""Small float ONNX models: the networks every quantized test model is derived from.

Each builder returns an `onnx.ModelProto` made with `onnx.helper` and numpy weights drawn from a
fixed seed, so every build is identical. Sizes are tiny (a few thousand parameters) so a whole
catalogue builds and runs in seconds. The four networks cover the layer patterns bitfold must
compile: fully connected layers (Gemm and MatMul + Add), 3x3 / depthwise / pointwise convolutions,
a residual join (Add of two quantized branches) and the pooling family.

`ir_version` is always set explicitly (`IR_VERSION`): onnx 1.23 writes IR 14 by default, which
onnxruntime 1.31 (and therefore qonnx's executor) refuses.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
"""IR version written into every model (onnxruntime 1.31 reads at most 13)."""

DEFAULT_OPSET = 13
"""Default ONNX opset: the lowest at which onnxruntime's quantizer does per-channel QDQ.
4-bit QDQ variants are built at opset 21, where QuantizeLinear accepts int4/uint4 natively."""


class _Graph:
    """Tiny helper accumulating nodes and initializers with deterministic weights."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._count = 0

    def name(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def const(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, name: str, shape: tuple[int, ...], fan_in: int) -> str:
        """He-initialized float32 weight, so activations keep a sensible range layer after layer."""
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        return self.const(name, w.astype(np.float32))

    def bias(self, name: str, n: int) -> str:
        return self.const(name, (0.1 * self.rng.standard_normal(n)).astype(np.float32))

    def node(self, op: str, inputs: list[str], n_out: int = 1, **attrs) -> str:
        name = self.name(op.lower() + "_")
        outputs = [f"{name}_out{i}" if n_out > 1 else f"{name}_out" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def conv(self, x: str, c_in: int, c_out: int, k: int, group: int = 1, stride: int = 1) -> str:
        prefix = self.name("conv")
        w = self.weight(f"{prefix}.weight", (c_out, c_in // group, k, k), fan_in=(c_in // group) * k * k)
        b = self.bias(f"{prefix}.bias", c_out)
        pad = k // 2
        return self.node(
            "Conv", [x, w, b], kernel_shape=[k, k], pads=[pad] * 4, strides=[stride, stride], group=group
        )

    def model(
        self, graph_name: str, inputs: list[tuple[str, list[int]]], output: str, out_shape: list[int], opset: int
    ) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            graph_name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, out_shape)],
            initializer=self.inits,
        )
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="bitfold-tests"
        )
        model.ir_version = IR_VERSION
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        onnx.checker.check_model(model, full_check=True)
        return model


def mlp(opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
    """Three fully connected layers 16 -> 32 -> 32 -> 10, batch 2.

    Layer 1 is `Gemm` (transB=1, the PyTorch export form), layer 2 is `MatMul` + `Add` (the form
    exporters produce for a bias-carrying MatMul), layer 3 is `Gemm` without Relu (the logits).
    The smallest model exercising quantized matrix products and their bias / output rescale.
    """
    g = _Graph(seed=1)
    w1 = g.weight("fc1.weight", (32, 16), fan_in=16)
    h = g.node("Gemm", ["input", w1, g.bias("fc1.bias", 32)], transB=1)
    h = g.node("Relu", [h])
    w2 = g.weight("fc2.weight", (32, 32), fan_in=32)
    h = g.node("MatMul", [h, w2])
    h = g.node("Add", [h, g.bias("fc2.bias", 32)])
    h = g.node("Relu", [h])
    w3 = g.weight("fc3.weight", (10, 32), fan_in=32)
    y = g.node("Gemm", [h, w3, g.bias("fc3.bias", 10)], transB=1)
    return g.model("mlp", [("input", [2, 16])], y, [2, 10], opset)


def cnn_depthwise(opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
    """MobileNet-style block on a 1x3x16x16 image.

    Conv 3x3 (3 -> 8, stride 2) + Relu, depthwise Conv 3x3 (group = 8) + Relu, pointwise Conv 1x1
    (8 -> 16) + Relu, GlobalAveragePool, Flatten, Gemm (16 -> 10). Depthwise convolution is the
    case where per-channel weight quantization matters most (one scale per group).
    """
    g = _Graph(seed=2)
    h = g.node("Relu", [g.conv("input", 3, 8, 3, stride=2)])
    h = g.node("Relu", [g.conv(h, 8, 8, 3, group=8)])
    h = g.node("Relu", [g.conv(h, 8, 16, 1)])
    h = g.node("GlobalAveragePool", [h])
    h = g.node("Flatten", [h], axis=1)
    w = g.weight("fc.weight", (10, 16), fan_in=16)
    y = g.node("Gemm", [h, w, g.bias("fc.bias", 10)], transB=1)
    return g.model("cnn_depthwise", [("input", [1, 3, 16, 16])], y, [1, 10], opset)


def residual(opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
    """ResNet-8 style basic block on a 1x4x8x8 tensor.

    Stem Conv 3x3 (4 -> 8) + Relu, then Conv-Relu-Conv on one branch and the identity on the other,
    joined by `Add` and a final Relu. The Add of two differently scaled quantized tensors is the
    point of this model (requantizing both operands to a common scale).
    """
    g = _Graph(seed=3)
    stem = g.node("Relu", [g.conv("input", 4, 8, 3)])
    h = g.node("Relu", [g.conv(stem, 8, 8, 3)])
    h = g.conv(h, 8, 8, 3)
    h = g.node("Add", [h, stem])
    y = g.node("Relu", [h])
    return g.model("residual", [("input", [1, 4, 8, 8])], y, [1, 8, 8, 8], opset)


def pooling(opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
    """Pooling family on a 1x3x12x12 image.

    Conv 3x3 (3 -> 6) + Relu, MaxPool 2x2 (stride 2), AveragePool 3x3 (stride 1, padded,
    count_include_pad=0), GlobalAveragePool. MaxPool commutes with quantization, the average pools
    do not (they divide, so they requantize).
    """
    g = _Graph(seed=4)
    h = g.node("Relu", [g.conv("input", 3, 6, 3)])
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("AveragePool", [h], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=0)
    y = g.node("GlobalAveragePool", [h])
    return g.model("pooling", [("input", [1, 3, 12, 12])], y, [1, 6, 1, 1], opset)


def _hard_swish(g: _Graph, x: str) -> str:
    """HardSwish as torch exports it: x * HardSigmoid(x) (alpha 1/6, beta 1/2)."""
    return g.node("Mul", [x, g.node("HardSigmoid", [x], alpha=1 / 6, beta=0.5)])


def mobilenet_v3_block(opset: int = 17) -> onnx.ModelProto:
    """MobileNetV3-style block on a 1x3x16x16 image, with the ops torchvision's MobileNetV3 exports.

    Conv 3x3 (3 -> 8, stride 2) + HardSwish, depthwise Conv 3x3 + HardSwish, squeeze-excite
    (GlobalAveragePool, Conv 1x1 8 -> 4 + Relu, Conv 1x1 4 -> 8 + HardSigmoid, Mul by the block's
    activations), pointwise Conv 1x1 (8 -> 8) plus a residual Add, GlobalAveragePool, Flatten, Gemm
    (8 -> 10). Not one of `FLOAT_BUILDERS`: a model of its own for the RISC-V backend's elementwise
    chains (tabulated HardSwish, fused squeeze-excite gate and residual terms).
    """
    g = _Graph(seed=7)
    h = _hard_swish(g, g.conv("input", 3, 8, 3, stride=2))
    h = _hard_swish(g, g.conv(h, 8, 8, 3, group=8))
    s = g.node("GlobalAveragePool", [h])
    s = g.node("Relu", [g.conv(s, 8, 4, 1)])
    s = g.node("HardSigmoid", [g.conv(s, 4, 8, 1)], alpha=1 / 6, beta=0.5)
    h = g.node("Mul", [s, h])
    h = g.node("Add", [g.conv(h, 8, 8, 1), h])
    h = g.node("GlobalAveragePool", [h])
    h = g.node("Flatten", [h], axis=1)
    y = g.node("Gemm", [h, g.weight("fc.weight", (10, 8), fan_in=8), g.bias("fc.bias", 10)], transB=1)
    return g.model("mobilenet_v3_block", [("input", [1, 3, 16, 16])], y, [1, 10], opset)


FLOAT_BUILDERS: dict[str, Callable[..., onnx.ModelProto]] = {
    "mlp": mlp,
    "cnn_depthwise": cnn_depthwise,
    "residual": residual,
    "pooling": pooling,
}
"""The float networks by short name; each takes an optional `opset`."""
