"""`bitfold-riscv-pair-lanes` (RV64): an i32 contraction by constant weights accumulates two
output channels in one 64-bit register, so one `mul` and one `add` make two multiply-accumulates.

It rewrites, on tensors (before bufferization), a `linalg.generic`

    out[..., c, ...] = init[..., c, ...] + sum_r ext(x[...]) * ext(w[..., c, ...])     (i32)

where w is a constant, x does not depend on the channel dimension c (bound C even), `ext` is
`arith.extsi`/`extui` from at most 16 bits (or none on a constant w), and init is a broadcast
of a constant (a bias) or a constant fill, into

    W[..., p, ...] = w[..., 2p, ...] + 2^32 w[..., 2p + 1, ...]              (i64, compile time)
    S[..., p, ...] = B[..., p, ...] + sum_r ext(x[...]) * W[..., p, ...]     (i64 generic, C / 2)
    out[..., 2p, ...]     = trunci(S)                       (the low lane)
    out[..., 2p + 1, ...] = trunci((S + 2^31) >>s 32)        (the high lane)

with B packed from init the same way as W.

Exactness (the lane bound). Let L = init_{2p} + sum_r x_r w_{2p,r} and H = init_{2p+1} + sum_r
x_r w_{2p+1,r} be the two exact lane sums. Products and sums are exact integers, so the i64 sum
S = L + 2^32 H as long as |S| < 2^63 (it is far smaller, below). If -2^31 <= L, H < 2^31, then
S mod 2^32 = L mod 2^32 and L is in i32, so trunci(S) = L; and S + 2^31 = (L + 2^31) + 2^32 H
with 0 <= L + 2^31 < 2^32, so (S + 2^31) >>s 32 = H (an arithmetic shift is floor division).
Every partial sum obeys the same bound, so no intermediate wraps either. The pass proves, per
channel c, |init_c| + sum over w's elements of channel c of max|x| |w| <= 2^31 - 1 (x's range
from its extension's source type; for an i32 x, the bound is not attempted) and leaves the
generic alone otherwise: where the bound holds, the i32 generic never wraps, so the two forms
are equal bit for bit, and where it does not, nothing changes.
"""


from collections.abc import Iterator

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.constant import constant_array, dense_attr
from bitfold.dialects.xdsl_compat.dead_code import region_dce

LANE_BITS = 32
LANE_MAX = (1 << (LANE_BITS - 1)) - 1
MAX_EXTENDED_BITS = 16
"""x and w narrower than this: their products stay far inside a lane."""


def _extension(value: SSAValue) -> tuple[SSAValue, type | None] | None:
    """(block argument, extension kind) that `value` is: `ext(arg)` or the argument itself."""
    owner = value.owner
    if isinstance(owner, arith.ExtSIOp | arith.ExtUIOp):
        source = owner.input
        if isinstance(source.type, IntegerType) and source.type.width.data <= MAX_EXTENDED_BITS:
            return source, type(owner)
        return None
    return value, None


def contraction_terms(op: linalg.GenericOp) -> tuple[int, type | None, type | None] | None:
    """(index of the activation input, its extension, the weight's extension) of a body
    `yield acc + ext(in_a) * ext(in_b)`, else None."""
    block = op.body.block
    ops = list(block.ops)
    if len(op.inputs) != 2 or len(op.outputs) != 1 or not isinstance(ops[-1], linalg.YieldOp):
        return None
    if op.outputs[0].type.element_type != i32 or len(ops) > 5:
        return None
    (result,) = ops[-1].operands
    add = result.owner
    if not isinstance(add, arith.AddiOp):
        return None
    acc = block.args[2]
    product_value = add.rhs if add.lhs is acc else add.lhs if add.rhs is acc else None
    multiply = product_value.owner if product_value is not None else None
    if not isinstance(multiply, arith.MuliOp) or acc.uses.get_length() != 1:
        return None
    terms = [_extension(multiply.lhs), _extension(multiply.rhs)]
    if None in terms:
        return None
    arguments = [t[0] for t in terms]
    if set(arguments) != {block.args[0], block.args[1]} or any(a.uses.get_length() != 1 for a in arguments):
        return None
    kinds = {a.index: kind for a, (_, kind) in zip(arguments, terms)}
    weight = 1 if constant_array(op.inputs[1]) is not None else 0 if constant_array(op.inputs[0]) is not None else None
    if weight is None:
        return None
    activation = 1 - weight
    if kinds[activation] is None:
        return None
    return activation, kinds[activation], kinds[weight]


