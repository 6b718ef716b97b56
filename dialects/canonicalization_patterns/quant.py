"""Canonicalization patterns of the quant dialect. Each is exact: the folded IR computes the
same values as the original under the ops' documented semantics.

Every quant op whose operand is a constant folds into a constant of its result type, computed
by the op's own `evaluate` (so exact by construction): qcast of a float `onnx.Constant` or of
the dcast of a quantized constant (uniform or bipolar), requant and scast of a quantized
constant in canonical form (`bitfold.dialects.quantized_constants`). dcast is the exception: `dcast(c)` is how a model
reads a quantized weight, and stays.

`dcast(qcast(x)) -> x` is deliberately absent: it would erase the quantization a model asks for
(upstream MLIR folds it)."""

from functools import cache

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects import quant
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import ConstantOp, dense_attr
from bitfold.dialects.quant_semantics import dequantize, quantize
from bitfold.dialects.quantized_constants import constant_stored_values, quantized_constant

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


def erase_unused_sources(rewriter: PatternRewriter, value: SSAValue) -> None:
    """Erase the `quant.dcast` / `quant.scast` / `onnx.Constant` chain that produced `value` as
    far as nothing else reads it (an `onnx.Constant` has no Pure trait, so dead-code
    elimination keeps it)."""
    while not value.uses and isinstance(owner := value.owner, (ConstantOp, quant.StorageCastOp, quant.DequantizeCastOp)):
        rewriter.erase(owner)
        if isinstance(owner, ConstantOp):
            return
        value = owner.input


def _replace_with(rewriter: PatternRewriter, op: Operation, new_ops: list[Operation], value: SSAValue) -> None:
    """Replace `op`'s result by `value` (computed by `new_ops`), then erase `op`'s constant
    sources that are left unused."""
    source = op.operands[0]
    rewriter.replace(op, new_ops, [value])
    erase_unused_sources(rewriter, source)


def _float_constant_values(value: SSAValue) -> np.ndarray | None:
    """The values of a float constant: an `onnx.Constant`, or the dcast of a quantized
    constant (its `evaluate`), else None."""
    if isinstance(constant := value.owner, ConstantOp):
        return constant.evaluate([])[0]
    if isinstance(dcast := value.owner, quant.DequantizeCastOp) and (stored := constant_stored_values(dcast.input)) is not None:
        return dcast.evaluate([stored])[0]
    return None


class FoldQuantizeOfConstant(RewritePattern):
    """qcast(x) -> scast(onnx.Constant i) for a float constant x (`_float_constant_values`), i
    the storage integers of the qcast's own `evaluate(x)` (uniform or bipolar, any rounding and
    order): float weights behind a quantizer become integer constants, and a quantized weight
    quantized again (to another type: the same type is `FoldQuantizeOfDequantize`) one constant."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.QuantizeCastOp, rewriter: PatternRewriter) -> None:
        if (values := _float_constant_values(op.input)) is None:
            return
        (stored,) = op.evaluate([values])
        integers, cast = quantized_constant(stored, op.result.type)
        _replace_with(rewriter, op, [integers, cast], cast.result)


class FoldRequantizeOfConstant(RewritePattern):
    """requant(c) -> c' for a quantized constant c: c' holds the requant's own `evaluate` of
    c's stored values. This is how QCDQ's Clip on a run-time quantized weight (Brevitas'
    `QuantizeLinear(W) -> Clip -> DequantizeLinear`) ends as one narrow constant."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.RequantizeOp, rewriter: PatternRewriter) -> None:
        if (stored := constant_stored_values(op.input)) is None:
            return
        (requantized,) = op.evaluate([stored])
        integers, cast = quantized_constant(requantized, op.result.type)
        _replace_with(rewriter, op, [integers, cast], cast.result)


class FoldStorageCastOfConstant(RewritePattern):
    """scast(c) -> onnx.Constant of the integers, for a quantized constant c read as integers
    of another type than the constant's own (c's own type: `FoldStorageCastPair`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.StorageCastOp, rewriter: PatternRewriter) -> None:
        if (stored := constant_stored_values(op.input)) is None or op.result.type == op.input.owner.input.type:
            return
        (integers,) = op.evaluate([stored])
        result_type = op.result.type
        assert isinstance(result_type, TensorType)
        value = dense_attr(integers, result_type.element_type)
        constant = ConstantOp.create(attributes={"value": value}, result_types=[value.type])
        _replace_with(rewriter, op, [constant], constant.output)
