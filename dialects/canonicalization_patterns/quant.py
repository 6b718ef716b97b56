"""Canonicalization patterns of the quant dialect. Each is exact: the folded IR computes the
same values as the original under the ops' documented semantics.

`dcast(qcast(x)) -> x` is deliberately absent: it would erase the quantization a model asks for
(upstream MLIR folds it)."""

from functools import cache

import numpy as np
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects import quant
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.quant_semantics import dequantize, quantize

MAX_ROUND_TRIP_CHECKS = 1 << 20
"""Most (stored value, scale/zero point pair) combinations `round_trip_is_exact` tries; a
type with more (i32 storage, wide i16 per-axis types) is not folded."""


@cache
def round_trip_is_exact(
    quantized: quant.QuantizedType, rounding: quant.RoundingMode, zero_point_first: bool
) -> bool:
    """Whether `qcast(dcast(q))`, the qcast with `rounding` and `zero_point_first`, returns
    every stored `q` of this type unchanged.

    Decided by running the two casts' numpy references (`dequantize`, `quantize`) on every
    stored value under every (scale, zero point) pair, so the answer is exact by construction.
    No rounding argument covers every case: `fl(fl(n * s) / s)` may miss `n` by an ulp, which
    `ceil`, `floor` and `away_from_zero` turn into a different integer (i8, f32, scale 0.1
    changes 18 of 256 values under `ceil`). Bipolar types always round-trip: dcast gives
    `+-s` with `s > 0` and qcast takes its sign. Types with more than
    `MAX_ROUND_TRIP_CHECKS` combinations, and bf16 (no numpy reference), answer False."""
    if isinstance(quantized, quant.BipolarQuantizedType):
        return True
    assert isinstance(quantized, quant.UniformQuantizedType)
    low, high = quantized.value_range()
    scales, zero_points = quantized.scale_values(), quantized.zero_point_values()
    if (high - low + 1) * len(scales) > MAX_ROUND_TRIP_CHECKS:
        return False
    # Every parameter pair as one channel of a per-axis type: row i holds all stored values.
    channels = quant.UniformQuantizedType.get(
        quantized.storage_width,
        quantized.is_signed,
        quantized.expressed_type,
        scales,
        zero_points,
        axis=0,
        storage_range=(low, high),
    )
    stored = np.broadcast_to(np.arange(low, high + 1), (len(scales), high - low + 1))
    stored = stored.astype(numpy_dtype(channels))
    try:
        again = quantize(dequantize(stored, channels), channels, rounding, zero_point_first)
    except NotImplementedError:
        return False
    return bool(np.array_equal(again, stored))


class FoldQuantizeOfDequantize(RewritePattern):
    """qcast(dcast(y)) -> y when y's type is the qcast's result type and the round trip with
    the qcast's rounding returns every stored value (`round_trip_is_exact`).

    This also collapses repeated fake quantization: in dcast(qcast(dcast(qcast(x)))) with
    equal types the outer qcast folds, leaving dcast(qcast(x))."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.QuantizeCastOp, rewriter: PatternRewriter) -> None:
        source = op.input.owner
        if not isinstance(source, quant.DequantizeCastOp):
            return
        if source.input.type != op.result.type:
            return
        quantized = quant.element_type(op.result.type)
        if not round_trip_is_exact(quantized, op.rounding_mode, op.adds_zero_point_first):
            return
        rewriter.replace(op, [], [source.input])


class FoldStorageCastPair(RewritePattern):
    """scast(scast(x)) -> x when the outer result type is x's type (the casts invert)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.StorageCastOp, rewriter: PatternRewriter) -> None:
        source = op.input.owner
        if isinstance(source, quant.StorageCastOp) and source.input.type == op.result.type:
            rewriter.replace(op, [], [source.input])
