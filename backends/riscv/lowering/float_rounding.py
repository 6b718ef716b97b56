"""`bitfold-riscv-expand-float-rounding`: `math.roundeven`, `math.trunc`, `math.floor`, `math.ceil` on
f32 as arith (and `math.absf` / `math.copysign`), exact for every input, so that both float
lowerings (hardware F and soft float) need no rounding instruction of their own:

    a = |x|; small = a < 2^23                 (every f32 with |x| >= 2^23, inf and NaN is its
                                               own rounding: those take x itself)
    roundeven(x) = small ? copysign((a + 2^23) - 2^23, x) : x
                   (a + 2^23 lies in [2^23, 2^24), where the ulp is 1: the addition rounds a to
                   the nearest integer, ties to even; the subtraction is exact)
    trunc(x)     = small ? copysign(sitofp(fptosi(x)), x) : x
    floor(x)     = t = trunc(x); t > x ? t - 1 : t
    ceil(x)      = t = trunc(x); t < x ? t + 1 : t

copysign keeps the sign of zero results (roundeven(-0.3) = -0.0, as IEEE roundToIntegral);
t - 1 and t + 1 are exact below 2^23. `lower-quant` emits these ops for a qcast's rounding."""

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, ModuleOp, f32, i32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.op_sequence import OpSequence

EXACT_INTEGERS = 2.0**23
"""From 2^23 on, the f32 spacing is at least 1: every such value is an integer."""

OLT, OGT = 4, 2
"""`arith.cmpf` predicates: ordered less than, ordered greater than"""


def _truncated(emit: OpSequence, x: SSAValue, small: SSAValue) -> SSAValue:
    integer = emit(arith.FPToSIOp(x, i32))
    return emit(arith.SelectOp(small, emit(math.CopySignOp(emit(arith.SIToFPOp(integer, f32)), x)), x))


class ExpandFloatRounding(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: math.RoundEvenOp | math.TruncOp | math.FloorOp | math.CeilOp, rewriter: PatternRewriter
    ) -> None:
        x = op.operand
        if not isinstance(x.type, Float32Type):
            return
        emit = OpSequence()
        bound = emit.f32(EXACT_INTEGERS)
        small = emit(arith.CmpfOp(emit(math.AbsFOp(x)), bound, OLT))
        if isinstance(op, math.RoundEvenOp):
            shifted = emit(arith.SubfOp(emit(arith.AddfOp(emit(math.AbsFOp(x)), bound)), bound))
            result = emit(arith.SelectOp(small, emit(math.CopySignOp(shifted, x)), x))
        elif isinstance(op, math.TruncOp):
            result = _truncated(emit, x, small)
        else:
            t = _truncated(emit, x, small)
            one = emit.f32(1.0)
            if isinstance(op, math.FloorOp):
                result = emit(arith.SelectOp(emit(arith.CmpfOp(t, x, OGT)), emit(arith.SubfOp(t, one)), t))
            else:
                result = emit(arith.SelectOp(emit(arith.CmpfOp(t, x, OLT)), emit(arith.AddfOp(t, one)), t))
        rewriter.replace(op, emit.ops, [result])


class BitfoldRiscvExpandFloatRoundingPass(ModulePass):
    """f32 roundeven / trunc / floor / ceil as exact arith (module docstring)."""

    name = "bitfold-riscv-expand-float-rounding"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandFloatRounding()).rewrite_module(op)
