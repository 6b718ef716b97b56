"""FINN-style binary networks in QONNX form, built with onnx.helper: `BipolarQuant` weights
and sign activations (`BipolarQuant` after a per-channel affine `Mul` / `Add`, FINN's
thresholding, or after BatchNormalization), MaxPool of bipolar values, bipolar x bipolar Conv
(groups, padding, strides; channel counts that are not multiples of 32), MatMul and Gemm, a
first layer of int8 inputs against bipolar weights, a layer of bipolar inputs against 4-bit
weights, and an 8-bit `Quant` output. The oracle is
qonnx's executor (`runners.run_qonnx`). Scales are powers of two, as in FINN's networks, so
the float reference computes the integer values exactly."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .qonnx_models import QONNX_DOMAIN, qonnx_model

OPSET = 13


class BinaryGraph:
    """Nodes and initializers of one QONNX graph, with seeded constants."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def const(self, name: str, value) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
        return name

    def node(self, op_type: str, inputs: list[str], name: str, domain: str = "", **attributes) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=f"{name}_node", domain=domain, **attributes))
        return name

    def quant(self, x: str, name: str, scale, bits: int, signed: bool = True) -> str:
        inputs = [x, self.const(f"{name}_scale", scale), self.const(f"{name}_zeropt", 0), self.const(f"{name}_bits", bits)]
        return self.node("Quant", inputs, name, QONNX_DOMAIN, signed=int(signed), narrow=0, rounding_mode="ROUND")

    def bipolar(self, x: str, name: str, scale=1.0) -> str:
        return self.node("BipolarQuant", [x, self.const(f"{name}_scale", scale)], name, QONNX_DOMAIN)

    def bipolar_weight(self, name: str, shape, scale=1.0) -> str:
        """A float weight behind a BipolarQuant (some values exactly 0: BipolarQuant gives +1)."""
        value = self.rng.normal(size=shape).astype(np.float32)
        value.flat[:: max(1, value.size // 7)] = 0.0
        return self.bipolar(self.const(name, value), f"{name}_q", scale)

    def sign(self, x: str, name: str, channels: int, channel_shape, ties: bool = False) -> str:
        """FINN's thresholding: BipolarQuant(x * a + b), a per channel (some negative, some 0);
        with `ties`, a in {+-1/2, +-1, 2} and b an even integer, so that x * a + b is exactly 0
        for many x (an even dot product of +-1 values): BipolarQuant(0) = +1 is tested."""
        a = self.rng.normal(size=channels).astype(np.float32)
        b = (self.rng.normal(size=channels) * 2).astype(np.float32)
        if ties:
            a = self.rng.choice(np.array([-1, -0.5, 0.5, 1, 2], dtype=np.float32), size=channels)
            b = 2 * self.rng.integers(-3, 4, size=channels).astype(np.float32)
        a[0] = 0.0
        scaled = self.node("Mul", [x, self.const(f"{name}_a", a.reshape(channel_shape))], f"{name}_scaled")
        shifted = self.node("Add", [scaled, self.const(f"{name}_b", b.reshape(channel_shape))], f"{name}_shifted")
        return self.bipolar(shifted, name)

    def norm_sign(self, x: str, name: str, channels: int) -> str:
        """BipolarQuant(BatchNormalization(x)): gamma of both signs, as Brevitas exports BNNs."""
        gamma = self.rng.normal(size=channels)
        beta, mean = self.rng.normal(size=channels), self.rng.normal(size=channels) * 3
        var = self.rng.uniform(0.5, 4, size=channels)
        parameters = [self.const(f"{name}_{p}", v) for p, v in zip(("gamma", "beta", "mean", "var"), (gamma, beta, mean, var))]
        return self.bipolar(self.node("BatchNormalization", [x, *parameters], f"{name}_norm", epsilon=1e-3), name)

    def model(self, name: str, x_shape, y: str, y_shape) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], initializer=self.inits,
        )
        return qonnx_model(graph, OPSET, 1)


