"""Contractions with blocked (sub-channel) weights: one scale per output channel c and block b
of the reduction axes (ONNX 21 blocked DequantizeLinear, `!quant.uniform<i4:f32:{0:32, 1:1}, ...>`;
a Conv weight's scales (M, C/B, kh, kw) are blocked along the input channels and the taps).

Each blocked reduction loop k (bound K) splits into a parallel block loop b (K / B of them)
and a reduction r (bound B), k = b B + r. Per block (b the tuple of block indices), an i32
partial sum on the grid s_x S[c, b]:

    acc[o, b] = init[c, b] + sum_{r, other reduction loops} ext(x[.]) * w'[.]
    init[c, b] = -zp_x * sum_{block b} w'[c, .]                  (zp_x folded per block)

then the blocks are summed on a common grid s_x G[c] (a reduction over the block loops), and
the result is dequantized at s_x G[c] like any contraction's accumulator (bias on that grid):

- exact, where every S[c, b] is an integer multiple m[c, b] of G[c] = gcd_b S[c, b] (the
  scales' exact values) and sum_b m |acc_b| fits i32: total = sum_b m[c, b] acc[o, b];
- otherwise G[c] = min_b S[c, b] / 2^k (k <= 30 the largest that keeps twice the sum in
  i32, room for the bias), each partial sum requantized to G (`quant.requant` per channel
  and block: R_even(acc S / G)), then summed. Each block is off by at most half a grid
  step, so

      |s_x G[c] total - exact| <= n_b s_x G[c] / 2        (n_b blocks)

  (lower-quant's fixed-point requantization rounds within one LSB of R_even,
  tests/passes/lower_quant).

Every map stays linear. A blocked axis must be read by one loop of its own (true of every
weight axis of Conv, Gemm and MatMul); any output channel pattern of scales is fine."""

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import gcd, lcm

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.quant import RequantizeOp, UniformQuantizedType
from bitfold.passes.quant_to_integer.dequantized import quantized
from bitfold.passes.quant_to_integer.operands import (
    INT32_MAX,
    Quantized,
    check_i32,
    exact,
    fail,
    narrowest_signed,
    storage_value,
    widened,
)
from bitfold.passes.utils.linalg_building import I32, affine_map, build_generic, filled, integer_constant

MAX_GRID_SHIFT = 30


