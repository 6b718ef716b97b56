"""An outer loop's state spilled around the inner loop that needs its registers.

A `riscv_scf.for` holds its induction variable and bound in registers for its whole body (the
increment and the compare at the end of the body read them) and each carried value from its
block argument to the yield; the spiller (`register_allocation.py`) moves only values defined by
operations. In a register-tiled nest the loops over output rows and columns thus keep four or
more registers through the reduction loop that does not read them, and a 4 x 4 tile (16
accumulators, 4 + 4 operands) does not fit. Here the state of loop L that the inner loop I
(an op of L's body) does not use is stored before I and reloaded after it:

    sw %stop, slot_s(sp)                                  once before L
    for %i = %start to %stop step s iter_args(%p = ...) {
      ...                    (%i, %p last read here)
      sw %i, slot_i(sp)
      sw %p, slot_p(sp)
      inner loop I           (reads neither %i, %stop nor %p)
      %i2 = lw slot_i(sp)    {bitfold.restores = 0}       in the register of %i
      %s2 = lw slot_s(sp)    {bitfold.restores = -1}      in the register of %stop
      %p2 = lw slot_p(sp)    {bitfold.restores = 1}       read after I instead of %p
      ...
    }

`loop_allocation.py` gives a reload of the induction variable or of the bound the register of
the value it restores and frees that register from the value's last use before I to the reload
(a window, as it does for carried registers), so I may use it. The reloads carry unknown memory
effects (`lowering/instructions.py`): nothing removes one whose result is unused. A value is
spilled so only where no loop after I in L's body reads it (a reload given to a loop as its
initial value would share its register with the loop's). Uses in I's own body are reloaded
before the first of a run of them with no loop between (`_reload_serves`): one reload serves the
run (a tile's four bias loads from a spilled bias pointer: one reload a tile, not four).
"""

from collections.abc import Callable

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block, Operation, OpResult, SSAValue, Use

from bitfold.backends.riscv.lowering.instructions import LdOp, LwOp, SdOp, SwOp
from bitfold.backends.riscv.regalloc.loop_allocation import (
    BOUND,
    RESTORES,
    Loop,
    accumulation_chain,
    restored_value,
    restores,
)
from bitfold.backends.riscv.regalloc.loop_value_copies import ancestor_in


def spillable_state(loop: Loop, inner: Loop) -> list[int]:
    """What of `loop`'s state (`RESTORES` numbering) can be spilled around `inner`, a loop of its
    body: not yet spilled, not an accumulation chain, a bound defined by an op; read inside
    `inner` only by ops of its own body (not its nested loops: they are reloaded there), and
    after it by no loop."""
    body = loop.body.block
    done = restores(loop)
    order = {op: i for i, op in enumerate(body.ops)}
    candidates = [*range(len(body.args))] + ([BOUND] if isinstance(loop.stop, OpResult) else [])
    chosen = []
    for which in candidates:
        if which in done:
            continue
        if which > 0 and accumulation_chain(body.args[which], which - 1, body.last_op) is not None:
            continue
        value = restored_value(loop, which)
        if all(_reloadable(use, body, inner, order) for use in value.uses):
            chosen.append(which)
    return chosen


def _reloadable(use: Use, body: Block, inner: Loop, order: dict[Operation, int]) -> bool:
    user = use.operation
    if user.parent_block() is inner.body.block:
        return True
    holder = ancestor_in(body, user)
    return holder is None or (holder is not inner and (order[holder] < order[inner] or not isinstance(holder, Loop)))


def spill_state(loop: Loop, inner: Loop, which: int, sp: SSAValue, xlen: int,
                slot_of: dict[Operation, SSAValue]) -> None:
    """Store `loop`'s value `which` before `inner` (the bound: before the loop), reload it after
    `inner` (module docstring): the uses after `inner` read that reload, those in `inner`'s
    body a reload before each. `slot_of` records the stores and reloads under the value
    (`register_allocation._Spiller.assign_slots`)."""
    body = loop.body.block
    value = restored_value(loop, which)
    order = {op: i for i, op in enumerate(body.ops)}
    load = LwOp if xlen == 32 else LdOp
    store = (SwOp if xlen == 32 else SdOp)(sp, value, 0)
    slot_of[store] = value
    if which == BOUND:
        loop.parent_block().insert_op_before(store, loop)
    else:
        body.insert_op_before(store, inner)
    restore = load(sp, 0)
    restore.attributes[RESTORES] = IntegerAttr(which, i32)
    body.insert_op_after(restore, inner)
    slot_of[restore] = value
    inner_order = {op: i for i, op in enumerate(inner.body.block.ops)}
    previous: tuple[Operation, SSAValue] | None = None
    for use in sorted(value.uses, key=lambda u: inner_order.get(u.operation, -1)):
        user = use.operation
        if user.parent_block() is inner.body.block:
            if previous is None or not _reload_serves(previous[0], user):
                reload = load(sp, 0)
                inner.body.block.insert_op_before(reload, user)
                slot_of[reload] = value
                previous = (user, reload.rd)
            user.operands[use.index] = previous[1]
        elif (holder := ancestor_in(body, user)) is not None and order.get(holder, -1) > order[inner]:
            user.operands[use.index] = restore.rd


def _reload_serves(previous: Operation, user: Operation) -> bool:
    """Whether the reload before `previous` may serve `user` too (a later op of its block): no
    loop from `previous` up to `user` (the reload is not held through a nested loop, nor given to
    one as its carried register), as for the loads of a tile's bias from a spilled pointer: one
    reload, not one a load."""
    if isinstance(previous, Loop):
        return False
    op = previous
    while op is not None and op is not user:
        if isinstance(op, Loop):
            return False
        op = op.next_op
    return op is user


def spill_loop_state(crowded: list[Operation], top: Block, sp: Callable[[], SSAValue], xlen: int,
                     slot_of: dict[Operation, SSAValue]) -> bool:
    """In each nest (op of `top`) holding `crowded` ops (where the registers run out): the state of
    the outermost loop around the first such op with some to spill (`spillable_state`), spilled
    around the loop of its body that holds the op; one loop a nest, so that the next try spills
    no more than it needs. False if no nest has any."""
    spilled = set()
    nothing: set[tuple[Loop, Loop]] = set()
    """(loop, inner loop) pairs with nothing to spill: asked once (nothing changes in a nest
    until some state of it is spilled)"""
    for op in crowded:
        nest = ancestor_in(top, op)
        if nest in spilled:
            continue
        around = []
        inner = op
        while inner.parent_block() is not top:
            parent = inner.parent_op()
            if isinstance(parent, Loop) and isinstance(inner, Loop):
                around.append((parent, inner))
            inner = parent
        for loop, holder in reversed(around):
            if (loop, holder) in nothing:
                continue
            chosen = spillable_state(loop, holder)
            if not chosen:
                nothing.add((loop, holder))
            for which in chosen:
                spill_state(loop, holder, which, sp(), xlen, slot_of)
            if chosen:
                spilled.add(nest)
                break
    return bool(spilled)
