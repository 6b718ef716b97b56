"""`onnx-data-movement-to-linalg`: the shape-only ONNX ops left on integer tensors after the
quant passes become the tensor and linalg ops the backend consumes (docs/integer-ir.md).

- Reshapes (`onnx.Flatten`, `onnx.Reshape`, `onnx.Squeeze`, `onnx.Unsqueeze`): a row-major
  reshape from the input's static shape to the result's. Both shapes are split into the
  fewest groups of consecutive dims with equal element counts; the input's groups are
  collapsed (`tensor.collapse_shape`), the collapsed dims expanded into the result's groups
  (`tensor.expand_shape`). A pure collapse or expand is one op; a reshape that regroups
  everything (2x3 -> 3x2) collapses to 1-D and expands. Both are free on a contiguous buffer.
  A rank-0 input becomes a 1x...x1 result through a `linalg.generic` reading it at `()`
  (xDSL's expand_shape verifier rejects the empty reassociation MLIR allows).
- `onnx.Transpose`: a `linalg.generic` copying the input through the permutation map
  (d0, ..., dn-1) -> (d_inv[0], ..., d_inv[n-1]), inv the inverse of perm.
- `onnx.Pad` mode constant where every axis is padded at its beginning or not at all: a
  generic filling the padded shape with the pad value, then a generic over the source's shape
  writing it through an output map offset by the begin pads (updating the filled tensor).
  Otherwise (mode edge, negative pads, an axis padded only at its end): a `linalg.generic` over
  the padded shape with no inputs; along each padded axis a, src_a = linalg.index(a) - begin_a, clamped into the
  input (`maxsi` with 0 when begin_a > 0, `minsi` with n_a - 1 when end_a > 0); the element
  is `tensor.extract`ed at the clamped indices. Mode constant selects the pad value where any
  src_a differs from its clamped value; mode edge uses the clamped read as it is. Negative
  pads (removal) need no clamp on their side. Modes reflect and wrap fail the pass.
- `onnx.DepthToSpace`, `onnx.SpaceToDepth`: the op's `block_permutation`: an expand to the
  6-D blocks, a transposing generic, a collapse.
- `onnx.Gather` with indices computed at run time (an embedding's token ids): `LowerIndexedGather`.
- `onnx.Slice`, `onnx.Gather` (constant indices), `onnx.Resize` (nearest), each piece of
  `onnx.Split`: a generic over the result reading the source with `tensor.extract` at per-axis
  indices found by running the op's reference on index ramps (exact by construction): the loop
  index, `start + step * i`, or an i32 table constant. Gather selects with its indices
  flattened, then reshapes.
- `onnx.Concat`: one `linalg.generic` over the result; along the axis, input k holds
  [offset_k, offset_k + n_k): each input is read with `tensor.extract` at the index minus
  its offset, clamped into it, and a chain of `arith.select`s on `index < offset_k` picks the
  input the element belongs to. (A generic per input writing at an offset cannot express the
  first input: MLIR requires a plain dim result to span its operand exactly.)
- `onnx.Expand`: a generic over the result reading the input through the broadcast map
  (axes right-aligned, a size-1 axis read at index 0). `onnx.Tile` (shape d, repeats r):
  reshape to (1, d0, 1, d1, ...), the same broadcast to (r0, d0, r1, d1, ...), reshape to
  (r0 d0, r1 d1, ...).
- `onnx.Where` with a constant condition: a generic over the result reading the condition
  (as i8 0 / 1), X and Y through broadcast maps, yielding `select(c != 0, x, y)`; constant X
  or Y (a masked_fill value) become `arith.constant`s of the data's element type.

Only ops whose data element type is an integer or f32 (a float island's data,
docs/float-islands.md) are lowered; on other floats (and quantized types) they stay. Shapes must be static and the shape / axes / pads / value operands constants
(`onnx.Constant` or `arith.constant`); constants left without users are erased. Anything
else fails the pass with one line naming the node."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from bitfold.dialects.evaluation import read_signed
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.onnx.constant import constant_array, dense_attr, dense_to_numpy
from bitfold.dialects.onnx.elementwise import WhereOp
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
from bitfold.passes.utils import pass_failure
from bitfold.passes.utils.linalg_building import Body, broadcast_map, generic_op

PASS_NAME = "onnx-data-movement-to-linalg"


fail = partial(pass_failure.fail, PASS_NAME)
"""`fail(op, message)`: stop the pass with one line naming the op and its node."""


def data_tensor(value: SSAValue) -> TensorType | None:
    """The value's tensor type if its elements are integers or f32, else None (left alone)."""
    value_type = value.type
    if isinstance(value_type, TensorType) and isinstance(value_type.element_type, IntegerType | Float32Type):
        return value_type
    return None