def lane_dimension(op: linalg.GenericOp, activation: int, weight: int, lanes: int = 2) -> tuple[int, int] | None:
    """(the result index in the weight's map, in the output's map) of the iteration dimension c:
    a parallel dimension of bound a multiple of `lanes` that the weight's and the output's maps each index by a
    plain `d_c` in one result (and nowhere else), and the activation's map does not use."""
    maps = [m.data for m in op.indexing_maps]
    bounds = op.get_static_loop_ranges()

    def plain_result(affine_map: AffineMap, d: int) -> int | None:
        uses = [j for j, r in enumerate(affine_map.results) if d in r.used_dims()]
        if len(uses) == 1 and isinstance(affine_map.results[uses[0]], AffineDimExpr):
            return uses[0]
        return None

    for d in reversed(range(len(bounds))):
        if op.iterator_types.data[d].data != linalg.IteratorType.PARALLEL or bounds[d] % lanes or bounds[d] < lanes:
            continue
        if any(d in r.used_dims() for r in maps[activation].results):
            continue
        in_weight, in_output = plain_result(maps[weight], d), plain_result(maps[2], d)
        if in_weight is not None and in_output is not None:
            return in_weight, in_output
    return None


def _init_fill(init: SSAValue) -> tuple[linalg.GenericOp, np.ndarray | None, int] | None:
    """(the generic making `init`, its constant source or None, the largest |value| it writes)
    when `init` is a broadcast of a constant (ins: one constant, body: yield of it) or a constant
    fill (no ins, body: yield of a constant) into an empty tensor, used by nothing else."""
    fill = init.owner
    if not isinstance(fill, linalg.GenericOp) or len(fill.outputs) != 1 or init.uses.get_length() != 1:
        return None
    if any(it.data != linalg.IteratorType.PARALLEL for it in fill.iterator_types.data):
        return None
    rank = len(fill.outputs[0].type.get_shape())
    if fill.indexing_maps.data[-1].data != AffineMap.identity(rank):
        return None
    if not isinstance(fill.outputs[0].owner, tensor.EmptyOp):
        return None
    (yielded,) = fill.body.block.last_op.operands
    if not fill.inputs:
        if not isinstance(yielded.owner, arith.ConstantOp) or not isinstance(yielded.owner.value, IntegerAttr):
            return None
        return fill, None, abs(yielded.owner.value.value.data)
    source = constant_array(fill.inputs[0]) if len(fill.inputs) == 1 else None
    if source is None or yielded is not fill.body.block.args[0]:
        return None
    return fill, source.astype(np.int64), int(np.abs(source.astype(np.int64)).max(initial=0))


def _activation_magnitude(kind: type, argument_type: IntegerType) -> int:
    """max |x| over the range of the extension's source type."""
    bits = argument_type.width.data
    return (1 << bits) - 1 if kind is arith.ExtUIOp else 1 << (bits - 1)


def _channel_axis(fill: linalg.GenericOp, axis: int) -> int | None:
    """The axis of the broadcast's source that the fill's dimension `axis` indexes plainly."""
    input_map = fill.indexing_maps.data[0].data
    plain = [j for j, r in enumerate(input_map.results) if isinstance(r, AffineDimExpr) and r.position == axis]
    return plain[0] if plain else None


def _per_channel(values: np.ndarray, axis: int, reduce) -> np.ndarray:
    return reduce(np.abs(np.moveaxis(values, axis, 0).reshape(values.shape[axis], -1)), axis=1)


def _lanes_fit(weights: np.ndarray, weight_axis: int, init_max, x_max: int) -> bool:
    """The lane bound of the module docstring, per channel (`init_max`: per channel, or one
    bound for all)."""
    return bool(np.all(init_max + x_max * _per_channel(weights, weight_axis, np.sum) <= LANE_MAX))


