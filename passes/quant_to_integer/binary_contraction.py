"""Conv, Gemm and MatMul whose dynamic operand x is bipolar (QONNX `BipolarQuant`
activations, FINN-style binary networks) become integer contractions.

x is stored as bits b (real value s_x (2b - 1)); the weight is a constant, bipolar (+-1 at
s_w[c]) or uniform (centered w' = w - zp_w at s_w[c]). With r over the Cg T products of an
output o in channel c (Cg channels of c's group, T taps):

- bipolar weights, XNOR-popcount on words packed along the channels (`bit_packing`):

      dot[o] = sum_r x w = Cg T - 2 sum_{u, t} popcount(xw[u, .] ^ ww[c, u, t])
      acc = init - 2 sum popcount(...)                 init = Cg T + ...

- uniform weights, a sign-selected sum: sum_r (2b - 1) w' = sum_r b (2 w') - sum_r w'

      acc = init + sum_r ext(b) * (2 w')               init = -sum_r w'[c, r] + ...

- Conv padding: the float Conv pads x with 0.0, which no bit stands for. Bits and words are
  padded with 0 (read as -1), so a tap t that lies in the padding at o adds -sum_ci w[c, ci, t]
  to either sum; init adds it back, exactly:

      init[c, o] = base[c] + sum_{t padded at o} sum_ci w[c, ci, t] + bias_grid[c]

  (a table over (c, o) where the Conv pads, else one value per channel).

acc is dot + bias on the accumulator's grid S[c] = s_x s_w[c] (`alpha` joins S for Gemm), and
is left as `dcast` of it like every contraction (`contraction.finish_contraction`): the bias
folds as there, and the following qcast becomes a requant, or a threshold (`sign_thresholds`).
A float bias that a sign follows stays a float `onnx.Add` of the dequantized accumulator, which
the threshold takes in exactly (added on a finer grid, it could move a value across 0)."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from bitfold.dialects.evaluation import numpy_dtype_of
from bitfold.dialects.onnx.base import ints_or
from bitfold.dialects.onnx.constant import ConstantOp, dense_attr
from bitfold.dialects.onnx.elementwise import AddOp
from bitfold.dialects.onnx.nn import ConvOp, GemmOp, MatMulOp, SlidingWindow
from bitfold.dialects.quant import BipolarQuantizedType, Granularity
from bitfold.passes.quant_to_integer.bit_packing import WORD_BITS, disagreements, packed_activations, packed_constant
from bitfold.passes.quant_to_integer.contraction import constant_weight, finish_contraction, split_bias
from bitfold.passes.quant_to_integer.operands import (
    Quantized,
    check_i32,
    exact,
    fail,
    narrowest_signed,
    quantized_operand,
    storage_value,
)
from bitfold.passes.quant_to_integer.sign_thresholds import affine_chain
from bitfold.passes.utils.linalg_building import I32, Body, affine_map, build_generic, empty, filled, integer_constant
from bitfold.passes.utils.padding import padded, padded_taps


def bipolar_input(op: Operation, value: SSAValue) -> Quantized | None:
    """The operand as a per-tensor bipolar value, or None when it is not bipolar."""
    x = quantized_operand(op, value)
    if not isinstance(x.qtype, BipolarQuantizedType):
        return None
    if x.qtype.kind != Granularity.PER_TENSOR:
        raise fail(op, f"a bipolar input must have one scale, got {x.qtype}")
    return x


@dataclass(frozen=True)
class BinaryOperands:
    """What the contraction reads: x's bits or packed words (`dynamic`), the weight constant
    (channel first, then the reduced channels or words, then the taps), the per-channel
    base of init, the body, and bounds on |dot| and on any partial sum minus init.
    `counts`: the body counts disagreements from 0 (xor, popcount, add) and a parallel
    generic makes init - 2 * count of each output afterwards (one operation per word less
    in the reduction); else the body adds to init."""

    dynamic: SSAValue
    constant: np.ndarray
    base: np.ndarray
    body: Callable[[Body], SSAValue]
    bound: int
    partial_bound: int
    counts: bool


def binary_operands(
    rewriter: PatternRewriter, x: Quantized, weight: Quantized, centered: np.ndarray, x_axis: int, groups: int
) -> BinaryOperands:
    """x (its channels along `x_axis`, in `groups`) against `centered` weights, channel first
    and the reduced channels on axis 1 (module docstring)."""
    bits = storage_value(rewriter, x)
    channels = centered.shape[0]
    per_channel = centered.reshape(channels, -1)
    if isinstance(weight.qtype, BipolarQuantizedType):
        words = packed_constant(centered, 1)
        products = per_channel.shape[1]

        def count_disagreements(body: Body) -> SSAValue:
            return body.emit(arith.AddiOp(body.values["output"], disagreements(body, body.values["in0"], body.values["in1"])))

        partial = 2 * WORD_BITS * words.reshape(channels, -1).shape[1]
        dynamic = packed_activations(rewriter, bits, x_axis, groups)
        base = np.full(channels, products, dtype=np.int64)
        return BinaryOperands(dynamic, words, base, count_disagreements, products, partial, True)

    doubled = 2 * centered
    wide = narrowest_signed(doubled) == I32

    def signed_sum(body: Body) -> SSAValue:
        v = body.values
        w = v["in1"] if wide else body.emit(arith.ExtSIOp(v["in1"], I32))
        return body.emit(arith.AddiOp(v["output"], body.emit(arith.MuliOp(body.emit(arith.ExtUIOp(v["in0"], I32)), w))))

    magnitude = int(np.abs(per_channel).sum(axis=1).max(initial=0))
    return BinaryOperands(bits, doubled, -per_channel.sum(axis=1), signed_sum, magnitude, 2 * magnitude, False)


def _contract(
    rewriter: PatternRewriter,
    op: Operation,
    operands: BinaryOperands,
    dynamic: SSAValue,
    maps: tuple[Sequence[AffineExpr], Sequence[AffineExpr]],
    out_shape: Sequence[int],
    init: tuple[np.ndarray, Sequence[int]],
    reduction_dims: Sequence[int],
    bias_bound: int,
) -> tuple[SSAValue, int]:
    """(acc, bound on |acc|): the contraction of `dynamic` (x's bits or words, maybe padded)
    with the weight constant, from the init table (broadcast over its dims, which are output
    dims) or, for counts, from 0 and then init - 2 * count; |bias| <= `bias_bound` on the
    accumulator's grid."""
    rank = len(out_shape) + len(reduction_dims)
    table, dims = init
    check_i32(op, int(np.abs(table).max(initial=0)) + operands.partial_bound, "the accumulator")
    weights = integer_constant(rewriter, operands.constant, narrowest_signed(operands.constant))
    start = filled(rewriter, np.array(0), [], out_shape, I32) if operands.counts else filled(rewriter, table, dims, out_shape, I32)
    out_dims = [AffineDimExpr(d) for d in range(rank) if d not in reduction_dims]
    acc = build_generic(
        rewriter,
        [(dynamic, affine_map(rank, maps[0])), (weights, affine_map(rank, maps[1]))],
        (start, affine_map(rank, out_dims)),
        reduction_dims,
        operands.body,
    )
    if operands.counts:
        acc = _init_minus_twice(rewriter, acc, table, dims)
    return acc, operands.bound + bias_bound


def _init_minus_twice(rewriter: PatternRewriter, counts: SSAValue, table: np.ndarray, dims: Sequence[int]) -> SSAValue:
    """init - 2 * counts elementwise, init a table over the output dims `dims` stored at its
    narrowest width (a padded Conv's table has one entry per channel and output position)."""
    shape = tuple(counts.type.get_shape())
    rank = len(shape)
    storage = narrowest_signed(table)

    def build(body: Body) -> SSAValue:
        init = body.values["in1"] if storage == I32 else body.emit(arith.ExtSIOp(body.values["in1"], I32))
        twice = body.emit(arith.ShLIOp(body.values["in0"], body.constant(1, I32)))
        return body.emit(arith.SubiOp(init, twice))

    table_map = affine_map(rank, [AffineDimExpr(d) for d in dims])
    inputs = [(counts, AffineMap.identity(rank)), (integer_constant(rewriter, table, storage), table_map)]
    return build_generic(rewriter, inputs, (empty(rewriter, shape, I32), AffineMap.identity(rank)), [], build)


class BinaryConvToInteger(RewritePattern):
    """onnx.Conv of a bipolar x (groups, strides, dilations, padding) -> packed words or bits,
    padded with 0, and an integer contraction whose init undoes the padding (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvOp, rewriter: PatternRewriter) -> None:
        if (x := bipolar_input(op, op.x)) is None:
            return
        weight = constant_weight(op, op.w, 0)
        kernel = weight.shape[2:]
        window = SlidingWindow.from_op(op, x.shape[2:], ints_or(op.attributes, "kernel_shape", kernel))
        out_shape = tuple(op.y.type.get_shape())
        channels, groups, spatial = weight.shape[0], op.int_attr("group"), len(kernel)
        scales = np.broadcast_to(x.qtype.scale_values()[0] * weight.scales().reshape(-1), (channels,))
        centered = weight.centered()
        folded, float_bias = split_bias(op, op.b, scales, channels, 1.0)
        operands = binary_operands(rewriter, x, weight, centered, 1, groups)
        dynamic = padded(rewriter, operands.dynamic, 0, window)
        # loops: n, m, o_1..o_d | ci (channel or word), k_1..k_d
        rank = 3 + 2 * spatial
        n, m = AffineDimExpr(0), AffineDimExpr(1)
        outs = [AffineDimExpr(2 + i) for i in range(spatial)]
        ci = AffineDimExpr(2 + spatial)
        taps = [AffineDimExpr(3 + spatial + i) for i in range(spatial)]
        group_in = operands.constant.shape[1]
        channel = ci if groups == 1 else (m // (channels // groups)) * group_in + ci
        x_map = [n, channel, *(o * s + t * d for o, t, s, d in zip(outs, taps, window.strides, window.dilations))]
        init = _conv_init(operands.base + folded, centered, window)
        reduction = list(range(2 + spatial, rank))
        bias_bound = int(np.abs(folded).max(initial=0))
        acc = _contract(rewriter, op, operands, dynamic, (x_map, [m, ci, *taps]), out_shape, init, reduction, bias_bound)
        _finish(rewriter, op, acc, scales, 1, float_bias)


def _finish(
    rewriter: PatternRewriter, op: Operation, acc: tuple[SSAValue, int], scales: np.ndarray, axis: int, bias: np.ndarray | None
) -> None:
    """`finish_contraction`, the float bias kept as an `onnx.Add` where a sign follows and the
    bias is exact in the result's float type (module docstring)."""
    result = op.results[0]
    uses = list(result.uses)
    dtype = numpy_dtype_of(result.type)
    if bias is None or len(uses) != 1 or affine_chain(uses[0].operation, result) is None:
        finish_contraction(rewriter, op, acc, scales, axis, bias)
        return
    values = np.asarray(bias, dtype=np.float64).astype(dtype)
    if any(exact(v) != exact(b) for v, b in zip(values, bias)):
        finish_contraction(rewriter, op, acc, scales, axis, bias)
        return
    rank = len(result.type.get_shape())
    shaped = values.reshape(-1, *(1,) * (rank - 1 - axis))
    constant = ConstantOp.create(
        attributes={"value": dense_attr(shaped, result.type.element_type)},
        result_types=[TensorType(result.type.element_type, shaped.shape)],
    )
    add = AddOp.create(operands=[result, constant.results[0]], result_types=[result.type])
    rewriter.insert(constant, InsertPoint.after(op))
    rewriter.insert(add, InsertPoint.after(constant))
    rewriter.replace_uses_with_if(result, add.results[0], lambda use: use.operation is not add)
    finish_contraction(rewriter, op, acc, scales, axis, None)


def _conv_init(per_channel: np.ndarray, centered: np.ndarray, window: SlidingWindow) -> tuple[np.ndarray, list[int]]:
    """(init table, its loop dims): per channel where no tap lies in the padding, else per
    channel and output position, plus sum_ci w[c, ci, t] for each padded tap t."""
    padded = padded_taps(window)
    if not padded.any():
        return per_channel, [1]
    spatial = len(window.kernel)
    tap_sums = centered.sum(axis=1).reshape(centered.shape[0], -1)  # (M, T)
    correction = tap_sums @ padded.reshape(-1, tap_sums.shape[1]).T.astype(np.int64)  # (M, O)
    table = per_channel.reshape(-1, 1) + correction
    return table.reshape(-1, *window.output_shape), [1, *range(2, 2 + spatial)]


class BinaryGemmToInteger(RewritePattern):
    """onnx.Gemm (transA, transB, alpha > 0, beta) of a bipolar A and a constant B."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        if (x := bipolar_input(op, op.a)) is None:
            return
        trans_a, trans_b = op.int_attr("transA"), op.int_attr("transB")
        alpha = op.float_attr("alpha")
        if alpha <= 0:
            raise fail(op, f"alpha = {alpha}: only a positive alpha can join the scale")
        weight = constant_weight(op, op.b, 0 if trans_b else 1)
        centered = weight.centered() if trans_b else weight.centered().T  # channel (j) first
        channels = centered.shape[0]
        scales = np.broadcast_to(alpha * x.qtype.scale_values()[0] * weight.scales().reshape(-1), (channels,))
        folded, float_bias = split_bias(op, op.c, scales, channels, op.float_attr("beta"))
        operands = binary_operands(rewriter, x, weight, centered, 0 if trans_a else 1, 1)
        i, j, k = AffineDimExpr(0), AffineDimExpr(1), AffineDimExpr(2)
        x_map = [k, i] if trans_a else [i, k]
        out_shape = tuple(op.y.type.get_shape())
        init = (operands.base + folded, [1])
        bias_bound = int(np.abs(folded).max(initial=0))
        acc = _contract(rewriter, op, operands, operands.dynamic, (x_map, [j, k]), out_shape, init, [2], bias_bound)
        _finish(rewriter, op, acc, scales, 1, float_bias)


class BinaryMatMulToInteger(RewritePattern):
    """onnx.MatMul of a bipolar A (..., M, K) by a constant 2-D B (K, N)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulOp, rewriter: PatternRewriter) -> None:
        if (x := bipolar_input(op, op.a)) is None:
            return
        if len(x.shape) < 2 or len(op.b.type.get_shape()) != 2:
            raise fail(op, "only (..., M, K) @ (K, N) with a 2-D constant B is supported")
        weight = constant_weight(op, op.b, 1)
        centered = weight.centered().T  # channel (j) first: (N, K)
        scales = np.broadcast_to(x.qtype.scale_values()[0] * weight.scales().reshape(-1), (centered.shape[0],))
        operands = binary_operands(rewriter, x, weight, centered, len(x.shape) - 1, 1)
        out_shape = tuple(op.y.type.get_shape())
        batch = len(out_shape) - 2
        dims = [AffineDimExpr(d) for d in range(batch + 3)]
        i, j, k = dims[batch], dims[batch + 1], dims[batch + 2]
        init = (operands.base, [batch + 1])
        maps = ([*dims[:batch], i, k], [j, k])
        acc = _contract(rewriter, op, operands, operands.dynamic, maps, out_shape, init, [batch + 2], 0)
        finish_contraction(rewriter, op, acc, scales, batch + 1, None)
