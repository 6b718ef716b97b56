"""`math.ctpop` of an i32 (or, on RV64, an i64) on RISC-V. With Zbb, one instruction: `cpop`
(RV32; RV64 on an i64) or `cpopw` (RV64 on an i32: the low 32 bits; `population_count`). Without,
`bitfold-riscv-expand-ctpop` rewrites it, before the loop nests are built (so LICM keeps the masks
in registers through a nest), into the SWAR sequence of Hacker's Delight (5-2) in arith of the
operand's width N: 12 operations and 4 constants (each mask its byte repeated N / 8 times),

    x = x - ((x >> 1) & 0x55...55)
    x = (x & 0x33...33) + ((x >> 2) & 0x33...33)
    x = (x + (x >> 4)) & 0x0F...0F
    count = (x * 0x01...01) >> (N - 8)     (the top byte of the product: the bytes' sum, <= 64)

(logical shifts; every step is exact modulo 2^N)."""

from xdsl.context import Context
from xdsl.dialects import arith, math, riscv
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

EXPANDED_WIDTHS = (32, 64)
BYTE_BITS = 8


def repeated_byte(byte: int, bits: int) -> int:
    """`byte` in each of the bits / 8 bytes of a word (0x55 -> 0x55555555 for 32 bits)."""
    return int.from_bytes(bytes([byte]) * (bits // BYTE_BITS), "little")


def population_count(x: SSAValue, xlen: int, bits: int = 32) -> Operation:
    """Zbb's count of the 1 bits of the `bits`-bit integer in register `x`."""
    return riscv.CpopOp(x) if xlen == bits else riscv.CpopwOp(x)


class ExpandPopulationCount(RewritePattern):
    """`math.ctpop` on i32 or i64 -> the SWAR sequence in arith (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: math.CtPopOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.operand.type, IntegerType) or op.operand.type.width.data not in EXPANDED_WIDTHS:
            return
        word = op.operand.type
        bits = word.width.data
        ops: list[Operation] = []

        def emit(new: Operation) -> SSAValue:
            ops.append(new)
            return new.results[0]

        def constant(value: int) -> SSAValue:
            return emit(arith.ConstantOp(IntegerAttr(value, word)))

        def shifted(value: SSAValue, amount: int) -> SSAValue:
            return emit(arith.ShRUIOp(value, constant(amount)))

        x = op.operand
        x = emit(arith.SubiOp(x, emit(arith.AndIOp(shifted(x, 1), constant(repeated_byte(0x55, bits))))))
        pairs = constant(repeated_byte(0x33, bits))
        x = emit(arith.AddiOp(emit(arith.AndIOp(x, pairs)), emit(arith.AndIOp(shifted(x, 2), pairs))))
        x = emit(arith.AndIOp(emit(arith.AddiOp(x, shifted(x, 4))), constant(repeated_byte(0x0F, bits))))
        shifted(emit(arith.MuliOp(x, constant(repeated_byte(0x01, bits)))), bits - BYTE_BITS)
        rewriter.replace(op, ops)


class BitfoldRiscvExpandCtpopPass(ModulePass):
    """Every i32 and i64 `math.ctpop` as the SWAR sequence (for targets without Zbb)."""

    name = "bitfold-riscv-expand-ctpop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandPopulationCount()).rewrite_module(op)
