"""Sign activations after an affine chain become integer compares against thresholds
computed exactly at compile time (FINN's MultiThreshold with one threshold):

    qcast(f(dcast(q))) : bipolar   ->   bit = d * q >= t        (per element of the tables)

f is a chain of `Mul`, `Div`, `Add`, `Sub` by float constants (each broadcasting against the
value, e.g. per channel), every op but the last with that one user, the last op's one user a
qcast to a bipolar type: `+1 if x >= 0 else -1` (QONNX's BipolarQuant, 0 gives +1). With the
chain composed in exact rationals, f(v) = A v + B, and v = s (q - zp) from q's type:

    f >= 0  <=>  a q + b >= 0,   a = A s, b = B - A s zp
    a > 0:  q >= ceil(-b / a)            d = +1, t = ceil(-b / a)
    a < 0:  q <= floor(-b / a)           d = -1, t = -floor(-b / a)
    a = 0:  always (b >= 0) or never     d = +1, t = lo or hi + 1 of q's range

Exact in real arithmetic; the float reference rounds each product and sum of the chain to
its float type, which can change the sign only where the exact f lies within those
roundings of 0 (none on power-of-two scales and values, FINN's usual ones)."""

import math
from fractions import Fraction

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects.onnx.elementwise import AddOp, DivOp, MulOp, SubOp
from bitfold.dialects.quant import BipolarQuantizedType, DequantizeCastOp, QuantizeCastOp, UniformQuantizedType, element_type
from bitfold.passes.linalg_building import Body
from bitfold.passes.quant_propagation.casts import constant_array
from bitfold.passes.quant_to_integer.dequantized import quantized
from bitfold.passes.quant_to_integer.generic import I32, affine_map, build_generic, empty, integer_constant
from bitfold.passes.quant_to_integer.operands import Quantized, exact, fail, storage_value, widened

AFFINE_OPS = (MulOp, DivOp, AddOp, SubOp)
I1 = IntegerType(1)


def _single_user(op: Operation) -> Operation | None:
    uses = list(op.results[0].uses)
    return uses[0].operation if len(uses) == 1 else None


def _step(op: Operation, value: SSAValue, slope, offset):
    """(A, B) of op(previous f) where `value` is previous f, or None if op is not affine in it."""
    first = op.operands[0] == value
    other = op.operands[1] if first else op.operands[0]
    if op.operands[0] == op.operands[1] or (constant := constant_array(other)) is None:
        return None
    c = np.vectorize(exact, otypes=[object])(np.asarray(constant))
    if isinstance(op, MulOp):
        return slope * c, offset * c
    if isinstance(op, AddOp):
        return slope, offset + c
    if isinstance(op, SubOp):
        return (slope, offset - c) if first else (-slope, c - offset)
    if not first or np.any(c == 0):
        return None
    return slope / c, offset / c


def affine_chain(start: Operation, value: SSAValue):
    """(ops, A, B, qcast): the chain from `start` (an op reading `value`) to a bipolar qcast,
    composed to f(v) = A v + B; None where the ops do not form one."""
    slope, offset = np.array(Fraction(1), dtype=object), np.array(Fraction(0), dtype=object)
    ops, op = [], start
    while isinstance(op, AFFINE_OPS):
        if (step := _step(op, value, slope, offset)) is None:
            return None
        slope, offset = step
        ops.append(op)
        value, op = op.results[0], _single_user(op)
    if not isinstance(op, QuantizeCastOp) or not isinstance(element_type(op.result.type), BipolarQuantizedType):
        return None
    return ops, slope, offset, op


def thresholds(qtype: UniformQuantizedType, shape, slope: np.ndarray, offset: np.ndarray):
    """(d, t) tables broadcast over q's parameters and the chain's constants (module docstring)."""
    scales, zero_points = qtype.parameter_arrays(shape)
    low, high = qtype.value_range()
    a = slope * np.vectorize(exact, otypes=[object])(scales)
    b = offset - a * zero_points.astype(object)
    a, b = np.broadcast_arrays(a, b)
    direction = np.ones(a.shape, dtype=np.int64)
    threshold = np.empty(a.shape, dtype=np.int64)
    for index in np.ndindex(a.shape):
        slope_, offset_ = Fraction(a[index]), Fraction(b[index])
        if slope_ > 0:
            threshold[index] = min(max(math.ceil(-offset_ / slope_), low), high + 1)
        elif slope_ < 0:
            direction[index] = -1
            threshold[index] = -min(max(math.floor(-offset_ / slope_), low - 1), high)
        else:
            threshold[index] = low if offset_ >= 0 else high + 1
    return direction, threshold


def _broadcast_map(table_shape, rank: int) -> AffineMap:
    offset = rank - len(table_shape)
    return affine_map(rank, [AffineConstantExpr(0) if n == 1 else AffineDimExpr(offset + i) for i, n in enumerate(table_shape)])


class SignAfterAffineToThreshold(RewritePattern):
    """qcast(f(dcast(q))) to a bipolar type, f an affine chain -> `d * q >= t` (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, AFFINE_OPS):
            return
        sources = [v for v in op.operands if isinstance(v.owner, DequantizeCastOp)]
        if len(sources) != 1 or (chain := affine_chain(op, sources[0])) is None:
            return
        ops, slope, offset, qcast = chain
        q = sources[0].owner.input
        source = Quantized(q, element_type(q.type), None)
        if not isinstance(source.qtype, UniformQuantizedType):
            raise fail(op, f"a sign after an affine chain needs a uniform input, got {source.qtype}")
        shape = source.shape
        if tuple(np.broadcast_shapes(shape, np.shape(slope), np.shape(offset))) != shape:
            raise fail(op, "the chain's constants may not broadcast the dequantized operand")
        direction, threshold = thresholds(source.qtype, shape, slope, offset)
        bits = _compare(rewriter, source, direction, threshold)
        rewriter.replace(qcast, [], [quantized(rewriter, bits, element_type(qcast.result.type))])
        for chained in reversed(ops):
            rewriter.erase(chained)


def _compare(rewriter: PatternRewriter, source: Quantized, direction: np.ndarray, threshold: np.ndarray) -> SSAValue:
    """bit = d * q >= t, d and t tables broadcast against q's shape."""
    rank = len(source.shape)
    inputs = [(storage_value(rewriter, source), AffineMap.identity(rank))]
    inputs.append((integer_constant(rewriter, threshold, I32), _broadcast_map(threshold.shape, rank)))
    negate_all = bool(np.all(direction == -1))
    mixed = not negate_all and bool(np.any(direction == -1))
    if mixed:
        inputs.append((integer_constant(rewriter, direction, I32), _broadcast_map(direction.shape, rank)))

    def build(body: Body) -> SSAValue:
        q = widened(body, body.values["in0"], source.qtype)
        if negate_all:
            q = body.emit(arith.SubiOp(body.constant(0, I32), q))
        elif mixed:
            q = body.emit(arith.MuliOp(q, body.values["in2"]))
        return body.emit(arith.CmpiOp(q, body.values["in1"], "sge"))

    return build_generic(rewriter, inputs, (empty(rewriter, source.shape, I1), AffineMap.identity(rank)), [], build)
