"""onnxruntime's MatMulNBits (com.microsoft, weight-only blocked quantization) becomes
MatMul(A, dcast(W)), then Add of its bias: W is the K x N transpose of the node's N x K weight,
a constant of a sub-channel type blocked along K (`{0: block_size, 1: 1}`), the form of ONNX 21's
blocked DequantizeLinear that quant-to-integer contracts per block.

With stored q, zero point z and scale s of a block (`MatMulNBitsOp.weight_parameters`), the weight
is float32(q - z) * s. It is stored as v = q - z with zero point 0 and scale |s|, negated where s
is negative (the symmetric quantizer's scales are): float32(v) * |s| is the same float32 bit for
bit (`negative_scales.py`'s argument), so dcast(W) is exactly the weight onnxruntime dequantizes.
The storage range is v's (4-bit weights with zero point 8: -8..7, or -7..8 negated: i8 storage).
Float zero points, g_idx, and K not a multiple of block_size fail the pass naming the node."""

import numpy as np
from xdsl.dialects.builtin import TensorType, f32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.contrib import MatMulNBitsOp
from bitfold.dialects.onnx.elementwise import AddOp
from bitfold.dialects.onnx.nn import MatMulOp
from bitfold.dialects.quant import DequantizeCastOp
from bitfold.dialects.quantized_constants import quantized_constant
from bitfold.passes.onnx_to_quant.parameters import Parameters, fail, uniform_type


def centered_weight(op: MatMulNBitsOp) -> tuple[np.ndarray, np.ndarray]:
    """(v, |s|): the K x N centered integers, signs moved from the scales, and the n_blocks x N
    positive scales."""
    values = {
        name: constant_array(value) if value is not None else None
        for name, value in (("b", op.b), ("scales", op.scales), ("zero_points", op.zero_points))
    }
    if (
        values["b"] is None
        or values["scales"] is None
        or (op.zero_points is not None and values["zero_points"] is None)
    ):
        fail(op, "the weight, scales and zero points must be constants")
    if op.g_idx is not None:
        fail(op, "MatMulNBits with g_idx (act-order) has no quant form")
    try:
        q, zero_points, scales = op.weight_parameters(values)
    except ValueError as error:
        fail(op, str(error))
    if np.issubdtype(zero_points.dtype, np.floating):
        fail(op, "MatMulNBits with float zero points has no quant form (the weight is not on an integer grid)")
    block_size = op.int_attr("block_size")
    if q.shape[1] % block_size:
        fail(op, f"K = {q.shape[1]} is not a multiple of block_size {block_size}")
    signs = np.where(scales < 0, -1, 1)
    centered = (q - np.repeat(zero_points, block_size, axis=1)) * np.repeat(signs, block_size, axis=1)
    return centered.T, np.abs(scales).T


class MatMulNBitsToQuant(RewritePattern):
    """MatMulNBits(A, ...) -> MatMul(A, dcast(W)) (+ bias) (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulNBitsOp, rewriter: PatternRewriter) -> None:
        weight, scales = centered_weight(op)
        parameters = Parameters(
            scales.astype(np.float32),
            np.zeros(scales.shape, np.int64),
            block_sizes={0: op.int_attr("block_size"), 1: 1},
        )
        value_range = (min(int(weight.min()), 0), max(int(weight.max()), 0))
        qtype = uniform_type(op, f32, parameters, value_range)
        integers, cast = quantized_constant(weight, TensorType(qtype, weight.shape))
        dcast = DequantizeCastOp(cast.result, TensorType(f32, weight.shape))
        ops = [integers, cast, dcast]
        result_type = TensorType(f32, op.y.type.get_shape())
        ops.append(MatMulOp.build(operands=[op.a, dcast.result], result_types=[result_type]))
        if op.bias is not None:
            ops.append(AddOp.build(operands=[ops[-1].results[0], op.bias], result_types=[result_type]))
        for new in ops[3:]:
            new.location = op.location
        rewriter.replace(op, ops, [ops[-1].results[0]])
