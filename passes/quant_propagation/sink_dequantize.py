"""Move dequantization below data-movement ops: `op(dcast(q)) -> dcast(op'(q))`.

`op'` is the same `onnx` op applied to the stored integers: its result has op's shape and a
quantized element type (`SinkDequantize.moved_type`). The ops' numpy references move
elements without arithmetic, so they run unchanged on integer arrays.

Why this is exact: dcast maps each element on its own, `x = (q - zp) * s` with the (scale,
zero point) of the element's channel. An op that only moves, copies or selects elements
commutes with such a map as long as every element keeps its channel, which the result type
states: per-tensor types always, per-axis types when the quantized dimension survives whole
(`moved_axis`), sub-channel types never (their blocks are not tracked). MaxPool is the one
non-copying op: dcast is non-decreasing, so the maximum of dequantized values is the
dequantized maximum. A constant pad value must be the dcast of a stored value, bit for bit.
"""

import math
from abc import ABC
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerType, Signedness, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects import quant
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp, constant_array, dense_attr
from bitfold.dialects.onnx.elementwise import WhereOp
from bitfold.dialects.onnx.nn import MaxPoolOp, SlidingWindow
from bitfold.dialects.onnx.replication import ExpandOp, TileOp
from bitfold.dialects.onnx.shape import (
    ConcatOp,
    DepthToSpaceOp,
    FlattenOp,
    GatherOp,
    PadOp,
    ReshapeOp,
    ResizeOp,
    SliceOp,
    SpaceToDepthOp,
    SplitOp,
    SqueezeOp,
    TransposeOp,
    UnsqueezeOp,
    normalized_axes,
)
from bitfold.dialects.quant_semantics import dequantize
from bitfold.dialects.tensor_limits import check_tensor
from bitfold.passes.utils.quant_casts import dequantize_source, static_shape


def with_axis(quantized: quant.QuantizedType, axis: int) -> quant.QuantizedType:
    """A per-axis type with its quantized dimension moved to `axis`, parameters unchanged."""
    names = [name for name, _ in type(quantized).get_irdl_definition().parameters]
    axes = ArrayAttr([IntAttr(axis)])
    return type(quantized).new([axes if name == "axes" else p for name, p in zip(names, quantized.parameters)])


def reshaped_axis(in_shape: Sequence[int], out_shape: Sequence[int], axis: int) -> int | None:
    """The dimension of `out_shape` that holds dimension `axis` of `in_shape` when the same
    row-major elements are read with the new shape: `b` with `out[b] == in[axis]` and
    `prod(out[:b]) == prod(in[:axis])` (then also the trailing products agree, so every
    element keeps its index along that dimension); None when the dimension is split or
    merged."""
    before = math.prod(in_shape[:axis])
    for index, size in enumerate(out_shape):
        if size == in_shape[axis] and math.prod(out_shape[:index]) == before:
            return index
    return None


def moved_op(
    op: Operation, operands: dict[str, SSAValue | Sequence[SSAValue] | None], element: quant.QuantizedType
) -> Operation:
    """`op'`: op's class, attributes and location on `operands` (by operand definition name),
    its one result of op's shape with element type `element` (optional results dropped)."""
    result = op.results[0]
    optional_results = [[] for _ in type(op).get_irdl_definition().results[1:]]
    moved = type(op)(
        operands=list(operands.values()),
        result_types=[TensorType(element, result.type.get_shape()), *optional_results],
        attributes=dict(op.attributes),
    )
    moved.location = op.location
    moved.results[0].name_hint = result.name_hint
    return moved


def erase_unused_constants(rewriter: PatternRewriter, constants: Sequence[Operation]) -> None:
    """Erase the `onnx.Constant`s of `constants` that nothing reads any more."""
    for constant in dict.fromkeys(constants):
        if isinstance(constant, ConstantOp) and not constant.results[0].uses:
            rewriter.erase(constant)


def replace_with_moved(
    op: Operation,
    operands: dict[str, SSAValue | Sequence[SSAValue] | None],
    element: quant.QuantizedType,
    new_ops: Sequence[Operation],
    rewriter: PatternRewriter,
) -> None:
    """Replace single-result `op` by `new_ops`, `op'` (`moved_op`) and the dcast of op' back
    to op's result type. `onnx.Constant`s only op read are erased."""
    replaced_constants = [value.owner for value in op.operands]
    moved = moved_op(op, operands, element)
    dequantized = quant.DequantizeCastOp(moved.results[0], op.results[0].type)
    rewriter.replace(op, [*new_ops, moved, dequantized], [dequantized.result])
    erase_unused_constants(rewriter, replaced_constants)


