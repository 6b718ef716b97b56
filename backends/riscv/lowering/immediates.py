"""`bitfold-riscv-immediates`: register-register instructions whose second operand is a `li`
constant become their immediate forms, so constants stop occupying registers:
`add`/`sub` -> `addi`, `addw`/`subw` -> `addiw`, `and`/`or`/`xor` -> `andi`/`ori`/`xori`, `slt`/`sltu` -> `slti`/`sltiu`,
`sll`/`srl`/`sra` -> `slli`/`srli`/`srai`, `mul` by a power of two -> `slli`; adding, or-ing,
xor-ing, subtracting or shifting by 0 is the operand itself; then unused `li`s go. Only immediates that fit (12-bit signed, shift amounts below XLEN) are folded.

xDSL's riscv canonicalization patterns do part of this but build `addi` from any constant
(a constant beyond 12 bits fails verification) and assume RV32 `li` when folding.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import riscv, rv32, rv64
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.riscv.ops import AddiwOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from bitfold.backends.riscv.lowering.registers import (
    fits_immediate,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
)
from bitfold.dialects.xdsl_compat.dead_code import region_dce


def constant_of(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, rv32.LiOp | rv64.LiOp) and isinstance(owner.immediate, IntegerAttr):
        return owner.immediate.value.data
    if isinstance(owner, rv32.GetRegisterOp | rv64.GetRegisterOp) and value.type == riscv.Registers.ZERO:
        return 0
    return None


@dataclass
class FoldImmediates(RewritePattern):
    xlen: int

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, riscv.RdRsRsOperation) or len(op.operands) != 2:
            return
        lhs, rhs = op.operands
        c = constant_of(rhs)
        commutative = isinstance(op, riscv.AddOp | riscv.AddwOp | riscv.AndOp | riscv.OrOp | riscv.XorOp | riscv.MulOp)
        if c is None and commutative and (c := constant_of(lhs)) is not None:
            lhs, rhs = rhs, lhs
        if c is None:
            return
        if c == 0 and (
            isinstance(op, riscv.AddOp | riscv.OrOp | riscv.XorOp | riscv.SllOp | riscv.SrlOp | riscv.SraOp)
            or (isinstance(op, riscv.SubOp) and constant_of(op.operands[1]) is not None)
        ):
            rewriter.replace(op, [], [lhs])  # x + 0, x | 0, x ^ 0, x - 0, x << 0: x itself
            return
        new: Operation | None = None
        shifts = {riscv.SllOp: shift_left, riscv.SrlOp: shift_right_logical, riscv.SraOp: shift_right_arithmetic}
        if type(op) in shifts and 0 <= c < self.xlen:
            new = shifts[type(op)](lhs, c, self.xlen)
        elif isinstance(op, riscv.MulOp) and c > 0 and c & (c - 1) == 0 and c.bit_length() - 1 < self.xlen:
            new = shift_left(lhs, c.bit_length() - 1, self.xlen)
        elif isinstance(op, riscv.SubOp) and fits_immediate(-c) and constant_of(op.operands[1]) is not None:
            new = riscv.AddiOp(lhs, -c)
        elif isinstance(op, riscv.SubwOp) and fits_immediate(-c) and constant_of(op.operands[1]) is not None:
            new = AddiwOp(lhs, -c)
        elif isinstance(op, riscv.AddwOp) and fits_immediate(c):
            new = AddiwOp(lhs, c)
        elif fits_immediate(c):
            immediate = {
                riscv.AddOp: riscv.AddiOp,
                riscv.AndOp: riscv.AndiOp,
                riscv.OrOp: riscv.OriOp,
                riscv.XorOp: riscv.XoriOp,
                riscv.SltOp: riscv.SltiOp,
                riscv.SltuOp: riscv.SltiuOp,
            }.get(type(op))
            if immediate is not None and (commutative or constant_of(op.operands[1]) is not None):
                new = immediate(lhs, c)
        if new is not None:
            rewriter.replace(op, new)


@dataclass(frozen=True)
class BitfoldRiscvImmediatesPass(ModulePass):
    """Operands that are `li` constants fitting an immediate folded into the instruction (module docstring)."""

    name = "bitfold-riscv-immediates"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldImmediates(self.xlen)).rewrite_module(op)
        region_dce(op.body)
