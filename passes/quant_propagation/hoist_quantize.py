"""Move quantization above the data movement a graph input goes through before its first
quantizer: `qcast(op(x)) -> op'(qcast'(x))`.

A tf2onnx / tflite2onnx export transposes its float NHWC input to NCHW (or reshapes it) and
only then quantizes it. `op'` is the same `onnx` op on the stored integers (as in
`sink_dequantize`), and `qcast'` quantizes x with the qcast's rounding to the type whose
channels `op` moves onto the qcast's: per tensor the same type, per axis the input dimension
that op carries whole onto the quantized one (`SinkDequantize.moved_type`, read backwards).

Why this is exact: qcast maps each element on its own with its channel's (scale, zero point)
and rounding. An op that only moves, copies or selects elements commutes with such a map when
every element keeps its channel; MaxPool commutes because qcast is non-decreasing. A constant
pad value c becomes the stored value z of `sink_dequantize` (dcast(z) = c) only when also
qcast(c) = z in every channel with the qcast's rounding (for c = 0.0: the zero point).

Scope: only data that comes from a graph input through data-movement ops alone, and only an
op whose result nothing but this qcast reads (nothing is duplicated; a Split whose pieces are
all read by qcasts of one type); elsewhere a quantized region's own data movement stays where
`canonicalize-quant` put it.
"""

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from bitfold.dialects import quant
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.shape import ConcatOp, PadOp, SplitOp, normalized_axes
from bitfold.dialects.quant_semantics import quantize
from bitfold.passes.quant_propagation.sink_dequantize import (
    SINK_DEQUANTIZE_PATTERNS,
    SinkDequantize,
    erase_unused_constants,
    moved_op,
    operands_by_name,
    with_axis,
)
from bitfold.passes.utils.quant_casts import static_shape

SINK_PATTERNS = {
    op_type: p for p in SINK_DEQUANTIZE_PATTERNS if isinstance(p, SinkDequantize) for op_type in p.op_types
}
"""The dequantize-sinking pattern of each single-data-operand op: what the op does to a
quantized type and to its other operands holds in both directions."""

MOVING_OPS = (*SINK_PATTERNS, ConcatOp)


def from_graph_input(value: SSAValue) -> bool:
    """Whether `value` is a function argument, or data movement of function arguments alone."""
    owner = value.owner
    if isinstance(value, BlockArgument):
        return True
    if isinstance(owner, ConcatOp):
        return all(from_graph_input(v) for v in owner.inputs)
    return isinstance(owner, MOVING_OPS) and from_graph_input(owner.operands[0])


def source_type(sink: SinkDequantize, op: Operation, quantized) -> quant.QuantizedType | None:
    """The type of op's data whose `moved_type` is `quantized`, None when there is none (or
    `quantized` is no quantized type with parameters: `!quant.any`, `!quant.calibrated`)."""
    if not isinstance(quantized, quant.QuantizedType):
        return None
    kind = getattr(quantized, "kind", quant.Granularity.PER_TENSOR)
    if kind == quant.Granularity.PER_TENSOR:
        return quantized if sink.moved_type(op, quantized) == quantized else None
    if kind != quant.Granularity.PER_AXIS:
        return None
    for axis in range(len(static_shape(op.operands[0]))):
        candidate = with_axis(quantized, axis)
        if sink.moved_type(op, candidate) == quantized:
            return candidate
    return None


def pad_quantizes_to_fill(op: PadOp, operands: dict, qcast: quant.QuantizeCastOp, element) -> bool:
    """For constant Pad: qcast(c) is the stored pad value of op' in every element (module doc)."""
    if op.string_attr("mode") != "constant":
        return True
    fill = np.zeros((), np.float64) if op.constant_value is None else constant_array(op.constant_value)
    stored = constant_array(operands["constant_value"])
    shape = static_shape(op.operands[0])
    values = np.full(shape, fill.reshape(()).item(), dtype=quantize_input_dtype(qcast))
    quantized = quantize(values, element, qcast.rounding_mode, qcast.adds_zero_point_first, qcast.saturates)
    return bool(np.all(quantized == stored.reshape(())))


def quantize_input_dtype(qcast: quant.QuantizeCastOp) -> np.dtype:
    """The numpy dtype of the qcast's float input (f16, f32 or f64)."""
    return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[qcast.input.type.element_type.bitwidth])


def quantize_before(
    qcast: quant.QuantizeCastOp, value: SSAValue, element: quant.QuantizedType
) -> quant.QuantizeCastOp:
    """qcast' of `value` to `element` with the qcast's rounding attributes."""
    kept = ("rounding", "zero_point_first", "non_saturating")
    attributes = {name: qcast.attributes[name] for name in kept if name in qcast.attributes}
    moved = quant.QuantizeCastOp(value, TensorType(element, value.type.get_shape()), attributes)
    moved.location = qcast.location
    return moved