def operands_by_name(op: Operation) -> dict[str, SSAValue | Sequence[SSAValue] | None]:
    """op's operands by definition name (None for an absent optional operand)."""
    return {name: getattr(op, name) for name, _ in type(op).get_irdl_definition().operands}


class SinkDequantize(RewritePattern, ABC):
    """op(dcast(q), rest...) -> dcast(op'(q, rest...)) for a single-result data-movement op
    of `op_types` whose operand #0 is the data (module docstring: why it is exact)."""

    op_types: ClassVar[tuple[type[OnnxOp], ...]]

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        """The result dimension holding the data's quantized dimension `axis`, every element
        keeping its index along it; None when no dimension does (the default)."""
        return None

    def moved_type(self, op: OnnxOp, quantized: quant.QuantizedType) -> quant.QuantizedType | None:
        """op' result's element type: per tensor `quantized`, per axis with `moved_axis`."""
        kind = getattr(quantized, "kind", quant.Granularity.PER_TENSOR)
        if kind == quant.Granularity.PER_TENSOR:
            return quantized
        if kind == quant.Granularity.PER_AXIS and (axis := self.moved_axis(op, quantized.axis)) is not None:
            return with_axis(quantized, axis)
        return None

    def integer_operands(
        self, op: OnnxOp, operands: dict[str, SSAValue | Sequence[SSAValue] | None], quantized: quant.QuantizedType
    ) -> list[Operation] | None:
        """Adapt op's other operands (in `operands`, by name) to integer data; return the ops
        that compute new ones, or None when op cannot run on the stored integers."""
        return []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.op_types) or len(op.results) != 1 or static_shape(op.results[0]) is None:
            return
        source = dequantize_source(op.operands[0])
        if source is None or static_shape(source.input) is None:
            return
        quantized = quant.element_type(source.input.type)
        element = self.moved_type(op, quantized)
        if element is None:
            return
        operands = operands_by_name(op)
        operands[next(iter(operands))] = source.input
        new_ops = self.integer_operands(op, operands, quantized)
        if new_ops is not None:
            replace_with_moved(op, operands, element, new_ops, rewriter)


