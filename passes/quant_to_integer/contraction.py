"""Conv, Gemm and MatMul on dequantized operands become integer contractions.

With x the dynamic operand (per tensor: s_x, zp_x), w the constant one (per tensor or per
output channel c: s_w[c], zp_w[c]) and the bias b (optional, real values b_r[c]):

    y_r[o] = sum_r (x[.] - zp_x) s_x (w[.] - zp_w[c]) s_w[c] + b_r[c]
           = S[c] * acc[o],    S[c] = alpha s_x s_w[c]

    acc[o] = init[c] + sum_r ext(x[.]) * w'[.]                    (i32 accumulation)
    w'     = w - zp_w                                            (centered constant, i8/i16)
    init[c] = R_even(b_r[c] / S[c]) - zp_x * sum_r w'[c, r]      (zp_x folded into a constant)

Conv pads x with zp_x (an `onnx.Pad` on the storage integers), so padded taps contribute
`zp_x * w'`, which the correction removes like every other tap: padding is exact. The
only inexact step is the bias: an integer bias within S / 1024 of S's grid (ONNX's QLinear
ops, onnxruntime's QDQ biases at float32(s_x s_w)) folds into the init; any other (QONNX's
float biases, an int32 bias at an unrelated scale) is added after the contraction on a grid
2^16 times finer than S (`elementwise.add_real_constant`). The result
is `dcast` of the accumulator at scale S per output channel: the following `qcast` becomes
a `quant.requant` (`elementwise.RequantizeDequantized`).

The pass fails (one line) where an i32 could overflow: max |acc| is bounded per channel by
|init[c]| + sum_r max|x| * |w'[c, r]|."""

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.base import ints_or
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.nn import ConvOp, GemmOp, MatMulOp, SlidingWindow
from bitfold.dialects.quant import Granularity, UniformQuantizedType
from bitfold.passes.quant_to_integer.batch_norm import FoldedBatchNorm, following_batch_norm
from bitfold.passes.quant_to_integer.blocked import blocked_accumulator
from bitfold.passes.quant_to_integer.dequantized import dequantized, quantized
from bitfold.passes.quant_to_integer.elementwise import add_real_constant
from bitfold.passes.quant_to_integer.operands import (
    Quantized,
    accumulator_type,
    check_i32,
    exact,
    fail,
    narrowest_signed,
    per_tensor,
    quantized_operand,
    round_to_grid,
    storage_value,
    widened,
)
from bitfold.passes.utils.linalg_building import I32, affine_map, build_generic, filled, integer_constant
from bitfold.passes.utils.padding import padded


def constant_weight(op: Operation, value: SSAValue, channel_axis: int) -> Quantized:
    """The constant weight operand, quantized per tensor, per `channel_axis` or per block
    (`blocked`)."""
    weight = quantized_operand(op, value)
    if weight.stored is None:
        raise fail(op, "the weight operand must be a constant (two dynamic operands are not supported)")
    kind = weight.qtype.kind
    if kind == Granularity.PER_AXIS and weight.qtype.axis != channel_axis:
        raise fail(op, f"weights must be quantized per tensor or per output channel (axis {channel_axis}), got {weight.qtype}")
    return weight


BIAS_FOLD_TOLERANCE = Fraction(1, 1024)
"""How far (in steps of S) an integer bias may lie off S's grid and still fold into the init:
onnxruntime's biases have scale float32(s_x s_w), off the float64 S by |b| * 2^-24 steps;
an error of S / 1024 is about a millionth of an output step (S is s_x s_w, far below it)."""


def real_bias(op: Operation, bias: SSAValue | None, channels: int, beta: float) -> np.ndarray | None:
    """beta * b per output channel, the bias's real values: float64 for a float bias, exact
    Fractions for an integer one (None without a bias)."""
    if bias is None:
        return None
    real = constant_array(bias)
    if real is not None:
        if np.size(real) not in (1, channels):
            raise fail(op, f"a bias of shape {np.shape(real)} is not per output channel ({channels})")
        return np.broadcast_to(np.asarray(real, dtype=np.float64).reshape(-1) * beta, (channels,)).astype(object)
    quantized = quantized_operand(op, bias)
    if quantized.stored is None or np.size(quantized.stored) not in (1, channels):
        raise fail(op, "the bias must be a constant with one value per output channel")
    real = np.frompyfunc(lambda c, s: int(c) * exact(s) * exact(beta), 2, 1)(quantized.centered(), quantized.scales())
    return np.broadcast_to(np.asarray(real, dtype=object).reshape(-1), (channels,))