def pack_pairs(values: np.ndarray, axis: int) -> np.ndarray:
    """values[..., 2p, ...] + 2^32 values[..., 2p + 1, ...] along `axis` (int64)."""
    moved = np.moveaxis(values.astype(np.int64), axis, 0)
    packed = moved[0::2] + (moved[1::2] << LANE_BITS)
    return np.moveaxis(packed, 0, axis)


def shrunk(shape: tuple[int, ...], axis: int, lanes: int) -> tuple[int, ...]:
    """`shape` with `axis` divided by `lanes` (the packed words' shape)."""
    return tuple(s // lanes if k == axis else s for k, s in enumerate(shape))


def plain_reduction_dimensions(op: linalg.GenericOp, first: int) -> Iterator[tuple[int, int, int]]:
    """(d, the result of input `first`'s map, the result of the other input's map) for each
    reduction dimension d that both inputs' maps index by a plain `d` in one result and the
    output's map does not use, in order."""
    maps = [m.data for m in op.indexing_maps]
    for d, iterator in enumerate(op.iterator_types.data):
        if iterator.data != linalg.IteratorType.REDUCTION or any(d in r.used_dims() for r in maps[2].results):
            continue
        places = []
        for affine_map in (maps[first], maps[1 - first]):
            uses = [j for j, r in enumerate(affine_map.results) if d in r.used_dims()]
            places.append(uses[0] if len(uses) == 1 and isinstance(affine_map.results[uses[0]], AffineDimExpr)
                          else None)
        if None not in places:
            yield d, places[0], places[1]


def rewrite_contractions(module: ModuleOp, pattern: RewritePattern) -> None:
    """`pattern` applied once to every op of `module`, then every function's dead ops (the unpacked
    weights and inits the rewrites leave) removed."""
    PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(module)
    for function in module.ops:
        for region in function.regions:
            region_dce(region)


def constant_weights(op: linalg.GenericOp, weight: int, kind: type | None) -> np.ndarray:
    """The contraction's constant weights (operand `weight`) as int64, read as their extension
    `kind` reads them (modulo 2^b for extui)."""
    weights = constant_array(op.inputs[weight]).astype(np.int64)
    if kind is arith.ExtUIOp:
        weights %= 1 << op.body.block.args[weight].type.width.data
    return weights


def packed_contraction(
    inputs: tuple[SSAValue, SSAValue], activation: int, kind: type, init: SSAValue, maps, iterators
) -> linalg.GenericOp:
    """init + sum ext(x) * W over `inputs` (in operand order; x is input `activation`), in the
    element type of `init`'s words: `kind` extends x to it, the packed weights W hold it already."""
    word = init.type.element_type
    body = Block(arg_types=[inputs[0].type.element_type, inputs[1].type.element_type, word])
    extended = kind(body.args[activation], word)
    multiply = arith.MuliOp(extended.result, body.args[1 - activation])
    accumulate = arith.AddiOp(body.args[2], multiply.result)
    body.add_ops([extended, multiply, accumulate, linalg.YieldOp(accumulate.result)])
    return linalg.GenericOp(list(inputs), [init], Region(body), maps, iterators, [init.type])


class PairLanes(RewritePattern):
    """The rewrite of the module docstring."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        terms = contraction_terms(op)
        if terms is None or not op.res:
            return
        activation, activation_kind, weight_kind = terms
        weight = 1 - activation
        lane = lane_dimension(op, activation, weight)
        init = _init_fill(op.outputs[0])
        if lane is None or init is None:
            return
        weight_axis, out_axis = lane
        fill, init_source, init_max = init
        weights = constant_weights(op, weight, weight_kind)
        x_type = op.body.block.args[activation].type
        if init_source is not None and (channel_axis := _channel_axis(fill, out_axis)) is not None:
            init_max = _per_channel(init_source, channel_axis, np.max)
        if not _lanes_fit(weights, weight_axis, init_max, _activation_magnitude(activation_kind, x_type)):
            return
        out_type = op.outputs[0].type
        pair_type = TensorType(i64, shrunk(tuple(out_type.get_shape()), out_axis, 2))
        weight_constant = arith.ConstantOp(dense_attr(pack_pairs(weights, weight_axis), i64))
        packed_init = self._packed_init(fill, init_source, out_axis, pair_type)
        if packed_init is None:
            return
        inputs = (op.inputs[activation], weight_constant.result)
        pairs = packed_contraction(inputs if activation == 0 else inputs[::-1], activation, activation_kind,
                                   packed_init[-1].res[0], op.indexing_maps, op.iterator_types)
        rewriter.insert([weight_constant, *packed_init, pairs])
        low = self._lane(pairs.res[0], tensor.EmptyOp([], out_type), out_axis, 0, rewriter)
        high = self._lane(pairs.res[0], low, out_axis, 1, rewriter)
        rewriter.replace(op, [], [high])
        rewriter.erase(fill)

    @staticmethod
    def _packed_init(
        fill: linalg.GenericOp, source: np.ndarray | None, axis: int, pair_type: TensorType
    ) -> list[Operation] | None:
        """The init of the pairs: the fill's own broadcast (or constant fill) of packed values;
        None where the broadcast reads the lane axis through more than a plain index."""
        empty = tensor.EmptyOp([], pair_type)
        if source is None:
            (yielded,) = fill.body.block.last_op.operands
            value = yielded.owner.value.value.data
            block = Block(arg_types=[i64])
            constant = arith.ConstantOp(IntegerAttr(value + (value << LANE_BITS), i64))
            block.add_ops([constant, linalg.YieldOp(constant.result)])
            generic = linalg.GenericOp([], [empty.tensor], Region(block), [fill.indexing_maps.data[-1]],
                                       fill.iterator_types, [pair_type])
            return [empty, generic]
        input_map = fill.indexing_maps.data[0].data
        channel_axis = _channel_axis(fill, axis)
        if channel_axis is None and any(axis in r.used_dims() for r in input_map.results):
            return None
        packed = pack_pairs(source, channel_axis) if channel_axis is not None else source + (source << LANE_BITS)
        constant = arith.ConstantOp(dense_attr(packed, i64))
        block = Block(arg_types=[i64, i64])
        block.add_op(linalg.YieldOp(block.args[0]))
        generic = linalg.GenericOp([constant.result], [empty.tensor], Region(block), fill.indexing_maps,
                                   fill.iterator_types, [pair_type])
        return [constant, empty, generic]

    @staticmethod
    def _lane(pairs: SSAValue, into, axis: int, lane: int, rewriter: PatternRewriter) -> SSAValue:
        """A generic writing lane `lane` of every pair into out[..., 2p + lane, ...]."""
        ops: list[Operation] = []
        if isinstance(into, Operation):
            ops.append(into)
            into = into.results[0]
        rank = len(into.type.get_shape())
        results = [AffineDimExpr(k) * 2 + lane if k == axis else AffineDimExpr(k) for k in range(rank)]
        block = Block(arg_types=[i64, i32])
        value = block.args[0]
        if lane:
            bias = arith.ConstantOp(IntegerAttr(1 << (LANE_BITS - 1), i64))
            shift = arith.ConstantOp(IntegerAttr(LANE_BITS, i64))
            biased = arith.AddiOp(value, bias.result)
            shifted = arith.ShRSIOp(biased.result, shift.result)
            block.add_ops([bias, shift, biased, shifted])
            value = shifted.result
        narrow = arith.TruncIOp(value, i32)
        block.add_ops([narrow, linalg.YieldOp(narrow.result)])
        generic = linalg.GenericOp(
            [pairs], [into], Region(block),
            [AffineMapAttr(AffineMap.identity(rank)), AffineMapAttr(AffineMap(rank, 0, tuple(results)))],
            [linalg.IteratorTypeAttr.parallel()] * rank, [into.type],
        )
        rewriter.insert([*ops, generic])
        return generic.res[0]


class BitfoldRiscvPairLanesPass(ModulePass):
    """i32 contractions by constant weights whose lane bound holds accumulate two channels per
    64-bit register (module docstring); run on RV64 only, on tensors."""

    name = "bitfold-riscv-pair-lanes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_contractions(op, PairLanes())
