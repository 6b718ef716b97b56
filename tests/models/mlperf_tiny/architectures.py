"""The four MLPerf Tiny reference networks as float ONNX graphs, and their multiply-accumulate count.

Each builder returns an `onnx.ModelProto` (opset 13, batch 1, NCHW) with seeded random weights:
He-normal convolution and dense kernels, BatchNormalization folded into the preceding kernel and
bias as onnxruntime's optimizer folds it (`w' = w * gamma / sqrt(var + eps)`,
`b' = (b - mean) * gamma / sqrt(var + eps) + beta`; with `keep_batch_norm=True` the
BatchNormalization node instead, the same function), and "same" padding computed as Keras does
(for stride 2 on an even size the extra row and column go at the end). The architectures follow
the reference Keras models of the MLPerf Tiny benchmark (github.com/mlcommons/tiny,
benchmark/training); the final softmax is left out: the graphs output logits (an integer
compiler has no softmax, and the arg max is the same).

    resnet8         image classification, CIFAR-10 1x3x32x32: Conv 3x3 16, three residual stacks
                    (16, 32, 64 channels; stacks 2 and 3 stride 2 with a 1x1 strided shortcut),
                    AveragePool 8x8, Dense 10                                 ~12.5 M MACs
    dscnn           keyword spotting, MFCC 1x1x49x10: Conv 10x4 stride 2 (64), four depthwise-
                    separable blocks (depthwise 3x3 + pointwise 1x1, 64 channels), AveragePool
                    25x5, Dense 12                                             ~2.7 M MACs
    mobilenet_v1    visual wake words, 1x3x96x96: MobileNetV1 with width multiplier 0.25 (Conv 3x3
                    stride 2 (8), 13 depthwise-separable blocks up to 256 channels), AveragePool
                    3x3, Dense 2                                               ~7.5 M MACs
    autoencoder     anomaly detection, 1x640 log-mel frames: Dense 128 x4, Dense 8, Dense 128 x4
                    (each with folded BatchNorm and Relu), Dense 640            ~0.26 M MACs

The MAC counts in the right column are the benchmark's published figures; `multiply_accumulates`
counts them from a graph's shapes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
"""onnxruntime 1.31 reads IR versions up to 13; onnx 1.23 writes 14 unless told otherwise."""
OPSET = 13
"""The lowest opset at which onnxruntime's quantizer makes per-channel QDQ."""
BATCH_NORM_EPSILON = 1e-3
"""Keras' BatchNormalization default."""
INPUT_SHAPES: dict[str, list[int]] = {
    "resnet8": [1, 3, 32, 32],
    "dscnn": [1, 1, 49, 10],
    "mobilenet_v1": [1, 3, 96, 96],
    "autoencoder": [1, 5 * 128],
}
"""The graph input `input` of each network (NCHW for the convolutional ones); the autoencoder reads
5 frames of 128 log-mel bands, flattened."""