def checked_shape(op: OnnxOp, value_type: TensorType, role: str) -> tuple[int, ...]:
    """The shape of a static, non-empty tensor type; anything else fails the pass."""
    shape = tuple(value_type.get_shape())
    if any(size < 0 for size in shape):
        fail(op, f"{role} {value_type} has a dynamic shape (only static shapes are supported)")
    if 0 in shape:
        fail(op, f"{role} {value_type} is empty (zero-size tensors are not supported)")
    return shape


def required_constant(op: OnnxOp, operand: SSAValue, role: str) -> np.ndarray:
    """The value of a constant operand (`constant_array`); a non-constant one fails the pass."""
    values = constant_array(operand)
    if values is None:
        fail(op, f"{role} is not a constant (dynamic {role} are not supported)")
    return values


def replace_and_erase_constants(rewriter: PatternRewriter, op: OnnxOp, new_ops: Sequence[Operation], result: SSAValue):
    """Insert `new_ops` before `op`, replace `op` by `result`, and erase the constants that
    fed `op` (shape, axes, pads, value) if nothing else uses them."""
    owners = [
        operand.owner for operand in op.operands[1:] if isinstance(operand.owner, OnnxConstantOp | arith.ConstantOp)
    ]
    *before, last = [*new_ops] or [None]
    if before:
        rewriter.insert(before)  # unnamed: the result alone takes the op's name
    rewriter.replace(op, [last] if last else [], [result])
    for owner in dict.fromkeys(owners):
        if all(not value.uses for value in owner.results):
            rewriter.erase(owner)


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(dim, i64) for dim in group]) for group in groups])


def reshape_groups(source: Sequence[int], target: Sequence[int]) -> list[tuple[list[int], list[int]]] | None:
    """The finest split of two shapes (equal element counts, no zero) into groups of
    consecutive dims, (source dims, target dims), with equal element counts per group; size-1
    dims at the end join the last group. None when either shape is rank 0 (no groups)."""
    if not source or not target:
        return None
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(source) and j < len(target):
        source_dims, target_dims = [i], [j]
        source_count, target_count = source[i], target[j]
        i, j = i + 1, j + 1
        while source_count != target_count:
            if source_count < target_count:
                source_dims.append(i)
                source_count *= source[i]
                i += 1
            else:
                target_dims.append(j)
                target_count *= target[j]
                j += 1
        groups.append((source_dims, target_dims))
    groups[-1][0].extend(range(i, len(source)))  # trailing size-1 dims
    groups[-1][1].extend(range(j, len(target)))
    return groups


def build_reshape(source: SSAValue, target_type: TensorType) -> tuple[list[Operation], SSAValue]:
    """Ops reshaping `source` (static shape) row-major to `target_type`: a collapse and / or
    an expand through the shapes' common groups; none when the shapes are equal."""
    source_type = source.type
    assert isinstance(source_type, TensorType)
    source_shape, target_shape = tuple(source_type.get_shape()), tuple(target_type.get_shape())
    if source_shape == target_shape:
        return [], source
    if not source_shape:  # xDSL rejects expand_shape's empty reassociation: broadcast the element
        empty_map = AffineMap(len(target_shape), 0, ())
        return parallel_generic([source], [empty_map], target_type, lambda body, args: args[0])
    groups = reshape_groups(source_shape, target_shape)
    source_groups = [g[0] for g in groups] if groups else []
    target_groups = [g[1] for g in groups] if groups else []
    ops: list[Operation] = []
    value = source
    if len(source_groups) != len(source_shape):
        middle_shape = [math.prod(target_shape[d] for d in dims) for dims in target_groups]
        middle_type = TensorType(target_type.element_type, middle_shape)
        collapse = tensor.CollapseShapeOp(
            operands=[value], result_types=[middle_type], properties={"reassociation": _reassociation(source_groups)}
        )
        ops.append(collapse)
        value = collapse.result
    if len(target_groups) != len(target_shape):
        expand = tensor.ExpandShapeOp(value, [], _reassociation(target_groups), target_shape, target_type)
        ops.append(expand)
        value = expand.result
    return ops, value


