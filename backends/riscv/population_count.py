"""`math.ctpop` of an i32 as RISC-V instructions: Zbb's `cpop` (RV32) or `cpopw` (RV64: the
low 32 bits) where the target has Zbb, else the SWAR sequence of Hacker's Delight (5-2),
12 instructions and 4 constants (loop invariant):

    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    count = (x * 0x01010101) >> 24          (RV64: `mulw`, the low 32 bits of the product)

On RV64 the i32 sits sign-extended; the bits above 31 reach bits 30 and 31 through the first
two shifts only, where the masks are 0, so no zero extension is needed."""

from xdsl.dialects import riscv
from xdsl.ir import Operation, SSAValue

from bitfold.backends.riscv.registers import load_immediate, shift_right_logical

SWAR_MASKS = (0x55555555, 0x33333333, 0x0F0F0F0F)
BYTE_SUM = 0x01010101
"""x * 0x01010101 adds the four bytes of x into the top byte."""


def population_count(x: SSAValue, xlen: int, zbb: bool) -> tuple[list[Operation], SSAValue]:
    """The instructions counting the 1 bits of the i32 in `x`, and the register holding it."""
    if zbb:
        count = riscv.CpopOp(x) if xlen == 32 else riscv.CpopwOp(x)
        return [count], count.rd
    ones, pairs, nibbles = (load_immediate(mask, xlen) for mask in SWAR_MASKS)
    byte_sum = load_immediate(BYTE_SUM, xlen)
    ops: list[Operation] = [ones, pairs, nibbles, byte_sum]

    def emit(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    halves = emit(riscv.AndOp(emit(shift_right_logical(x, 1, xlen)), ones.results[0]))
    x2 = emit(riscv.SubOp(x, halves))
    low = emit(riscv.AndOp(x2, pairs.results[0]))
    high = emit(riscv.AndOp(emit(shift_right_logical(x2, 2, xlen)), pairs.results[0]))
    x4 = emit(riscv.AddOp(low, high))
    x8 = emit(riscv.AndOp(emit(riscv.AddOp(x4, emit(shift_right_logical(x4, 4, xlen)))), nibbles.results[0]))
    product = emit((riscv.MulOp if xlen == 32 else riscv.MulwOp)(x8, byte_sum.results[0]))
    count = emit(shift_right_logical(product, 24, xlen))
    return ops, count
