"""BatchNormalization (inference form) after a Conv, Gemm or MatMul, folded into the integer
contraction: no op of its own remains. On any other dequantized value it is a per-channel
integer affine (`BatchNormToInteger`).

With the contraction's real result z[c] = S[c] * acc + b[c] (S[c] = s_x s_w[c], b the real
bias) and BN's per-channel parameters gamma, beta, mean, var, eps:

    y[c] = gamma[c] (z[c] - mean[c]) / sqrt(var[c] + eps) + beta[c]
         = a[c] S[c] acc + a[c] (b[c] - mean[c]) + beta[c],      a[c] = gamma[c] / sqrt(var[c] + eps)
         = S'[c] (sign(a[c]) acc) + r[c],                       S'[c] = |a[c]| S[c]

so the weights of a channel with a[c] < 0 are negated at compile time (exact: the negated
centered weights take a wider storage type only where -(-2^(N-1)) needs it), the
accumulator's scale becomes S'[c] (the following requantization absorbs it, exactly:
`quant.requant` rescales in exact arithmetic), and the real bias r[c] = a[c] (b[c] -
mean[c]) + beta[c] folds into the init, R_even(r[c] / S'[c]), where every r[c] lies on the
grid (within S'[c] / 1024, `contraction.folded_on_grid`); otherwise it is added after the
contraction on the grid S'[c] / 2^k (k <= 16 the largest that keeps the sum in i32,
`elementwise.add_real_constant`, one shift and add per output). a[c] and r[c] are computed in
float64; the one approximation that matters is the rounding of r[c]: |error| <= S'[c] / 2^(k+1)
in real units (zero where r[c] lies on the grid), a fraction S'[c] / (2^(k+1) s_y) of an output
step (docs/integer-ir.md).

Why here and not as a quant-form canonicalization: in the quant form the fold would have to
rescale the float weights, whose dcast rounds a[c] s_w[c] (q - zp) to float32, and move BN's
float arithmetic into a float bias: the canonical IR would no longer compute the numbers it
computed before (canonicalize-quant's rewrites are bit-exact), and the exporters gain nothing
(QDQ, QCDQ and QONNX keep BatchNormalization as it is). In integer code the fold is exact up
to the bias rounding above and costs at most the one add of an off-grid bias at run time."""

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.nn import BatchNormalizationOp
from bitfold.dialects.quant import Granularity, UniformQuantizedType
from bitfold.passes.quant_to_integer.dequantized import dequantized
from bitfold.passes.quant_to_integer.elementwise import add_real_constant
from bitfold.passes.quant_to_integer.operands import Quantized, fail, quantized_operand
from bitfold.passes.quant_to_integer.sign_thresholds import affine_chain


@dataclass(frozen=True)
class FoldedBatchNorm:
    """A BatchNormalization whose input is a contraction's result, as a[c] and its parameters."""

    op: BatchNormalizationOp
    multiplier: np.ndarray
    """a[c] = gamma[c] / sqrt(var[c] + eps), float64"""
    mean: np.ndarray
    beta: np.ndarray

    @property
    def signs(self) -> np.ndarray:
        """+1 or -1 per channel: the factor of the channel's weights."""
        return np.where(self.multiplier < 0, -1, 1).astype(np.int64)

    def scales(self, scales: np.ndarray) -> np.ndarray:
        """S'[c] = |a[c]| S[c]."""
        return np.abs(self.multiplier) * scales

    def real(self, real_bias: np.ndarray | None) -> np.ndarray:
        """r[c] = a[c] (b[c] - mean[c]) + beta[c] in float64, `real_bias` the contraction's own
        real bias b (None: 0)."""
        bias = np.zeros(len(self.multiplier)) if real_bias is None else np.asarray(real_bias, dtype=np.float64)
        return self.multiplier * (bias - self.mean) + self.beta


