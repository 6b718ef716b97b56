"""`bitfold-riscv-count-thresholds`: a sign threshold on an affine function of a population count
compares the count itself with a table made at compile time (on tensors, before bufferization).

A binary layer (`passes/quant_to_integer/binary_contraction.py`, `sign_thresholds.py`) computes

    count[i] = sum_r popcount(x ^ w)                 (a zero-filled i32 contraction: 0 <= count <= C)
    q[i]     = E1(count[i], tables)                  elementwise: k[i] - 2 count[i]
    bit[i]   = E2(q[i], tables)                      elementwise: d[i] q[i] >= t[i]

E2(E1(c)) is affine in c before its one compare (`arith` extensions, shifts and products by
constants, sums, differences of the count and constant tables), so with A, B per element
(integers, exact: every step stays within i32 for all c in [0, C], checked):

    bit = A c + B >= 0   <=>   c <  floor(B / -A) + 1     (A < 0)
                         <=>  -c <  1 - ceil(-B / A)      (A > 0)
                         <=>   c <  C + 1 or 0            (A = 0: always or never)

that is `s c < W` with s = +-1, W clamped to [-C, C + 1] (the same bits for c in [0, C]), stored
as i16 where it fits. Where s differs between output channels and the count's contraction reads
constant weights by channel, the weights of the channels with s = -1 are complemented
(`complemented_weights`: they count c' = C - c, and -c < W is c' < C + W), so s = +1 everywhere. E1 and E2 are replaced by one generic: `c < W` where s is +1 everywhere,
`c > -W` where -1 everywhere, `c * s < W` with a table s where it varies. A binary conv3x3
output then costs a table load, a compare and its store instead of the load, `slli`, `sub`,
`mul`, `slt`, `xori` and the store.
"""

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AffineMapAttr, IntegerType, ModuleOp, i16, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from bitfold.backends.riscv.schedule.binary_words import popcount_terms
from bitfold.dialects.onnx.constant import constant_array, dense_attr

I16_MAX = (1 << 15) - 1
"""Counts up to this bound keep W (in [-C, C + 1]) an i16 table (`lh`)."""
SGE, SGT, SLE, SLT = 5, 4, 3, 2
"""MLIR's arith.cmpi predicates used here (eq, ne, slt, sle, sgt, sge, ...)."""


def _elementwise(op: Operation | None) -> bool:
    """A linalg.generic on tensors, all parallel, one output, every map a projection of dims or
    constants, its first input and its output at the identity."""
    if not isinstance(op, linalg.GenericOp) or len(op.outputs) != 1 or not op.inputs or len(op.res) != 1:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    return (all(it.data == linalg.IteratorType.PARALLEL for it in op.iterator_types.data)
            and maps[0] == AffineMap.identity(maps[0].num_dims) and maps[-1] == maps[0]
            and all(isinstance(r, AffineDimExpr | AffineConstantExpr) for m in maps for r in m.results))


def count_bound(value: SSAValue) -> int | None:
    """C of the module docstring where `value` is a zero-filled population count contraction:
    body `out + ctpop(v)` (or `out + trunci(ctpop(v))`), its init a zero constant or a generic
    broadcasting one; C = bits of v x the reduction's points."""
    op = value.owner
    if not isinstance(op, linalg.GenericOp) or len(op.outputs) != 1:
        return None
    block = op.body.block
    done = block.last_op
    total = done.operands[0].owner if isinstance(done, linalg.YieldOp) else None
    if not isinstance(total, arith.AddiOp) or block.args[-1] not in (total.lhs, total.rhs):
        return None
    count = (total.rhs if total.lhs is block.args[-1] else total.lhs).owner
    if isinstance(count, arith.TruncIOp):
        count = count.input.owner
    if not isinstance(count, math.CtPopOp) or not _zero(op.outputs[0]):
        return None
    bounds = op.get_static_loop_ranges()
    points = np.prod([b for b, it in zip(bounds, op.iterator_types.data, strict=True)
                      if it.data == linalg.IteratorType.REDUCTION], dtype=np.int64)
    return int(points) * count.operand.type.width.data


def _zero(value: SSAValue) -> bool:
    """A constant of zeros, or a generic yielding its one input, a constant of zeros."""
    owner = value.owner
    if isinstance(owner, linalg.GenericOp) and len(owner.inputs) == 1:
        done = owner.body.block.last_op
        if not (isinstance(done, linalg.YieldOp) and done.operands[0] is owner.body.block.args[0]):
            return False
        value = owner.inputs[0]
    array = constant_array(value)
    return array is not None and not np.any(array)


def on_grid(array: np.ndarray, affine_map: AffineMap, shape: tuple[int, ...]) -> np.ndarray:
    """A table read through `affine_map` (dims and constants) at every point of `shape`."""
    index = np.indices(shape)
    picks = tuple(index[r.position] if isinstance(r, AffineDimExpr) else np.full(shape, r.value)
                  for r in affine_map.results)
    return np.asarray(array, dtype=np.int64)[picks] if picks else np.full(shape, int(np.asarray(array)))