def replace_by_moved(
    rewriter: PatternRewriter, qcast: quant.QuantizeCastOp, op: Operation, new_ops: Sequence[Operation], operands
) -> None:
    """Replace qcast by `new_ops` and op' on `operands`, then erase op and its constants."""
    moved = moved_op(op, operands, quant.element_type(qcast.result.type))
    moved.results[0].name_hint = qcast.result.name_hint
    rewriter.replace(qcast, [*new_ops, moved], [moved.results[0]])
    constants = [value.owner for value in op.operands]
    rewriter.erase(op)
    erase_unused_constants(rewriter, constants)


class HoistQuantize(RewritePattern):
    """qcast(op(x, rest...)) -> op'(qcast'(x), rest'...) for the single-data ops of
    `SINK_PATTERNS` (module docstring: when, and why it is exact)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, qcast: quant.QuantizeCastOp, rewriter: PatternRewriter) -> None:
        op = qcast.input.owner
        sink = SINK_PATTERNS.get(type(op))
        if sink is None or len(op.results) != 1 or not op.results[0].has_one_use():
            return
        if static_shape(op.results[0]) is None or static_shape(op.operands[0]) is None:
            return
        if not from_graph_input(op.operands[0]):
            return
        element = source_type(sink, op, quant.element_type(qcast.result.type))
        if element is None:
            return
        operands = operands_by_name(op)
        quantized = quantize_before(qcast, op.operands[0], element)
        operands[next(iter(operands))] = quantized.result
        new_ops = sink.integer_operands(op, operands, element)
        if new_ops is None:
            return
        if isinstance(op, PadOp) and not pad_quantizes_to_fill(op, operands, qcast, element):
            return
        replace_by_moved(rewriter, qcast, op, [*new_ops, quantized], operands)


class HoistQuantizeThroughConcat(RewritePattern):
    """qcast(Concat(x1, ..., xn)) -> Concat'(qcast(x1), ..., qcast(xn)): joining commutes
    with a map applied to each element; a per-axis dimension must differ from the concat axis."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, qcast: quant.QuantizeCastOp, rewriter: PatternRewriter) -> None:
        op = qcast.input.owner
        if not isinstance(op, ConcatOp) or not op.concat_result.has_one_use() or not from_graph_input(op.concat_result):
            return
        if any(static_shape(value) is None for value in (*op.inputs, op.concat_result)):
            return
        element = quant.element_type(qcast.result.type)
        if not isinstance(element, quant.QuantizedType):
            return
        kind = getattr(element, "kind", quant.Granularity.PER_TENSOR)
        rank = len(op.concat_result.type.get_shape())
        if kind == quant.Granularity.SUB_CHANNEL or (
            kind == quant.Granularity.PER_AXIS and element.axis == op.int_attr("axis") % rank
        ):
            return
        quantized = [quantize_before(qcast, value, element) for value in op.inputs]
        replace_by_moved(rewriter, qcast, op, quantized, {"inputs": [q.result for q in quantized]})


class HoistQuantizeThroughSplit(RewritePattern):
    """Split(x) whose every piece something reads only through qcasts of one type and rounding
    -> Split'(qcast(x)): each piece of the quantized input is the qcast of that piece. A
    per-axis dimension must differ from the split axis."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, qcast: quant.QuantizeCastOp, rewriter: PatternRewriter) -> None:
        op = qcast.input.owner
        if not isinstance(op, SplitOp) or not from_graph_input(op.input):
            return
        if any(static_shape(value) is None for value in (op.input, *op.outputs)):
            return
        readers = [use.operation for piece in op.outputs for use in piece.uses]
        if any(not isinstance(reader, quant.QuantizeCastOp) for reader in readers):
            return
        signature = {(quant.element_type(r.result.type), r.rounding_mode, r.adds_zero_point_first) for r in readers}
        element = quant.element_type(qcast.result.type)
        if len(signature) != 1 or not isinstance(element, quant.QuantizedType):
            return
        kind = getattr(element, "kind", quant.Granularity.PER_TENSOR)
        (axis,) = normalized_axes([op.int_attr("axis")], len(static_shape(op.input)))
        if kind == quant.Granularity.SUB_CHANNEL or (kind == quant.Granularity.PER_AXIS and element.axis == axis):
            return
        quantized = quantize_before(qcast, op.input, element)
        moved = SplitOp(
            operands=[quantized.result, op.split],
            result_types=[[TensorType(element, piece.type.get_shape()) for piece in op.outputs]],
            attributes=dict(op.attributes),
        )
        moved.location = op.location
        rewriter.insert([quantized, moved], InsertPoint.before(op))
        for piece, moved_piece in zip(op.outputs, moved.outputs, strict=True):
            moved_piece.name_hint = piece.name_hint
            for reader in [use.operation for use in piece.uses]:
                rewriter.replace(reader, [], [moved_piece])
        rewriter.erase(op)


HOIST_QUANTIZE_PATTERNS = (HoistQuantize(), HoistQuantizeThroughConcat(), HoistQuantizeThroughSplit())
"""Every pattern of this module."""
