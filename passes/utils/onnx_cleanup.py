"""Removal of the ONNX ops the rewrites orphan (the folds that leave quantized weights as
integer constants are the quant dialect's canonicalization patterns)."""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.onnx.elementwise import ClipOp


class EraseUnusedOnnxOp(RewritePattern):
    """Erase an `onnx.Constant` (a consumed scale, zero point, bit width or weight) or an
    `onnx.Clip` (a QCDQ narrowing folded into a type) whose results are unused: ONNX ops
    have no side effects."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if isinstance(op, (ConstantOp, ClipOp)) and not any(result.uses for result in op.results):
            rewriter.erase(op)