class NotAffine(Exception):
    """A body that is not affine in the count, or a step that could wrap."""


def affine_values(op: linalg.GenericOp, first: tuple, shape: tuple[int, ...], bound: int, values: dict) -> SSAValue:
    """(A, B) arrays over the grid for every value of `op`'s body, its argument 0 being `first`;
    returns the yielded value. Raises NotAffine."""
    block = op.body.block
    maps = [m.data for m in op.indexing_maps.data]
    values[block.args[0]] = first
    for argument, operand, affine_map in zip(block.args[1 : len(op.inputs)], op.inputs[1:], maps[1 : len(op.inputs)], strict=True):
        table = constant_array(operand)
        if argument.uses and table is None:
            raise NotAffine
        if argument.uses:
            values[argument] = (np.zeros(shape, dtype=np.int64), on_grid(table, affine_map, shape))
    for body_op in block.ops:
        if isinstance(body_op, linalg.YieldOp):
            return body_op.operands[0]
        if isinstance(body_op, arith.CmpiOp) or not any(r.uses for r in body_op.results):
            continue  # the compare itself (`_difference`), dead operations
        values[body_op.results[0]] = _affine_step(body_op, values, shape)
        if isinstance(body_op.results[0].type, IntegerType) and body_op.results[0].type.width.data > 1:
            _check_range(values[body_op.results[0]], bound, body_op.results[0].type.width.data)
    raise NotAffine


def _affine_step(op: Operation, values: dict, shape: tuple[int, ...]) -> tuple:
    """(A, B) of one body operation's result from its operands'."""
    if isinstance(op, arith.ConstantOp) and isinstance(op.value.type, IntegerType):
        return np.zeros(shape, dtype=np.int64), np.full(shape, op.value.value.data, dtype=np.int64)
    if isinstance(op, arith.ExtSIOp) and op.input in values:
        return values[op.input]  # the range check keeps the source's values in its type
    operands = [values.get(v) for v in op.operands]
    if any(v is None for v in operands):
        raise NotAffine
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        sign = 1 if isinstance(op, arith.AddiOp) else -1
        (a1, b1), (a2, b2) = operands
        return a1 + sign * a2, b1 + sign * b2
    if isinstance(op, arith.MuliOp | arith.ShLIOp):
        (a1, b1), (a2, b2) = operands
        if np.any(a2) and isinstance(op, arith.MuliOp) and not np.any(a1):
            (a1, b1), (a2, b2) = (a2, b2), (a1, b1)
        if np.any(a2) or (isinstance(op, arith.ShLIOp) and (np.any(b2 < 0) or np.any(b2 > 30))):
            raise NotAffine
        factor = b2 if isinstance(op, arith.MuliOp) else np.left_shift(np.int64(1), b2)
        return a1 * factor, b1 * factor
    raise NotAffine


def _check_range(value: tuple, bound: int, width: int) -> None:
    """A c + B within the signed `width`-bit range for every c in [0, bound]."""
    a, b = value
    low, high = b + np.minimum(a * bound, 0), b + np.maximum(a * bound, 0)
    if np.any(low < -(1 << (width - 1))) or np.any(high >= 1 << (width - 1)):
        raise NotAffine


