"""`bitfold-riscv-hoist-constants`: `li`/`la` out of innermost loops whose registers allow it.

`bitfold-riscv-lower-arith` makes the `li` of a constant where the constant was used, and by then
LICM has run: the bounds of a requantization's clamp (`li -128`, `li 127`), its multiplier, are
loaded again on every iteration of the loop that applies it (2-3 instructions per 4-5 outputs of
an unrolled requantization nest). This pass moves every `li`/`la` of an innermost loop (a loop
with no loop inside) to right before that loop, where the loop then holds it in a register for
its whole body, provided the loop's registers suffice for that:

    live-ins (the hoisted constants among them) + induction variable + bound
        + the most values defined in the body live at once
        + what the enclosing code holds through the loop (`held_around`)   <= registers - margin

(a slight overcount where a carried register is free between its uses: a crowded loop keeps its
constants rather than push an outer loop's state to the stack).
Otherwise the loop keeps them (a crowded register tile spills nothing and keeps its tile). Only
innermost loops: a constant hoisted out of a middle loop would be held through the hot loop
inside it. A loop calling a soft-float routine keeps its constants (a register live across the
call is saved and restored around it). `bitfold-riscv-sink-constants` then treats a constant
hoisted to the function's top level as any other.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import riscv_func, riscv_scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from bitfold.backends.riscv.lowering.float_instructions import LibcallOp
from bitfold.backends.riscv.lowering.registers import ALLOCATABLE_INTEGER_REGISTERS
from bitfold.backends.riscv.regalloc.constant_sinking import CONSTANTS
from bitfold.backends.riscv.regalloc.loop_value_copies import last_use_position
from bitfold.backends.riscv.schedule.loop_nest_plan import REGISTER_MARGIN

LOOP_CONTROL = 2
"""Registers a loop holds besides its body's values: its induction variable and its bound."""

Loop = riscv_scf.ForRofOperation


class HeldAcross:
    """Per block, computed once: each op's position, each value's span (where it is defined: -1
    for a block argument; the position of its last use, through the op of the block holding the
    use) and how many values each op's position lies strictly inside the span of (defined before
    the op, used after it)."""

    def __init__(self):
        self._blocks: dict[Block, tuple[dict[Operation, int], dict[SSAValue, tuple[int, int]], list[int]]] = {}

    def _of(self, block: Block) -> tuple[dict[Operation, int], dict[SSAValue, tuple[int, int]], list[int]]:
        if (known := self._blocks.get(block)) is None:
            positions = {op: i for i, op in enumerate(block.ops)}
            defined = [(value, -1) for value in block.args]
            defined += [(value, i) for op, i in positions.items() for value in op.results]
            spans = {value: (at, last_use_position(value, block, positions)) for value, at in defined}
            starts = [0] * (len(positions) + 1)
            for at, last in spans.values():
                if last > at + 1:
                    starts[at + 1] += 1
                    starts[last] -= 1
            held, running = [], 0
            for change in starts[:-1]:
                running += change
                held.append(running)
            known = self._blocks[block] = (positions, spans, held)
        return known

    def count(self, op: Operation, excluded: set[SSAValue]) -> int:
        """Values of `op`'s block defined before `op` and used after it, but `excluded`."""
        positions, spans, held = self._of(op.parent_block())
        at = positions[op]
        return held[at] - sum(1 for value in excluded if (span := spans.get(value)) and span[0] < at < span[1])


def registers_needed(loop: Loop, hoisted: set[Operation], held: HeldAcross) -> int:
    """The registers `loop` holds at its most crowded op if the `hoisted` constants of its body
    were defined before it (module docstring's estimate)."""
    body = loop.body.block
    inside: set[SSAValue] = set(body.args[1:])  # the induction variable: LOOP_CONTROL
    inside.update(r for op in body.ops if op not in hoisted for r in op.results)
    live_ins = {v for op in body.ops for v in op.operands if v not in inside and v is not body.args[0]}
    live: set[SSAValue] = set()
    peak = 0
    for op in reversed(list(body.ops)):
        if op in hoisted:
            continue
        peak = max(peak, len(live | set(op.results)))
        live.difference_update(op.results)
        live.update(v for v in op.operands if v in inside)
    peak = max(peak, len(live))
    return len(live_ins) + LOOP_CONTROL + peak + held_around(loop, live_ins, held)


def held_around(loop: Loop, live_ins: set[SSAValue], held: HeldAcross) -> int:
    """Registers the enclosing code holds through `loop`: at each level from the loop's block out
    to the function's, the values defined before the op containing the loop (or arguments of
    that op's block) and used after it, but the loop's live-ins, and each enclosing loop's
    induction variable and bound."""
    count, op = 0, loop
    while isinstance(op, Operation) and op.parent_block() is not None:
        count += held.count(op, live_ins)
        op = op.parent_op()
        if isinstance(op, Loop):
            count += LOOP_CONTROL
    return count


def innermost_loops(function: riscv_func.FuncOp) -> list[Loop]:
    return [op for op in function.walk() if isinstance(op, Loop)
            and not any(isinstance(inner, Loop | LibcallOp) for inner in op.body.walk())]


def hoist_constants(function: riscv_func.FuncOp, registers: int) -> None:
    """Every innermost loop's estimate first, on the IR as it is (a constant hoisted before a
    loop is used only inside it: it changes no other loop's estimate), then the moves."""
    held, moves = HeldAcross(), []
    for loop in innermost_loops(function):
        constants = {op for op in loop.body.block.ops if isinstance(op, CONSTANTS)}
        if constants and registers_needed(loop, constants, held) <= registers - REGISTER_MARGIN:
            moves.append((loop, [op for op in loop.body.block.ops if op in constants]))
    for loop, constants in moves:
        for op in constants:
            op.detach()
            loop.parent_block().insert_op_before(op, loop)


@dataclass(frozen=True)
class BitfoldRiscvHoistConstantsPass(ModulePass):
    """Constants of innermost loops moved before them where the registers allow (module docstring)."""

    name = "bitfold-riscv-hoist-constants"

    registers: int = ALLOCATABLE_INTEGER_REGISTERS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, riscv_func.FuncOp) and f.body.blocks]:
            hoist_constants(function, self.registers)
