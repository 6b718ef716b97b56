"""`bitfold-riscv-wide-binary-words` (RV64): an XNOR-popcount contraction on packed 32-bit words
(`passes/quant_to_integer/bit_packing.py`: binary networks) works on 64-bit words instead, so one
`xor` and one `cpop` (or one SWAR sequence without Zbb) cover 64 binary products, not 32.

It rewrites, on tensors (before bufferization), a `linalg.generic`

    out[...] = init[...] + sum_r ctpop(x[..., k, ...] xor w[..., k, ...])                 (i32)

where w is a constant, x is not, and k is a reduction dimension of even bound that x's and w's
maps each index by a plain `d_k` in one result (the output's map does not use it), into

    X[..., q, ...] = extui(x[..., 2q, ...]) | extui(x[..., 2q + 1, ...]) << 32         (i64, once)
    W[..., q, ...] = (w[..., 2q, ...] mod 2^32) + 2^32 w[..., 2q + 1, ...]    (i64, compile time)
    out[...] = init[...] + sum_r' trunci(ctpop(X[..., q, ...] xor W[..., q, ...]))

with the same indexing maps over k's bound halved. Exactness: the xor of two concatenations is the
concatenation of the xors, and the popcount of a concatenation is the sum of the popcounts (at
most 64, so `trunci` to i32 is exact); the i32 sum regroups the same terms pairwise, and integer
addition (modulo 2^32, as the i32 generic also computes) is associative and commutative.
"""

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, ModuleOp, TensorType, i32, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from bitfold.backends.riscv.schedule.lane_pairs import plain_reduction_dimensions, rewrite_contractions, shrunk
from bitfold.dialects.onnx.constant import constant_array, dense_attr

WORD_BITS = 32
WORD_MASK = (1 << WORD_BITS) - 1


def popcount_terms(op: linalg.GenericOp) -> int | None:
    """The index of the constant input (the weights) of a body `yield acc + ctpop(in_0 xor in_1)`
    on i32 whose other input is not a constant, else None."""
    block = op.body.block
    ops = list(block.ops)
    if len(op.inputs) != 2 or len(op.outputs) != 1 or len(ops) != 4:
        return None
    xor, count, add, done = ops
    if not (isinstance(xor, arith.XOrIOp) and isinstance(count, math.CtPopOp) and isinstance(add, arith.AddiOp)
            and isinstance(done, linalg.YieldOp)):
        return None
    if {xor.lhs, xor.rhs} != {block.args[0], block.args[1]} or count.operand is not xor.result:
        return None
    if {add.lhs, add.rhs} != {block.args[2], count.result} or done.operands[0] is not add.result:
        return None
    if any(a.type != i32 for a in block.args):
        return None
    constants = [constant_array(v) is not None for v in op.inputs]
    return constants.index(True) if constants.count(True) == 1 else None


def word_dimension(op: linalg.GenericOp) -> tuple[int, int] | None:
    """(the result index in input 0's map, in input 1's map) of the reduction dimension k of the
    module docstring, else None."""
    bounds = op.get_static_loop_ranges()
    return next(((x, w) for d, x, w in plain_reduction_dimensions(op, 0) if bounds[d] % 2 == 0), None)


def pack_word_pairs(words: np.ndarray, axis: int) -> np.ndarray:
    """(w[2q] mod 2^32) + 2^32 w[2q + 1] along `axis`, as int64 (the module docstring's W)."""
    moved = np.moveaxis(words.astype(np.int64), axis, 0)
    packed = (moved[0::2] & WORD_MASK) | (moved[1::2] << WORD_BITS)
    return np.moveaxis(packed, 0, axis)


def joined_words(x: SSAValue, axis: int) -> tuple[linalg.GenericOp, tensor.EmptyOp]:
    """The generic making X of the module docstring from the i32 tensor x, and its empty init."""
    shape = tuple(x.type.get_shape())
    wide_type = TensorType(i64, shrunk(shape, axis, 2))
    rank = len(shape)
    halves = [AffineMap(rank, 0, tuple(AffineDimExpr(k) * 2 + half if k == axis else AffineDimExpr(k)
                                       for k in range(rank))) for half in (0, 1)]
    block = Block(arg_types=[i32, i32, i64])
    low, high = arith.ExtUIOp(block.args[0], i64), arith.ExtUIOp(block.args[1], i64)
    shift = arith.ConstantOp(IntegerAttr(WORD_BITS, i64))
    raised = arith.ShLIOp(high.result, shift.result)
    joined = arith.OrIOp(low.result, raised.result)
    block.add_ops([low, high, shift, raised, joined, linalg.YieldOp(joined.result)])
    empty = tensor.EmptyOp([], wide_type)
    return linalg.GenericOp(
        [x, x], [empty.tensor], Region(block),
        [AffineMapAttr(m) for m in (*halves, AffineMap.identity(rank))],
        [linalg.IteratorTypeAttr.parallel()] * rank, [wide_type],
    ), empty


class WideBinaryWords(RewritePattern):
    """The rewrite of the module docstring."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        weight = popcount_terms(op)
        places = word_dimension(op) if weight is not None and op.res else None
        if places is None:
            return
        activation = 1 - weight
        joined, empty = joined_words(op.inputs[activation], places[activation])
        packed = arith.ConstantOp(dense_attr(pack_word_pairs(constant_array(op.inputs[weight]), places[weight]), i64))
        block = Block(arg_types=[i64, i64, i32])
        xor = arith.XOrIOp(block.args[0], block.args[1])
        count = math.CtPopOp(xor.result)
        narrow = arith.TruncIOp(count.result, i32)
        total = arith.AddiOp(block.args[2], narrow.result)
        block.add_ops([xor, count, narrow, total, linalg.YieldOp(total.result)])
        inputs = [joined.res[0], packed.result]
        wide = linalg.GenericOp(
            inputs if activation == 0 else inputs[::-1], list(op.outputs), Region(block), op.indexing_maps,
            op.iterator_types, [op.res[0].type],
        )
        # X right after x: between a fill of the accumulators and the contraction it would keep
        # them apart (`fused_epilogue.fuse` wants them next to each other)
        source = op.inputs[activation]
        rewriter.insert([empty, joined], InsertPoint.after(source.owner) if isinstance(source, OpResult)
                        else InsertPoint.at_start(source.block))
        rewriter.insert(packed)
        rewriter.replace(op, [wide])


class BitfoldRiscvWideBinaryWordsPass(ModulePass):
    """XNOR-popcount contractions on 32-bit words by constant weights count 64-bit words (module
    docstring); run on RV64 only, on tensors."""

    name = "bitfold-riscv-wide-binary-words"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_contractions(op, WideBinaryWords())
