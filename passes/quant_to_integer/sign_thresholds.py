"""Sign activations after an affine chain become integer compares against thresholds
computed exactly at compile time (FINN's MultiThreshold with one threshold):

    qcast(f(dcast(q))) : bipolar   ->   bit = d * q >= t        (per element of the tables)

f is a chain of `Mul`, `Div`, `Add`, `Sub` by float constants and at most one inference
`BatchNormalization` (constant parameters), each broadcasting against the value (e.g. per
channel), every op but the last with that one user, the last op's one user a qcast to a
bipolar type: `+1 if x >= 0 else -1` (QONNX's BipolarQuant, 0 gives +1). The chain is
composed in exact rationals (the floats' exact values) as

    f(v) = L(v) + K(v) / sqrt(R)      L, K affine with rational coefficients, R = var + eps

(K = 0 without BatchNormalization), and v = s (q - zp) from q's type, so f is affine in q:
the bit is monotone in q, and its one step, found by bisection over q's range with an exact
test of f(q) >= 0 (squares compared where the signs of L and K differ), is the threshold t:

    f increasing:  bit = q >= t          d = +1
    f decreasing:  bit = q <= -t         d = -1
    f constant:    t = lo (always) or hi + 1 (never), d = +1

Exact in real arithmetic; the float reference rounds each step of the chain to its float
type, which can change the sign only where the exact f lies within those roundings of 0
(none on power-of-two scales and values, FINN's usual ones; an exact 0 gives +1 in both)."""

from fractions import Fraction

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.elementwise import AddOp, DivOp, MulOp, SubOp
from bitfold.dialects.onnx.nn import BatchNormalizationOp
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    QuantizeCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.passes.quant_to_integer.dequantized import quantized
from bitfold.passes.quant_to_integer.operands import Quantized, exact, fail, storage_value, widened
from bitfold.passes.utils.linalg_building import I32, Body, broadcast_map, build_generic, empty, integer_constant

AFFINE_OPS = (MulOp, DivOp, AddOp, SubOp, BatchNormalizationOp)
I1 = IntegerType(1)
ZERO = np.array(Fraction(0), dtype=object)


def _exact_array(value: SSAValue) -> np.ndarray | None:
    constant = constant_array(value)
    return None if constant is None else np.vectorize(exact, otypes=[object])(np.asarray(constant))


class Chain:
    """f(v) = (l1 v + l0) + (k1 v + k0) / sqrt(R), coefficients as arrays of Fractions."""

    def __init__(self):
        self.l1, self.l0, self.k1, self.k0 = np.array(Fraction(1), dtype=object), ZERO, ZERO, ZERO
        self.radicand: np.ndarray | None = None

    def scale(self, c) -> None:
        self.l1, self.l0, self.k1, self.k0 = self.l1 * c, self.l0 * c, self.k1 * c, self.k0 * c

    def step(self, op: Operation, value: SSAValue) -> bool:
        """Compose `op`, which reads `value` (the chain so far); False if it is not affine in it."""
        if isinstance(op, BatchNormalizationOp):
            return self._normalize(op, value)
        first = op.operands[0] == value
        other = op.operands[1] if first else op.operands[0]
        if op.operands[0] == op.operands[1] or (c := _exact_array(other)) is None:
            return False
        if isinstance(op, MulOp):
            self.scale(c)
        elif isinstance(op, AddOp):
            self.l0 = self.l0 + c
        elif isinstance(op, SubOp):
            if not first:
                self.scale(-1)
            self.l0 = self.l0 + (-c if first else c)
        elif not first or np.any(c == 0):
            return False
        else:
            self.scale(1 / c)
        return True

    def _normalize(self, op: BatchNormalizationOp, value: SSAValue) -> bool:
        """(x - mean) gamma / sqrt(var + eps) + beta along axis 1, once per chain."""
        parameters = [_exact_array(v) for v in (op.scale, op.b, op.input_mean, op.input_var)]
        if op.x != value or self.radicand is not None or any(p is None for p in parameters):
            return False
        rank = len(op.x.type.get_shape())
        gamma, beta, mean, var = (p.reshape(-1, *(1,) * (rank - 2)) for p in parameters)
        self.radicand = var + exact(op.float_attr("epsilon"))
        if np.any(self.radicand <= 0):
            return False
        self.k1, self.k0 = self.l1 * gamma, (self.l0 - mean) * gamma
        self.l1, self.l0 = ZERO, beta
        return True


def affine_chain(start: Operation, value: SSAValue) -> tuple[list[Operation], Chain, QuantizeCastOp] | None:
    """(ops, f, qcast): the chain from `start` (an op reading `value`) to a bipolar qcast,
    composed; None where the ops do not form one."""
    chain, ops, op = Chain(), [], start
    while isinstance(op, AFFINE_OPS):
        if not chain.step(op, value):
            return None
        ops.append(op)
        uses = list(op.results[0].uses)
        value, op = op.results[0], uses[0].operation if len(uses) == 1 else None
    if not isinstance(op, QuantizeCastOp) or not isinstance(element_type(op.result.type), BipolarQuantizedType):
        return None
    return ops, chain, op


