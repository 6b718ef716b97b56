"""Cross-layer equalization (Nagel et al. 2019, section 4.1): in a pair of convolutions
`conv2(relu(conv1(x)))`, output channel i of conv1 may be divided by s_i > 0 and input channel i of
conv2 multiplied by it without changing conv2's output, since relu(y / s) = relu(y) / s. With
r1_i = max|W1[i]| and r2_i = max|W2[:, i]| (a depthwise conv2: max|W2[i]|), the choice
s_i = sqrt(r1_i r2_i) / r2_i makes both ranges sqrt(r1_i r2_i), so per-tensor weight quantization
wastes less of its range on a few large channels.

    equalize_convolutions(function) -> number of pairs equalized
    equalized_pairs(function) -> [(conv1, s), ...]: the same, with each pair's first Conv and scales

    W1[i] <- W1[i] / s_i,  b1[i] <- b1[i] / s_i,  W2[:, i] <- W2[:, i] s_i  (depthwise: W2[i] s_i)

A pair is a Conv with constant weights (and bias, if any) whose result feeds only a Relu (or
nothing between) whose result feeds only a second Conv with constant weights, of group 1 or
depthwise (one input channel a group). Pairs are taken once each in program order (a chain
conv1 -> conv2 -> conv3 equalizes (1, 2) then (2, 3)); a channel whose r1_i or r2_i is 0 keeps
s_i = 1. The float model computes the same function up to float32 rounding."""

import numpy as np
from xdsl.dialects import func
from xdsl.ir import SSAValue

from bitfold.calibration.constants import replace_constant_operand
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.elementwise import ReluOp
from bitfold.dialects.onnx.nn import ConvOp


def _only_reader(value: SSAValue):
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 and uses[0].index == 0 else None


def _next_convolution(conv: ConvOp) -> ConvOp | None:
    """The Conv reading `conv`'s result through at most one Relu, each the only reader."""
    reader = _only_reader(conv.results[0])
    if isinstance(reader, ReluOp):
        reader = _only_reader(reader.results[0])
    return reader if isinstance(reader, ConvOp) else None


def _equalize_pair(first: ConvOp, second: ConvOp) -> np.ndarray | None:
    """Equalize the pair; the scales s (float64, one an output channel of `first`), None where
    the pair does not qualify."""
    w1, w2 = constant_array(first.operands[1]), constant_array(second.operands[1])
    bias = constant_array(first.operands[2]) if len(first.operands) > 2 else None
    if w1 is None or w2 is None or (len(first.operands) > 2 and bias is None):
        return None
    channels, groups = w1.shape[0], second.int_attr("group")
    depthwise = groups == channels and w2.shape[1] == 1 and w2.shape[0] == channels
    if not depthwise and (groups != 1 or w2.shape[1] != channels):
        return None
    r1 = np.abs(w1).reshape(channels, -1).max(axis=1).astype(np.float64)
    r2 = np.abs(w2).reshape(channels, -1).max(axis=1) if depthwise else np.abs(w2).swapaxes(0, 1).reshape(
        channels, -1).max(axis=1)
    r2 = r2.astype(np.float64)
    scales = np.where((r1 > 0) & (r2 > 0), np.sqrt(r1 * r2) / np.where(r2 > 0, r2, 1), 1.0)
    spread = (-1,) + (1,) * (w1.ndim - 1)
    replace_constant_operand(first, 1, (w1 / scales.reshape(spread)).astype(w1.dtype))
    if bias is not None:
        replace_constant_operand(first, 2, (bias / scales).astype(bias.dtype))
    into = scales.reshape(spread) if depthwise else scales.reshape((1, -1) + (1,) * (w2.ndim - 2))
    replace_constant_operand(second, 1, (w2 * into).astype(w2.dtype))
    return scales


def equalized_pairs(function: func.FuncOp) -> list[tuple[ConvOp, np.ndarray]]:
    """Equalize every pair of `function` (module docstring); each pair's first Conv (whose output
    channel i is now divided by s_i) and its scales s."""
    pairs = []
    for op in list(function.body.walk()):
        if isinstance(op, ConvOp) and (second := _next_convolution(op)) is not None:
            if (scales := _equalize_pair(op, second)) is not None:
                pairs.append((op, scales))
    return pairs


def equalize_convolutions(function: func.FuncOp) -> int:
    """Equalize every pair of `function` (module docstring); returns how many."""
    return len(equalized_pairs(function))
