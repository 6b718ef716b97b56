"""`bitfold-riscv-narrow-lanes`: SIMD within a register for narrow operands. An i32 contraction by
constant weights whose exact per-channel sums fit in F-bit fields accumulates K <= xlen // F output
channels in one xlen-bit register, so one `mul` and one `add` make K multiply-accumulates (on RV32
two 16-bit lanes for 4-bit activations and weights; on RV64 four).

It rewrites, on tensors (before bufferization), the `linalg.generic` that `bitfold-riscv-pair-lanes`
takes (`lane_pairs.py`: weights w constant, the activation x extended from at most 16 bits, c a
parallel dimension of the weight and the output that x does not use, here of bound a multiple of K)

    out[..., c, ...] = init[..., c, ...] + sum_r ext(x[...]) * ext(w[..., c, ...])       (i32)

into (N = xlen, lanes j = 0 .. K - 1 of F bits, the top one xlen - F (K - 1) >= F bits wide)

    W[..., p, ...] = sum_j w[..., K p + j, ...] 2^(F j)  mod 2^N            (iN, compile time)
    S[..., p, ...] = O + sum_r ext(x[...]) * W[..., p, ...]  mod 2^N          (iN generic, C / K)
    out[..., K p + j, ...] = init + ((S >>s F j) & (2^F - 1)) - 2^(F - 1)     (j < K - 1)
    out[..., K p + K - 1, ...] = init + (S >>s F (K - 1))                      (the top lane)

with the offset O = sum_{j < K - 1} 2^(F - 1) 2^(F j), one elementwise generic a lane. A sub-byte
x (i4, i2: one element a byte in memory, re-extended from its width at every load) is first
extended into an i8 tensor once, so the packed nest's loads are plain `lb`/`lbu`.

Exactness. Let L_j = sum_r x_r w_{K p + j, r} be the exact lane sums and suppose -2^(F - 1) <= L_j
< 2^(F - 1) for every j. Multiplication and addition modulo 2^N are ring operations, so
S = O + sum_j L_j 2^(F j) = sum_{j < K - 1} d_j 2^(F j) + L_{K - 1} 2^(F (K - 1)) (mod 2^N) with the
digits d_j = L_j + 2^(F - 1) in [0, 2^F). The lower part lies in [0, 2^(F (K - 1))) and the top
term is a multiple of 2^(F (K - 1)) with |L_{K - 1}| <= 2^(F - 1) <= 2^(N - F (K - 1) - 1), so the
right-hand side is in [-2^(N - 1), 2^(N - 1)): it is S itself, read as a signed iN, whatever the
partial sums did on the way (they wrap harmlessly). An arithmetic shift is floor division, so
S >>s F (K - 1) = L_{K - 1}, and (S >>s F j) & (2^F - 1) = d_j for j < K - 1: the formulas above
give init + L_j modulo 2^32, which is what the i32 generic computes: the two agree bit for bit.

The lane bound. x lies in [x_lo, x_hi] (its extension's source type: [-2^(b-1), 2^(b-1) - 1] or
[0, 2^b - 1]; 0 in both), so L_j lies in [sum_r min(x_lo w_r, x_hi w_r), sum_r max(x_lo w_r,
x_hi w_r)] over the weights of channel K p + j; the pass takes the narrowest F that holds this
interval for every channel and packs the most lanes K <= N // F (at least MIN_LANES: 2 on RV32,
4 on RV64, where `bitfold-riscv-pair-lanes` makes two) whose K divides the channel count. Where no K
does, nothing changes. The init (an int32 bias) stays outside the lanes: it is added as the lanes
are split, once per output.

Chunks. Where the whole reduction's interval needs more bits than any K >= MIN_LANES leaves (and x
has at most CHUNKED_ACTIVATION_BITS bits), a reduction dimension r that x's and w's maps index by a
plain `d_r` is cut into G chunks of length T (`chunk_length`: the longest proper divisor of r's
bound whose every chunk's per-channel interval fits F = xlen / MIN_LANES bits and holds at least
MIN_CHUNK_TERMS products a lane): the packed generic gets a parallel dimension g (before the
reductions), reads x at d_r + T g and the weights reshaped to (G, T) along r, and writes one packed
sum a chunk, S[..., p, g, ...]; each lane's generic reduces over g, adding every chunk's lane. The
output is init + the sum over chunks of the exact lane sums, the same i32 sum regrouped (exact
modulo 2^32, as the i32 generic computes).

Cost: per K MACs one `mul` and one `add` (loads amortized by the register tile); per output a
shift, a mask, an add of the constant and of the init. The packed weights take N / K bits each
(two bytes for K = 2 on RV32 and K = 4 on RV64: twice an int8 weight, four times a packed int4
one in `.rodata`).
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, IntegerType, ModuleOp, TensorType, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.backends.riscv.lowering.registers import canonical_constant
from bitfold.backends.riscv.schedule.lane_pairs import (
    constant_weights,
    contraction_terms,
    lane_dimension,
    packed_contraction,
    plain_reduction_dimensions,
    rewrite_contractions,
    shrunk,
)
from bitfold.dialects.onnx.constant import dense_attr

BYTE_BITS = 8
MIN_LANES = {32: 2, 64: 4}
"""fewest lanes packed per XLEN: RV64's two 32-bit lanes are `bitfold-riscv-pair-lanes`; three of
21 bits would take int8 contractions of up to 64 terms, where splitting a third lane per output
costs about what it saves"""


MIN_CHUNK_TERMS = 32
"""Products a lane sums in a chunk at least: per K outputs a chunk saves (K - 1) x 2 instructions a
product and costs about 6 K + 4 (the lane splits, the offset fill, the tile's loads and stores)."""


CHUNKED_ACTIVATION_BITS = 4
"""Chunks only for activations of at most 4 bits. With int8 ones (conv3x3_s4w of
bench/riscv_kernels.py: int8 x int4, four chunks) they measured 2.67 -> 1.61 per MAC on rv32im
and 1.44 -> 1.01 on rv64im, but `.text` 1,816 -> 2,952 and 2,092 -> 5,092 bytes: each lane's
split is a nest of its own, and existing kernels keep their code size."""


def extension_range(kind: type, source: IntegerType) -> tuple[int, int]:
    """[lo, hi] of a value of `source` type extended by `kind` (arith.ExtSIOp or arith.ExtUIOp)."""
    bits = source.width.data
    return (0, (1 << bits) - 1) if kind is arith.ExtUIOp else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def lane_sum_bounds(weights: np.ndarray, axis: int, x_lo: int, x_hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Per channel (along `axis`) the least and the greatest sum_r x_r w_r over x_r in [x_lo, x_hi]."""
    per_channel = np.moveaxis(weights.astype(np.int64), axis, 0).reshape(weights.shape[axis], -1)
    low, high = per_channel * x_lo, per_channel * x_hi
    return np.minimum(low, high).sum(axis=1), np.maximum(low, high).sum(axis=1)


def field_bits(lo: int, hi: int) -> int:
    """The fewest bits F of a signed field holding [lo, hi]: -2^(F-1) <= lo, hi < 2^(F-1)."""
    return max(int(lo).bit_length() if lo >= 0 else int(-lo - 1).bit_length(),
               int(hi).bit_length() if hi >= 0 else int(-hi - 1).bit_length()) + 1


def lane_count(bits: int, channels: int, xlen: int) -> int | None:
    """K of the module docstring: the most lanes of at least `bits` bits in `xlen` that divide
    `channels`, at least MIN_LANES[xlen]; None where none does."""
    for lanes in range(xlen // bits, MIN_LANES[xlen] - 1, -1):
        if channels % lanes == 0:
            return lanes
    return None


SIGNED_WORD = {32: np.int32, 64: np.int64}


def pack_lanes(weights: np.ndarray, axis: int, lanes: int, field: int, xlen: int) -> np.ndarray:
    """sum_j w[..., K p + j, ...] 2^(F j) along `axis`, modulo 2^xlen read as signed xlen-bit
    integers (as int64): computed in uint64, whose shifts and sums are exact modulo 2^64."""
    moved = np.moveaxis(weights.astype(np.int64).astype(np.uint64), axis, 0)
    packed = sum((moved[j::lanes] << np.uint64(field * j) for j in range(lanes)), np.zeros_like(moved[0::lanes]))
    words = packed.astype(f"uint{xlen}").view(SIGNED_WORD[xlen]).astype(np.int64)
    return np.moveaxis(words, 0, axis)


@dataclass(frozen=True)
class Chunks:
    """The reduction dimension d (bound count x length) cut into `count` chunks of `length`: x's
    map reads d + length g at its result `x_result`, the weights' axis `weight_axis` splits into
    (g, d)."""

    dimension: int
    x_result: int
    weight_axis: int
    length: int
    count: int


def chunk_length(weights: np.ndarray, lane_axis: int, chunk_axis: int, x_range: tuple[int, int], field: int) -> int | None:
    """The longest proper divisor T of the weights' `chunk_axis` such that the lane sums of every
    channel over every range [g T, (g + 1) T) (`lane_sum_bounds` of that slice) fit `field` bits
    and hold at least MIN_CHUNK_TERMS products; None where none does."""
    per_index = np.moveaxis(weights.astype(np.int64), (lane_axis, chunk_axis), (0, 1))
    per_index = per_index.reshape(*per_index.shape[:2], -1)
    low, high = per_index * x_range[0], per_index * x_range[1]
    term_lows, term_highs = np.minimum(low, high).sum(axis=2), np.maximum(low, high).sum(axis=2)
    bound, limit = per_index.shape[1], 1 << (field - 1)
    for length in range(bound // 2, 0, -1):
        if bound % length or length * per_index.shape[2] < MIN_CHUNK_TERMS:
            continue
        lows = term_lows.reshape(term_lows.shape[0], -1, length).sum(axis=2)
        highs = term_highs.reshape(term_highs.shape[0], -1, length).sum(axis=2)
        if lows.min() >= -limit and highs.max() < limit:
            return length
    return None


class NarrowLanes(RewritePattern):
    """The rewrite of the module docstring for RV`xlen`."""

    def __init__(self, xlen: int):
        self.xlen = xlen
        self.word = IntegerType(xlen)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        terms = contraction_terms(op)
        if terms is None or not op.res:
            return
        activation, activation_kind, weight_kind = terms
        weight = 1 - activation
        weights = constant_weights(op, weight, weight_kind)
        x_type = op.body.block.args[activation].type
        lane = lane_dimension(op, activation, weight, lanes=1)
        if lane is None:
            return
        weight_axis, out_axis = lane
        plan = self._plan(op, activation, weights, weight_axis, extension_range(activation_kind, x_type))
        if plan is None:
            return
        lanes, chunks = plan
        x_value, widen = op.inputs[activation], []
        if x_type.width.data < BYTE_BITS:
            widen = self._widened(x_value, activation_kind)
            x_value = widen[-1].res[0]
        rewriter.insert(widen)
        packed = self._packed_sums(op, activation, x_value, activation_kind, weights, lane, lanes, chunks, rewriter)
        result = op.outputs[0]
        for j in range(lanes):
            split = self._lane(packed, result, out_axis, lanes, j, chunks is not None)
            rewriter.insert(split)
            result = split.res[0]
        rewriter.replace(op, [], [result])

    def _plan(
        self, op: linalg.GenericOp, activation: int, weights: np.ndarray, weight_axis: int, x_range: tuple[int, int]
    ) -> tuple[int, Chunks | None] | None:
        """(K, the chunks or None for the whole reduction) of the module docstring: the whole
        reduction where its lane sums allow K >= MIN_LANES lanes, else chunks of sums of
        xlen / MIN_LANES bits; None where neither fits."""
        channels = weights.shape[weight_axis]
        lows, highs = lane_sum_bounds(weights, weight_axis, *x_range)
        lanes = lane_count(max(field_bits(int(lo), int(hi)) for lo, hi in zip(lows, highs)), channels, self.xlen)
        if lanes is not None:
            return lanes, None
        lanes = lane_count(self.xlen // MIN_LANES[self.xlen], channels, self.xlen)
        chunking = next(plain_reduction_dimensions(op, activation), None)
        narrow = x_range[1] - x_range[0] < 1 << CHUNKED_ACTIVATION_BITS
        if lanes is None or chunking is None or not narrow:
            return None
        dimension, x_result, chunk_axis = chunking
        length = chunk_length(weights, weight_axis, chunk_axis, x_range, self.xlen // lanes)
        if length is None:
            return None
        return lanes, Chunks(dimension, x_result, chunk_axis, length, weights.shape[chunk_axis] // length)

    def _packed_sums(
        self, op: linalg.GenericOp, activation: int, x: SSAValue, kind: type,
        weights: np.ndarray, lane: tuple[int, int], lanes: int, chunks: Chunks | None, rewriter: PatternRewriter,
    ) -> SSAValue:
        """S of the module docstring, O + sum_r ext(x) W; with chunks, one sum a chunk g, at
        S[..., p, g, ...] (g after the lane axis), over a new parallel dimension."""
        weight_axis, out_axis = lane
        field = self.xlen // lanes
        maps = [m.data for m in op.indexing_maps]
        iterators = list(op.iterator_types)
        shape = list(shrunk(tuple(op.outputs[0].type.get_shape()), out_axis, lanes))
        if chunks is not None:
            # g: a parallel dimension before the first reduction one (the tile planner's order)
            dims = maps[0].num_dims
            at = next((k for k, t in enumerate(iterators) if t.data != linalg.IteratorType.PARALLEL), dims)
            renumbered = [AffineDimExpr(k + int(k >= at)) for k in range(dims)]
            maps = [m.replace_dims_and_symbols(renumbered, [], dims + 1, 0) for m in maps]
            g = AffineDimExpr(at)
            x_results = list(maps[activation].results)
            x_results[chunks.x_result] = x_results[chunks.x_result] + g * chunks.length
            w_results = list(maps[1 - activation].results)
            w_results[chunks.weight_axis:chunks.weight_axis] = [g]
            out_results = list(maps[2].results)
            out_results[out_axis + 1:out_axis + 1] = [g]
            weight_shape = list(weights.shape)
            weight_shape[chunks.weight_axis:chunks.weight_axis + 1] = [chunks.count, chunks.length]
            weights = weights.reshape(weight_shape)
            weight_axis += int(weight_axis > chunks.weight_axis)
            maps = [AffineMap(dims + 1, 0, tuple(r)) for r in
                    ([x_results, w_results] if activation == 0 else [w_results, x_results]) + [out_results]]
            iterators.insert(at, linalg.IteratorTypeAttr.parallel())
            shape.insert(out_axis + 1, chunks.count)
        packed_type = TensorType(self.word, shape)
        packed_weights = arith.ConstantOp(dense_attr(pack_lanes(weights, weight_axis, lanes, field, self.xlen),
                                                     self.word))
        offset = sum(1 << (field * j + field - 1) for j in range(lanes - 1))
        init = self._fill(packed_type, offset)
        inputs = (x, packed_weights.result)
        packed = packed_contraction(inputs if activation == 0 else inputs[::-1], activation, kind, init[-1].res[0],
                                    [AffineMapAttr(m) for m in maps], iterators)
        rewriter.insert([packed_weights, *init, packed])
        return packed.res[0]

    @staticmethod
    def _widened(x: SSAValue, kind: type) -> list[Operation]:
        """x (sub-byte elements) extended by `kind` into an i8 tensor of its shape: read one byte an
        element, as the code generator stores them, where a sub-byte load re-extends its value."""
        x_type = x.type
        wide_type = TensorType(IntegerType(BYTE_BITS), x_type.get_shape())
        empty = tensor.EmptyOp([], wide_type)
        block = Block(arg_types=[x_type.element_type, wide_type.element_type])
        extended = kind(block.args[0], wide_type.element_type)
        block.add_ops([extended, linalg.YieldOp(extended.result)])
        rank = len(wide_type.get_shape())
        identity = AffineMapAttr(AffineMap.identity(rank))
        return [empty, linalg.GenericOp([x], [empty.tensor], Region(block), [identity, identity],
                                        [linalg.IteratorTypeAttr.parallel()] * rank, [wide_type])]

    def _fill(self, packed_type: TensorType, offset: int) -> list[Operation]:
        """An empty tensor of `packed_type` filled with the offset O (as a signed xlen-bit value)."""
        empty = tensor.EmptyOp([], packed_type)
        block = Block(arg_types=[self.word])
        constant = arith.ConstantOp(IntegerAttr(canonical_constant(offset, self.xlen), self.word))
        block.add_ops([constant, linalg.YieldOp(constant.result)])
        rank = len(packed_type.get_shape())
        fill = linalg.GenericOp([], [empty.tensor], Region(block), [AffineMapAttr(AffineMap.identity(rank))],
                                [linalg.IteratorTypeAttr.parallel()] * rank, [packed_type])
        return [empty, fill]

    def _lane(self, packed: SSAValue, into: SSAValue, axis: int, lanes: int, j: int, chunked: bool) -> linalg.GenericOp:
        """The generic adding lane j of every packed sum to into[..., K p + j, ...] (`chunked`: of
        every chunk's sum, the chunk axis after `axis` a reduction dimension, the last)."""
        field = self.xlen // lanes
        rank = len(packed.type.get_shape())
        outer = rank - int(chunked)  # the output's dimensions, then (chunked) g, the last: a reduction
        results = [AffineDimExpr(k) * lanes + j if k == axis else AffineDimExpr(k) for k in range(outer)]
        packed_results = [AffineDimExpr(k) for k in range(outer)]
        if chunked:
            packed_results.insert(axis + 1, AffineDimExpr(outer))
        block = Block(arg_types=[self.word, i32])
        ops: list[Operation] = []
        value = block.args[0]
        if j:
            shift = arith.ConstantOp(IntegerAttr(field * j, self.word))
            shifted = arith.ShRSIOp(value, shift.result)
            ops += [shift, shifted]
            value = shifted.result
        if self.xlen != 32:
            narrow = arith.TruncIOp(value, i32)
            ops.append(narrow)
            value = narrow.result
        if j < lanes - 1:
            mask = arith.ConstantOp(IntegerAttr((1 << field) - 1, i32))
            digit = arith.AndIOp(value, mask.result)
            centre = arith.ConstantOp(IntegerAttr(-(1 << (field - 1)), i32))
            lane = arith.AddiOp(digit.result, centre.result)
            ops += [mask, digit, centre, lane]
            value = lane.result
        total = arith.AddiOp(block.args[1], value)
        block.add_ops([*ops, total, linalg.YieldOp(total.result)])
        iterators = [linalg.IteratorTypeAttr.parallel()] * outer + [linalg.IteratorTypeAttr.reduction()] * int(chunked)
        return linalg.GenericOp(
            [packed], [into], Region(block),
            [AffineMapAttr(AffineMap(rank, 0, tuple(packed_results))), AffineMapAttr(AffineMap(rank, 0, tuple(results)))],
            iterators, [into.type],
        )


@dataclass(frozen=True)
class BitfoldRiscvNarrowLanesPass(ModulePass):
    """i32 contractions by constant weights whose lane sums fit in fields of xlen // K bits, K at
    least MIN_LANES[xlen], accumulate K channels per register (module docstring); on tensors,
    before `bitfold-riscv-pair-lanes`."""

    name = "bitfold-riscv-narrow-lanes"

    xlen: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_contractions(op, NarrowLanes(self.xlen))
