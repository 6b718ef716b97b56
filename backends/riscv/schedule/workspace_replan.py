"""The workspace planned again once the nests are decided, so that padded copies can be elided.

`bufferize` plans the workspace before the register-tiled pass fuses epilogues: an accumulator
buffer B that a fused nest no longer touches still holds bytes, and a padded buffer X lives only
from its fill, after the producer P of the padding's source Y, so the plan may give X the bytes of
P's inputs (of B), and P cannot write X's interior (`padded_outputs.py`). Here, after fusion, the
function's workspace views get lifetimes from the ops that use them now (top-level positions, first
to last use, a reshape or any other view of a view counted as the view; a view nothing uses gets no
bytes), with the elidable paddings' X living from P on and their Y dropped, and are placed again by
`bufferize.plan_workspace`. The paddings are taken one by one, in program order, where the plan with
them still fits in the workspace bufferize sized (an elision may raise the peak: X lives through P
beside P's inputs); where even the plan without any does not fit, nothing changes. The workspace's
size (the header's) never changes.
"""

from collections.abc import Container, Sequence
from math import prod

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from bitfold.backends.kernel.bufferize import (
    MIN_BUFFER_ALIGNMENT,
    WorkspaceBuffer,
    element_bytes,
    peak_live_bytes,
    plan_workspace,
    workspace_argument,
    workspace_size,
)
from bitfold.backends.riscv.schedule.padded_outputs import Elision, elidable_paddings, elide


def _lifetimes(function: func.FuncOp, views: Sequence[memref.ViewOp],
               fused: Container) -> dict[memref.ViewOp, tuple[int, int]] | None:
    """(first, last) top-level position of the ops using each view or a view of it; absent where none
    does. None where the first of them may read the view's bytes (`_written_first`): its contents then
    come from another view of the same bytes, which a new plan would separate."""
    block = function.body.block
    position = {op: i for i, op in enumerate(block.ops)}
    lifetimes: dict[memref.ViewOp, tuple[int, int]] = {}
    for view in views:
        pending, uses = [view.result], {}
        while pending:
            value = pending.pop()
            for use in value.uses:
                user = use.operation
                derived = [r for r in user.results if isinstance(r.type, MemRefType)]
                if derived and not user.regions:
                    pending += derived  # a reshape or another view of the same bytes
                else:
                    top = block.find_ancestor_op_in_block(user)
                    uses.setdefault(position[top], []).append((top, use.index))
        if uses:
            first = min(uses)
            if not all(_written_first(op, index, fused) for op, index in uses[first]):
                return None
            lifetimes[view] = (first, max(uses))
    return lifetimes


def _written_first(op: Operation, index: int, fused: Container) -> bool:
    """Whether operand `index` of `op` is not read: an operand of a generic whose block argument the
    body does not use (a pooling window's shape), or its output where the body does not read the
    old value (a `fused` generic reads its accumulators, which start as the bias)."""
    if not isinstance(op, linalg.GenericOp):
        return False
    return not op.body.block.args[index].uses or (index >= len(op.inputs) and op in fused)


def _buffers(views: Sequence[memref.ViewOp], lifetimes, elisions: Sequence[Elision], function: func.FuncOp):
    """The WorkspaceBuffers of the used views, with the elisions' lifetimes (module docstring)."""
    position = {op: i for i, op in enumerate(function.body.block.ops)}
    spans = dict(lifetimes)
    for elision in elisions:
        spans.pop(elision.source.owner, None)
        padded = elision.padded.owner
        spans[padded] = (min(spans[padded][0], position[elision.producer]), spans[padded][1])
    buffers = {}
    for view in views:
        if view in spans:
            size = element_bytes(view.result.type.get_element_type())
            nbytes = prod(view.result.type.get_shape()) * size
            buffers[view] = WorkspaceBuffer(nbytes, max(size, MIN_BUFFER_ALIGNMENT), *spans[view])
    return buffers


def _constant_offset(view: memref.ViewOp) -> arith.ConstantOp | None:
    owner = view.byte_shift.owner
    return owner if isinstance(owner, arith.ConstantOp) and not view.sizes else None


def _workspace_views(function: func.FuncOp) -> list[memref.ViewOp] | None:
    """The views of the function's workspace, where all are top-level views at constant offsets."""
    workspace = workspace_argument(function)
    if workspace is None:
        return None
    views = [use.operation for use in workspace.uses]
    if not all(isinstance(v, memref.ViewOp) and v.parent_op() is function and _constant_offset(v) for v in views):
        return None
    return views


def _place(function: func.FuncOp, views: Sequence[memref.ViewOp], buffers: dict) -> None:
    """Each view at its buffer's planned offset (a view without a buffer, unused, at 0)."""
    for view in views:
        offset = IntegerAttr(buffers[view].offset if view in buffers else 0, IndexType())
        constant = _constant_offset(view)
        if constant.result.uses.get_length() == 1:
            constant.value = offset
        else:  # shared with another view
            constant = arith.ConstantOp(offset)
            constant.result.name_hint = "offset"
            function.body.block.insert_op_before(constant, view)
            view.operands[1] = constant.result


def separate_epilogue(fused_generic: linalg.GenericOp, accumulators: SSAValue, fused: Container) -> bool:
    """Whether the workspace could be planned again (and now is) for the fused generic G, inserted
    before its epilogue, that still stands with the fill and the contraction it replaces: each view
    living through its uses with G's, the accumulator buffer B (`accumulators`) without bytes, within
    the size bufferize recorded. Then G's output shares no bytes with the contraction's inputs it
    reads at the same time (`fused_epilogue.fuse`; `fused`: the fused generics, G among them)."""
    function = fused_generic.parent_op()
    views = _workspace_views(function) if isinstance(function, func.FuncOp) else None
    lifetimes = None if views is None else _lifetimes(function, views, fused)
    if lifetimes is None:
        return False
    lifetimes.pop(accumulators.owner, None)
    buffers = _buffers(views, lifetimes, [], function)
    if plan_workspace(list(buffers.values())) > workspace_size(function):
        return False
    _place(function, views, buffers)
    return True


def replan_workspace(module: ModuleOp, fused: Container = ()) -> None:
    """The plan of the module docstring for each bufferized function of `module` (`fused`: the
    generics with a fused bias or epilogue, `fused_epilogue.fuse_epilogues`)."""
    for function in [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks]:
        views = _workspace_views(function)
        lifetimes = None if views is None else _lifetimes(function, views, fused)
        if lifetimes is None:
            continue
        limit = workspace_size(function)
        elisions: list[Elision] = []
        for candidate in elidable_paddings(function, fused):
            buffers = _buffers(views, lifetimes, [*elisions, candidate], function)
            if peak_live_bytes(list(buffers.values())) <= limit and plan_workspace(list(buffers.values())) <= limit:
                elisions.append(candidate)
        buffers = _buffers(views, lifetimes, elisions, function)
        if plan_workspace(list(buffers.values())) > limit:
            continue
        _place(function, views, buffers)
        for elision in elisions:
            elide(elision)