class SinkDequantizeThroughReshape(SinkDequantize):
    """Reshape / Flatten / Squeeze / Unsqueeze(dcast(q)) -> dcast(same op(q)). These read
    the row-major elements with a new shape; a per-axis dimension survives where
    `reshaped_axis` finds it."""

    op_types = (ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        return reshaped_axis(static_shape(op.operands[0]), static_shape(op.results[0]), axis)


class SinkDequantizeThroughTranspose(SinkDequantize):
    """Transpose(dcast(q)) -> dcast(Transpose(q)). Result axis k is data axis perm[k], so a
    per-axis dimension `a` moves to `perm.index(a)`."""

    op_types = (TransposeOp,)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        rank = len(op.results[0].type.get_shape())
        perm = op.ints_attr("perm") if "perm" in op.attributes else tuple(reversed(range(rank)))
        return perm.index(axis)


class SinkDequantizeThroughMaxPool(SinkDequantize):
    """MaxPool(dcast(q)) -> dcast(MaxPool(q)) without the Indices result: dcast is
    non-decreasing, so max(dcast(a), dcast(b)) = dcast(max(a, b)) (Indices may differ where
    two stored values dequantize to the same float). Refused when a window lies entirely in
    the padding: there float gives -inf, integers the dtype's minimum. Batch and channel
    dimensions (0, 1) survive."""

    op_types = (MaxPoolOp,)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        return axis if axis in (0, 1) else None

    def integer_operands(self, op, operands, quantized) -> list[Operation] | None:
        spatial = static_shape(op.operands[0])[2:]
        window = SlidingWindow.from_op(op, spatial, op.ints_attr("kernel_shape"), bool(op.int_attr("ceil_mode")))
        if window.taps_inside([0] * len(spatial), spatial).min() == 0:
            return None
        return []


def representing_value(quantized: quant.QuantizedType, value: float, shape: Sequence[int]) -> int | None:
    """The stored integer whose dcast is `value` bit for bit in every channel of a tensor of
    `shape` (-0.0 differs from 0.0), None when none is. For 0.0 it is the zero point, when
    every channel has the same one; bipolar types represent no value in every channel."""
    if not isinstance(quantized, quant.UniformQuantizedType):
        return None
    scale, zero_point = quantized.scale_values()[0], quantized.zero_point_values()[0]
    stored = int(np.round(value / scale)) + zero_point
    low, high = quantized.value_range()
    if not low <= stored <= high:
        return None
    check_tensor(shape, 8, "the tensor a Pad's fill value is checked on")
    dequantized = dequantize(np.full(shape, stored), quantized)
    expected = np.full(shape, value, dtype=dequantized.dtype)
    return stored if np.array_equal(dequantized.view(np.uint8), expected.view(np.uint8)) else None


def stored_scalar(quantized: quant.QuantizedType, stored: int) -> ConstantOp:
    """An `onnx.Constant` scalar of the stored value `stored`, of q's numpy integer type."""
    dtype = numpy_dtype(quantized)
    integer = IntegerType(8 * dtype.itemsize, Signedness.SIGNLESS if dtype.kind == "i" else Signedness.UNSIGNED)
    value = dense_attr(np.array(stored, dtype), integer)
    return ConstantOp.create(attributes={"value": value}, result_types=[value.type])


class SinkDequantizeThroughPad(SinkDequantize):
    """Pad(dcast(q), pads, c) -> dcast(Pad(q, pads, z)) with z the stored value whose dcast
    is c (`representing_value`: the zero point for c = 0, also when c is absent), as an
    `onnx.Constant` of q's numpy integer type. Modes reflect, edge and wrap copy elements and
    need no z. A per-axis dimension survives when the constant `pads` leave it alone."""

    op_types = (PadOp,)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        pads = constant_array(op.pads)
        if pads is None or op.axes is not None:
            return None
        rank = len(op.results[0].type.get_shape())
        return axis if pads[axis] == 0 and pads[rank + axis] == 0 else None

    def integer_operands(self, op, operands, quantized) -> list[Operation] | None:
        if op.string_attr("mode") != "constant":
            return []
        fill = np.zeros((), np.float64) if op.constant_value is None else constant_array(op.constant_value)
        if fill is None:
            return None
        stored = representing_value(quantized, fill.reshape(()).item(), static_shape(op.operands[0]))
        if stored is None:
            return None
        constant = stored_scalar(quantized, stored)
        constant.results[0].name_hint = "pad_value"
        operands["constant_value"] = constant.results[0]
        return [constant]


class SinkDequantizeThroughResize(SinkDequantize):
    """Resize(dcast(q)) -> dcast(Resize(q)) where it selects input elements (mode nearest
    without tf_crop_and_resize's extrapolation; other modes interpolate: refused). Per-tensor types only: which axes a Resize maps onto
    themselves is not tracked."""

    op_types = (ResizeOp,)

    def integer_operands(self, op, operands, quantized) -> list[Operation] | None:
        return [] if op.selects_elements() else None


class SinkDequantizeThroughDepthToSpace(SinkDequantize):
    """DepthToSpace / SpaceToDepth(dcast(q)) -> dcast(same op(q)): a permutation of elements
    within each batch item, so only a per-axis batch dimension (0) survives; channels are
    redistributed over space."""

    op_types = (DepthToSpaceOp, SpaceToDepthOp)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        return 0 if axis == 0 else None


def sliced_axes(op: SliceOp) -> set[int] | None:
    """The axes a Slice with constant operands changes (not read whole, in order), None when
    an operand is not constant."""
    arrays = [constant_array(value) for value in (op.starts, op.ends)]
    rank = len(static_shape(op.operands[0]))
    axes = list(range(len(arrays[0]))) if op.axes is None else constant_array(op.axes)
    steps = [1] * len(arrays[0]) if op.steps is None else constant_array(op.steps)
    if any(array is None for array in (*arrays, axes, steps)):
        return None
    sizes = static_shape(op.operands[0])
    changed = set()
    for axis, start, end, step in zip(normalized_axes(axes, rank), *arrays, steps, strict=True):
        if range(*slice(int(start), int(end), int(step)).indices(sizes[axis])) != range(sizes[axis]):
            changed.add(axis)
    return changed


class SinkDequantizeThroughSlice(SinkDequantize):
    """Slice(dcast(q)) -> dcast(Slice(q)): selects elements; a per-axis dimension survives
    where the constant slice reads it whole and in order."""

    op_types = (SliceOp,)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        changed = sliced_axes(op)
        return axis if changed is not None and axis not in changed else None


class SinkDequantizeThroughGather(SinkDequantize):
    """Gather(dcast(q), indices) -> dcast(Gather(q, indices)): selects slices along the gather
    axis; a per-axis dimension before it stays, one after it moves by indices' rank - 1."""

    op_types = (GatherOp,)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        rank = len(static_shape(op.operands[0]))
        (gathered,) = normalized_axes([op.int_attr("axis")], rank)
        if axis == gathered or static_shape(op.indices) is None:
            return None
        return axis if axis < gathered else axis + len(static_shape(op.indices)) - 1


class SinkDequantizeThroughSplit(RewritePattern):
    """Split(dcast(q)) -> dcast of each result of Split(q): each piece selects elements; a
    per-axis dimension survives when it is not the split axis (its scales would be split)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, SplitOp) or any(static_shape(result) is None for result in op.outputs):
            return
        source = dequantize_source(op.input)
        if source is None or static_shape(source.input) is None:
            return
        quantized = quant.element_type(source.input.type)
        kind = getattr(quantized, "kind", quant.Granularity.PER_TENSOR)
        (axis,) = normalized_axes([op.int_attr("axis")], len(static_shape(op.input)))
        if kind == quant.Granularity.SUB_CHANNEL or (kind == quant.Granularity.PER_AXIS and quantized.axis == axis):
            return
        moved = SplitOp(
            operands=[source.input, op.split],
            result_types=[[TensorType(quantized, result.type.get_shape()) for result in op.outputs]],
            attributes=dict(op.attributes),
        )
        moved.location = op.location
        dequantized = [quant.DequantizeCastOp(piece, result.type) for piece, result in zip(moved.outputs, op.outputs)]
        for piece, result in zip(moved.outputs, op.outputs):
            piece.name_hint = result.name_hint
        rewriter.replace(op, [moved, *dequantized], [d.result for d in dequantized])


class SinkDequantizeThroughConcat(RewritePattern):
    """Concat(dcast(q1), ..., dcast(qn)) -> dcast(Concat(q1, ..., qn)) when every input is the
    dcast of one quantized type: joining commutes with a map applied to each element with the
    same parameters. A per-axis type needs its dimension to differ from the concat axis (the
    joined dimension would need the inputs' scale lists joined)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ConcatOp) or static_shape(op.concat_result) is None:
            return
        sources = [dequantize_source(value) for value in op.inputs]
        if not sources or any(source is None for source in sources):
            return
        elements = {quant.element_type(source.input.type) for source in sources}
        if len(elements) != 1:
            return
        (quantized,) = elements
        kind = getattr(quantized, "kind", quant.Granularity.PER_TENSOR)
        rank = len(op.concat_result.type.get_shape())
        if kind == quant.Granularity.SUB_CHANNEL or (
            kind == quant.Granularity.PER_AXIS and quantized.axis == op.int_attr("axis") % rank
        ):
            return
        replace_with_moved(op, {"inputs": [source.input for source in sources]}, quantized, [], rewriter)


class SinkDequantizeThroughReplication(SinkDequantize):
    """Expand / Tile(dcast(q)) -> dcast(same op(q)): they copy elements. Expand aligns the
    data's axes with the result's last ones; an axis keeps its quantized dimension where it is
    neither broadcast nor tiled (same size in the result)."""

    op_types = (ExpandOp, TileOp)

    def moved_axis(self, op: OnnxOp, axis: int) -> int | None:
        source, result = static_shape(op.operands[0]), static_shape(op.results[0])
        moved = axis + len(result) - len(source)
        return moved if result[moved] == source[axis] else None


class SinkDequantizeThroughWhere(RewritePattern):
    """Where(c, dcast(qx), dcast(qy)) -> dcast(Where(c, qx, qy)) for qx, qy of one per-tensor
    type: selecting commutes with a map applied to each element alike. One of X, Y may be a
    float scalar constant v instead, replaced by the stored value whose dcast is v bit for bit
    (`representing_value`: the zero point for 0.0; torch's masked_fill); none: not moved."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, WhereOp) or static_shape(op.output) is None:
            return
        types = {quant.element_type(s.input.type) for v in (op.x, op.y) if (s := dequantize_source(v)) is not None}
        if len(types) != 1 or getattr(quantized := types.pop(), "kind", None) != quant.Granularity.PER_TENSOR:
            return
        new_ops: list[Operation] = []
        data = {}
        for name, value in (("x", op.x), ("y", op.y)):
            if (source := dequantize_source(value)) is not None:
                data[name] = source.input
                continue
            fill = constant_array(value)
            if fill is None or fill.size != 1:
                return
            stored = representing_value(quantized, fill.item(), static_shape(op.output))
            if stored is None:
                return
            new_ops.append(stored_scalar(quantized, stored))
            data[name] = new_ops[-1].results[0]
        replace_with_moved(op, {"condition": op.condition, **data}, quantized, new_ops, rewriter)


SINK_DEQUANTIZE_PATTERNS = (
    SinkDequantizeThroughReshape(),
    SinkDequantizeThroughWhere(),
    SinkDequantizeThroughReplication(),
    SinkDequantizeThroughTranspose(),
    SinkDequantizeThroughMaxPool(),
    SinkDequantizeThroughPad(),
    SinkDequantizeThroughResize(),
    SinkDequantizeThroughDepthToSpace(),
    SinkDequantizeThroughSlice(),
    SinkDequantizeThroughGather(),
    SinkDequantizeThroughSplit(),
    SinkDequantizeThroughConcat(),
)
"""Every pattern of this module."""