def nonnegative(u: Fraction, w: Fraction, radicand: Fraction) -> bool:
    """u + w / sqrt(radicand) >= 0, exactly (radicand > 0)."""
    if u >= 0 and w >= 0:
        return True
    if u <= 0 and w <= 0:
        return False
    return u * u * radicand >= w * w if u > 0 else w * w >= u * u * radicand


def _threshold(low: int, high: int, at_least) -> tuple[int, int]:
    """(d, t) for the bit q -> at_least(q), monotone on [low, high] (module docstring)."""
    if at_least(low) == at_least(high):
        return 1, low if at_least(low) else high + 1
    increasing = at_least(high)
    lo, hi = low, high  # the step lies between lo and hi: at_least(lo) != at_least(hi)
    while hi - lo > 1:
        middle = (lo + hi) // 2
        lo, hi = (lo, middle) if at_least(middle) == increasing else (middle, hi)
    return (1, hi) if increasing else (-1, -lo)


def thresholds(qtype: UniformQuantizedType, shape, chain: Chain) -> tuple[np.ndarray, np.ndarray]:
    """(d, t) tables broadcast over q's parameters and the chain's constants (module docstring)."""
    scales, zero_points = qtype.parameter_arrays(shape)
    low, high = qtype.value_range()
    radicand = np.array(Fraction(1), dtype=object) if chain.radicand is None else chain.radicand
    tables = np.broadcast_arrays(
        np.vectorize(exact, otypes=[object])(scales), zero_points.astype(object), chain.l1, chain.l0, chain.k1, chain.k0,
        radicand,
    )
    direction = np.ones(tables[0].shape, dtype=np.int64)
    threshold = np.empty(tables[0].shape, dtype=np.int64)
    for index in np.ndindex(direction.shape):
        at_least = _sign_test(*(Fraction(t[index]) for t in tables))
        direction[index], threshold[index] = _threshold(low, high, at_least)
    return direction, threshold


def _sign_test(s: Fraction, zp: Fraction, l1: Fraction, l0: Fraction, k1: Fraction, k0: Fraction, r: Fraction):
    """q -> f(s (q - zp)) >= 0 for one element's chain."""

    def at_least(q: int) -> bool:
        v = s * (q - zp)
        return nonnegative(l1 * v + l0, k1 * v + k0, r)

    return at_least


class SignAfterAffineToThreshold(RewritePattern):
    """qcast(f(dcast(q))) to a bipolar type, f an affine chain -> `d * q >= t` (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, AFFINE_OPS):
            return
        sources = [v for v in op.operands if isinstance(v.owner, DequantizeCastOp)]
        if len(sources) != 1 or (chain := affine_chain(op, sources[0])) is None:
            return
        ops, composed, qcast = chain
        q = sources[0].owner.input
        source = Quantized(q, element_type(q.type), None)
        if not isinstance(source.qtype, UniformQuantizedType):
            raise fail(op, f"a sign after an affine chain needs a uniform input, got {source.qtype}")
        shape = source.shape
        coefficients = (composed.l1, composed.l0, composed.k1, composed.k0)
        if tuple(np.broadcast_shapes(shape, *(np.shape(c) for c in coefficients))) != shape:
            raise fail(op, "the chain's constants may not broadcast the dequantized operand")
        direction, threshold = thresholds(source.qtype, shape, composed)
        bits = _compare(rewriter, source, direction, threshold)
        rewriter.replace(qcast, [], [quantized(rewriter, bits, element_type(qcast.result.type))])
        for chained in reversed(ops):
            rewriter.erase(chained)


def _compare(rewriter: PatternRewriter, source: Quantized, direction: np.ndarray, threshold: np.ndarray) -> SSAValue:
    """bit = d * q >= t, d and t tables broadcast against q's shape."""
    rank = len(source.shape)
    inputs = [(storage_value(rewriter, source), AffineMap.identity(rank))]
    inputs.append((integer_constant(rewriter, threshold, I32), broadcast_map(threshold.shape, rank)))
    negate_all = bool(np.all(direction == -1))
    mixed = not negate_all and bool(np.any(direction == -1))
    if mixed:
        inputs.append((integer_constant(rewriter, direction, I32), broadcast_map(direction.shape, rank)))

    def build(body: Body) -> SSAValue:
        q = widened(body, body.values["in0"], source.qtype)
        if negate_all:
            q = body.emit(arith.SubiOp(body.constant(0, I32), q))
        elif mixed:
            q = body.emit(arith.MuliOp(q, body.values["in2"]))
        return body.emit(arith.CmpiOp(q, body.values["in1"], "sge"))

    return build_generic(rewriter, inputs, (empty(rewriter, source.shape, I1), AffineMap.identity(rank)), [], build)
