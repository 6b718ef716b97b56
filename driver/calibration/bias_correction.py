"""Bias correction (Nagel et al. 2019, "Data-Free Quantization Through Weight Equalization and Bias
Correction", section 4.2): quantizing a contraction's weights W to W_q shifts its expected output
by (W_q - W) E[x]; subtracting that from the float bias before it is quantized removes the shift.

    correct_biases(function, input_means, quantized_weights)

`input_means(value)` gives E[x] per input channel of a contraction's input (from calibration data:
the channel means the input took; data-free: from BatchNormalization statistics), None where
unknown; `quantized_weights(op, W)` the dequantized weights W_q the scheme will store. Per op:
- Conv (x: N x C x ..., W: M x C/g x K...): correction[m] = sum over c < C/g and taps of
  (W_q - W)[m, c, taps] E[x][g(m) C/g + c], g(m) = m // (M/g) (zero padding is not counted, so
  at the borders the correction is that of the interior);
- Gemm (transA = 0, alpha = beta = 1): correction = E[a] @ op(B_q - B), op the transB transpose.
The bias constant becomes b - correction in its float type. Contractions without a constant
weight and bias, or whose input has no mean, keep theirs."""

from collections.abc import Callable, Mapping

import numpy as np
from xdsl.dialects import func
from xdsl.ir import SSAValue

from bitfold.calibration.constants import replace_constant_operand
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.nn import ConvOp, GemmOp


def weighted_channel_sums(op: OnnxOp, delta: np.ndarray, mean: np.ndarray) -> np.ndarray | None:
    """Per output channel of the Conv or Gemm `op`, the sum over its input channels (and taps) of
    `delta` (shaped as the op's weights) times `mean` (one value an input channel): (W_q - W) E[x]
    in the module docstring's form; None for a form it does not cover. Also the expected output
    W E[x] and, with W^2 and Var[x], the variance of independent inputs (`activation_statistics`)."""
    if isinstance(op, ConvOp):
        groups = op.int_attr("group")
        out_channels, per_group = delta.shape[0], delta.shape[1]
        if mean.size != groups * per_group:
            return None
        grouped = mean.reshape(groups, per_group)[np.arange(out_channels) // (out_channels // groups)]
        return (delta.reshape(out_channels, per_group, -1).sum(axis=2) * grouped).sum(axis=1)
    if isinstance(op, GemmOp) and not op.int_attr("transA") and op.float_attr("alpha") == op.float_attr("beta") == 1.0:
        weights = delta.T if op.int_attr("transB") else delta
        return mean @ weights if mean.size == weights.shape[0] else None
    return None


def correct_biases(function: func.FuncOp, input_means: Callable[[SSAValue], np.ndarray | None],
                   quantized_weights: Callable[[OnnxOp, np.ndarray], np.ndarray]) -> None:
    """Subtract each contraction's expected weight quantization error from its bias (module docstring)."""
    for op in list(function.body.walk()):
        if not isinstance(op, ConvOp | GemmOp) or len(op.operands) < 3:
            continue
        weights, bias = constant_array(op.operands[1]), constant_array(op.operands[2])
        if weights is None or bias is None or (mean := input_means(op.operands[0])) is None:
            continue
        delta = quantized_weights(op, weights).astype(np.float64) - weights.astype(np.float64)
        correction = weighted_channel_sums(op, delta, mean)
        if correction is None or correction.shape != bias.shape:
            continue
        replace_constant_operand(op, 2, (bias - correction).astype(bias.dtype))


ORDER_KEEPING = ("onnx.Reshape", "onnx.Flatten", "onnx.Squeeze", "onnx.Unsqueeze")
"""Ops whose result holds their input's elements in the same order (a mean per channel carries over)."""


def observed_channel_means(observed: Mapping[SSAValue, np.ndarray]) -> Callable[[SSAValue], np.ndarray | None]:
    """`input_means` from calibration: a value's mean over every axis but axis 1 (the channels of
    N x C x ... and of Gemm's N x K), from the flattened values `observed` of the value or of the
    point it reshapes."""

    def means(value: SSAValue) -> np.ndarray | None:
        shape = value.type.get_shape()
        while value not in observed and value.owner.name in ORDER_KEEPING:
            value = value.owner.operands[0]
        if value not in observed or len(shape) < 2:
            return None
        return observed[value].reshape(-1, shape[1], int(np.prod(shape[2:]))).mean(axis=(0, 2))

    return means