def split_bias(
    op: Operation, bias: SSAValue | None, scales: np.ndarray, channels: int, beta: float
) -> tuple[np.ndarray, np.ndarray | None]:
    """The bias split in two, per output channel: the integers folded into the accumulator's
    init, R_even(beta * b / S) of an integer bias that lies on S's grid to within
    `BIAS_FOLD_TOLERANCE` (zeros otherwise); and the real values of any other bias (a float
    one, or integers at an unrelated scale; None otherwise), which `add_real_constant` adds
    on a grid 2^RESCALE_BITS times finer afterwards."""
    return _split_real(bias, real_bias(op, bias, channels, beta), scales, channels)


def _split_real(
    bias: SSAValue | None, real: np.ndarray | None, scales: np.ndarray, channels: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """`split_bias` of the bias's real values `real` (`real_bias`, computed once: exact
    Fractions per channel)."""
    if real is None or constant_array(bias) is not None:
        return np.zeros(channels, dtype=np.int64), real
    return folded_on_grid(real, scales)


def folded_on_grid(real: np.ndarray, scales: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(R_even(real / S), None) where every real value lies within `BIAS_FOLD_TOLERANCE` of its
    channel's grid S, else (zeros, real): the values `add_real_constant` adds on a finer grid."""
    grid = round_to_grid(real, scales)
    residual = max(abs(exact(r) - int(g) * exact(s)) / exact(s) for r, g, s in zip(real, grid, scales))
    if residual <= BIAS_FOLD_TOLERANCE:
        return grid, None
    return np.zeros(len(scales), dtype=np.int64), real


def _contract(
    rewriter: PatternRewriter,
    op: Operation,
    x: Quantized,
    x_storage: SSAValue,
    x_map: Sequence[AffineExpr],
    weight_centered: np.ndarray,
    w_map: Sequence[AffineExpr],
    out_shape: Sequence[int],
    channel_dim: int,
    rank: int,
    reduction_dims: Sequence[int],
    init: np.ndarray,
) -> tuple[SSAValue, int]:
    """(acc, bound on |acc|): acc = init[channel] + sum over the reduction dims of ext(x[x_map]) * w'[w_map], as
    two generics: the per-channel init broadcast, then the contraction."""
    x_low, x_high = x.qtype.value_range()
    widest_x = max(abs(x_low), abs(x_high))  # x enters uncentered: zp_x is in the init
    per_channel = np.abs(weight_centered).reshape(len(init), -1).sum(axis=1)
    bound = int(np.max(np.abs(init) + widest_x * per_channel))
    check_i32(op, bound, "the accumulator")
    weights = integer_constant(rewriter, weight_centered, narrowest_signed(weight_centered))
    initialized = filled(rewriter, init, [channel_dim], out_shape, I32)
    out_dims = [AffineDimExpr(d) for d in range(rank) if d not in reduction_dims]

    def multiply_accumulate(body) -> SSAValue:
        v = body.values
        xv = widened(body, v["in0"], x.qtype)
        wv = v["in1"] if weights.type.element_type == I32 else body.emit(arith.ExtSIOp(v["in1"], I32))
        return body.emit(arith.AddiOp(v["output"], body.emit(arith.MuliOp(xv, wv))))

    acc = build_generic(
        rewriter,
        [(x_storage, affine_map(rank, x_map)), (weights, affine_map(rank, w_map))],
        (initialized, affine_map(rank, out_dims)),
        reduction_dims,
        multiply_accumulate,
    )
    return acc, bound


@dataclass(frozen=True)
class Epilogue:
    """What a contraction's weights, scales and init become with its bias and a following
    BatchNormalization (`batch_norm`) folded in."""

    centered: np.ndarray
    """the centered weights, channel first, negated where BN's a[c] < 0"""
    scales: np.ndarray
    """S[c] per output channel (S'[c] with BN)"""
    folded: np.ndarray
    """bias integers on S's grid, for the init"""
    float_bias: np.ndarray | None
    """real bias values added after the contraction (BN's r[c] where it is off the grid)"""
    norm: FoldedBatchNorm | None


def epilogue(
    op: Operation, centered: np.ndarray, scales: np.ndarray, bias: SSAValue | None, beta: float, channel_axis: int
) -> Epilogue:
    """The bias split (`split_bias`) or, where a BatchNormalization follows, BN folded into
    the weights' signs and the scales, its real bias r[c] into the init where it lies on the
    grid S'[c], else added on a finer grid (`folded_on_grid`, `batch_norm`); a constant channel
    on its own grid (`constant_channel_scales`)."""
    channels = len(scales)
    norm = following_batch_norm(op, channel_axis, channels)
    real = real_bias(op, bias, channels, beta)
    if norm is None:
        scales = constant_channel_scales(centered, scales, real)
        return Epilogue(centered, scales, *_split_real(bias, real, scales, channels), None)
    centered = centered * norm.signs.reshape(-1, *(1,) * (centered.ndim - 1))
    real = norm.real(real)
    scales = constant_channel_scales(centered, norm.scales(scales), real)
    return Epilogue(centered, scales, *folded_on_grid(real, scales), norm)


def constant_channel_scales(centered: np.ndarray, scales: np.ndarray, real: np.ndarray | None) -> np.ndarray:
    """The accumulator's scale per channel, S[c] = |r[c]| for a channel whose centered weights
    (channel first) are all zero and whose constant real value r[c] (the bias; BN's r[c] with a
    BatchNormalization) is not: such a channel's accumulator is its init alone, so its scale is
    free, and on this grid r[c] is +-1 step, exact for a float64 r[c] (an integer bias's exact
    rational: within 2^-53 |r[c]|). Brevitas exports a dead channel as zero weights at a scale
    clamped to 1e-10, where r[c] on the grid s_x * 1e-10 would be an integer far beyond i32."""
    if real is None:
        return scales
    constant = ~centered.reshape(len(scales), -1).any(axis=1) & np.array([r != 0 for r in real])
    return np.where(constant, np.array([abs(float(r)) for r in real]), scales)


def finish_contraction(
    rewriter: PatternRewriter,
    op: Operation,
    acc: tuple[SSAValue, int],
    scales: np.ndarray,
    axis: int,
    float_bias: np.ndarray | None,
    norm: FoldedBatchNorm | None = None,
) -> None:
    """Replace `op` (and `norm`, the BatchNormalization folded into it) by the dequantized
    accumulator (per channel along `axis`), plus the float bias where there is one."""
    result = op.results[0]
    acc, bound = acc
    qtype = accumulator_type(scales, axis, result.type.element_type, bound)
    if float_bias is not None:
        rank = len(result.type.get_shape())
        per_channel = float_bias.reshape(-1, *(1,) * (rank - 1 - axis))
        acc, qtype = add_real_constant(rewriter, op, Quantized(quantized(rewriter, acc, qtype), qtype, None), per_channel)
    value = dequantized(rewriter, acc, qtype, result.type)
    if norm is not None:
        rewriter.replace(norm.op, [], [value])
        rewriter.erase(op)
        return
    rewriter.replace(op, [], [value])


def _x_correction(x_type: UniformQuantizedType, weight_centered: np.ndarray, channels: int) -> np.ndarray:
    """zp_x * sum_r w'[c, r] per channel (weights with the channel first)."""
    return x_type.zero_point * weight_centered.reshape(channels, -1).sum(axis=1)


def conv_loops(
    window: SlidingWindow, channels: int, group_in: int, groups: int
) -> tuple[int, list[AffineExpr], list[AffineExpr], list[int]]:
    """(rank, x_map, w_map, reduction dims) of a Conv's contraction over the padded input,
    loops n, m, o_1..o_d | ci, k_1..k_d (the reduction in that order):
    x[n, g(m) Cg + ci, o_i s_i + k_i d_i], w[m, ci, k_i], g(m) = m // (M / groups)."""
    spatial = len(window.kernel)
    rank = 2 + 2 * spatial + 1
    n, m = AffineDimExpr(0), AffineDimExpr(1)
    outs = [AffineDimExpr(2 + i) for i in range(spatial)]
    ci = AffineDimExpr(2 + spatial)
    taps = [AffineDimExpr(3 + spatial + i) for i in range(spatial)]
    channel = ci if groups == 1 else (m // (channels // groups)) * group_in + ci
    x_map = [n, channel, *(o * s + t * d for o, t, s, d in zip(outs, taps, window.strides, window.dilations))]
    return rank, x_map, [m, ci, *taps], list(range(2 + spatial, rank))


class ConvToInteger(RewritePattern):
    """onnx.Conv (any spatial rank, groups, strides, dilations, padding) on dequantized
    operands -> onnx.Pad with zp_x + integer contraction (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvOp, rewriter: PatternRewriter) -> None:
        x = quantized_operand(op, op.x)
        x_type = per_tensor(op, x, "the input")
        weight = constant_weight(op, op.w, 0)
        kernel = weight.shape[2:]
        window = SlidingWindow.from_op(op, x.shape[2:], ints_or(op.attributes, "kernel_shape", kernel))
        out_shape = tuple(op.y.type.get_shape())
        channels, group_in = weight.shape[0], weight.shape[1]
        groups = op.int_attr("group")
        storage = padded(rewriter, storage_value(rewriter, x), x_type.zero_point, window)
        rank, x_map, w_map, reduction = conv_loops(window, channels, group_in, groups)
        if weight.qtype.kind == Granularity.SUB_CHANNEL:
            acc, scales, float_bias = blocked_accumulator(
                rewriter, op, x, storage, x_map, weight.centered(), weight.scales(), w_map, out_shape, 1, rank, reduction,
                lambda s: split_bias(op, op.b, s, channels, 1.0),
            )
            finish_contraction(rewriter, op, acc, scales, 1, float_bias)
            return
        scales = np.broadcast_to(x_type.scale * weight.scales().reshape(-1), (channels,))
        ending = epilogue(op, weight.centered(), scales, op.b, 1.0, 1)
        init = ending.folded - _x_correction(x_type, ending.centered, channels)
        acc = _contract(rewriter, op, x, storage, x_map, ending.centered, w_map, out_shape, 1, rank, reduction, init)
        finish_contraction(rewriter, op, acc, ending.scales, 1, ending.float_bias, ending.norm)


class GemmToInteger(RewritePattern):
    """onnx.Gemm (transA, transB, alpha > 0, beta) with a constant B -> integer contraction
    over (i, j | k)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        trans_a, trans_b = op.int_attr("transA"), op.int_attr("transB")
        alpha = op.float_attr("alpha")
        if alpha <= 0:
            raise fail(op, f"alpha = {alpha}: only a positive alpha can join the scale")
        x = quantized_operand(op, op.a)
        x_type = per_tensor(op, x, "input A")
        weight = constant_weight(op, op.b, 0 if trans_b else 1)
        centered = weight.centered()
        centered = centered if trans_b else centered.T  # channel (j) first
        channels = centered.shape[0]
        i, j, k = AffineDimExpr(0), AffineDimExpr(1), AffineDimExpr(2)
        x_map = [k, i] if trans_a else [i, k]
        out_shape = tuple(op.y.type.get_shape())
        storage = storage_value(rewriter, x)
        if weight.qtype.kind == Granularity.SUB_CHANNEL:
            table = alpha * np.broadcast_to(weight.scales(), weight.shape)
            acc, scales, float_bias = blocked_accumulator(
                rewriter, op, x, storage, x_map, centered, table if trans_b else table.T, [j, k], out_shape, 1, 3, [2],
                lambda s: split_bias(op, op.c, s, channels, op.float_attr("beta")),
            )
            finish_contraction(rewriter, op, acc, scales, 1, float_bias)
            return
        scales = np.broadcast_to(alpha * x_type.scale * weight.scales().reshape(-1), (channels,))
        ending = epilogue(op, centered, scales, op.c, op.float_attr("beta"), 1)
        init = ending.folded - _x_correction(x_type, ending.centered, channels)
        acc = _contract(rewriter, op, x, storage, x_map, ending.centered, [j, k], out_shape, 1, 3, [2], init)
        finish_contraction(rewriter, op, acc, ending.scales, 1, ending.float_bias, ending.norm)


class MatMulToInteger(RewritePattern):
    """onnx.MatMul of a dequantized A (..., M, K) by a constant 2-D B (K, N) -> integer
    contraction over (batch..., i, j | k)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulOp, rewriter: PatternRewriter) -> None:
        x = quantized_operand(op, op.a)
        if x.stored is None and quantized_operand(op, op.b).stored is None:
            return  # two activations: `activation_matmul`
        x_type = per_tensor(op, x, "input A")
        if len(x.shape) < 2 or len(op.b.type.get_shape()) != 2:
            raise fail(op, "only (..., M, K) @ (K, N) with a 2-D constant B is supported")
        weight = constant_weight(op, op.b, 1)
        centered = weight.centered().T  # channel (j) first: (N, K)
        channels = centered.shape[0]
        out_shape = tuple(op.y.type.get_shape())
        batch = len(out_shape) - 2
        rank = batch + 3
        dims = [AffineDimExpr(d) for d in range(rank)]
        i, j, k = dims[batch], dims[batch + 1], dims[batch + 2]
        storage = storage_value(rewriter, x)
        if weight.qtype.kind == Granularity.SUB_CHANNEL:
            table = np.broadcast_to(weight.scales(), weight.shape).T
            acc, scales, _ = blocked_accumulator(
                rewriter, op, x, storage, [*dims[:batch], i, k], centered, table, [j, k], out_shape, len(out_shape) - 1,
                rank, [rank - 1], lambda s: split_bias(op, None, s, channels, 1.0),
            )
            finish_contraction(rewriter, op, acc, scales, len(out_shape) - 1, None)
            return
        scales = np.broadcast_to(x_type.scale * weight.scales().reshape(-1), (channels,))
        ending = epilogue(op, centered, scales, None, 1.0, len(out_shape) - 1)
        init = ending.folded - _x_correction(x_type, ending.centered, channels)
        acc = _contract(
            rewriter, op, x, storage, [*dims[:batch], i, k], ending.centered, [j, k], out_shape, len(out_shape) - 1, rank,
            [rank - 1], init
        )
        finish_contraction(rewriter, op, acc, ending.scales, len(out_shape) - 1, ending.float_bias, ending.norm)