def parallel_generic(
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMap],
    result_type: TensorType,
    build,
) -> tuple[list[Operation], SSAValue]:
    """A parallel `linalg.generic` over `result_type`'s shape writing a `tensor.empty` through
    the identity map; `build(body, input_args)` returns the value to yield."""
    rank = len(result_type.get_shape())
    empty = tensor.EmptyOp([], result_type)
    generic = generic_op(
        list(zip(inputs, input_maps, strict=True)),
        (empty.tensor, AffineMap.identity(rank)),
        [],
        lambda body: build(body, [body.values[f"in{i}"] for i in range(len(inputs))]),
    )
    return [empty, generic], generic.results[0]


class LowerReshapes(RewritePattern):
    """Flatten, Reshape, Squeeze, Unsqueeze on integers: collapse / expand (see module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FlattenOp | ReshapeOp | SqueezeOp | UnsqueezeOp, rewriter: PatternRewriter):
        source, result = op.operands[0], op.results[0]
        if (source_type := data_tensor(source)) is None:
            return
        result_type, source_shape = checked_result_and_input(op, source_type)
        roles = {ReshapeOp: "shape", SqueezeOp: "axes", UnsqueezeOp: "axes"}
        constants = [required_constant(op, operand, roles[type(op)]) for operand in op.operands[1:]]
        try:
            (expected,) = op.evaluate([np.broadcast_to(np.zeros((), np.bool_), source_shape), *constants])
        except (ValueError, IndexError) as error:
            fail(op, f"cannot reshape {source_type}: {error}")
        if expected.shape != tuple(result_type.get_shape()):
            fail(op, f"result type {result.type} does not match the shape {list(expected.shape)} the op computes")
        ops, value = build_reshape(source, result_type)
        replace_and_erase_constants(rewriter, op, ops, value)


def checked_result(op: OnnxOp, source_type: TensorType) -> TensorType:
    """The op's result type: a static tensor of the input's element type, else the pass fails."""
    result_type = op.results[0].type
    if not isinstance(result_type, TensorType) or result_type.element_type != source_type.element_type:
        fail(op, f"result type {result_type} is not a tensor of the input's {source_type.element_type}")
    checked_shape(op, result_type, "result")
    return result_type


def checked_result_and_input(op: OnnxOp, source_type: TensorType) -> tuple[TensorType, tuple[int, ...]]:
    """(`checked_result`, the input's `checked_shape`): the static result type of the input's
    element type and the input's static, non-empty shape; anything else fails the pass."""
    return checked_result(op, source_type), checked_shape(op, source_type, "input")


class LowerTranspose(RewritePattern):
    """Transpose on integers: a generic reading the input through the inverse permutation."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.data)) is None:
            return
        result_type, shape = checked_result_and_input(op, source_type)
        rank = len(shape)
        perm = list(op.ints_attr("perm")) if "perm" in op.attributes else list(reversed(range(rank)))
        if sorted(perm) != list(range(rank)):
            fail(op, f"perm {perm} is not a permutation of the {rank} axes")
        if [shape[p] for p in perm] != list(result_type.get_shape()):
            fail(op, f"result type {result_type} does not match the transposed shape")
        if perm == list(range(rank)):
            replace_and_erase_constants(rewriter, op, [], op.data)
            return
        ops, value = build_transpose(op.data, perm, result_type)
        replace_and_erase_constants(rewriter, op, ops, value)


def build_transpose(source: SSAValue, perm: Sequence[int], result_type: TensorType) -> tuple[list[Operation], SSAValue]:
    """A generic copying `source` to `result_type` (axis k of the result is axis perm[k]),
    reading the input through the inverse permutation."""
    rank = len(perm)
    inverse = [list(perm).index(axis) for axis in range(rank)]
    read = AffineMap(rank, 0, tuple(AffineDimExpr(inverse[axis]) for axis in range(rank)))
    return parallel_generic([source], [read], result_type, lambda body, args: args[0])


@dataclass(frozen=True)
class AxisPad:
    """Elements added before (`begin`) and after (`end`) an axis of `size`; negative removes."""

    size: int
    begin: int
    end: int


def pad_value_attr(op: OnnxOp, element: IntegerType | Float32Type, value: np.ndarray | None) -> IntegerAttr | FloatAttr:
    """The pad value as an attribute of the data's element type (the same bits)."""
    if isinstance(element, Float32Type):
        return FloatAttr(0.0 if value is None else float(np.asarray(value, dtype=np.float32).reshape(())), element)
    if value is None:
        return IntegerAttr(0, element)
    if value.size != 1:
        fail(op, f"constant_value has {value.size} elements, expected one")
    width = element.width.data
    if not np.issubdtype(value.dtype, np.integer) and value.dtype != np.bool_:
        fail(op, f"constant_value of type {value.dtype} on {element} data")
    return IntegerAttr(int(read_signed(value.reshape(()), width)) if width > 1 else int(value.reshape(())) & 1, element)


def fill_and_insert(
    source: SSAValue, result_type: TensorType, fill: IntegerAttr | FloatAttr, begins: Sequence[int]
) -> tuple[list[Operation], SSAValue]:
    """Constant padding as two generics: one filling the padded shape with the pad value, one
    over the source's shape writing each element at its index + begin (an output map with
    constant offsets); no index arithmetic or selection per element. Every axis must be padded
    at its beginning or not at all: an axis the map reads as a plain dimension must have the
    source's size (the generic's verifier)."""
    filled_ops, filled = parallel_generic([], [], result_type, lambda body, args: body.emit(arith.ConstantOp(fill)))
    rank = len(begins)
    identity = AffineMap.identity(rank)
    shifted = AffineMap(rank, 0, tuple(AffineExpr.dimension(d) + begin for d, begin in enumerate(begins)))
    insert = generic_op([(source, identity)], (filled, shifted), [], lambda body: body.values["in0"])
    return [*filled_ops, insert], insert.results[0]


class LowerPad(RewritePattern):
    """Pad (constant or edge mode, constant operands) on integers: see the module doc."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PadOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.data)) is None:
            return
        result_type, shape = checked_result_and_input(op, source_type)
        mode = op.string_attr("mode")
        if mode not in ("constant", "edge"):
            fail(op, f"mode '{mode}' is not supported (constant and edge only)")
        pads = required_constant(op, op.pads, "pads").reshape(-1)
        axes = range(len(shape)) if op.axes is None else required_constant(op, op.axes, "axes").reshape(-1)
        try:
            axes = normalized_axes(axes, len(shape))
        except ValueError as error:
            fail(op, str(error))
        if len(pads) != 2 * len(axes):
            fail(op, f"{len(pads)} pads for {len(axes)} axes")
        per_axis = [AxisPad(size, 0, 0) for size in shape]
        for i, axis in enumerate(axes):
            per_axis[axis] = AxisPad(shape[axis], int(pads[i]), int(pads[len(axes) + i]))
        if [p.size + p.begin + p.end for p in per_axis] != list(result_type.get_shape()):
            fail(op, f"result type {result_type} does not match the padded shape")
        if mode == "edge" and any(p.size + min(p.begin, 0) + min(p.end, 0) <= 0 for p in per_axis):
            fail(op, "mode 'edge' with pads that remove every element of an axis")
        element = source_type.element_type
        value = None if op.constant_value is None else required_constant(op, op.constant_value, "constant_value")
        fill = pad_value_attr(op, element, value)
        pads_anything = any(p.begin > 0 or p.end > 0 for p in per_axis)
        if mode == "constant" and pads_anything and isinstance(element, IntegerType) and element.signedness.data != Signedness.SIGNLESS:
            fail(op, f"padding {element} elements: arith constants must be signless")
        if all(p.begin == 0 and p.end == 0 for p in per_axis):
            replace_and_erase_constants(rewriter, op, [], op.data)
            return

        if mode == "constant" and all(p.begin > 0 or (p.begin == 0 and p.end == 0) for p in per_axis):
            ops, result = fill_and_insert(op.data, result_type, fill, [p.begin for p in per_axis])
            replace_and_erase_constants(rewriter, op, ops, result)
            return

        def build(body: Body, args: Sequence[SSAValue]) -> SSAValue:
            indices, inside = [], None
            for axis, p in enumerate(per_axis):
                index = body.index(axis)
                if p.begin:
                    index = body.emit(arith.SubiOp(index, body.index_constant(p.begin)))
                clamped = body.clamp(index, 0 if p.begin > 0 else None, p.size - 1 if p.end > 0 else None)
                if mode == "constant" and clamped is not index:
                    here = body.emit(arith.CmpiOp(index, clamped, "eq"))
                    inside = here if inside is None else body.emit(arith.AndIOp(inside, here))
                indices.append(clamped)
            element_value = body.emit(tensor.ExtractOp(op.data, indices, element))
            if inside is None:
                return element_value
            return body.emit(arith.SelectOp(inside, element_value, body.emit(arith.ConstantOp(fill))))

        ops, result = parallel_generic([], [], result_type, build)
        replace_and_erase_constants(rewriter, op, ops, result)


class LowerConcat(RewritePattern):
    """Concat on integers: one generic selecting the input by the index along the axis."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter):
        types = [data_tensor(value) for value in op.inputs]
        if not types or any(t is None for t in types):
            return
        result_type = checked_result(op, types[0])
        shapes = [checked_shape(op, t, f"input #{k}") for k, t in enumerate(types)]
        rank = len(shapes[0])
        if any(t.element_type != types[0].element_type for t in types) or any(len(s) != rank for s in shapes):
            fail(op, "inputs differ in element type or rank")
        try:
            (axis,) = normalized_axes([op.int_attr("axis")], rank)
        except ValueError as error:
            fail(op, str(error))
        if any(s[:axis] + s[axis + 1 :] != shapes[0][:axis] + shapes[0][axis + 1 :] for s in shapes):
            fail(op, f"input shapes {[list(s) for s in shapes]} differ off axis {axis}")
        sizes = [s[axis] for s in shapes]
        expected = list(shapes[0])
        expected[axis] = sum(sizes)
        if expected != list(result_type.get_shape()):
            fail(op, f"result type {result_type} does not match the concatenated shape {expected}")
        if len(op.inputs) == 1:
            replace_and_erase_constants(rewriter, op, [], op.inputs[0])
            return
        offsets = [sum(sizes[:k]) for k in range(len(sizes))]

        def build(body: Body, args: Sequence[SSAValue]) -> SSAValue:
            dims = [body.index(d) for d in range(rank)]
            values = []
            for k, (source, offset, size) in enumerate(zip(op.inputs, offsets, sizes)):
                along = body.emit(arith.SubiOp(dims[axis], body.index_constant(offset))) if offset else dims[axis]
                along = body.clamp(along, 0 if k > 0 else None, size - 1 if k < len(sizes) - 1 else None)
                indices = [*dims[:axis], along, *dims[axis + 1 :]]
                values.append(body.emit(tensor.ExtractOp(source, indices, types[0].element_type)))
            chosen = values[-1]
            for k in reversed(range(len(values) - 1)):
                before_next = body.emit(arith.CmpiOp(dims[axis], body.index_constant(offsets[k + 1]), "slt"))
                chosen = body.emit(arith.SelectOp(before_next, values[k], chosen))
            return chosen

        ops, result = parallel_generic([], [], result_type, build)
        replace_and_erase_constants(rewriter, op, ops, result)


def _checked_replication(op: ExpandOp | TileOp, source_type: TensorType, operand: SSAValue, role: str) -> TensorType:
    """The result type, checked against the shape op's reference computes."""
    result_type, source_shape = checked_result_and_input(op, source_type)
    try:
        (expected,) = op.evaluate([np.zeros(source_shape, np.bool_), required_constant(op, operand, role)])
    except ValueError as error:
        fail(op, f"cannot {op.name[5:].lower()} {source_type}: {error}")
    if expected.shape != tuple(result_type.get_shape()):
        fail(op, f"result type {result_type} does not match the shape {list(expected.shape)} the op computes")
    return result_type


class LowerExpand(RewritePattern):
    """Expand on integers: a generic over the result reading the input broadcast (its axes
    aligned with the result's last ones, a size-1 axis read at index 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ExpandOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.input)) is None:
            return
        result_type = _checked_replication(op, source_type, op.shape, "shape")
        read = broadcast_map(tuple(source_type.get_shape()), len(result_type.get_shape()))
        ops, value = parallel_generic([op.input], [read], result_type, lambda body, args: args[0])
        replace_and_erase_constants(rewriter, op, ops, value)


class LowerTile(RewritePattern):
    """Tile on integers (shape d, repeats r): the input reshaped to (1, d0, 1, d1, ...),
    broadcast to (r0, d0, r1, d1, ...) by a generic, reshaped to (r0 d0, r1 d1, ...)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TileOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.input)) is None:
            return
        result_type = _checked_replication(op, source_type, op.repeats, "repeats")
        shape, element = tuple(source_type.get_shape()), source_type.element_type
        repeats = [size // d for size, d in zip(result_type.get_shape(), shape)]
        interleaved = TensorType(element, [n for d in shape for n in (1, d)])
        broadcast = TensorType(element, [n for d, r in zip(shape, repeats) for n in (r, d)])
        split_ops, split = build_reshape(op.input, interleaved)
        read = broadcast_map(tuple(interleaved.get_shape()), len(broadcast.get_shape()))
        copy_ops, copied = parallel_generic([split], [read], broadcast, lambda body, args: args[0])
        merge_ops, merged = build_reshape(copied, result_type)
        replace_and_erase_constants(rewriter, op, [*split_ops, *copy_ops, *merge_ops], merged)


class LowerWhere(RewritePattern):
    """Where on integers with a constant condition: a generic over the result reading the
    condition (an i8 constant of 0 / 1), X and Y broadcast, yielding `select(c != 0, x, y)`.
    A constant X or Y becomes an `arith.constant` of the result's element type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhereOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.x)) is None or data_tensor(op.y) is None:
            return
        result_type = checked_result(op, source_type)
        condition = required_constant(op, op.condition, "condition")
        constants: list[Operation] = []
        inputs = []
        for value, array, element in ((op.condition, condition.astype(np.int8), IntegerType(8)),
                                      (op.x, None, result_type.element_type), (op.y, None, result_type.element_type)):
            if array is None and isinstance(value.owner, OnnxConstantOp):
                array = dense_to_numpy(value.owner.value)
            if array is None:
                inputs.append(value)
                continue
            constants.append(arith.ConstantOp(dense_attr(array, element)))
            inputs.append(constants[-1].results[0])
        maps = [broadcast_map(tuple(value.type.get_shape()), len(result_type.get_shape())) for value in inputs]

        def build(body: Body, args: Sequence[SSAValue]) -> SSAValue:
            chosen = body.emit(arith.CmpiOp(args[0], body.constant(0, IntegerType(8)), "ne"))
            return body.emit(arith.SelectOp(chosen, args[1], args[2]))

        ops, value = parallel_generic(inputs, maps, result_type, build)
        condition_owner = op.condition.owner
        replace_and_erase_constants(rewriter, op, [*constants, *ops], value)
        if all(not result.uses for result in condition_owner.results):
            rewriter.erase(condition_owner)


class LowerBlockPermutation(RewritePattern):
    """DepthToSpace / SpaceToDepth on integers: the op's own `block_permutation`, an expand to
    the 6-D blocks, a transposing generic and a collapse to the result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DepthToSpaceOp | SpaceToDepthOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.input)) is None:
            return
        result_type, shape = checked_result_and_input(op, source_type)
        blocks, perm, result_shape = op.block_permutation(shape)
        if len(shape) != 4 or math.prod(blocks) != math.prod(shape) or tuple(result_type.get_shape()) != result_shape:
            fail(op, f"blocksize {op.int_attr('blocksize')} does not divide {source_type} into {result_type}")
        element = source_type.element_type
        expand_ops, blocked = build_reshape(op.input, TensorType(element, blocks))
        moved_ops, moved = build_transpose(blocked, perm, TensorType(element, [blocks[p] for p in perm]))
        collapse_ops, result = build_reshape(moved, result_type)
        replace_and_erase_constants(rewriter, op, [*expand_ops, *moved_ops, *collapse_ops], result)


