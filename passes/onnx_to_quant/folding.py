"""Folds that leave quantized weights as integer constants (docs/canonical-quant-form.md,
"Values"), and removal of the ONNX ops the rewrites orphan."""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.onnx.elementwise import ClipOp
from bitfold.dialects.quant import QuantizeCastOp, StorageCastOp
from bitfold.passes.onnx_to_quant.storage import storage_constant


class FoldQuantizeOfConstant(RewritePattern):
    """qcast(onnx.Constant w) -> scast(onnx.Constant q), q the storage integers of qcast's
    own `evaluate(w)`: exact by construction."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter) -> None:
        if not isinstance(constant := op.input.owner, ConstantOp):
            return
        (stored,) = op.evaluate([constant.evaluate([])[0]])
        integers = storage_constant(stored, op.result.type.element_type)
        rewriter.replace(op, [integers, StorageCastOp(integers.output, op.result.type)])


class EraseUnusedOnnxOp(RewritePattern):
    """Erase an `onnx.Constant` (a consumed scale, zero point, bit width or weight) or an
    `onnx.Clip` (a QCDQ narrowing folded into a type) whose results are unused: ONNX ops
    have no side effects."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if isinstance(op, (ConstantOp, ClipOp)) and not any(result.uses for result in op.results):
            rewriter.erase(op)
