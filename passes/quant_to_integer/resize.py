"""Interpolating Resize (linear, cubic) of a dequantized value in integers, where the tap weights
are dyadic: along each resized axis a (`ResizeOp.axis_maps`) every weight w is W / 2^F_a with
W an integer (as scales 2, 4 or 1/2 give under every coordinate mode but align_corners, and
cubic_coeff_a -0.75 or -0.5 keeps), so with F = sum_a F_a and q the stored input

    acc[o] = sum over each axis' taps, axis after axis, of W[o, t] * q[.., i[o, t], ..]   (i32)

is the interpolation of q times 2^F exactly, and since each axis' weights sum to 1,
acc = 2^F (interpolated real value / s + zp): the result is dcast of acc at scale s 2^-F, zero
point zp 2^F, exact; the qcast after it becomes a `quant.requant`, the one rounding (onnxruntime
rounds float32 sums: within one output step of it). q's type must be uniform per tensor; F_a at
most `MAX_WEIGHT_BITS`, and |acc| <= prod_a max_o sum_t |W| * max |q| must fit an i32. Otherwise
(or where tf_crop_and_resize extrapolates) the op is refused and stays a float island."""

import numpy as np
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.shape import ResizeOp
from bitfold.dialects.quant import Granularity, UniformQuantizedType
from bitfold.passes.quant_to_integer.dequantized import dequantized
from bitfold.passes.quant_to_integer.operands import check_i32, fail, quantized_operand, storage_value, widened
from bitfold.passes.utils.linalg_building import I32, Body, affine_map, build_generic, filled, integer_constant

MAX_WEIGHT_BITS = 12
"""Largest F_a tried: weights with a denominator above 2^12 along an axis are refused"""


def dyadic_weights(weights: np.ndarray) -> tuple[np.ndarray, int] | None:
    """(W, F) with weights = W / 2^F exactly, F least, or None above `MAX_WEIGHT_BITS`."""
    for bits in range(MAX_WEIGHT_BITS + 1):
        scaled = weights * 2.0**bits
        if np.array_equal(scaled, np.round(scaled)):
            return scaled.astype(np.int64), bits
    return None


def _interpolated(rewriter: PatternRewriter, x: SSAValue, axis: int, indices: np.ndarray, weights: np.ndarray,
                  read) -> SSAValue:  # fmt: skip
    """One axis: acc[.., o, ..] = sum_t W[o, t] * read(x[.., i[o, t], ..]) (i32, taps ascending)."""
    out_shape = list(x.type.get_shape())
    out_shape[axis] = indices.shape[0]
    rank = len(out_shape)
    dims = [AffineDimExpr(d) for d in range(rank + 1)]
    table = affine_map(rank + 1, [dims[axis], dims[rank]])
    index_table = integer_constant(rewriter, indices, I32)
    weight_table = integer_constant(rewriter, weights, I32)

    def accumulate(body: Body) -> SSAValue:
        position = [body.index(d) for d in range(rank)]
        position[axis] = body.emit(arith.IndexCastOp(body.values["in0"], IndexType()))
        element = read(body, body.emit(tensor.ExtractOp(x, position, x.type.element_type)))
        return body.emit(arith.AddiOp(body.values["output"], body.emit(arith.MuliOp(body.values["in1"], element))))

    init = filled(rewriter, np.array(0), [], out_shape, I32)
    return build_generic(rewriter, [(index_table, table), (weight_table, table)],
                         (init, affine_map(rank + 1, dims[:rank])), [rank], accumulate)  # fmt: skip


class ResizeToInteger(RewritePattern):
    """Resize(dcast(q)) interpolating with dyadic weights -> dcast(acc) (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ResizeOp, rewriter: PatternRewriter) -> None:
        if op.selects_elements():
            return
        source = quantized_operand(op, op.x)
        qtype = source.qtype
        if not isinstance(qtype, UniformQuantizedType) or qtype.kind != Granularity.PER_TENSOR:
            raise fail(op, "only a per-tensor uniform input has an integer interpolation")
        parameters = []
        for value in (op.roi, op.scales, op.sizes):
            if value is not None and (array := constant_array(value)) is None:
                raise fail(op, "roi, scales and sizes must be constants")
            parameters.append(None if value is None else array)
        axes = []
        bound, bits = max(abs(v) for v in qtype.value_range()), 0
        for axis, indices, weights, outside in op.axis_maps(source.shape, *parameters):
            if outside.any():
                raise fail(op, "tf_crop_and_resize's extrapolated outputs have no integer form")
            dyadic = dyadic_weights(np.ones(indices.shape) if weights is None else weights)
            if dyadic is None:
                raise fail(op, f"interpolation weights are not multiples of 2^-{MAX_WEIGHT_BITS}")
            axes.append((axis, indices, dyadic[0]))
            bits += dyadic[1]
            bound *= int(np.abs(dyadic[0]).sum(axis=1).max())
        check_i32(op, bound, "the interpolated sum")
        acc = storage_value(rewriter, source)
        for number, (axis, indices, weights) in enumerate(axes):
            read = (lambda body, v: widened(body, v, qtype)) if number == 0 else (lambda body, v: v)
            acc = _interpolated(rewriter, acc, axis, indices, weights, read)
        result_type = UniformQuantizedType.get(32, True, qtype.expressed_type, qtype.scale * 2.0**-bits,
                                               qtype.zero_point << bits, storage_range=(-bound, bound))  # fmt: skip
        rewriter.replace(op, [], [dequantized(rewriter, acc, result_type, op.y.type)])
