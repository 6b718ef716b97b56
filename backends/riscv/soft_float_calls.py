"""`bitfold-riscv-expand-calls`: each `rvfloat.libcall` of a register-allocated function becomes a
call by the standard calling convention. xDSL 0.74's allocator knows no calls, so the libcall is
allocated as one instruction (registers for its operands and result) and expanded here:

    sw/sd  r, slot_r(sp)          every caller-saved register (t0..t6, a0..a7) the function uses
    lw/ld  a<i>, slot(sp) | mv a<i>, s   the arguments, from their save slot (or from an s register
                                         or zero, which the call preserves)
    call   routine
    mv rd, a0                    (RV64: sext.w rd, a0: the register convention for i32 bits)
    lw/ld  r, slot_r(sp)          every saved register but rd

Conservative (every caller-saved register the function uses is saved, live or not) and sound:
the routines read nothing else. The save slots lie above the spill slots, so the frame of
`bitfold-riscv-prologue-epilogue` covers them; it also saves `ra` when the function calls."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, rv32
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.riscv import Registers
from xdsl.dialects.riscv.ops import AddiwOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from bitfold.backends.riscv.float_instructions import CallOp, LibcallOp
from bitfold.backends.riscv.instructions import LdOp, LwOp, SdOp, SwOp
from bitfold.backends.riscv.prologue import spill_area

CALLER_SAVED = (*Registers.T, *Registers.A)


def _used(function: riscv_func.FuncOp) -> set:
    return {
        value.type
        for op in function.walk()
        for value in (*op.results, *op.operands, *(a for r in op.regions for b in r.blocks for a in b.args))
    }


def expand_calls(function: riscv_func.FuncOp, xlen: int) -> None:
    calls = [op for op in function.walk() if isinstance(op, LibcallOp)]
    if not calls:
        return
    used = _used(function)
    saved = [r for r in CALLER_SAVED if r in used]
    size = xlen // 8
    base = spill_area(function, xlen)
    slot = {register: base + size * i for i, register in enumerate(saved)}
    store, load = (SwOp, LwOp) if xlen == 32 else (SdOp, LdOp)
    for call in calls:
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
        ops += [load(sp, slot[register], rd=register) for register in saved if register != rd]
        call.parent_block().insert_ops_before(ops, call)
        call.rd.replace_all_uses_with(result.rd)
        Rewriter.erase_op(call)


@dataclass(frozen=True)
class ExpandCallsPass(ModulePass):
    """libcalls as calls with caller-saved registers saved around them (module docstring)."""

    name = "bitfold-riscv-expand-calls"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, riscv_func.FuncOp) and function.body.blocks:
                expand_calls(function, self.xlen)
