"""Fold data movement of quantized constants: `op'(c) -> c'`.

After dequantization sinks through a data-movement op (`sink_dequantize`), a weight that the
model moves (Brevitas' bias-free QuantLinear is `MatMul(x, Transpose(W))`) reads
`dcast(op'(scast(constant)))`. The op's numpy reference applied to the stored values gives the
moved constant, so `op'(scast(c))` becomes the canonical constant `scast(c')` of op's result
type: bit-identical by construction, and the weight is a constant again for quant-to-integer."""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects.canonicalization_patterns.quant import erase_unused_sources
from bitfold.dialects.onnx import replication, shape
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.quant import QuantizedType, element_type
from bitfold.dialects.quantized_constants import constant_stored_values, quantized_constant
from bitfold.dialects.tensor_limits import check_type

MOVING_OPS = (*shape.OPS, *replication.OPS)
"""The ops that only move, copy or select elements (dialects/onnx/shape.py, replication.py);
those with one result fold."""


class FoldMovedQuantizedConstant(RewritePattern):
    """A data-movement op whose data operands are quantized constants and whose other operands
    (shapes, axes, pads) are constants folds into a quantized constant (module docstring)."""

    def match_and_rewrite(self, op: OnnxOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MOVING_OPS) or len(op.results) != 1:
            return
        if not isinstance(element_type(op.results[0].type), QuantizedType):
            return
        arrays = []
        for value in op.operands:
            stored = constant_stored_values(value)
            if stored is None and isinstance(value.owner, ConstantOp):
                stored = dense_to_numpy(value.owner.value)
            if stored is None:
                return
            arrays.append(stored)
        check_type(op.results[0].type, f"the constant folded from '{op.name}'")
        moved = op.evaluate(arrays)[0]
        integers, cast = quantized_constant(moved, op.results[0].type)
        sources = list(op.operands)
        rewriter.replace(op, [integers, cast], [cast.result])
        for source in dict.fromkeys(sources):
            erase_unused_sources(rewriter, source)
