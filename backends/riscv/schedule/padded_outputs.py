"""Padded copies elided: the producer of a padding's source writes into the padded buffer.

A constant padding reaches the nests as a fill and a copy through an offset map (`padding_copies.py`,
or so from quant-to-integer); the source is a workspace buffer Y that one generic P wrote:

    P:    Y[M(i)] = body(...)                              (its output map M; body not reading Y)
    fill: X[j] = c
    copy: X[O(k)] = Y[k]                                   (O: the offset map, (d0, d1, d2 + 1, d3 + 1))

becomes

    fill: X[j] = c
    P:    X[O(M(i))] = body(...)

so Y's elements are stored once, into the padded buffer's interior, and never copied (about 2.75
instructions a byte; a stride-2 depthwise layer's 49-byte rows, each row a loop). Where: Y is a view
of the workspace that P and the copy alone use, P's body does not read Y's old value, the copy's input
map is the identity, and the fill stands between P and the copy. The fill (with X's view) moves before
P, so X lives from P on and Y no longer at all: `workspace_replan.py` decides with the workspace plan
whether that fits (X must not share bytes with P's inputs) and elides.
"""

from collections.abc import Container
from dataclasses import dataclass

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, DenseArrayBase, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.riscv.schedule.loop_nest_plan import LOOP_BOUNDS_ATTRIBUTE, loop_bounds


def _is_copy(op: linalg.GenericOp) -> bool:
    """One input read at the identity, one output, all parallel, the body yields the input."""
    block = op.body.block
    return (
        len(op.inputs) == 1 and len(op.outputs) == 1 and not op.res
        and all(it.data == linalg.IteratorType.PARALLEL for it in op.iterator_types.data)
        and op.indexing_maps.data[0].data == AffineMap.identity(len(op.iterator_types.data))
        and block.last_op.operands[0] is block.args[0]
        and op.inputs[0].type.get_element_type() == op.outputs[0].type.get_element_type()
    )


def _producer(source: SSAValue, copy: linalg.GenericOp, fused: Container) -> linalg.GenericOp | None:
    """P: the one other user of `source`, a generic before `copy` with `source` as its only output,
    not reading its old value (a `fused` generic's body reads its accumulators there, which start as
    the bias: `fused_epilogue.py`)."""
    users = {use.operation for use in source.uses} - {copy}
    if len(users) != 1:
        return None
    (producer,) = users
    if (not isinstance(producer, linalg.GenericOp) or list(producer.outputs) != [source] or producer.res
            or producer.parent_block() is not copy.parent_block() or not producer.is_before_in_block(copy)
            or (producer.body.block.args[-1].uses and producer not in fused)):
        return None
    return producer


def _fill_of(padded: SSAValue, producer: linalg.GenericOp, copy: linalg.GenericOp) -> linalg.GenericOp | None:
    """The generic without inputs writing `padded` between P and the copy."""
    op = producer.next_op
    while op is not None and op is not copy:
        if isinstance(op, linalg.GenericOp) and not op.inputs and list(op.outputs) == [padded]:
            return op
        op = op.next_op
    return None


def _definitions(padded: SSAValue) -> list[Operation]:
    """X's view and its constant offset (they move with the fill)."""
    view = padded.owner
    return [view, *(v.owner for v in view.operands if isinstance(v.owner, arith.ConstantOp))]


@dataclass(frozen=True)
class Elision:
    """A padding copy P's output need not go through (module docstring)."""

    copy: linalg.GenericOp
    producer: linalg.GenericOp
    fill: linalg.GenericOp

    @property
    def source(self) -> SSAValue:
        return self.copy.inputs[0]

    @property
    def padded(self) -> SSAValue:
        return self.copy.outputs[0]


def elision_of(copy: linalg.GenericOp, fused: Container = ()) -> Elision | None:
    """The Elision of `copy` where the module docstring allows one."""
    if not _is_copy(copy):
        return None
    source, padded = copy.inputs[0], copy.outputs[0]
    if not isinstance(source.owner, memref.ViewOp) or not isinstance(padded.owner, memref.ViewOp):
        return None
    producer = _producer(source, copy, fused)
    fill = None if producer is None else _fill_of(padded, producer, copy)
    return None if fill is None else Elision(copy, producer, fill)


def elidable_paddings(function: func.FuncOp, fused: Container = ()) -> list[Elision]:
    """The Elisions of the copies in `function`'s body (`fused`: the generics with an epilogue fused)."""
    found = [elision_of(op, fused) for op in function.body.block.ops if isinstance(op, linalg.GenericOp)]
    return [e for e in found if e is not None]


def elide(elision: Elision) -> None:
    """The fill and X's view moved before P, P writing X through the composed map (in place: a fused
    generic stays the key of its `Fusion`), the copy erased."""
    producer, fill, copy = elision.producer, elision.fill, elision.copy
    for op in [*reversed(_definitions(elision.padded)), fill]:
        if not op.is_before_in_block(producer):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(producer))
    bounds = loop_bounds(producer)
    n_inputs = len(producer.inputs)
    maps = list(producer.indexing_maps.data)
    maps[n_inputs] = AffineMapAttr(copy.indexing_maps.data[1].data.compose(maps[n_inputs].data))
    producer.operands[n_inputs] = elision.padded
    producer.indexing_maps = ArrayAttr(maps)
    producer.attributes[LOOP_BOUNDS_ATTRIBUTE] = DenseArrayBase.from_list(i64, bounds)  # the maps may not give them
    Rewriter.erase_op(copy)