def axis_selections(op: OnnxOp, select, source_shape: Sequence[int], shape: Sequence[int]) -> list[np.ndarray]:
    """For each axis of a selection of `shape` from a source of `source_shape` (equal rank):
    the source index each position along the axis reads. `select(array)` is the op's numpy
    reference (reshaped to `shape`); it runs on one index ramp per axis, and on the flat
    element numbers to check that the op selects along each axis on its own (else the pass
    fails)."""
    if len(source_shape) != len(shape):
        fail(op, f"selects a rank-{len(shape)} result from rank {len(source_shape)}")
    tables = []
    for axis, size in enumerate(source_shape):
        along = [-1 if a == axis else 1 for a in range(len(shape))]
        ramp = np.broadcast_to(np.arange(size).reshape(along), source_shape)
        selected = select(np.ascontiguousarray(ramp))
        tables.append(selected[tuple(slice(None) if a == axis else 0 for a in range(len(shape)))])
    flat = select(np.arange(math.prod(source_shape)).reshape(source_shape))
    if not np.array_equal(flat, np.ravel_multi_index(np.meshgrid(*tables, indexing="ij"), source_shape)):
        fail(op, "does not select along each axis independently")
    return tables


def build_selection(
    source: SSAValue, tables: Sequence[np.ndarray], result_type: TensorType
) -> tuple[list[Operation], SSAValue]:
    """A generic over `result_type` reading source[t_0[i_0], ..., t_n[i_n]] (`tensor.extract`).
    Per axis, t is the loop index itself where it reads the whole axis in order, an affine
    `start + step * i` where the table is one, else an i32 table constant read at i."""
    source_shape = tuple(source.type.get_shape())
    constants: list[Operation] = []
    table_values: dict[int, SSAValue] = {}
    for axis, table in enumerate(tables):
        steps = set(np.diff(table).tolist())
        if len(steps) > 1:
            values = DenseIntOrFPElementsAttr.from_list(TensorType(i32, [len(table)]), table.tolist())
            constant = arith.ConstantOp(values)
            constants.append(constant)
            table_values[axis] = constant.result

    def build(body: Body, args: Sequence[SSAValue]) -> SSAValue:
        indices = []
        for axis, table in enumerate(tables):
            index = body.index(axis)
            if axis in table_values:
                read = body.emit(tensor.ExtractOp(table_values[axis], [index], i32))
                index = body.emit(arith.IndexCastOp(read, IndexType()))
            elif not (len(table) == source_shape[axis] and np.array_equal(table, np.arange(len(table)))):
                step = int(table[1] - table[0]) if len(table) > 1 else 1
                if step != 1:
                    index = body.emit(arith.MuliOp(index, body.index_constant(step)))
                if int(table[0]):
                    index = body.emit(arith.AddiOp(index, body.index_constant(int(table[0]))))
            indices.append(index)
        return body.emit(tensor.ExtractOp(source, indices, result_type.element_type))

    ops, result = parallel_generic([], [], result_type, build)
    return [*constants, *ops], result


