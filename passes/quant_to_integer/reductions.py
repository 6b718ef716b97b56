"""ReduceMax, ReduceSum and ReduceMean on quantized values (`dcast(q)`, q uniform per
tensor, scale s, zero point zp) become integer reductions over their (constant) axes.

- ReduceMax: the maximum of the storage integers (signed or unsigned by the type), read
  with q's own type: dcast is non-decreasing, so this is exact.
- ReduceSum / ReduceMean: the centered sum `t = sum (q - zp)` over the n reduced elements in
  i32 (init -n zp). ReduceSum is `s * t`: t at scale s; ReduceMean is `s * t / n`: t at
  scale s / n, one exact integer the following qcast requantizes with one rounding (as
  GlobalAveragePool; the float reference rounds the mean to float first, <= 1 LSB apart at
  ties). |t| <= n * max |q - zp| must fit i32.

The reduction is one `linalg.generic` whose result drops the reduced axes; with keepdims an
integer `onnx.Reshape` (lowered by onnx-data-movement-to-linalg) puts them back as size 1.
Empty axes with noop_with_empty_axes return the input."""

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.constant import ConstantOp, constant_operand, dense_attr
from bitfold.dialects.onnx.reduction import ReduceMaxOp, ReduceMeanOp, ReduceOnnxOp, ReduceSumOp
from bitfold.dialects.onnx.shape import ReshapeOp, normalized_axes
from bitfold.dialects.quant import DequantizeCastOp, UniformQuantizedType
from bitfold.passes.quant_to_integer.dequantized import dequantized
from bitfold.passes.quant_to_integer.operands import (
    Quantized,
    accumulator_type,
    check_i32,
    fail,
    per_tensor,
    quantized_operand,
    storage_value,
    widened,
)
from bitfold.passes.utils.linalg_building import I32, affine_map, build_generic, filled


def _reduced_axes(op: ReduceOnnxOp, rank: int) -> list[int] | None:
    """The axes `op` reduces (sorted), or None when it returns its input (empty axes with
    noop_with_empty_axes)."""
    if op.axes is None:
        axes = np.zeros(0, np.int64)
    elif (axes := constant_operand(op.axes)) is None:
        raise fail(op, "the axes are not a constant")
    if axes.size == 0:
        return None if op.int_attr("noop_with_empty_axes") else list(range(rank))
    return sorted(set(normalized_axes(axes.reshape(-1), rank)))


def _reduce(rewriter: PatternRewriter, op: ReduceOnnxOp, storage: SSAValue, axes: list[int], init: np.ndarray,
            element, combine) -> SSAValue:
    """A generic reducing `storage` over `axes` into a tensor of the kept axes filled with
    `init` first, each element folded in by `combine(body, accumulated, element)`; reshaped
    to the result's shape (keepdims) by an integer `onnx.Reshape`."""
    shape = tuple(storage.type.get_shape())
    kept = [d for d in range(len(shape)) if d not in axes]
    reduced_shape = [shape[d] for d in kept]
    accumulated = build_generic(
        rewriter,
        [(storage, AffineMap.identity(len(shape)))],
        (filled(rewriter, init, [], reduced_shape, element), affine_map(len(shape), [AffineDimExpr(d) for d in kept])),
        axes,
        lambda body: combine(body, body.values["output"], body.values["in0"]),
    )
    result_shape = tuple(op.reduced.type.get_shape())
    if tuple(reduced_shape) == result_shape:
        return accumulated
    target_shape = dense_attr(np.array(result_shape, np.int64), i64)
    target = ConstantOp.build(attributes={"value": target_shape}, result_types=[target_shape.type])
    reshape = ReshapeOp.build(operands=[accumulated, target.output], result_types=[TensorType(element, result_shape)],
                              attributes={"allowzero": IntegerAttr(0, 64)})
    rewriter.insert(target)
    rewriter.insert(reshape)
    return reshape.reshaped


class ReduceToInteger(RewritePattern):
    """ReduceMax / ReduceSum / ReduceMean of a dequantized per-tensor value -> integer
    reduction (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOnnxOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ReduceMaxOp | ReduceSumOp | ReduceMeanOp):
            return
        if not isinstance(op.data.owner, DequantizeCastOp):
            return
        source = quantized_operand(op, op.data)
        qtype = per_tensor(op, source, "the input")
        axes = _reduced_axes(op, len(source.shape))
        if axes is None:
            rewriter.replace(op, [], [op.data])
            return
        if isinstance(op, ReduceMaxOp):
            rewriter.replace(op, [], [self._maximum(rewriter, op, source, qtype, axes)])
        else:
            rewriter.replace(op, [], [self._sum(rewriter, op, source, qtype, axes)])

    @staticmethod
    def _maximum(rewriter: PatternRewriter, op: ReduceOnnxOp, source: Quantized, qtype: UniformQuantizedType,
                 axes: list[int]) -> SSAValue:
        maximum = arith.MaxSIOp if qtype.is_signed else arith.MaxUIOp
        element = qtype.storage_integer_type()
        low = np.array(qtype.value_range()[0])
        reduced = _reduce(rewriter, op, storage_value(rewriter, source), axes, low, element,
                          lambda body, accumulated, value: body.emit(maximum(accumulated, value)))
        return dequantized(rewriter, reduced, qtype, op.reduced.type)

    @staticmethod
    def _sum(rewriter: PatternRewriter, op: ReduceOnnxOp, source: Quantized, qtype: UniformQuantizedType,
             axes: list[int]) -> SSAValue:
        count = int(np.prod([source.shape[a] for a in axes], dtype=np.int64))
        bound = count * qtype.largest_offset()
        check_i32(op, bound, "the sum")
        def add(body, accumulated: SSAValue, value: SSAValue) -> SSAValue:
            return body.emit(arith.AddiOp(accumulated, widened(body, value, qtype)))

        init = np.array(-count * qtype.zero_point)
        total = _reduce(rewriter, op, storage_value(rewriter, source), axes, init, I32, add)
        scale = qtype.scale / count if isinstance(op, ReduceMeanOp) else qtype.scale
        acc_type = accumulator_type(np.array([scale]), None, qtype.expressed_type, bound)
        return dequantized(rewriter, total, acc_type, op.reduced.type)