def same_pads(size: tuple[int, int], kernel: tuple[int, int], stride: int) -> list[int]:
    """ONNX pads [top, left, bottom, right] of Keras' padding="same": output size ceil(size / stride),
    total padding max((out - 1) * stride + kernel - size, 0), the odd pixel at the end."""
    begins, ends = [], []
    for n, k in zip(size, kernel, strict=True):
        out = -(-n // stride)
        total = max((out - 1) * stride + k - n, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return begins + ends


class _Network:
    """Nodes and initializers of one network, weights drawn from one seeded generator."""

    def __init__(self, seed: int, keep_batch_norm: bool = False):
        self.rng = np.random.default_rng(seed)
        self.keep_batch_norm = keep_batch_norm
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def constant(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attributes) -> str:
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attributes))
        return name

    def he_normal(self, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
        return self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)

    def batch_norm_parameters(self, channels: int) -> tuple[np.ndarray, ...]:
        """gamma, beta, mean, var of a BatchNormalization with random (trained-looking) statistics."""
        gamma = 1.0 + 0.1 * self.rng.standard_normal(channels)
        beta = 0.1 * self.rng.standard_normal(channels)
        mean = 0.1 * self.rng.standard_normal(channels)
        variance = self.rng.uniform(0.5, 1.5, channels)
        return gamma, beta, mean, variance

    def folded_batch_norm(self, kernel: np.ndarray, bias: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
        """The kernel and bias of a layer followed by a BatchNormalization (`batch_norm_parameters`),
        folded: every output channel (along `axis` of the kernel) scaled by gamma / sqrt(var + eps),
        the bias moved by the mean and beta."""
        gamma, beta, mean, variance = self.batch_norm_parameters(kernel.shape[axis])
        factor = gamma / np.sqrt(variance + BATCH_NORM_EPSILON)
        shape = [1] * kernel.ndim
        shape[axis] = len(factor)
        return kernel * factor.reshape(shape), (bias - mean) * factor + beta

    def batch_norm(self, x: str, name: str, channels: int) -> str:
        """The BatchNormalization that `folded_batch_norm` folds, as a node: the same function."""
        names = (f"{name}.gamma", f"{name}.beta", f"{name}.mean", f"{name}.var")
        parameters = [self.constant(n, v) for n, v in zip(names, self.batch_norm_parameters(channels), strict=True)]
        return self.node("BatchNormalization", [x, *parameters], name, epsilon=BATCH_NORM_EPSILON)

    def conv(self, x: str, name: str, size: tuple[int, int], c_in: int, c_out: int, kernel: tuple[int, int],
             stride: int = 1, depthwise: bool = False, batch_norm: bool = True, relu: bool = True) -> str:
        """Conv (Keras padding="same", bias) [+ folded BatchNormalization] [+ Relu]."""
        group = c_in if depthwise else 1
        shape = (c_out, c_in // group, *kernel)
        w = self.he_normal(shape, fan_in=(c_in // group) * kernel[0] * kernel[1])
        b = np.zeros(c_out)
        if batch_norm and not self.keep_batch_norm:
            w, b = self.folded_batch_norm(w, b, axis=0)
        y = self.node("Conv", [x, self.constant(f"{name}.weight", w), self.constant(f"{name}.bias", b)], name,
                      kernel_shape=list(kernel), strides=[stride, stride], group=group,
                      pads=same_pads(size, kernel, stride))
        if batch_norm and self.keep_batch_norm:
            y = self.batch_norm(y, f"{name}.bn", c_out)
        return self.node("Relu", [y], f"{name}.relu") if relu else y

    def dense(self, x: str, name: str, n_in: int, n_out: int, batch_norm: bool = True, relu: bool = True) -> str:
        """Gemm (B as [in, out], the form onnxruntime fuses MatMul + Add into) [+ folded BatchNorm] [+ Relu]."""
        w = self.he_normal((n_in, n_out), fan_in=n_in)
        b = np.zeros(n_out)
        if batch_norm and not self.keep_batch_norm:
            w, b = self.folded_batch_norm(w, b, axis=1)
        y = self.node("Gemm", [x, self.constant(f"{name}.weight", w), self.constant(f"{name}.bias", b)], name)
        if batch_norm and self.keep_batch_norm:
            y = self.batch_norm(y, f"{name}.bn", n_out)
        return self.node("Relu", [y], f"{name}.relu") if relu else y

    def model(self, name: str, input_shape: list[int], output: str, output_shape: list[int]) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)],
            initializer=self.initializers,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="bitfold-tests")
        model.ir_version = IR_VERSION
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        onnx.checker.check_model(model, full_check=True)
        return model


def _classifier(net: _Network, x: str, pool: tuple[int, int], channels: int, classes: int) -> str:
    """AveragePool over the whole feature map (Keras AveragePooling2D(pool_size=map size)),
    Flatten, Dense `classes` (logits)."""
    x = net.node("AveragePool", [x], "pool", kernel_shape=list(pool), strides=list(pool))
    x = net.node("Flatten", [x], "flatten", axis=1)
    return net.dense(x, "fc", channels, classes, batch_norm=False, relu=False)


def resnet8(keep_batch_norm: bool = False) -> onnx.ModelProto:
    """ResNet-8, MLPerf Tiny image classification (CIFAR-10 1x3x32x32 -> 10 logits)."""
    net = _Network(seed=8, keep_batch_norm=keep_batch_norm)
    x = net.conv("input", "conv1", (32, 32), 3, 16, (3, 3))
    size, channels = 32, 16
    for stack, width in enumerate((16, 32, 64), start=1):
        stride = 1 if stack == 1 else 2
        y = net.conv(x, f"stack{stack}.conv1", (size, size), channels, width, (3, 3), stride)
        shortcut = x
        if stride != 1:  # the strided 1x1 projection of the reference model has no BatchNorm
            shortcut = net.conv(x, f"stack{stack}.shortcut", (size, size), channels, width, (1, 1), stride,
                                batch_norm=False, relu=False)
        size //= stride
        y = net.conv(y, f"stack{stack}.conv2", (size, size), width, width, (3, 3), relu=False)
        x = net.node("Relu", [net.node("Add", [shortcut, y], f"stack{stack}.add")], f"stack{stack}.relu")
        channels = width
    y = _classifier(net, x, (size, size), channels, 10)
    return net.model("resnet8", INPUT_SHAPES["resnet8"], y, [1, 10])


def dscnn(keep_batch_norm: bool = False) -> onnx.ModelProto:
    """DS-CNN small, MLPerf Tiny keyword spotting (MFCC 1x1x49x10 -> 12 logits)."""
    net = _Network(seed=12, keep_batch_norm=keep_batch_norm)
    x = net.conv("input", "conv1", (49, 10), 1, 64, (10, 4), stride=2)
    size = (25, 5)
    for block in range(1, 5):
        x = net.conv(x, f"block{block}.depthwise", size, 64, 64, (3, 3), depthwise=True)
        x = net.conv(x, f"block{block}.pointwise", size, 64, 64, (1, 1))
    return net.model("dscnn", INPUT_SHAPES["dscnn"], _classifier(net, x, size, 64, 12), [1, 12])


MOBILENET_V1_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1),
                       (512, 1), (512, 1), (1024, 2), (1024, 1))