def threshold_tables(a: np.ndarray, b: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """(s, W) of the module docstring for `A c + B >= 0`, c in [0, bound]."""
    s = np.where(a > 0, -1, 1)
    below = np.where(a < 0, np.floor_divide(b, np.where(a < 0, -a, 1)) + 1, 0)   # A < 0: floor(B / -A) + 1
    above = np.where(a > 0, 1 + np.floor_divide(b, np.where(a > 0, a, 1)), 0)   # A > 0: 1 - ceil(-B / A)
    never_or_always = np.where(b >= 0, bound + 1, 0)
    w = np.where(a < 0, below, np.where(a > 0, above, never_or_always))
    return s, np.clip(w, -bound, bound + 1)


def compact(array: np.ndarray) -> tuple[np.ndarray, AffineMap]:
    """`array` without the axes along which it is constant, and the map reading it on the grid."""
    shape = array.shape
    results = []
    for d in range(len(shape)):
        if shape[d] > 1 and np.any(np.diff(array, axis=d)):
            results.append(AffineDimExpr(d))
        else:
            array = array.take([0], axis=d)
    kept = [d for d in range(len(shape)) if any(isinstance(r, AffineDimExpr) and r.position == d for r in results)]
    return array.reshape([shape[d] for d in kept]), AffineMap(len(shape), 0, tuple(results))


class CountThresholds(RewritePattern):
    """The rewrite of the module docstring, matched on E2."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        first = op.inputs[0].owner if op.inputs else None
        if not (_elementwise(op) and _elementwise(first) and op.res[0].type.get_element_type() == IntegerType(1)
                and first.res[0].has_one_use() and first.res[0].type.get_element_type() == i32):
            return
        bound = count_bound(first.inputs[0])
        compare = op.body.block.last_op.operands[0].owner
        if bound is None or bound >= I16_MAX or not isinstance(compare, arith.CmpiOp):
            return
        shape = tuple(op.res[0].type.get_shape())
        values: dict = {}
        try:
            q = affine_values(first, (np.ones(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)), shape, bound, values)
            affine_values(op, values[q], shape, bound, values)
            a, b = _difference(compare, values)
        except NotAffine:
            return
        s, w = threshold_tables(a, b, bound)
        if not np.all(s == s.flat[0]) and 2 * bound + 1 <= I16_MAX:
            s, w = complemented_weights(first.inputs[0], s, w, bound, rewriter)
        rewriter.replace(op, _count_compare(first.inputs[0], s, w, op.outputs[0]))
        rewriter.erase(first)


def complemented_weights(
    count: SSAValue, s: np.ndarray, w: np.ndarray, bound: int, rewriter: PatternRewriter
) -> tuple[np.ndarray, np.ndarray]:
    """(s, W) after complementing, where s is -1, the constant weights of the count's contraction P
    (P's only user the rewritten threshold, its weight map naming every dimension s varies along):
    popcount(x ^ ~v) = 32 - popcount(x ^ v) a word, so P counts c' = C - c there and -c < W
    becomes c' < C + W (s = +1 everywhere: no multiply). Else (s, W) as they were."""
    contraction = count.owner
    weight = popcount_terms(contraction)
    if weight is None or not count.has_one_use():
        return s, w
    table, table_map = compact(s)
    out_map = contraction.indexing_maps.data[-1].data
    weight_map = contraction.indexing_maps.data[weight].data
    places = {r.position: k for k, r in enumerate(weight_map.results) if isinstance(r, AffineDimExpr)}
    varying = [out_map.results[r.position] for r in table_map.results]
    if any(not isinstance(d, AffineDimExpr) or d.position not in places for d in varying):
        return s, w
    weights = constant_array(contraction.inputs[weight]).astype(np.int64)
    index = np.indices(weights.shape)
    signs = table[tuple(index[places[d.position]] for d in varying)]
    flipped = arith.ConstantOp(dense_attr(np.where(signs < 0, ~weights, weights), i32))
    rewriter.insert(flipped, InsertPoint.before(contraction))
    contraction.operands[weight] = flipped.result
    return np.ones_like(s), np.where(s < 0, bound + w, w)


def _difference(compare: arith.CmpiOp, values: dict) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) with the compare `A c + B >= 0`."""
    predicate = compare.predicate.value.data
    if predicate not in (SGE, SGT, SLE, SLT) or compare.lhs not in values or compare.rhs not in values:
        raise NotAffine
    (a1, b1), (a2, b2) = values[compare.lhs], values[compare.rhs]
    a, b = (a1 - a2, b1 - b2) if predicate in (SGE, SGT) else (a2 - a1, b2 - b1)
    return a, (b - 1 if predicate in (SGT, SLT) else b)  # x > 0 <=> x - 1 >= 0


def _count_compare(count: SSAValue, s: np.ndarray, w: np.ndarray, init: SSAValue) -> list[Operation]:
    """bit = s c < W (module docstring) as one generic over the count's grid, after its tables."""
    rank = len(w.shape)
    uniform = s.flat[0] if np.all(s == s.flat[0]) else None
    table, table_map = compact(w if uniform != -1 else -w)
    inputs = [(count, AffineMap.identity(rank)), (table, table_map)]
    if uniform is None:
        inputs.append(compact(s))
    block = Block(arg_types=[i32, i16, *([i32] if uniform is None else []), IntegerType(1)])
    ops: list[Operation] = [bound := arith.ExtSIOp(block.args[1], i32)]
    if uniform == 1:
        ops.append(arith.CmpiOp(block.args[0], bound.result, "slt"))
    elif uniform == -1:
        ops.append(arith.CmpiOp(block.args[0], bound.result, "sgt"))
    else:
        ops += [signed := arith.MuliOp(block.args[0], block.args[2]), arith.CmpiOp(signed.result, bound.result, "slt")]
    block.add_ops([*ops, linalg.YieldOp(ops[-1].results[0])])
    constants = [arith.ConstantOp(dense_attr(t, i16 if k == 1 else i32)) for k, (t, _) in enumerate(inputs) if k]
    operands = [count, *(c.result for c in constants)]
    generic = linalg.GenericOp(
        operands, [init], Region(block), [AffineMapAttr(m) for _, m in inputs] + [AffineMapAttr(AffineMap.identity(rank))],
        [linalg.IteratorTypeAttr.parallel()] * rank, [init.type],
    )
    return [*constants, generic]


class BitfoldRiscvCountThresholdsPass(ModulePass):
    """Sign thresholds on affine functions of population counts compare the counts with tables
    (module docstring); on tensors."""

    name = "bitfold-riscv-count-thresholds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(CountThresholds(), apply_recursively=False).rewrite_module(op)
