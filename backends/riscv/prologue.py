"""`bitfold-riscv-prologue-epilogue`: xDSL's `riscv-prologue-epilogue-insertion`, fixed for RV64.

xDSL 0.74 saves and restores the callee-saved `s` registers it finds with `sw`/`lw` whatever
XLEN is: on RV64 that keeps only the low half of the caller's `s0..s11`. It also sizes the
frame to exactly the saved bytes, which breaks the ABI's 16-byte stack alignment. This pass
runs xDSL's with the right register size, then turns the save and restore of each `s`
register into `sd`/`ld` on RV64 and rounds the frame to 16 bytes. xDSL's pass finds the `s`
registers to save among op results only, so it must run after `convert-riscv-scf-to-riscv-cf`
(which turns loop-carried block arguments into `mv`s); this pass checks that nothing escaped.

It also drops what register allocation leaves useless: `li zero, 0` (the allocator gives
constant zeros the `zero` register) and `mv x, x`.
"""

from dataclasses import dataclass

from xdsl.backend.riscv.prologue_epilogue_insertion import PrologueEpilogueInsertion
from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, rv32, rv64
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.riscv import Registers
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.riscv.instructions import LdOp, SdOp

STACK_ALIGNMENT = 16
"""bytes; the RISC-V psABI keeps sp 16-byte aligned"""


def _drop_useless_moves(function: riscv_func.FuncOp) -> None:
    for inner in list(function.walk()):
        if isinstance(inner, rv32.LiOp | rv64.LiOp) and inner.rd.type == Registers.ZERO:
            Rewriter.replace_op(inner, rv32.GetRegisterOp(Registers.ZERO))
        elif isinstance(inner, riscv.MVOp) and inner.rd.type == inner.rs.type and inner.rd.type.is_allocated:
            inner.rd.replace_all_uses_with(inner.rs)
            Rewriter.erase_op(inner)


def _is_sp(value) -> bool:
    return value.type == riscv.Registers.SP


@dataclass(frozen=True)
class BitfoldPrologueEpiloguePass(ModulePass):
    name = "bitfold-riscv-prologue-epilogue"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, riscv_func.FuncOp):
                _drop_useless_moves(function)
        PrologueEpilogueInsertion(xlen=self.xlen // 8).apply(ctx, op)
        for function in op.walk():
            if not isinstance(function, riscv_func.FuncOp):
                continue
            saved = {i.rs2.type for i in function.walk() if isinstance(i, riscv.SwOp) and _is_sp(i.rs1)}
            used = {
                value.type
                for inner in function.walk()
                for value in (*inner.results, *inner.operands, *(a for r in inner.regions for b in r.blocks for a in b.args))
                if value.type in Registers.S
            }
            if used - saved:
                raise DiagnosticException(f"riscv: callee-saved registers used but not saved: {sorted(r.register_name.data for r in used - saved)}")
            for inner in list(function.walk()):
                if isinstance(inner, riscv.AddiOp) and _is_sp(inner.rs1) and inner.rd.type == riscv.Registers.SP:
                    size = inner.immediate.value.data
                    rounded = -(-abs(size) // STACK_ALIGNMENT) * STACK_ALIGNMENT
                    if rounded != abs(size):
                        new = riscv.AddiOp(inner.rs1, rounded if size > 0 else -rounded, rd=riscv.Registers.SP)
                        Rewriter.replace_op(inner, new)
                elif self.xlen == 64 and isinstance(inner, riscv.SwOp) and _is_sp(inner.rs1):
                    Rewriter.replace_op(inner, SdOp(inner.rs1, inner.rs2, inner.immediate))
                elif self.xlen == 64 and isinstance(inner, riscv.LwOp) and _is_sp(inner.rs1):
                    Rewriter.replace_op(inner, LdOp(inner.rs1, inner.immediate, rd=inner.rd.type))
