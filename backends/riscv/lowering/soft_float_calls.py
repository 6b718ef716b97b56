"""`bitfold-riscv-expand-calls`: each `rvfloat.libcall` of a register-allocated function becomes a
call by the standard calling convention. xDSL 0.74's allocator knows no calls, so the libcall is
allocated as one instruction (registers for its operands and result) and expanded here:

    sw/sd  r, slot_r(sp)          the caller-saved registers (t0..t6, a0..a7) live across the call
                                  (`live_across`) and those holding its arguments
    lw/ld  a<i>, slot(sp) | mv a<i>, s   the arguments, from their save slot (or from an s register
                                         or zero, which the call preserves)
    call   routine
    mv rd, a0                    (RV64: sext.w rd, a0: the register convention for i32 bits)
    lw/ld  r, slot_r(sp)          the saved registers live across the call, but rd

The arguments are read from memory, so no move into a0/a1 overwrites another argument. The save
slots lie above the spill slots, so the frame of `bitfold-riscv-prologue-epilogue` covers them; it
also saves `ra` when the function calls."""

from bisect import bisect_left
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, rv32
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.riscv import Registers
from xdsl.dialects.riscv.ops import AddiwOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from bitfold.backends.riscv.emission.prologue import spill_area
from bitfold.backends.riscv.lowering.float_instructions import CallOp, LibcallOp
from bitfold.backends.riscv.lowering.instructions import LdOp, LwOp, SdOp, SwOp
from bitfold.backends.riscv.regalloc.loop_allocation import Loop

CALLER_SAVED = (*Registers.T, *Registers.A)


def _enclosing_loops(op: Operation) -> list[Loop]:
    loops = []
    while (op := op.parent_op()) is not None:
        if isinstance(op, Loop):
            loops.append(op)
    return loops


def _subtree_ends(function: riscv_func.FuncOp, order: dict[Operation, int]) -> dict[Operation, int]:
    """Per loop, the program-order position of the last op inside it (the walk is pre-order, so
    a loop holds exactly the ops between its own position and this one)."""
    return {op: max(order[inner] for inner in op.walk()) for op in function.walk() if isinstance(op, Loop)}


def _live_ranges(function: riscv_func.FuncOp, order: dict[Operation, int]) -> dict:
    """Per caller-saved register, the merged open ranges (definition, last read) in program order
    of the values it holds; a value read inside a loop that it is defined outside of is read
    until just past the loop's last op (the next iteration reads it)."""
    ends = _subtree_ends(function, order)
    ranges: dict = {}
    for op in function.walk():
        values = (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args))
        for value in values:
            if value.type not in CALLER_SAVED:
                continue
            owner = value.owner if isinstance(value, OpResult) else value.block.parent_op()
            first = order[owner]
            last = first
            for use in value.uses:
                user = use.operation
                last = max(last, order[user])
                parent = user
                while (parent := parent.parent_op()) is not None and parent is not function:
                    if parent in ends and not order[parent] < first <= ends[parent]:
                        last = max(last, ends[parent] + 1)
            ranges.setdefault(value.type, []).append((first, last))
    return {register: _merged(spans) for register, spans in ranges.items()}


def _merged(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Open ranges merged where they overlap: (starts, ends), both increasing."""
    starts: list[int] = []
    ends: list[int] = []
    for first, last in sorted(spans):
        if ends and first < ends[-1]:
            ends[-1] = max(ends[-1], last)
        else:
            starts.append(first)
            ends.append(last)
    return starts, ends


def live_across(call: LibcallOp, ranges: dict, order: dict[Operation, int]) -> set:
    """The caller-saved registers holding a value the code after `call` still reads: a value
    defined before it with a read after it in program order, or read inside a loop around the call
    that it is defined outside of (`_live_ranges`; the call's own result starts at the call), and
    the induction variables, bounds and steps of the loops around the call (the loop's increment
    and test read them). A bisection per register: linear in the function, not calls x values."""
    here = order[call]
    loops = _enclosing_loops(call)
    live = {v.type for loop in loops for v in (loop.body.block.args[0], loop.stop, loop.step_val) if v is not None}
    for register, (starts, ends) in ranges.items():
        index = bisect_left(starts, here) - 1  # the last range starting before the call
        if index >= 0 and here < ends[index]:
            live.add(register)
    return live & set(CALLER_SAVED)


def expand_calls(function: riscv_func.FuncOp, xlen: int) -> None:
    calls = [op for op in function.walk() if isinstance(op, LibcallOp)]
    if not calls:
        return
    order = {op: i for i, op in enumerate(function.walk())}
    ranges = _live_ranges(function, order)
    live = {call: live_across(call, ranges, order) for call in calls}
    size = xlen // 8
    base = spill_area(function, xlen)
    saved_anywhere = [r for r in CALLER_SAVED if any(r in registers for registers in live.values())]
    slot = {register: base + size * i for i, register in enumerate(saved_anywhere)}
    store, load = (SwOp, LwOp) if xlen == 32 else (SdOp, LdOp)
    for call in calls:
        saved = [r for r in CALLER_SAVED if r in live[call] | {a.type for a in call.arguments}]
        for register in saved:
            slot.setdefault(register, base + size * len(slot))
        sp = rv32.GetRegisterOp(Registers.SP)
        ops: list[Operation] = [sp]
        for register in saved:
            value = rv32.GetRegisterOp(register)
            ops += [value, store(sp, value, slot[register])]
        for index, argument in enumerate(call.arguments):
            target = Registers.A[index]
            if argument.type in slot:
                ops.append(load(sp, slot[argument.type], rd=target))
            else:
                ops.append(riscv.MVOp(argument, rd=target))
        a0 = rv32.GetRegisterOp(Registers.A0)
        ops += [CallOp(call.callee.data), a0]
        rd = call.rd.type
        result = AddiwOp(a0, 0, rd=rd, comment="sext.w") if xlen == 64 else riscv.MVOp(a0, rd=rd)
        ops.append(result)
        restored = [register for register in saved if register != rd and register in live[call]]
        ops += [load(sp, slot[register], rd=register) for register in restored]
        call.parent_block().insert_ops_before(ops, call)
        call.rd.replace_all_uses_with(result.rd)
        Rewriter.erase_op(call)


@dataclass(frozen=True)
class BitfoldRiscvExpandCallsPass(ModulePass):
    """libcalls as calls with caller-saved registers saved around them (module docstring)."""

    name = "bitfold-riscv-expand-calls"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, riscv_func.FuncOp) and function.body.blocks:
                expand_calls(function, self.xlen)
