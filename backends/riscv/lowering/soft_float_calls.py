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
from bitfold.backends.riscv.regalloc.loop_value_copies import ancestor_in

CALLER_SAVED = (*Registers.T, *Registers.A)


def _enclosing_loops(op: Operation) -> list[Loop]:
    loops = []
    while (op := op.parent_op()) is not None:
        if isinstance(op, Loop):
            loops.append(op)
    return loops


def _values(function: riscv_func.FuncOp) -> list[SSAValue]:
    return [
        value
        for op in function.walk()
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args))
    ]


def live_across(call: LibcallOp, values: list[SSAValue], order: dict[Operation, int]) -> set:
    """The caller-saved registers holding a value the code after `call` still reads: a value
    defined before it with a use after it in program order, or used inside a loop around the call
    that it is defined outside of (the next iteration reads it), and the induction variables,
    bounds and steps of the loops around the call (the loop's increment and test read them)."""
    here = order[call]
    loops = _enclosing_loops(call)
    live = {v.type for loop in loops for v in (loop.body.block.args[0], loop.stop, loop.step_val) if v is not None}
    for value in values:
        if value.type not in CALLER_SAVED or value is call.rd:
            continue
        owner = value.owner if isinstance(value, OpResult) else value.block.parent_op()
        if order[owner] >= here and owner not in loops:
            continue
        for use in value.uses:
            user = use.operation
            if order[user] > here or any(
                ancestor_in(loop.body.block, user) is not None and ancestor_in(loop.body.block, owner) is None
                for loop in loops
            ):
                live.add(value.type)
                break
    return live & set(CALLER_SAVED)


def expand_calls(function: riscv_func.FuncOp, xlen: int) -> None:
    calls = [op for op in function.walk() if isinstance(op, LibcallOp)]
    if not calls:
        return
    order = {op: i for i, op in enumerate(function.walk())}
    values = _values(function)
    live = {call: live_across(call, values, order) for call in calls}
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
