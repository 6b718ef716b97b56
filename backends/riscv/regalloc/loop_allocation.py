"""Register allocation of `riscv_scf` loops: xDSL 0.74's block-naive allocator with the loop
registers held only where their values are live.

xDSL gives a loop's initial value, carried block argument, yielded value and result one
register R (`allocate_values_same_reg`) and reserves R for the whole body. Two costs follow,
both large in register-tiled nests (`tests/backends/riscv/test_loop_allocation.py`):

1. An accumulation chain `acc1 = add acc0, p0; acc2 = add acc1, p1; ...; yield accN` holds each
   intermediate in another register beside R: 16 accumulators of a 4x4 tile need 32 registers.
2. An outer loop's carried pointer, handed to an inner loop as its initial value, keeps R
   reserved through the inner loop although it is dead there, while the inner loop holds the
   same pointer in a register of its own.

`LoopAwareAllocator` allocates loops itself:

- Chains: when a carried argument's only use defines the next value, whose only use defines the
  next, ... up to the yield at the argument's position, every value of the chain takes R; the
  chain may pass through an inner loop as that loop's initial value and continue from its
  result (the inner loop then carries the value in R as well).
- Windows: R is not reserved for the body. A body value may take R when its whole live range
  lies after the last use of the carried argument (positions in the body; a value inside an
  inner loop is at that loop's position) and before the yielded value's definition (the
  backward walk holds R for the yielded value until then). After the body R is taken again
  until the initial value's definition, as xDSL does.
- An induction variable or bound spilled around an inner loop (`loop_state_spilling.py`): its
  reload in the body takes its register, which has a window like a carried register's, from the
  value's last use in the body to the reload.
- A loop variable takes the register of its start when the start is a carried argument of the
  enclosing loop whose last use is this loop (the `mv` at entry disappears).
- An op whose result takes an operand's register (an `inout` constraint: `rvbound`'s branch
  over a move) gets it where the op is the operand's last use; elsewhere a copy (`mv`) of the
  operand before the op is what the result's register holds.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.backend.register_allocatable import HasRegisterConstraints, RegisterAllocatableOperation
from xdsl.backend.register_type import RegisterType
from xdsl.backend.riscv.register_allocation import RegisterAllocatorLivenessBlockNaive
from xdsl.dialects import riscv, riscv_scf
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue, SSAValues
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.riscv.regalloc.loop_value_copies import ancestor_in

Loop = riscv_scf.ForOp | riscv_scf.RofOp


RESTORES = "bitfold.restores"
"""On a reload in a loop's body: which of the loop's values it restores (k >= 0: block argument
k, 0 the induction variable; -1: the bound)."""

BOUND = -1


def restores(loop: Loop) -> dict[int, Operation]:
    """The reloads in `loop`'s body of its own state, by what they restore (`RESTORES`)."""
    return {op.attributes[RESTORES].value.data: op for op in loop.body.block.ops if RESTORES in op.attributes}


def restored_value(loop: Loop, which: int) -> SSAValue:
    return loop.stop if which == BOUND else loop.body.block.args[which]


def _key(register: RegisterType) -> tuple[str, int]:
    """A register's identity across the integer and float files: (pool, index)."""
    return register.register_pool_key(), register.index.data


@dataclass
class Window:
    """One loop body being allocated: where each carried register's argument is last used."""

    block: Block
    positions: dict[Operation, int]
    last_uses: dict[tuple[str, int], int]
    """(register pool, index) -> position of the carried argument's last use (-1: unused)"""

    @staticmethod
    def of(loop: Loop, restored: Sequence[SSAValue] = ()) -> "Window":
        """The window of each carried register and of the registers of `restored` (the loop's
        induction variable or bound, reloaded into their register in the body)."""
        block = loop.body.block
        positions = {op: i for i, op in enumerate(block.ops)}
        last_uses: dict[tuple[str, int], int] = {}
        for value in (*block.args[1:], *restored):
            uses = [positions[a] for u in value.uses if (a := ancestor_in(block, u.operation)) is not None]
            last_uses[_key(value.type)] = max(uses, default=-1)
        return Window(block, positions, last_uses)

    def position(self, value: SSAValue) -> int | None:
        """Where `value` is defined in this body (None: outside it)."""
        if isinstance(value, BlockArgument):
            return -1 if value.block is self.block else self._position_of(value.block.parent_op())
        return self._position_of(value.owner)

    def _position_of(self, op: Operation | None) -> int | None:
        ancestor = ancestor_in(self.block, op) if op is not None else None
        while ancestor is not None and ancestor not in self.positions:
            ancestor = ancestor.next_op  # inserted while allocating (`copy_conflicting_initial_value`)
        return None if ancestor is None else self.positions[ancestor]

    def forbidden(self, value: SSAValue) -> list[tuple[str, int]]:
        """Carried registers `value` may not take: it is defined before their argument's last use."""
        position = self.position(value)
        if position is None:
            return list(self.last_uses)
        return [r for r, last in self.last_uses.items() if position <= last]


