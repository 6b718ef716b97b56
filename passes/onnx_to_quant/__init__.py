"""`onnx-to-quant`: every quantization form an imported ONNX model arrives in becomes the
canonical quant form (docs/canonical-quant-form.md)."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from bitfold.dialects.canonicalization_patterns.quant import (
    FoldQuantizeOfConstant,
    FoldRequantizeOfConstant,
    FoldStorageCastOfConstant,
)
from bitfold.passes.onnx_to_quant.nbits import MatMulNBitsToQuant
from bitfold.passes.onnx_to_quant.qdq import DequantizeLinearToCast, QuantizeLinearToCast
from bitfold.passes.onnx_to_quant.qonnx import BipolarQuantToCasts, QuantToCasts, TruncToRequant, TruncV1ToRequant
from bitfold.passes.onnx_to_quant.qop import (
    QGemmToFloat,
    QLinearBinaryToFloat,
    QLinearConcatToFloat,
    QLinearConvToFloat,
    QLinearMatMulToFloat,
    QLinearPoolToFloat,
    QLinearSoftmaxToFloat,
)
from bitfold.passes.utils.onnx_cleanup import EraseUnusedOnnxOp


@dataclass(frozen=True)
class OnnxToQuantPass(ModulePass):
    """Rewrite QuantizeLinear / DequantizeLinear (and QCDQ's integer Clips), QONNX Quant /
    BipolarQuant / Trunc and the QLinear ops into quant.qcast / dcast / scast / requant, and
    onnxruntime's MatMulNBits into a MatMul of a blocked dequantized constant.

    Guarantees: none of those ops remains (ConvInteger / MatMulInteger, whose int32 result is
    their meaning, and QLinearSigmoid / QLinearLeakyRelu, onnxruntime lookup tables, are kept);
    every quantized type has canonical storage; quantized weights are integer constants; the
    module computes bit for bit what it computed before, except that a QLinear op's integer
    requantization becomes a float op and qcast (at most one LSB apart near ties). A dynamic
    or non-integer parameter fails the pass with one line naming the node."""

    name = "onnx-to-quant"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [
            QuantizeLinearToCast(), DequantizeLinearToCast(),
            QuantToCasts(), BipolarQuantToCasts(), TruncToRequant(), TruncV1ToRequant(),
            QLinearConvToFloat(), QLinearMatMulToFloat(), QGemmToFloat(), QLinearBinaryToFloat(),
            QLinearPoolToFloat(), QLinearConcatToFloat(), QLinearSoftmaxToFloat(), MatMulNBitsToQuant(),
            FoldQuantizeOfConstant(), FoldRequantizeOfConstant(), FoldStorageCastOfConstant(), EraseUnusedOnnxOp(),
        ]  # fmt: skip
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
