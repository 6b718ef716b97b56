"""`bitfold-llvm-fptosi-by-bits`: `arith.fptosi` f32 -> i32 as integer operations on the float's bits,
for the vector targets: LLVM vectorizes fptosi into `vfcvt.rtz.x.f.v`, which qemu 7.2 (Debian 12's
qemu-user, the tests' RVV simulator) aborts on ("decode_save_opc: Assertion `ctx->insn_start !=
NULL' failed", qemu issue 1441, fixed in qemu 8.1). The result is fptosi's, truncation toward zero,
for every input in the i32 range (outside it fptosi is poison):

    b = bitcast<i32>(x);  e = (b >>u 23) & 255;  m = (b & 0x7FFFFF) | 0x800000     (|x| = m 2^(e-150))
    magnitude = e >= 150 ? m << clamp(e - 150) : m >>u clamp(150 - e)     clamp(d) = min(max(d, 0), 31)
    result = b < 0 ? 0 - magnitude : magnitude

(m < 2^24, so a right shift by 24 or more gives 0 (e < 127: |x| < 1); shift amounts stay in
[0, 31], never poison.)"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, ModuleOp, i32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.op_sequence import OpSequence

F32_MANTISSA_BITS = 23
F32_EXPONENT_MASK = 0xFF
F32_MANTISSA_MASK = (1 << F32_MANTISSA_BITS) - 1
F32_IMPLICIT_ONE = 1 << F32_MANTISSA_BITS
INTEGER_EXPONENT = 127 + F32_MANTISSA_BITS  # e = 150: |x| = m exactly
MAX_SHIFT = 31


def emit_truncation(e: OpSequence, x: SSAValue) -> SSAValue:
    """fptosi(x) for f32 x, i32 result (module docstring)."""
    bits = e(arith.BitcastOp(x, i32))
    exponent = e(arith.AndIOp(e(arith.ShRUIOp(bits, e.i32(F32_MANTISSA_BITS))), e.i32(F32_EXPONENT_MASK)))
    mantissa = e(arith.OrIOp(e(arith.AndIOp(bits, e.i32(F32_MANTISSA_MASK))), e.i32(F32_IMPLICIT_ONE)))
    zero, limit, unbiased = e.i32(0), e.i32(MAX_SHIFT), e.i32(INTEGER_EXPONENT)

    def amount(difference: SSAValue) -> SSAValue:
        return e(arith.MinSIOp(e(arith.MaxSIOp(difference, zero)), limit))

    left = e(arith.ShLIOp(mantissa, amount(e(arith.SubiOp(exponent, unbiased)))))
    right = e(arith.ShRUIOp(mantissa, amount(e(arith.SubiOp(unbiased, exponent)))))
    magnitude = e(arith.SelectOp(e(arith.CmpiOp(exponent, unbiased, "sge")), left, right))
    negative = e(arith.CmpiOp(bits, zero, "slt"))
    return e(arith.SelectOp(negative, e(arith.SubiOp(zero, magnitude)), magnitude))


class TruncateByBits(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.FPToSIOp, rewriter: PatternRewriter) -> None:
        if op.input.type == Float32Type() and op.result.type == i32:
            e = OpSequence()
            result = emit_truncation(e, op.input)
            rewriter.replace(op, e.ops, [result])


@dataclass(frozen=True)
class BitfoldLlvmFptosiByBitsPass(ModulePass):
    """Every f32 -> i32 `arith.fptosi` as integer operations on its bits (module docstring)."""

    name = "bitfold-llvm-fptosi-by-bits"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(TruncateByBits()).rewrite_module(op)
