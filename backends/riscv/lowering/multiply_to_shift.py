"""`bitfold-riscv-multiply-to-shift`: index multiplications by a constant power of two become left
shifts (address arithmetic: strides, element sizes), which xDSL's canonicalization leaves alone."""

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern


class MultiplyByPowerOfTwoToShift(RewritePattern):
    """`muli x, 2**k` on index -> `shli x, k`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.result.type, IndexType):
            return
        for x, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if isinstance(c.owner, arith.ConstantOp) and isinstance(c.owner.value, IntegerAttr):
                value = c.owner.value.value.data
                if value > 1 and value & (value - 1) == 0:
                    shift = arith.ConstantOp(IntegerAttr(value.bit_length() - 1, IndexType()))
                    rewriter.replace(op, [shift, arith.ShLIOp(x, shift.result)])
                    return


class BitfoldRiscvMultiplyToShiftPass(ModulePass):
    """Index multiplications by a constant power of two become left shifts (`MultiplyByPowerOfTwoToShift`)."""

    name = "bitfold-riscv-multiply-to-shift"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MultiplyByPowerOfTwoToShift()).rewrite_module(op)
