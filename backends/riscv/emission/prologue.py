"""`bitfold-riscv-prologue-epilogue`: the stack frame of a register-allocated leaf function.

The frame holds the spill slots of `bitfold-riscv-allocate-registers` (at 0(sp) upwards: the
area covers every sp-relative access in the function) and, above them, the callee-saved `s`
registers the function uses, XLEN bits each (`sw`/`lw` on RV32, `sd`/`ld` on RV64), then the
`fs` registers, FLEN bits each (`fsw`/`flw` on rv32imf, `fsd`/`fld` on rv64imfd):

    sp + frame ->  caller's frame
                   padding to a multiple of 16 bytes (the psABI keeps sp 16-byte aligned)
                   s registers used, in register order, then fs registers
    sp + 0     ->  spill slots

The prologue (`addi sp, sp, -frame` and the saves) opens the function; the epilogue (restores,
`addi sp, sp, frame`) precedes every return. No frame when nothing is spilled or saved. A
function that calls (libgcc's soft-float routines, `soft_float_calls.py`) saves `ra` first.

xDSL 0.74's `riscv-prologue-epilogue-insertion` is not used: it saves with `sw` whatever XLEN
is (on RV64 only the low half of the caller's `s0..s11` survives), sizes the frame to exactly the
saved bytes (breaking the 16-byte alignment) and knows no spill area.

It also drops what register allocation leaves useless: `li zero, 0` (the allocator gives
constant zeros the `zero` register), `mv x, x` and `fmv.s f, f`.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func, rv32, rv64
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.riscv import Registers
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.riscv.lowering.float_instructions import CallOp
from bitfold.backends.riscv.lowering.instructions import LdOp, LwOp, SdOp, SwOp

STACK_ALIGNMENT = 16
"""bytes; the RISC-V psABI keeps sp 16-byte aligned"""

MAX_FRAME = 2032
"""bytes: the largest 16-byte multiple whose negation fits `addi`'s 12-bit immediate"""


def _drop_useless_moves(function: riscv_func.FuncOp) -> None:
    for inner in list(function.walk()):
        if isinstance(inner, rv32.LiOp | rv64.LiOp) and inner.rd.type == Registers.ZERO:
            Rewriter.replace_op(inner, rv32.GetRegisterOp(Registers.ZERO))
        elif (
            isinstance(inner, riscv.MVOp | riscv.FMVOp)
            and inner.rd.type == inner.rs.type
            and inner.rd.type.is_allocated
        ):
            inner.rd.replace_all_uses_with(inner.rs)
            Rewriter.erase_op(inner)


def spill_area(function: riscv_func.FuncOp, xlen: int) -> int:
    """Bytes from sp that the function's own loads and stores reach (its spill slots)."""
    return max(
        (
            op.immediate.value.data + xlen // 8
            for op in function.walk()
            if isinstance(op, LwOp | LdOp | SwOp | SdOp) and op.rs1.type == Registers.SP
            and isinstance(op.immediate, IntegerAttr)
        ),
        default=0,
    )


def saved_registers(function: riscv_func.FuncOp) -> list[riscv.RISCVRegisterType]:
    """The registers the function must save: ra if it calls (soft float), then the callee-saved
    ones it reads or writes, in register order: s0..s11, then fs0..fs11."""
    used = {
        value.type
        for op in function.walk()
        for value in (*op.results, *op.operands, *(a for r in op.regions for b in r.blocks for a in b.args))
    }
    calls = any(isinstance(op, CallOp) for op in function.walk())
    return [*([Registers.RA] if calls else []), *(r for r in (*Registers.S, *Registers.FS) if r in used)]


def _save_and_restore(register: riscv.RISCVRegisterType, xlen: int):
    """(store, load) of a saved register at its full width: XLEN bits for s registers, FLEN bits
    for fs registers (FLEN 32 on rv32imf / ilp32f, 64 on rv64imfd / lp64d)."""
    if isinstance(register, riscv.FloatRegisterType):
        return (riscv.FSwOp, riscv.FLwOp) if xlen == 32 else (riscv.FSdOp, riscv.FLdOp)
    return (SwOp, LwOp) if xlen == 32 else (SdOp, LdOp)


def insert_frame(function: riscv_func.FuncOp, xlen: int) -> None:
    """The prologue at the entry and the epilogue before every return (module docstring)."""
    spills, saved = spill_area(function, xlen), saved_registers(function)
    size = xlen // 8  # FLEN is XLEN on both hardware-float targets
    frame = -(-(spills + size * len(saved)) // STACK_ALIGNMENT) * STACK_ALIGNMENT
    if not frame:
        return
    if frame > MAX_FRAME:
        raise DiagnosticException(f"riscv: @{function.sym_name.data}: a {frame}-byte frame (at most {MAX_FRAME})")
    entry = function.body.blocks[0]
    sp = rv32.GetRegisterOp(Registers.SP)
    prologue: list = [sp, riscv.AddiOp(sp, -frame, rd=Registers.SP)]
    for i, register in enumerate(saved):
        get = rv32.GetRegisterOp if isinstance(register, riscv.IntRegisterType) else riscv.GetFloatRegisterOp
        value = get(register)
        prologue += [value, _save_and_restore(register, xlen)[0](sp, value, spills + size * i)]
    entry.insert_ops_before(prologue, entry.first_op)
    for block in function.body.blocks:
        if isinstance(ret := block.last_op, riscv_func.ReturnOp):
            epilogue = [
                _save_and_restore(register, xlen)[1](sp, spills + size * i, rd=register)
                for i, register in enumerate(saved)
            ]
            block.insert_ops_before([*epilogue, riscv.AddiOp(sp, frame, rd=Registers.SP)], ret)


@dataclass(frozen=True)
class BitfoldRiscvPrologueEpiloguePass(ModulePass):
    """The frame: spill slots and saved s registers (module docstring)."""

    name = "bitfold-riscv-prologue-epilogue"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, riscv_func.FuncOp) and function.body.blocks:
                _drop_useless_moves(function)
                insert_frame(function, self.xlen)
