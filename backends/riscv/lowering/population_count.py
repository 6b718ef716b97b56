"""`math.ctpop` of an i32 on RISC-V. With Zbb, one instruction: `cpop` (RV32) or `cpopw`
(RV64: the low 32 bits; `population_count`). Without, `bitfold-riscv-expand-ctpop` rewrites it,
before the loop nests are built (so LICM keeps the masks in registers through a nest), into
the SWAR sequence of Hacker's Delight (5-2) in i32 arith: 12 operations and 4 constants,

    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    count = (x * 0x01010101) >> 24         (the top byte of the product: the four bytes' sum)

(logical shifts; every step is exact modulo 2^32)."""

from xdsl.context import Context
from xdsl.dialects import arith, math, riscv
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

I32 = IntegerType(32)
ONES, PAIRS, NIBBLES = 0x55555555, 0x33333333, 0x0F0F0F0F
BYTE_SUM = 0x01010101
"""x * 0x01010101 adds the four bytes of x into the top byte."""


def population_count(x: SSAValue, xlen: int) -> Operation:
    """Zbb's count of the 1 bits of the i32 in register `x`."""
    return riscv.CpopOp(x) if xlen == 32 else riscv.CpopwOp(x)


class ExpandPopulationCount(RewritePattern):
    """`math.ctpop` on i32 -> the SWAR sequence in arith (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: math.CtPopOp, rewriter: PatternRewriter) -> None:
        if op.operand.type != I32:
            return
        ops: list[Operation] = []

        def emit(new: Operation) -> SSAValue:
            ops.append(new)
            return new.results[0]

        def constant(value: int) -> SSAValue:
            return emit(arith.ConstantOp(IntegerAttr(value, I32)))

        def shifted(value: SSAValue, amount: int) -> SSAValue:
            return emit(arith.ShRUIOp(value, constant(amount)))

        x = op.operand
        x = emit(arith.SubiOp(x, emit(arith.AndIOp(shifted(x, 1), constant(ONES)))))
        pairs = constant(PAIRS)
        x = emit(arith.AddiOp(emit(arith.AndIOp(x, pairs)), emit(arith.AndIOp(shifted(x, 2), pairs))))
        x = emit(arith.AndIOp(emit(arith.AddiOp(x, shifted(x, 4))), constant(NIBBLES)))
        shifted(emit(arith.MuliOp(x, constant(BYTE_SUM))), 24)
        rewriter.replace(op, ops)


class BitfoldRiscvExpandCtpopPass(ModulePass):
    """Every i32 `math.ctpop` as the SWAR sequence (for targets without Zbb)."""

    name = "bitfold-riscv-expand-ctpop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandPopulationCount()).rewrite_module(op)
