"""Canonicalization patterns of the quant dialect. Each is exact: the folded IR computes the
same values as the original under the ops' documented semantics.

`dcast(qcast(x)) -> x` is deliberately absent: it would erase the quantization a model asks for
(upstream MLIR folds it)."""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects import quant


def requantize_of_dequantize_is_exact(quantized: quant.QuantizedType) -> bool:
    """Whether `qcast(dcast(q))` returns every stored `q` of this type unchanged.

    dcast computes n * s in the expressed float type and qcast divides by s again, with
    n = q - zero_point. With p significand bits, |n| <= 2^(p-2) and no overflow or
    underflow of n * s, the two roundings move the result less than |n| * 2^(2-p) / 2 <= 1/2
    from n, so every rounding mode returns n exactly. Wider ranges (i32 storage in f32) may
    not round-trip, and are left alone."""
    fmt = quant.expressed_format(quantized.expressed_type)
    low, high = quantized.value_range()
    for scale, zero_point in zip(quantized.scale_values(), quantized.zero_point_values(), strict=True):
        magnitude = max(abs(low - zero_point), abs(high - zero_point))
        if magnitude > 2 ** (fmt.precision - 2) or scale < fmt.smallest_normal or magnitude * scale > fmt.largest:
            return False
    return True


class FoldQuantizeOfDequantize(RewritePattern):
    """qcast(dcast(y)) -> y when y's type is the qcast's result type and the round trip is
    exact for every stored value (`requantize_of_dequantize_is_exact`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.QuantizeCastOp, rewriter: PatternRewriter) -> None:
        source = op.input.owner
        if not isinstance(source, quant.DequantizeCastOp):
            return
        if source.input.type != op.result.type:
            return
        if not requantize_of_dequantize_is_exact(quant.element_type(op.result.type)):
            return
        rewriter.replace(op, [], [source.input])


class FoldStorageCastPair(RewritePattern):
    """scast(scast(x)) -> x when the outer result type is x's type (the casts invert)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.StorageCastOp, rewriter: PatternRewriter) -> None:
        source = op.input.owner
        if isinstance(source, quant.StorageCastOp) and source.input.type == op.result.type:
            rewriter.replace(op, [], [source.input])