def binary_cnn() -> onnx.ModelProto:
    """x (1, 3, 8, 8) int8 -> Conv 3x3 pad 1 (bipolar weights) -> BatchNorm, sign -> MaxPool 3x3
    pad 1 (of bipolar values) -> Conv 3x3
    pad 1 stride 2, 24 -> 40 (bipolar x bipolar) -> sign -> grouped Conv 3x3 pad 1 on 4x4, 2
    groups of 20 -> 6 -> BatchNorm, sign -> Flatten -> MatMul 192 -> 40 (bipolar) -> sign -> Gemm 40 -> 10 (4-bit
    weights) -> Quant int8 y."""
    g = BinaryGraph(seed=11)
    x = g.quant("x", "x_q", 2.0**-5, 8)
    h = g.node("Conv", [x, g.bipolar_weight("w1", (24, 3, 3, 3), 0.5)], "c1", kernel_shape=[3, 3], pads=[1] * 4)
    h = g.norm_sign(h, "s1", 24)
    h = g.node("MaxPool", [h], "p1", kernel_shape=[3, 3], pads=[1] * 4)
    w2 = g.bipolar_weight("w2", (40, 24, 3, 3))
    h = g.node("Conv", [h, w2], "c2", kernel_shape=[3, 3], pads=[1] * 4, strides=[2, 2])
    h = g.sign(h, "s2", 40, (1, 40, 1, 1))
    h = g.node("Conv", [h, g.bipolar_weight("w3", (12, 20, 3, 3), 0.25)], "c3", kernel_shape=[3, 3], pads=[1] * 4, group=2)
    h = g.norm_sign(h, "s3", 12)
    h = g.node("Flatten", [h], "flat")
    h = g.node("MatMul", [h, g.bipolar_weight("w4", (192, 40))], "c4")
    h = g.sign(h, "s4", 40, (40,))
    w5 = g.quant(g.const("w5", g.rng.normal(size=(10, 40))), "w5_q", 0.25, 4)
    h = g.node("Gemm", [h, w5, g.const("b5", g.rng.normal(size=10))], "c5", transB=1)
    y = g.quant(h, "y", 0.5, 8)
    return g.model("binary_cnn", [1, 3, 8, 8], y, [1, 10])


def binary_mlp() -> onnx.ModelProto:
    """x (2, 40) int8 -> Gemm 40 -> 64 (bipolar weights, transB) -> sign -> MatMul 64 -> 37
    (bipolar x bipolar) -> sign -> Gemm 37 -> 20 (bipolar, transA on a transposed input, a float bias) ->
    sign -> MatMul 20 -> 10 (4-bit weights) -> Quant int8 y."""
    g = BinaryGraph(seed=12)
    x = g.quant("x", "x_q", 2.0**-4, 8)
    h = g.node("Gemm", [x, g.bipolar_weight("w1", (64, 40), 0.125)], "c1", transB=1)
    h = g.sign(h, "s1", 64, (64,))
    h = g.node("MatMul", [h, g.bipolar_weight("w2", (64, 37))], "c2")
    h = g.sign(h, "s2", 37, (37,), ties=True)
    h = g.node("Transpose", [h], "t2", perm=[1, 0])
    h = g.node("Gemm", [h, g.bipolar_weight("w3", (37, 20), 0.5), g.const("b3", g.rng.normal(size=20))], "c3", transA=1)
    h = g.sign(h, "s3", 20, (20,))
    w4 = g.quant(g.const("w4", g.rng.normal(size=(20, 10))), "w4_q", 0.25, 4)
    h = g.node("MatMul", [h, w4], "c4")
    y = g.quant(h, "y", 0.25, 8)
    return g.model("binary_mlp", [2, 40], y, [2, 10])


BINARY_NETWORKS = {"binary_cnn": binary_cnn, "binary_mlp": binary_mlp}