class LowerSelection(RewritePattern):
    """Slice, Gather, Resize (nearest) on integers: one generic reading the source at per-axis
    indices (`axis_selections`, `build_selection`). Gather selects along its axis with the
    indices flattened, then reshapes to the indices' shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SliceOp | GatherOp | ResizeOp, rewriter: PatternRewriter):
        source = op.operands[0]
        if (source_type := data_tensor(source)) is None or (isinstance(op, ResizeOp) and not op.selects_elements()):
            return  # an interpolating Resize is arithmetic (onnx-float-to-linalg)
        if isinstance(op, GatherOp) and constant_array(op.indices) is None:
            return  # indices computed at run time: LowerIndexedGather
        result_type, source_shape = checked_result_and_input(op, source_type)
        constants = [required_constant(op, value, "operand") for value in op.operands[1:]]
        shape = list(result_type.get_shape())
        if isinstance(op, GatherOp):
            (axis,) = normalized_axes([op.int_attr("axis")], len(source_shape))
            indices = constants[0]
            shape = [*source_shape[:axis], indices.size, *source_shape[axis + 1 :]]
        try:
            tables = axis_selections(op, lambda x: op.evaluate([x, *constants])[0].reshape(shape), source_shape, shape)
        except (ValueError, IndexError, NotImplementedError) as error:
            fail(op, str(error))
        selection_ops, selected = build_selection(source, tables, TensorType(source_type.element_type, shape))
        reshape_ops, result = build_reshape(selected, result_type)
        replace_and_erase_constants(rewriter, op, [*selection_ops, *reshape_ops], result)


class LowerIndexedGather(RewritePattern):
    """Gather with indices known only at run time (an embedding table read at a graph input's
    token ids), on integers or f32: one generic over the result,

        out[a.., j.., b..] = data[a.., k, b..],   i = indices[j..] (any integer type),
        k = clamp(i < 0 ? i + n : i, 0, n - 1)    (n = data's size along the axis)

    the indices read as the generic's input through the projection onto the j loops. ONNX leaves
    an index outside [-n, n) undefined (bitfold-run refuses it); the clamp keeps every read inside
    data."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GatherOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.data)) is None or constant_array(op.indices) is not None:
            return
        result_type, source_shape = checked_result_and_input(op, source_type)
        indices_type = op.indices.type
        if not isinstance(indices_type, TensorType) or not isinstance(indices_type.element_type, IntegerType):
            fail(op, f"indices {indices_type} are not a tensor of integers")
        indices_rank = len(checked_shape(op, indices_type, "indices")) if indices_type.get_shape() else 0
        (axis,) = normalized_axes([op.int_attr("axis")], len(source_shape))
        size = source_shape[axis]
        rank = len(result_type.get_shape())
        indices_map = AffineMap(rank, 0, tuple(AffineDimExpr(axis + k) for k in range(indices_rank)))

        def build(body: Body, args: Sequence[SSAValue]) -> SSAValue:
            index = body.emit(arith.IndexCastOp(args[0], IndexType()))
            negative = body.emit(arith.CmpiOp(index, body.index_constant(0), "slt"))
            index = body.emit(arith.SelectOp(negative, body.emit(arith.AddiOp(index, body.index_constant(size))), index))
            index = body.clamp(index, 0, size - 1)
            before = [body.index(d) for d in range(axis)]
            after = [body.index(axis + indices_rank + d) for d in range(len(source_shape) - axis - 1)]
            return body.emit(tensor.ExtractOp(op.data, [*before, index, *after], result_type.element_type))

        ops, value = parallel_generic([op.indices], [indices_map], result_type, build)
        rewriter.replace(op, ops, [value])


class LowerSplit(RewritePattern):
    """Split on integers: each piece is a selection (`build_selection`) of the input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SplitOp, rewriter: PatternRewriter):
        if (source_type := data_tensor(op.input)) is None:
            return
        source_shape = checked_shape(op, source_type, "input")
        sizes = None if op.split is None else required_constant(op, op.split, "split")
        operands = [sizes] if op.split is not None else []
        new_ops: list[Operation] = []
        results = []
        for k, piece in enumerate(op.outputs):
            piece_type = piece.type
            if not isinstance(piece_type, TensorType) or piece_type.element_type != source_type.element_type:
                fail(op, f"result #{k} {piece_type} is not a tensor of the input's {source_type.element_type}")
            shape = checked_shape(op, piece_type, f"result #{k}")
            try:
                tables = axis_selections(op, lambda x, k=k: op.evaluate([x, *operands])[k], source_shape, shape)
            except ValueError as error:
                fail(op, str(error))
            ops, value = build_selection(op.input, tables, piece_type)
            new_ops += ops
            results.append(value)
        owners = [op.split.owner] if op.split is not None else []
        rewriter.replace(op, new_ops, results)
        for owner in owners:
            if isinstance(owner, OnnxConstantOp | arith.ConstantOp) and not owner.results[0].uses:
                rewriter.erase(owner)


class ConstantsOfGenerics(RewritePattern):
    """An `onnx.Constant` of integers or f32 read by non-ONNX ops (a generic of quant-to-integer's Mul
    by a quantized constant, after `scast(scast(c))` folded to `c`; a lowered data-movement op reading
    a float constant) gives them an `arith.constant` of its value; its ONNX readers keep it. Run
    after the other patterns, on what they made."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OnnxConstantOp, rewriter: PatternRewriter) -> None:
        uses = [use for use in op.results[0].uses if not isinstance(use.operation, OnnxOp)]
        if not uses or data_tensor(op.results[0]) is None or not isinstance(op.value, DenseIntOrFPElementsAttr):
            return
        constant = arith.ConstantOp(op.value)
        rewriter.insert(constant)
        op.results[0].replace_uses_with_if(constant.result, lambda use: not isinstance(use.operation, OnnxOp))
        if not op.results[0].uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class OnnxDataMovementToLinalgPass(ModulePass):
    """Lower onnx.Flatten / Reshape / Squeeze / Unsqueeze / Transpose / Pad / Concat /
    DepthToSpace / SpaceToDepth / Slice / Split / Gather / Resize (nearest) / Expand / Tile /
    Where (constant condition) on integer and f32 tensors to `tensor.collapse_shape` /
    `tensor.expand_shape` and `linalg.generic`s (bodies of arith, `linalg.index`,
    `tensor.extract`), moving every element exactly as the op's `evaluate`
    does. Other float types stay; dynamic shapes or operands, and Pad modes reflect and wrap, fail the
    pass with one line naming the node."""

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier(
            [
                LowerReshapes(),
                LowerTranspose(),
                LowerPad(),
                LowerConcat(),
                LowerBlockPermutation(),
                LowerSelection(),
                LowerIndexedGather(),
                LowerSplit(),
                LowerExpand(),
                LowerTile(),
                LowerWhere(),
            ]
        )
        PatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(ConstantsOfGenerics(), apply_recursively=False).rewrite_module(op)