def accumulation_chain(argument: SSAValue, position: int, yield_op: riscv_scf.YieldOp) -> list[SSAValue] | None:
    """The values, each used once, defined one from the other from `argument` to the yield's
    operand at `position` (through inner loops: initial value -> block argument and result);
    None if the uses do not form such a chain."""
    chain: list[SSAValue] = []
    value = argument
    while True:
        uses = list(value.uses)
        if len(uses) != 1:
            return None
        user, index = uses[0].operation, uses[0].index
        if user is yield_op:
            return chain if index == position else None
        if isinstance(user, Loop):
            first = len(user.operands) - len(user.iter_args)
            if index < first:
                return None  # a loop bound
            chain.append(user.body.block.args[1 + index - first])
            value = user.results[index - first]
        elif isinstance(user, riscv.RISCVInstruction) and len(user.results) == 1:
            value = user.results[0]
        else:
            return None
        if value.type.is_allocated:
            if value.type != argument.type:
                return None
            continue
        chain.append(value)


def copy_conflicting_initial_value(loop: Loop, k: int) -> riscv.MVOp | None:
    """Start the loop's carried value k from a copy (`mv`) of its initial value when that value
    already has a register other than the one its group (block argument, yielded value, result)
    was given: xDSL's `allocate_values_same_reg` cannot join two allocated registers and raises.
    Allocation bottom-up makes it happen where a loop's result is allocated at its uses after
    the loop and the initial value is a spill reload placed right before it with a register of
    its own (a fused bias spilled around an outer loop: `fused_epilogue.py`). The copy takes the
    group's register; a copy whose source got the same register is removed by the prologue pass.
    Returns the copy inserted, if any."""
    block = loop.body.block
    initial = loop.iter_args[k]
    joined = {v.type for v in (block.args[1 + k], block.last_op.operands[k], loop.results[k]) if v.type.is_allocated}
    if initial.type.is_allocated and joined and initial.type not in joined:
        move = riscv.MVOp(initial, rd=riscv.Registers.UNALLOCATED_INT)
        Rewriter.insert_op(move, InsertPoint.before(loop))
        loop.operands[len(loop.operands) - len(loop.iter_args) + k] = move.rd
        return move
    return None


def remove_copies(moves: Sequence[riscv.MVOp]) -> None:
    """Undo inserted copies, last first: each copy's users read its source again."""
    for move in reversed(moves):
        move.rd.replace_all_uses_with(move.rs)
        Rewriter.erase_op(move)


def restore_value(old: SSAValue, new: SSAValue) -> None:
    """Undo `Rewriter.replace_value_with_new_type(old, ...)` that returned `new`: `old` itself
    (the same object, which other passes' maps may hold) back in its place and in every use."""
    if isinstance(old, OpResult):
        results = old.op.results
        old.op.results = SSAValues((*results[: old.index], old, *results[old.index + 1 :]))
    else:
        assert isinstance(old, BlockArgument)
        args = old.block.args
        old.block._args = (*args[: old.index], old, *args[old.index + 1 :])  # pyright: ignore[reportPrivateUsage]
    new.replace_all_uses_with(old)


