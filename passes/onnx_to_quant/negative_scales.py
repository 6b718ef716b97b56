"""DequantizeLinear with negative scales (onnxruntime's symmetric int4 quantizer writes them):
the sign moves into the constant integers it reads.

For an element whose scale s is negative, with zero point z and stored value q:
`(q - z) * s = (q' - z') * |s|` with `q' = -q`, `z' = -z`. DequantizeLinear computes
`float(q - z) * s` in float: `float(q' - z') = -float(q - z)` (round to nearest is symmetric)
and `x * |s| = -(x * s)` exactly, so the dequantized values are bit for bit the same.

The type's storage range is the integer type's (narrowed by QCDQ's Clips), widened where a
negated value or zero point lies outside it (-(-128) = 128 of int8: the canonical storage
grows, `i8<-128:128>` is held in i16). Only constant integers (weights, biases) can be negated
at compile time: a negative scale on computed integers fails the pass naming the node, as
does a negated int32 value outside int32.
"""

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.onnx.quantization import DequantizeLinearOp, expand
from bitfold.dialects.quant import MAX_STORAGE_BITS, integer_range
from bitfold.dialects.quantized_constants import quantized_constant
from bitfold.passes.onnx_to_quant.parameters import (
    constant_parameter,
    fail,
    float_element,
    onnx_parameters,
    same_float_type,
    uniform_type,
)


def has_negative_scale(op: DequantizeLinearOp) -> bool:
    """Whether `op`'s scale is a constant with a negative entry."""
    return isinstance(op.x_scale.owner, ConstantOp) and bool(np.any(dense_to_numpy(op.x_scale.owner.value) < 0))


def negated_weights(op: DequantizeLinearOp, source: SSAValue, low: int, high: int) -> tuple[list[Operation], SSAValue]:
    """Ops holding clamp(source, low, high) (constant integers read by `op`, whose scale has a
    negative entry) as a quantized constant with every scale positive (module docstring)."""
    if not isinstance(source.owner, ConstantOp):
        fail(op, "a negative scale is supported on constant integers only (the weight is negated at compile time)")
    expressed = float_element(op, op.y)
    scale = constant_parameter(op, op.x_scale, "scale")
    same_float_type(op, scale, expressed, "the scale")
    zero = np.zeros(scale.shape, np.int64)
    if op.x_zero_point is not None:
        zero = np.broadcast_to(constant_parameter(op, op.x_zero_point, "zero point").astype(np.int64), scale.shape)
    shape = source.type.get_shape()
    axis, block_size = op.int_attr("axis"), op.int_attr("block_size")
    stored = np.clip(dense_to_numpy(source.owner.value).astype(np.int64), low, high)
    negate = np.broadcast_to(expand(scale < 0, shape, axis, block_size), stored.shape)
    stored = np.where(negate, -stored, stored)
    zero = np.where(scale < 0, -zero, zero)
    low = min(low, int(stored.min(initial=low)), int(zero.min(initial=low)))
    high = max(high, int(stored.max(initial=high)), int(zero.max(initial=high)))
    widest_low, widest_high = integer_range(MAX_STORAGE_BITS, True)
    if low < widest_low or high > widest_high:
        fail(op, f"negating the weights of its negative scales leaves the {MAX_STORAGE_BITS}-bit range ({low}..{high})")
    parameters = onnx_parameters(op, np.abs(scale), zero, shape, axis, block_size)
    qtype = uniform_type(op, expressed, parameters, (low, high))
    integers, cast = quantized_constant(stored, TensorType(qtype, shape))
    return [integers, cast], cast.result