"""(pointwise filters at width 1.0, depthwise stride) of MobileNetV1's 13 depthwise-separable blocks."""
MOBILENET_ALPHA = 0.25


def mobilenet_v1(keep_batch_norm: bool = False) -> onnx.ModelProto:
    """MobileNetV1 alpha 0.25, MLPerf Tiny visual wake words (1x3x96x96 -> 2 logits)."""
    net = _Network(seed=96, keep_batch_norm=keep_batch_norm)
    channels = int(32 * MOBILENET_ALPHA)
    x = net.conv("input", "conv1", (96, 96), 3, channels, (3, 3), stride=2)
    size = 48
    for block, (filters, stride) in enumerate(MOBILENET_V1_BLOCKS, start=1):
        x = net.conv(x, f"block{block}.depthwise", (size, size), channels, channels, (3, 3), stride, depthwise=True)
        size //= stride
        width = int(filters * MOBILENET_ALPHA)
        x = net.conv(x, f"block{block}.pointwise", (size, size), channels, width, (1, 1))
        channels = width
    y = _classifier(net, x, (size, size), channels, 2)
    return net.model("mobilenet_v1", INPUT_SHAPES["mobilenet_v1"], y, [1, 2])


AUTOENCODER_WIDTHS = (128, 128, 128, 128, 8, 128, 128, 128, 128)
AUTOENCODER_FRAME = INPUT_SHAPES["autoencoder"][1]


def autoencoder(keep_batch_norm: bool = False) -> onnx.ModelProto:
    """FC autoencoder, MLPerf Tiny anomaly detection (1x640 -> 640 reconstruction)."""
    net = _Network(seed=640, keep_batch_norm=keep_batch_norm)
    x, width = "input", AUTOENCODER_FRAME
    for layer, out in enumerate(AUTOENCODER_WIDTHS, start=1):
        x = net.dense(x, f"dense{layer}", width, out)
        width = out
    y = net.dense(x, "output", width, AUTOENCODER_FRAME, batch_norm=False, relu=False)
    return net.model("autoencoder", INPUT_SHAPES["autoencoder"], y, [1, AUTOENCODER_FRAME])


BUILDERS: dict[str, Callable[[], onnx.ModelProto]] = {
    "resnet8": resnet8,
    "dscnn": dscnn,
    "mobilenet_v1": mobilenet_v1,
    "autoencoder": autoencoder,
}
"""The float networks by name, in the benchmark's order (IC, KWS, VWW, AD)."""


def _shapes(model: onnx.ModelProto) -> dict[str, list[int]]:
    inferred = onnx.shape_inference.infer_shapes(model)
    shapes = {}
    for value in [*inferred.graph.input, *inferred.graph.value_info, *inferred.graph.output]:
        shapes[value.name] = [d.dim_value for d in value.type.tensor_type.shape.dim]
    for tensor in inferred.graph.initializer:
        shapes[tensor.name] = list(tensor.dims)
    return shapes


def multiply_accumulates(model: onnx.ModelProto) -> int:
    """Multiply-accumulates of one inference of a float graph, from its shapes: a Conv's output
    elements times (input channels / group) * kernel height * kernel width, a Gemm's or MatMul's
    output elements times the reduction length. Nothing else counts (adds, pools, Relu)."""
    shapes = _shapes(model)
    total = 0
    for node in model.graph.node:
        if node.op_type == "Conv":
            weight = shapes[node.input[1]]  # [c_out, c_in / group, kh, kw]
            total += int(np.prod(shapes[node.output[0]])) * int(np.prod(weight[1:]))
        elif node.op_type in ("Gemm", "MatMul"):
            a = shapes[node.input[0]]
            trans_a = next((attr.i for attr in node.attribute if attr.name == "transA"), 0)
            reduction = a[-2] if trans_a else a[-1]
            total += int(np.prod(shapes[node.output[0]])) * reduction
    return total


IMAGE_NETWORKS = ("resnet8", "mobilenet_v1")
"""Their inputs are images scaled to [0, 1); the others' are standard normal features (MFCC,
log-mel frames)."""


def random_input(name: str, seed: int) -> np.ndarray:
    """A float32 input of network `name`: uniform [0, 1) pixels for the image networks, standard
    normal features for the others."""
    rng = np.random.default_rng(seed)
    shape = INPUT_SHAPES[name]
    if name in IMAGE_NETWORKS:
        return rng.random(shape, dtype=np.float32)
    return rng.standard_normal(shape).astype(np.float32)
