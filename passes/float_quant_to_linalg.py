"""QONNX `FloatQuant` on f32 in a float island (a pattern of `onnx-float-to-linalg`): one
`linalg.generic` computing, per element, qonnx's `float_quant` (`qonnx.FloatQuant`'s docstring)
with the same f32 operations in the same order, E, M, B, max_val constants:

    v = x / s                                               divf
    a = maximumf(v, -v) + tiny                              (tiny = 2^-126, as np.abs(v) + tiny)
    k = (bitcast_i32(a) >> 23) - 127                        floor(log2(a)): a's binade
    u = bitcast_f32((max(k - M, 1 - B - M) + 127) << 23)    the step, 2^max(k - M, 1 - B - M)
    q = u * roundeven(v / u)                                divf, roundeven, mulf
    y = minimumf(maximumf(q, -L), L)                        L = min(minifloat_max(E, M, B), max_val)
    saturation = 0:  y = q > L ? inf : q < -L ? -inf : y    (has_inf)
                     y = q beyond +-L or infinite ? NaN : y (has_nan)
    y = NaN where v is infinite or NaN                      (qonnx: log2(inf) gives step inf, v / inf NaN)
    out = y * s                                             mulf

Exact to the reference (bit for bit) where its float32 `log2` gives the binade: it does except for
a within a few ulps below a power of two, where log2 rounds up to the integer and qonnx takes the
step twice as coarse; there both steps round v to that power of two (|v/u| lies within 2^(M+1-17)
of 2^(M+1), well inside half a step for M <= MAX_MANTISSA_BITS). Refused with one line ("no float
lowering"): rounding modes other than ROUND / HALF_EVEN (islands round to nearest even only),
M > MAX_MANTISSA_BITS, steps below 2^-126 (1 - B - M < -126), parameters that are not constants.
A FloatQuant of a constant (weights) is computed at compile time by the reference itself."""

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, math
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects.minifloat import F32_BIAS, F32_INFINITY, F32_MANTISSA_BITS
from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.onnx.constant import dense_to_numpy
from bitfold.dialects.qonnx import FloatQuantOp, minifloat_max
from bitfold.dialects.quant import RoundingMode
from bitfold.passes.float_generics import F32, clamp_f32, elementwise, fail
from bitfold.passes.utils.linalg_building import I32, Body, integer_constant

F32_TINY = float(np.finfo(np.float32).tiny)
F32_EXPONENT_MIN = -126
F32_NAN_BITS = 0x7FC00000
"""numpy's float32 NaN (qonnx's np.nan), positive and quiet"""
MAX_MANTISSA_BITS = 10
"""The widest mantissa lowered (fp8, fp16-like and bf16-like formats); module docstring."""


def _constant(op: FloatQuantOp, value: SSAValue, role: str) -> np.ndarray:
    if not isinstance(value.owner, OnnxConstantOp):
        fail(op, f"no float lowering for FloatQuant with a non-constant {role}")
    return dense_to_numpy(value.owner.value)


def _parameters(op: FloatQuantOp) -> tuple[int, int, float, bool]:
    """(M, 1 - B - M, L, saturation) of a lowerable FloatQuant (module docstring), else fail."""
    if op.rounding() != RoundingMode.HALF_TO_EVEN:
        mode = op.string_attr("rounding_mode")
        fail(op, f"no float lowering for FloatQuant rounding {mode} (islands round half to even)")
    exponent_bits, mantissa_bits, bias, max_val = (
        _constant(op, v, r) for v, r in ((op.exponent_bitwidth, "exponent_bitwidth"),
                                         (op.mantissa_bitwidth, "mantissa_bitwidth"),
                                         (op.exponent_bias, "exponent_bias"), (op.max_val, "max_val")))  # fmt: skip
    m = int(mantissa_bits.reshape(()))
    if m > MAX_MANTISSA_BITS:
        fail(op, f"no float lowering for FloatQuant with {m} mantissa bits (at most {MAX_MANTISSA_BITS})")
    lowest = 1.0 - float(bias.reshape(())) - m
    if not lowest.is_integer() or lowest < F32_EXPONENT_MIN:
        fail(op, f"no float lowering for FloatQuant with exponent bias {bias.reshape(())} (steps below 2^-126)")
    largest = np.minimum(minifloat_max(exponent_bits, mantissa_bits, bias), max_val)
    return m, int(lowest), float(np.float32(largest.reshape(()))), op.flag("saturation")


def emit_float_quant(body: Body, op: FloatQuantOp, x: SSAValue, scale: SSAValue) -> SSAValue:
    """The module docstring's formula on one element."""
    m, lowest, largest, saturation = _parameters(op)

    def c(value: int) -> SSAValue:
        return body.constant(value, I32)

    def f(value: float) -> SSAValue:
        return body.constant(value, F32)

    def emit(kind: Callable[..., Operation], *operands) -> SSAValue:
        return body.emit(kind(*operands))

    def from_bits(bits: int) -> SSAValue:
        return emit(arith.BitcastOp, c(bits), F32)

    v = emit(arith.DivfOp, x, scale)
    a = emit(arith.AddfOp, emit(arith.MaximumfOp, v, emit(arith.NegfOp, v)), f(F32_TINY))
    field = emit(arith.ShRUIOp, emit(arith.BitcastOp, a, I32), c(F32_MANTISSA_BITS))
    step_exponent = emit(arith.MaxSIOp, emit(arith.SubiOp, field, c(F32_BIAS + m)), c(lowest))
    step_field = emit(arith.ShLIOp, emit(arith.AddiOp, step_exponent, c(F32_BIAS)), c(F32_MANTISSA_BITS))
    step = emit(arith.BitcastOp, step_field, F32)
    q = emit(arith.MulfOp, step, emit(math.RoundEvenOp, emit(arith.DivfOp, v, step)))
    y = clamp_f32(body, q, -largest, largest)
    nan = from_bits(F32_NAN_BITS)
    if not saturation:
        above, below = emit(arith.CmpfOp, q, f(largest), "ogt"), emit(arith.CmpfOp, q, f(-largest), "olt")
        infinity = from_bits(F32_INFINITY)
        if op.flag("has_inf"):
            y = emit(arith.SelectOp, above, infinity, emit(arith.SelectOp, below, emit(arith.NegfOp, infinity), y))
        else:
            infinite_q = emit(arith.CmpfOp, emit(arith.MaximumfOp, q, emit(arith.NegfOp, q)), infinity, "oeq")
            y = emit(arith.SelectOp, emit(arith.OrIOp, emit(arith.OrIOp, above, below), infinite_q), nan, y)
    special = emit(arith.CmpiOp, field, c(F32_INFINITY >> F32_MANTISSA_BITS), "eq")  # v infinite or NaN
    return emit(arith.MulfOp, emit(arith.SelectOp, special, nan, y), scale)


class LowerFloatQuant(RewritePattern):
    """qonnx.FloatQuant on f32 -> the generic of the module docstring (a constant x: folded)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, FloatQuantOp) or op.y.type.element_type != F32:
            return
        if all(isinstance(v.owner, OnnxConstantOp) for v in op.operands):
            (folded,) = op.evaluate([dense_to_numpy(v.owner.value) for v in op.operands])
            rewriter.replace(op, [], [integer_constant(rewriter, folded, F32)])
            return
        _parameters(op)  # refuse before building anything
        elementwise(rewriter, op, [op.x, op.scale], lambda body, x, s: emit_float_quant(body, op, x, s))