def block_size(table: np.ndarray, axis: int) -> int:
    """The largest block size B dividing the axis with `table` constant over each block."""
    size = table.shape[axis]
    for candidate in sorted((d for d in range(1, size + 1) if size % d == 0), reverse=True):
        blocks = table.reshape(*table.shape[:axis], size // candidate, candidate, *table.shape[axis + 1 :])
        if np.all(blocks == np.take(blocks, [0], axis=axis + 1)):
            return candidate
    return 1


def blocked_weight_axes(op: Operation, scales: np.ndarray, w_map: Sequence[AffineExpr]) -> list[tuple[int, int]]:
    """[(t, B)]: the weight axes t (past the channel) whose scales change in blocks of B < its
    size; each must be read by a reduction loop of its own."""
    blocked = [(t, size) for t in range(1, scales.ndim) if (size := block_size(scales, t)) < scales.shape[t]]
    if not all(isinstance(w_map[t], AffineDimExpr) for t, _ in blocked):
        raise fail(op, "weights blocked along an axis no single loop reads are not supported")
    return blocked


def _grid(op: Operation, block_scales: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(G per channel, integer multipliers m[c, b]) where the scales are exact multiples of G
    and the sum fits i32; else (min S / 2^k, None): the requantizing form."""
    fractions = [[exact(s) for s in row] for row in block_scales]
    grids = [Fraction(gcd(*(f.numerator for f in row)), lcm(*(f.denominator for f in row))) for row in fractions]
    multipliers = np.array([[int(f / g) for f in row] for row, g in zip(fractions, grids)], dtype=object)
    if max(int(v) for v in (multipliers * bounds).sum(axis=1)) <= INT32_MAX:
        return np.array([float(g) for g in grids]), multipliers.astype(np.int64)
    smallest = block_scales.min(axis=1)
    ratios = (block_scales / smallest[:, None] * bounds).sum(axis=1).max() + bounds.shape[1]
    shift = min(MAX_GRID_SHIFT, int(np.floor(np.log2(INT32_MAX / 2 / ratios))))
    if shift < 0:
        raise fail(op, "the blocks' scales differ too much for an i32 sum on a common grid")
    return smallest / 2.0**shift, None


def blocked_accumulator(
    rewriter: PatternRewriter,
    op: Operation,
    x: Quantized,
    x_storage: SSAValue,
    x_map: Sequence[AffineExpr],
    centered: np.ndarray,
    scales: np.ndarray,
    w_map: Sequence[AffineExpr],
    out_shape: Sequence[int],
    channel_dim: int,
    rank: int,
    reduction_dims: Sequence[int],
    fold_bias: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None]],
) -> tuple[tuple[SSAValue, int], np.ndarray, np.ndarray | None]:
    """((total, bound on |total|), the scales s_x G[c] of total per channel, the float bias
    left for `_finish`) of the contraction of x (per tensor) with `centered` (channel first,
    its axes read through `w_map`) whose per-element weight `scales` (same layout) are
    blocked (module docstring). `fold_bias(S)` splits the bias for accumulator scales S."""
    blocked = dict(blocked_weight_axes(op, scales, w_map))
    # loops: the parallel ones, one per blocked axis (its block b_i), then the reductions
    # (a blocked one, k_i = b_i B_i + r_i, now r_i of bound B_i)
    parallel = rank - len(reduction_dims)
    new_dim = [AffineDimExpr(d if d < parallel else d + len(blocked)) for d in range(rank)]
    block_dims = {t: AffineDimExpr(parallel + i) for i, t in enumerate(blocked)}
    for t, block in blocked.items():
        new_dim[w_map[t].position] = block_dims[t] * block + new_dim[w_map[t].position]
    x_map = [e.replace_dims_and_symbols(new_dim, []) for e in x_map]
    split_shape, split_map, kept = [], [], []
    for t, (size, expr) in enumerate(zip(centered.shape, w_map, strict=True)):
        if t in blocked:
            kept.append(len(split_shape))
            split_shape += [size // blocked[t], blocked[t]]
            split_map += [block_dims[t], new_dim[expr.position].rhs]
        else:
            split_shape.append(size)
            split_map.append(expr.replace_dims_and_symbols(new_dim, []))
    centered = centered.reshape(split_shape)
    others = tuple(a for a in range(1, centered.ndim) if a not in kept)
    init = -x.qtype.zero_point * centered.sum(axis=others)
    x_low, x_high = x.qtype.value_range()
    bounds = np.abs(init) + max(abs(x_low), abs(x_high)) * np.abs(centered).sum(axis=others)
    check_i32(op, int(bounds.max()), "a block's partial sum")
    block_scales = scales.reshape(split_shape)[
        tuple(slice(None) if a in (0, *kept) else 0 for a in range(len(split_shape)))
    ]
    counts = block_scales.shape[1:]
    block_scales, bounds = block_scales.reshape(len(init), -1), bounds.reshape(len(init), -1)

    block_shape = (*out_shape, *counts)
    block_out = list(range(len(out_shape), len(block_shape)))
    loops = rank + len(blocked)
    partial = build_generic(
        rewriter,
        [(x_storage, affine_map(loops, x_map)), (_weights(rewriter, centered), affine_map(loops, split_map))],
        (filled(rewriter, init, [channel_dim, *block_out], block_shape, I32), affine_map(loops, [AffineDimExpr(d) for d in range(len(block_shape))])),
        [d + len(blocked) for d in reduction_dims],
        lambda body: body.emit(arith.AddiOp(body.values["output"], body.emit(arith.MuliOp(
            widened(body, body.values["in0"], x.qtype), _extended(body, body.values["in1"]))))),
    )  # fmt: skip

    grid, multipliers = _grid(op, block_scales, bounds)
    expressed = x.qtype.expressed_type
    if multipliers is None:
        partial = _requantized(
            rewriter,
            partial,
            block_shape,
            x.qtype.scale * block_scales,
            x.qtype.scale * grid,
            channel_dim,
            expressed,
            bounds,
            counts,
        )
        multipliers = np.ones_like(block_scales, dtype=np.int64)
        terms = np.ceil(bounds * block_scales / grid[:, None]).astype(np.int64) + 1
    else:
        terms = multipliers * bounds
    scales_out = x.qtype.scale * grid
    folded, float_bias = fold_bias(scales_out)
    bound = int((np.abs(folded) + terms.sum(axis=1)).max())
    check_i32(op, bound, "the blocks' sum")
    total = _sum_blocks(rewriter, partial, multipliers, folded, out_shape, channel_dim, counts)
    return (total, bound), scales_out, float_bias


def _weights(rewriter: PatternRewriter, centered: np.ndarray) -> SSAValue:
    return integer_constant(rewriter, centered, narrowest_signed(centered))


def _extended(body, value: SSAValue) -> SSAValue:
    return value if value.type == I32 else body.emit(arith.ExtSIOp(value, I32))


def _requantized(rewriter, partial, shape, scales, grid, channel_dim, expressed, bounds, counts) -> SSAValue:
    """Each partial sum on the grid G[c] (a requant from per channel-and-block scales; the
    blocks are the last len(counts) dims of `shape`). Both types have the same per-block
    layout (lower-quant's requant wants one)."""
    rank = len(shape)
    table_shape = [1] * rank
    table_shape[channel_dim] = len(grid)
    table_shape[rank - len(counts) :] = counts
    blocks = {channel_dim: 1, **{d: 1 for d in range(rank - len(counts), rank)}}

    def accumulator(table: np.ndarray, bound: int) -> UniformQuantizedType:
        table = table.reshape(table_shape)
        zeros = np.zeros(table.shape, np.int64)
        return UniformQuantizedType.get(
            32, True, expressed, table, zeros, block_sizes=blocks, storage_range=(-bound, bound)
        )

    source = accumulator(scales, int(bounds.max()))
    reach = int(np.ceil((bounds * scales / grid[:, None]).max())) + 1
    target = accumulator(np.broadcast_to(grid[:, None], scales.shape), reach)
    requant = RequantizeOp(quantized(rewriter, partial, source), TensorType(target, shape))
    rewriter.insert(requant)
    return storage_value(rewriter, Quantized(requant.result, target, None))


def _sum_blocks(rewriter, partial, multipliers, init, out_shape, channel_dim, counts) -> SSAValue:
    """total[o] = init[c] + sum_b m[c, b] partial[o, b] over the blocks b (the last
    len(counts) dims of `partial`; no multiply where every m is 1)."""
    rank = len(out_shape) + len(counts)
    dims = [AffineDimExpr(d) for d in range(rank)]
    multipliers = multipliers.reshape(len(init), *counts)
    inputs = [(partial, affine_map(rank, dims))]
    ones = bool(np.all(multipliers == 1))
    if not ones:
        inputs.append(
            (
                integer_constant(rewriter, multipliers, narrowest_signed(multipliers)),
                affine_map(rank, [dims[channel_dim], *dims[len(out_shape) :]]),
            )
        )

    def build(body) -> SSAValue:
        term = body.values["in0"]
        if not ones:
            term = body.emit(arith.MuliOp(term, _extended(body, body.values["in1"])))
        return body.emit(arith.AddiOp(body.values["output"], term))

    return build_generic(
        rewriter,
        inputs,
        (filled(rewriter, init, [channel_dim], out_shape, I32), affine_map(rank, dims[: len(out_shape)])),
        list(range(len(out_shape), rank)),
        build,
    )
