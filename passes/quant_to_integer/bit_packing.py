"""Bipolar values packed into i32 words along a reduction axis, for XNOR-popcount.

A bipolar value is stored as a bit b (b = 1 for +1, b = 0 for -1). Along `axis`, channels are
split into `groups`; each group's Cg channels fill W = ceil(Cg / 32) words, word u of group g
holding channels g Cg + 32 u + j for j = 0..31 at bit 31 - j:

    word[g W + u] = sum_j b[g Cg + 32 u + j] << (31 - j)        (bits past Cg are 0)

Constant weights are packed here at compile time (`packed_constant`); activations by a
`linalg.generic` that reduces over j with `acc | ext(b) << (31 - j)` (`packed_activations`). With both pads 0, `popcount(x ^ w)` counts exactly the
channels where the signs differ."""

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType, i32, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.shape import PadOp, ReshapeOp
from bitfold.passes.utils.linalg_building import I32, affine_map, build_generic, filled, integer_constant

WORD_BITS = 32


def words_for(channels: int) -> int:
    """W = ceil(channels / 32)."""
    return -(-channels // WORD_BITS)


def packed_constant(signs: np.ndarray, axis: int) -> np.ndarray:
    """The words (int64 holding the i32 two's complement values) of a constant of +-1 along
    `axis` (one group: a weight's per-group channels)."""
    bits = np.moveaxis(signs > 0, axis, -1).astype(np.int64)
    words = words_for(bits.shape[-1])
    bits = np.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, words * WORD_BITS - bits.shape[-1])])
    weights = np.left_shift(1, np.arange(WORD_BITS - 1, -1, -1, dtype=np.int64))
    packed = (bits.reshape(*bits.shape[:-1], words, WORD_BITS) * weights).sum(axis=-1)
    packed = np.where(packed >= 1 << 31, packed - (1 << 32), packed)
    return np.moveaxis(packed, -1, axis)


def _reshaped(rewriter: PatternRewriter, value: SSAValue, shape: tuple[int, ...]) -> SSAValue:
    reshape = ReshapeOp.create(
        operands=[value, integer_constant(rewriter, np.array(shape, dtype=np.int64), i64)],
        attributes={"allowzero": IntegerAttr(0, i64)},
        result_types=[TensorType(value.type.element_type, shape)],
    )
    rewriter.insert(reshape)
    return reshape.reshaped


def _padded_end(rewriter: PatternRewriter, value: SSAValue, axis: int, extra: int) -> SSAValue:
    """`value` with `extra` zero bits appended along `axis`."""
    shape = list(value.type.get_shape())
    pads = np.zeros(2 * len(shape), dtype=np.int64)
    pads[len(shape) + axis] = extra
    shape[axis] += extra
    element = value.type.element_type
    pad = PadOp.create(
        operands=[value, integer_constant(rewriter, pads, i64), integer_constant(rewriter, np.array(0), element)],
        properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 0])},
        attributes={"mode": StringAttr("constant")},
        result_types=[TensorType(element, shape)],
    )
    rewriter.insert(pad)
    return pad.output


def _pack_last_words(rewriter: PatternRewriter, bits: SSAValue, axis: int) -> SSAValue:
    """Words along `axis`, whose length must be a multiple of 32: a generic over the word
    shape and j (the reduction), `acc | ext(bits[..., 32 u + j, ...]) << shift[j]` with the
    constant shift[j] = 31 - j (which also gives the loop over j its bounds)."""
    shape = list(bits.type.get_shape())
    shape[axis] //= WORD_BITS
    rank = len(shape) + 1
    j = AffineDimExpr(len(shape))
    dims = [AffineDimExpr(d) for d in range(len(shape))]
    reads = [*dims[:axis], dims[axis] * WORD_BITS + j, *dims[axis + 1 :]]
    shifts = integer_constant(rewriter, np.arange(WORD_BITS - 1, -1, -1), I32)

    def shift_in(body) -> SSAValue:
        bit = body.emit(arith.ShLIOp(body.emit(arith.ExtUIOp(body.values["in0"], I32)), body.values["in1"]))
        return body.emit(arith.OrIOp(body.values["output"], bit))

    zeros = filled(rewriter, np.array(0), [], shape, I32)
    inputs = [(bits, affine_map(rank, reads)), (shifts, affine_map(rank, [j]))]
    return build_generic(rewriter, inputs, (zeros, affine_map(rank, dims)), [len(shape)], shift_in)


def packed_activations(rewriter: PatternRewriter, bits: SSAValue, axis: int, groups: int) -> SSAValue:
    """The i32 words of i1 `bits` along `axis` in `groups` (module docstring): the axis of
    length C becomes groups * ceil(C / groups / 32)."""
    shape = tuple(bits.type.get_shape())
    per_group = shape[axis] // groups
    extra = words_for(per_group) * WORD_BITS - per_group
    if not extra:
        return _pack_last_words(rewriter, bits, axis)
    if groups == 1:
        return _pack_last_words(rewriter, _padded_end(rewriter, bits, axis, extra), axis)
    grouped = _reshaped(rewriter, bits, (*shape[:axis], groups, per_group, *shape[axis + 1 :]))
    words = _pack_last_words(rewriter, _padded_end(rewriter, grouped, axis + 1, extra), axis + 1)
    return _reshaped(rewriter, words, (*shape[:axis], groups * words_for(per_group), *shape[axis + 1 :]))


def disagreements(body, x_word: SSAValue, w_word: SSAValue) -> SSAValue:
    """popcount(x ^ w): the channels of one word where the signs differ (`math.ctpop`)."""
    return body.emit(math.CtPopOp(body.emit(arith.XOrIOp(x_word, w_word))))

