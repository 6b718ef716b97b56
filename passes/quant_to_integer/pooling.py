"""Pooling on quantized values becomes integer window reductions.

- `MaxPool` on quantized values (`canonicalize-quant` sinks the dcast below it): the window
  maximum of the storage integers, padding with the storage minimum (every window has a tap
  inside the input, which the sinking checked), compared signed or unsigned by the type;
  bipolar bits (1 for +s): their or, padding with 0 (-s).
- `AveragePool(dcast(q))`, `GlobalAveragePool(dcast(q))` (q per tensor, s, zp): padded with zp
  so padded taps add 0 to the centered sum `t = sum_window (x - zp)` (init -K zp for K taps).
  With count[o] the taps that ONNX divides by at output position o (inside the input, or
  inside input and pads with count_include_pad) and L the least common multiple of all
  counts, `avg[o] = s * t[o] / count[o] = (s / L) * (t[o] * L / count[o])`: an exact integer
  at the per-tensor scale s / L, which the following qcast requantizes with one rounding.
  The float reference rounds the average to float first (<= 1 LSB apart at ties)."""

import math
from functools import reduce

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, StringAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.nn import AveragePoolOp, GlobalAveragePoolOp, MaxPoolOp, SlidingWindow
from bitfold.dialects.quant import BipolarQuantizedType, QuantizedType, element_type
from bitfold.dialects.tensor_limits import check_type
from bitfold.passes.quant_to_integer.dequantized import dequantized, quantized
from bitfold.passes.quant_to_integer.operands import (
    Quantized,
    accumulator_type,
    check_i32,
    fail,
    per_tensor,
    quantized_operand,
    storage_value,
    widened,
)
from bitfold.passes.utils.linalg_building import I32, affine_map, build_generic, empty, filled, integer_constant
from bitfold.passes.utils.padding import padded


def window_reduction(rewriter: PatternRewriter, source: SSAValue, init: SSAValue, window: SlidingWindow, build) -> SSAValue:
    """A reduction over the window of each output position, loops (n, c, o_1..o_d | k_1..k_d):
    `source` read at (n, c, o * stride + k * dilation), `init` at (n, c, o). As in MLIR's
    linalg pooling ops, an operand of the window's shape (a `tensor.empty`, never read) gives
    the k loops their bounds."""
    spatial = len(window.kernel)
    rank = 2 + 2 * spatial
    dims = [AffineDimExpr(d) for d in range(rank)]
    outs, taps = dims[2 : 2 + spatial], dims[2 + spatial :]
    reads = [o * s + t * d for o, t, s, d in zip(outs, taps, window.strides, window.dilations)]
    shape_operand = empty(rewriter, window.kernel, IntegerType(8))
    return build_generic(
        rewriter,
        [(source, affine_map(rank, [*dims[:2], *reads])), (shape_operand, affine_map(rank, taps))],
        (init, affine_map(rank, dims[: 2 + spatial])),
        list(range(2 + spatial, rank)),
        build,
    )


class MaxPoolToInteger(RewritePattern):
    """MaxPool on quantized values -> window maximum of the storage integers."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MaxPoolOp, rewriter: PatternRewriter) -> None:
        qtype = element_type(op.x.type)
        if not isinstance(qtype, QuantizedType):
            return
        if len(op.results) > 1:
            raise fail(op, "the Indices result has no integer form")
        shape = tuple(op.x.type.get_shape())
        window = SlidingWindow.from_op(op, shape[2:], op.ints_attr("kernel_shape"), bool(op.int_attr("ceil_mode")))
        source = Quantized(op.x, qtype, None)
        if isinstance(qtype, BipolarQuantizedType):
            low, maximum = 0, arith.OrIOp  # bit 0 (-s) is the least value; the max of bits is their or
        else:
            low, maximum = qtype.value_range()[0], arith.MaxSIOp if qtype.is_signed else arith.MaxUIOp
        storage = padded(rewriter, storage_value(rewriter, source), low, window)
        element = qtype.storage_integer_type()
        out_shape = tuple(op.results[0].type.get_shape())
        pooled = window_reduction(
            rewriter,
            storage,
            filled(rewriter, np.array(low), [], out_shape, element),
            window,
            lambda body: body.emit(maximum(body.values["output"], body.values["in0"])),
        )
        rewriter.replace(op, [], [quantized(rewriter, pooled, qtype)])


def _average(rewriter: PatternRewriter, op, x_value: SSAValue, window: SlidingWindow, counts: np.ndarray) -> None:
    """The average pooling of the module docstring; replaces `op`."""
    source = quantized_operand(op, x_value)
    qtype = per_tensor(op, source, "the input")
    zero_point = qtype.zero_point
    widest = qtype.largest_offset()
    counts = np.broadcast_to(counts, window.output_shape)
    common = int(reduce(math.lcm, np.unique(counts).tolist(), 1))
    factors = common // counts
    bound = window.taps * widest * int(factors.max())
    check_i32(op, bound, "the window sum")
    storage = padded(rewriter, storage_value(rewriter, source), zero_point, window)
    out_shape = tuple(op.results[0].type.get_shape())
    total = window_reduction(
        rewriter,
        storage,
        filled(rewriter, np.array(-window.taps * zero_point), [], out_shape, I32),
        window,
        lambda body: body.emit(arith.AddiOp(body.values["output"], widened(body, body.values["in0"], qtype))),
    )
    if np.any(factors != 1):
        rank = len(out_shape)
        spatial = [AffineDimExpr(d) for d in range(2, rank)]
        identity = AffineMap.identity(rank)
        table = integer_constant(rewriter, factors, I32)
        total = build_generic(
            rewriter,
            [(total, identity), (table, affine_map(rank, spatial))],
            (empty(rewriter, out_shape, I32), identity),
            [],
            lambda body: body.emit(arith.MuliOp(body.values["in0"], body.values["in1"])),
        )
    acc_type = accumulator_type(np.array([qtype.scale / common]), None, qtype.expressed_type, bound)
    rewriter.replace(op, [], [dequantized(rewriter, total, acc_type, op.results[0].type)])


class AveragePoolToInteger(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AveragePoolOp, rewriter: PatternRewriter) -> None:
        spatial = tuple(op.x.type.get_shape()[2:])
        kernel = op.ints_attr("kernel_shape")
        window = SlidingWindow.from_op(op, spatial, kernel, bool(op.int_attr("ceil_mode")))
        if op.int_attr("count_include_pad"):
            lower = [-b for b in window.pads_begin]
            upper = [size + e for size, e in zip(spatial, window.pads_end)]
        else:
            lower, upper = [0] * len(spatial), list(spatial)
        check_type(op.results[0].type, f"the window counts of '{op.name}'")  # the counts span the output
        _average(rewriter, op, op.x, window, window.taps_inside(lower, upper))


class GlobalAveragePoolToInteger(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GlobalAveragePoolOp, rewriter: PatternRewriter) -> None:
        spatial = tuple(op.x.type.get_shape()[2:])
        window = SlidingWindow.from_attributes({"auto_pad": StringAttr("VALID")}, spatial, spatial)
        _average(rewriter, op, op.x, window, np.array(math.prod(spatial)))