class LoopAwareAllocator(RegisterAllocatorLivenessBlockNaive):
    """xDSL's block-naive allocator allocating `riscv_scf` loops as the module docstring says."""

    def __init__(self, available_registers) -> None:
        super().__init__(available_registers)
        self.windows: list[Window] = []
        self.changes: list[tuple[SSAValue, SSAValue] | riscv.MVOp] = []
        """the changes made to the IR, in order, for `undo`: values replaced (old, new), copies"""

    def undo(self) -> None:
        """Put the IR back as it was before allocating (the same values and ops): last change first."""
        for change in reversed(self.changes):
            if isinstance(change, tuple):
                restore_value(*change)
            else:
                remove_copies([change])
        self.changes.clear()

    def _replace_value_with_new_type(self, val: SSAValue, new_type: Attribute) -> SSAValue:
        new = super()._replace_value_with_new_type(val, new_type)
        self.changes.append((val, new))
        return new

    def allocate_block(self, block: Block) -> None:
        for op in reversed(block.ops):
            if isinstance(op, Loop):
                self.allocate_loop(op)
            elif isinstance(op, RegisterAllocatableOperation):
                copies = self._copy_unfit_inouts(op) if isinstance(op, HasRegisterConstraints) else []
                op.allocate_registers(self)
                for copy in copies:  # above `op`: the walk has passed it already
                    copy.allocate_registers(self)

    def _copy_unfit_inouts(self, op: HasRegisterConstraints) -> list[riscv.MVOp]:
        """Where an `inout` operand (whose register the result takes) cannot give the result its
        register, a copy (`mv`) of it before `op` does: the operand is live after `op` (already
        allocated in this bottom-up walk: used below, or a live-in of an enclosing loop), or a
        loop window forbids the result's register at the operand's definition. Returns the copies."""
        for _, result in op.get_register_constraints().inouts:
            self.allocate_value(result)
        copies: list[riscv.MVOp] = []
        for operand, result in op.get_register_constraints().inouts:
            if operand.type == result.type:
                continue
            if operand.type.is_allocated or _key(result.type) in self._forbidden(operand):
                move = riscv.MVOp(operand, rd=riscv.Registers.UNALLOCATED_INT)
                Rewriter.insert_op(move, InsertPoint.before(op))
                op.operands[op.operands.index(operand)] = move.rd
                self.changes.append(move)
                copies.append(move)
        return copies

    def allocate_value(self, val: SSAValue) -> SSAValue | None:
        if val.type.is_allocated:
            # live from here up to its definition: its register is not free meanwhile (a
            # chain value given its loop's register, a loop result)
            self._take(val.type)
            return None
        with self._withheld(self._forbidden(val)):
            return super().allocate_value(val)

    def _forbidden(self, value: SSAValue) -> set[tuple[str, int]]:
        return {r for window in self.windows for r in window.forbidden(value)}

    @contextmanager
    def _withheld(self, keys: set[tuple[str, int]]) -> Iterator[None]:
        """The registers `keys` ((pool, index): integer or float) out of the available lists for a moment."""
        pools = self.available_registers.available_registers
        held = {pool: [i for i in pools.get(pool, []) if (pool, i) in keys] for pool in {p for p, _ in keys}}
        for pool, indices in held.items():
            for i in indices:
                pools[pool].remove(i)
        try:
            yield
        finally:
            for pool, indices in held.items():
                pools[pool][:] = indices + pools[pool]  # below the others: popped last, as before

    def _take(self, register: RegisterType) -> bool:
        available = self.available_registers.available_registers[register.register_pool_key()]
        if register.index.data in available:
            available.remove(register.index.data)
            return True
        return False

    def allocate_loop(self, loop: Loop) -> None:
        block = loop.body.block
        yield_op = block.last_op
        assert isinstance(yield_op, riscv_scf.YieldOp)
        for live_in in self.live_ins_per_block[block]:
            self.allocate_value(live_in)
        # (allocation replaces values: read them afresh from the IR each time)
        for k in range(len(loop.iter_args)):
            if (move := copy_conflicting_initial_value(loop, k)) is not None:
                self.changes.append(move)
            group = (block.args[1 + k], loop.iter_args[k], yield_op.operands[k], loop.results[k])
            with self._withheld(self._forbidden(group[1])):
                self.allocate_values_same_reg(group)
            self._take(block.args[1 + k].type)  # the yielded value is live at the end of the body
        self._allocate_induction_variable(loop)
        self.allocate_value(loop.stop)
        if loop.step_val is not None:
            self.allocate_value(loop.step_val)
        for position in range(len(loop.iter_args)):
            argument = block.args[1 + position]
            for value in accumulation_chain(argument, position, yield_op) or ():
                self._replace_value_with_new_type(value, argument.type)
        restored = []
        for which, reload in restores(loop).items():
            if which in (0, BOUND):  # back in its register by the end of the body
                value = restored_value(loop, which)
                self._replace_value_with_new_type(reload.results[0], value.type)
                restored.append(value)
        window = Window.of(loop, restored)
        self.windows.append(window)
        self.allocate_block(block)
        self.windows.pop()
        for argument in block.args[1:]:
            self._take(argument.type)  # held again until the initial value's definition
        self._take(loop.stop.type)  # likewise (a spilled bound: free in its window)
        self.free_value(block.args[0])
        self.allocate_value(loop.start)

    def _allocate_induction_variable(self, loop: Loop) -> None:
        start = loop.start
        if self.windows and isinstance(start, BlockArgument) and start.type.is_allocated:
            window = self.windows[-1]
            here = window.positions.get(ancestor_in(window.block, loop))
            if start.block is window.block and window.last_uses.get(_key(start.type)) == here:
                if self._take(start.type):
                    self._replace_value_with_new_type(loop.body.block.args[0], start.type)
                    return
        self.allocate_value(loop.body.block.args[0])
