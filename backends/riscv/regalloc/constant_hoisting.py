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
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from bitfold.backends.riscv.lowering.float_instructions import LibcallOp
from bitfold.backends.riscv.lowering.registers import ALLOCATABLE_INTEGER_REGISTERS
from bitfold.backends.riscv.regalloc.constant_sinking import CONSTANTS
from bitfold.backends.riscv.regalloc.loop_value_copies import ancestor_in

LOOP_CONTROL = 2
"""Registers a loop holds besides its body's values: its induction variable and its bound."""

MARGIN = 1
"""Registers left free by the estimate (`loop_nest_plan.REGISTER_MARGIN`)."""

Loop = riscv_scf.ForRofOperation


def registers_needed(loop: Loop, hoisted: set[Operation]) -> int:
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
    return len(live_ins) + LOOP_CONTROL + peak + held_around(loop, live_ins)


def held_around(loop: Loop, live_ins: set[SSAValue]) -> int:
    """Registers the enclosing code holds through `loop`: at each level from the loop's block out
    to the function's, the values defined before the op containing the loop (or arguments of
    that op's block) and used after it, and each enclosing loop's induction variable and bound."""
    held, op = 0, loop
    while isinstance(op, Operation) and (block := op.parent_block()) is not None:
        order = {o: i for i, o in enumerate(block.ops)}
        before = [*block.args, *(r for o in block.ops if order[o] < order[op] for r in o.results)]
        held += sum(1 for v in before if v not in live_ins and any(
            order.get(ancestor_in(block, use.operation), -1) > order[op] for use in v.uses))
        op = block.parent_op()
        if isinstance(op, Loop):
            held += LOOP_CONTROL
    return held


def innermost_loops(function: riscv_func.FuncOp) -> list[Loop]:
    return [op for op in function.walk() if isinstance(op, Loop)
            and not any(isinstance(inner, Loop | LibcallOp) for inner in op.body.walk())]


def hoist_constants(function: riscv_func.FuncOp, registers: int) -> None:
    for loop in innermost_loops(function):
        constants = {op for op in loop.body.block.ops if isinstance(op, CONSTANTS)}
        if constants and registers_needed(loop, constants) <= registers - MARGIN:
            for op in [op for op in loop.body.block.ops if op in constants]:
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