def following_batch_norm(op: Operation, channel_axis: int, channels: int) -> FoldedBatchNorm | None:
    """The BatchNormalization that is the only user of `op`'s result, normalizing along
    `channel_axis` (ONNX's axis 1) the contraction's output channels, else None. Fails on one
    it cannot fold (parameters not constant, a zero gamma, channels on another axis). None
    too where a sign follows: `sign_thresholds` makes that exact (the fold rounds the bias)."""
    uses = list(op.results[0].uses)
    if len(uses) != 1 or not isinstance(norm := uses[0].operation, BatchNormalizationOp) or norm.x != op.results[0]:
        return None
    if affine_chain(norm, norm.x) is not None:
        return None
    if channel_axis != 1:
        raise fail(norm, "BatchNormalization normalizes axis 1, which is not the contraction's output channels")
    return folded(norm, channels)


def folded(norm: BatchNormalizationOp, channels: int) -> FoldedBatchNorm:
    """`norm`'s a[c], mean and beta; fails unless its parameters are constants and a[c] is
    finite and nonzero."""
    parameters = [constant_array(v) for v in (norm.scale, norm.b, norm.input_mean, norm.input_var)]
    if any(p is None for p in parameters):
        raise fail(norm, "BatchNormalization parameters must be constants to become integer code")
    gamma, beta, mean, var = (np.broadcast_to(np.asarray(p, np.float64).reshape(-1), (channels,)) for p in parameters)
    multiplier = gamma / np.sqrt(var + norm.float_attr("epsilon"))
    if not np.all(np.isfinite(multiplier)) or np.any(multiplier == 0):
        raise fail(norm, "BatchNormalization with a zero or non-finite gamma / sqrt(var + epsilon) has no integer form")
    return FoldedBatchNorm(norm, multiplier, mean, beta)


class BatchNormToInteger(RewritePattern):
    """BatchNormalization(dcast(q)) with no contraction before it (one that follows a Conv,
    Gemm or MatMul is folded into it first): per channel c,

        y = a[c] s[c] (q - zp[c]) + d[c],   d[c] = beta[c] - a[c] mean[c]
          = S[c] (sign(a[c]) (q - zp[c]) << k + R_even(d[c] 2^k / (|a[c]| s[c]))),   S[c] = |a[c]| s[c] / 2^k

    in i32 (`elementwise.add_real_constant` with the signs, k <= 16 the largest that fits).
    The one rounding is d's: |error| <= |a[c]| s[c] / 2^(k+1) in real units. A BatchNormalization
    leading to a sign (`sign_thresholds`) is left to that pattern."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormalizationOp, rewriter: PatternRewriter) -> None:
        if affine_chain(op, op.x) is not None:
            return  # a sign follows: `sign_thresholds` makes it exact
        source = quantized_operand(op, op.x)
        qtype = source.qtype
        if not isinstance(qtype, UniformQuantizedType) or len(source.shape) < 2 or qtype.kind == Granularity.SUB_CHANNEL or (
            qtype.kind == Granularity.PER_AXIS and qtype.axis != 1
        ):
            raise fail(op, f"BatchNormalization needs an input quantized per tensor or along axis 1, got {qtype}")
        channels = source.shape[1]
        norm = folded(op, channels)
        scales = np.broadcast_to(np.asarray(qtype.scale_values(), np.float64), (channels,))
        zero_points = np.broadcast_to(np.asarray(qtype.zero_point_values(), np.int64), (channels,))
        scaled = UniformQuantizedType.get(
            qtype.storage_width, qtype.is_signed, qtype.expressed_type, norm.scales(scales), zero_points, axis=1,
            storage_range=qtype.value_range(),
        )
        per_channel = (-1, *(1,) * (len(source.shape) - 2))
        offset = (norm.beta - norm.multiplier * norm.mean).reshape(per_channel)
        total, total_type = add_real_constant(
            rewriter, op, Quantized(source.value, scaled, None), offset, norm.signs.reshape(per_channel)
        )
        rewriter.replace(op, [], [dequantized(rewriter, total, total_type, op.y.type)])
