"""Constant padding written by index arithmetic, as a fill and a copy.

`onnx-data-movement-to-linalg` lowers a constant Pad with an axis padded at its end only (a
stride-2 convolution's "same" padding: nothing before, one element after) to one generic over
the padded shape that clamps each index into the source, loads there and selects the pad value
outside (linalg's verifier refuses a copy whose output map is a plain dimension of another size,
and MLIR's parser folds any spelling of d + 0 into d):

    linalg.generic outs(%padded) {                   per padded axis a:
      i_a = linalg.index a                             s_a = clamp(i_a - b_a, 0, n_a - 1)
      v = memref.load %source[s_0, ...]                 (maxsi with 0 where b_a > 0, minsi with
      yield select(and_a (i_a - b_a == s_a), v, c)       n_a - 1 where the axis grows at its end)
    }

a dozen instructions an element, not register-tiled (`linalg.index`). On memrefs, inside the
RISC-V backend, where no MLIR parser reads it, it becomes what the other constant pads are:

    linalg.generic outs(%padded) { yield c }                                   (the fill)
    linalg.generic ins(%source) outs(%padded: (d_a + b_a), or d_a floordiv 1 where b_a = 0)

a copy over the source's shape that the register-tiled nests walk with pointers (`d floordiv 1`
is d, `loop_nest_plan.linear_form`, but not a plain dimension, which would have to span the
padded axis). Matched exactly: every index of the load is a linalg.index of the same axis, less a
constant b_a >= 0, clamped at most to [0, n_a - 1]; the selection's condition is the conjunction
of `raw == clamped` over exactly the clamped axes; the padded axis holds n_a + b_a elements or more.
"""

from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import InsertPoint, Rewriter


@dataclass(frozen=True)
class AxisIndex:
    """A source index: the padded axis `axis` less `begin`, and its clamped value where clamped."""

    axis: int
    begin: int
    raw: SSAValue
    clamped: SSAValue | None


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _raw_index(value: SSAValue) -> tuple[int, int] | None:
    """(axis, begin) of `linalg.index axis`, or of it less a constant begin >= 0."""
    owner = value.owner
    if isinstance(owner, linalg.IndexOp):
        return owner.dim.value.data, 0
    if isinstance(owner, arith.SubiOp) and isinstance(owner.lhs.owner, linalg.IndexOp):
        begin = _constant(owner.rhs)
        if begin is not None and begin >= 0:
            return owner.lhs.owner.dim.value.data, begin
    return None


def _axis_index(value: SSAValue, size: int) -> AxisIndex | None:
    """The source index `value` as an AxisIndex: a raw index clamped by maxsi with 0 and / or
    minsi with size - 1 (either order), or not clamped."""
    current = value
    while isinstance(op := current.owner, arith.MaxSIOp | arith.MinSIOp):
        bound = 0 if isinstance(op, arith.MaxSIOp) else size - 1
        if _constant(op.rhs) != bound:
            return None
        current = op.lhs
    raw = _raw_index(current)
    if raw is None:
        return None
    return AxisIndex(raw[0], raw[1], current, None if current is value else value)


def _conjoined_equalities(condition: SSAValue) -> set[frozenset[SSAValue]] | None:
    """The pairs {a, b} of `a == b` comparisons whose conjunction (an andi tree) is `condition`."""
    owner = condition.owner
    if isinstance(owner, arith.AndIOp):
        lhs, rhs = _conjoined_equalities(owner.lhs), _conjoined_equalities(owner.rhs)
        return None if lhs is None or rhs is None else lhs | rhs
    if isinstance(owner, arith.CmpiOp) and owner.predicate.value.data == 0:  # eq
        return {frozenset((owner.lhs, owner.rhs))}
    return None


def padding_of(op: linalg.GenericOp) -> tuple[SSAValue, list[int], arith.ConstantOp] | None:
    """(source, begin pad per axis, pad value) where `op` is the constant padding of the module
    docstring, else None."""
    if op.inputs or len(op.outputs) != 1 or op.res:
        return None
    padded_type = op.outputs[0].type
    if not isinstance(padded_type, MemRefType) or not padded_type.has_static_shape():
        return None
    if any(it.data != linalg.IteratorType.PARALLEL for it in op.iterator_types.data):
        return None
    rank = padded_type.get_num_dims()
    if op.indexing_maps.data[0].data != AffineMap.identity(rank):
        return None
    select = op.body.block.last_op.operands[0].owner
    if not isinstance(select, arith.SelectOp) or not isinstance(select.rhs.owner, arith.ConstantOp):
        return None
    load = select.lhs.owner
    if not isinstance(load, memref.LoadOp) or load.parent_block() is not op.body.block:
        return None
    source_type = load.memref.type
    if not isinstance(source_type, MemRefType) or source_type.get_shape() == () or source_type.get_num_dims() != rank:
        return None
    indices = [_axis_index(index, size) for index, size in zip(load.indices, source_type.get_shape(), strict=True)]
    if any(index is None or index.axis != axis for axis, index in enumerate(indices)):
        return None
    for index, size, padded_size in zip(indices, source_type.get_shape(), padded_type.get_shape(), strict=True):
        if padded_size < size + index.begin or (index.clamped is None and (index.begin or padded_size != size)):
            return None
    clamped = {frozenset((index.raw, index.clamped)) for index in indices if index.clamped is not None}
    if _conjoined_equalities(select.cond) != clamped:
        return None
    return load.memref, [index.begin for index in indices], select.rhs.owner


def _offset_map(begins: list[int]) -> AffineMap:
    """(d_a + b_a) per axis, `d_a floordiv 1` where b_a = 0 (module docstring)."""
    results: list[AffineExpr] = []
    for axis, begin in enumerate(begins):
        dimension = AffineDimExpr(axis)
        if begin:
            results.append(AffineBinaryOpExpr(AffineBinaryOpKind.Add, dimension, AffineConstantExpr(begin)))
        else:
            results.append(AffineBinaryOpExpr(AffineBinaryOpKind.FloorDiv, dimension, AffineConstantExpr(1)))
    return AffineMap(len(begins), 0, tuple(results))


def copy_padding(op: linalg.GenericOp) -> bool:
    """`op` replaced by its fill and copy where it is the padding of the module docstring."""
    found = padding_of(op)
    if found is None:
        return False
    source, begins, fill = found
    padded = op.outputs[0]
    rank = len(begins)
    element = padded.type.get_element_type()
    parallel = op.iterator_types
    fill_body = Block(arg_types=[element])
    value = fill.clone()
    fill_body.add_ops([value, linalg.YieldOp(value.result)])
    filling = linalg.GenericOp([], [padded], Region(fill_body), [AffineMapAttr(AffineMap.identity(rank))], parallel)
    copy_body = Block(arg_types=[element, element])
    copy_body.add_op(linalg.YieldOp(copy_body.args[0]))
    maps = [AffineMapAttr(AffineMap.identity(rank)), AffineMapAttr(_offset_map(begins))]
    copying = linalg.GenericOp([source], [padded], Region(copy_body), maps, parallel)
    Rewriter.insert_op([filling, copying], InsertPoint.before(op))
    Rewriter.erase_op(op)
    return True


def copy_paddings(module: ModuleOp) -> None:
    """Every padding of the module that `copy_padding` rewrites."""
    for op in list(module.walk()):
        if isinstance(op, linalg.GenericOp):
            copy_padding(op)
