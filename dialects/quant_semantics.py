"""The numpy reference of the quant casts: what `quant.qcast`, `quant.dcast`, `quant.scast`
and `quant.requant` compute (the op docstrings in `quant.py` state the formulas), and the
rounding and clamping the `qonnx` ops share with them.

Values of quantized types are numpy arrays of the stored integers (dtype
`bitfold.dialects.evaluation.numpy_dtype`); a bipolar value is -1 or +1.

Where the forms differ, and which one each function follows:
- Order of zero point and rounding. ONNX computes `R(x / s) + zp`, QONNX `R(x / s + zp)`.
  With R half to even they differ at ties when `zp` is odd: x / s = 2.5, zp = 1 gives
  2 + 1 = 3 (ONNX) but R(3.5) = 4 (QONNX). `quantize` takes the order as `zero_point_first`.
- Float against exact arithmetic. `quantize` computes `x / s` in the expressed type, as both
  references do, so a quotient that rounds onto a tie (or off one) rounds as the float
  says, not as the exact quotient would. In QONNX order `x / s + zp` is a second float
  operation: fl(fl(x / s) + zp) can land on a tie the exact sum misses (f32:
  fl(0.49999997 + 1) = 1.5). The ONNX order adds the zero point to an integer, exactly.
  `requantize` instead works on the exact values of the double scales (no float step).
- Rounding formulas. `round_with` is QONNX's formula for each mode, evaluated in the
  input's float type; see there for the two inputs where a formula is not exact rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, IntegerType, Signedness

from bitfold.dialects.evaluation import numpy_dtype, read_signed, read_unsigned
from bitfold.dialects.minifloat import decode, encode
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    FloatQuantizedType,
    QuantizedType,
    RoundingMode,
    UniformQuantizedType,
)

# ----------------------------------------------------------------------------------------
# Rounding and clamping
# ----------------------------------------------------------------------------------------

_FLOAT_ROUNDING: dict[RoundingMode, Callable[[np.ndarray], np.ndarray]] = {
    RoundingMode.HALF_TO_EVEN: np.round,
    RoundingMode.HALF_AWAY_FROM_ZERO: lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    RoundingMode.HALF_TOWARD_ZERO: lambda x: np.sign(x) * np.ceil(np.abs(x) - 0.5),
    RoundingMode.AWAY_FROM_ZERO: lambda x: np.sign(x) * np.ceil(np.abs(x)),
    RoundingMode.TOWARD_ZERO: np.fix,
    RoundingMode.CEIL: np.ceil,
    RoundingMode.FLOOR: np.floor,
}
"""QONNX's `resolve_rounding_mode`, mode by mode (`qonnx/custom_op/general/intquant.py`)."""


def round_with(x: np.ndarray, mode: RoundingMode) -> np.ndarray:
    """R(x) for a float array, in x's float type (integer-valued; NaN and infinities pass).

        half_to_even         np.round(x)
        half_away_from_zero  sign(x) * floor(|x| + 0.5)
        half_toward_zero     sign(x) * ceil(|x| - 0.5)
        away_from_zero       sign(x) * ceil(|x|)
        toward_zero          trunc(x)
        ceil, floor          ceil(x), floor(x)

    These are QONNX's formulas, the `+ 0.5` and `- 0.5` rounded in x's type. Exact rounding
    except at two kinds of input, for a type with p significand bits (24 for f32):
    `half_away_from_zero` sends +-(1/2 - 2^-(p+1)) (f32: 0.49999997) to +-1, and both half
    modes send an odd integer in [2^(p-1), 2^p) to an even neighbour."""
    return _FLOAT_ROUNDING[mode](x)


def clamp(values: np.ndarray, low, high) -> np.ndarray:
    """`high` where values > high, `low` where values < low, else the value (NaN passes),
    in QONNX's order of `np.where`s so that signed zeros come out as QONNX's do. For a
    monotone R that fixes integers and integer bounds, R(clamp(v)) = clamp(R(v))."""
    values = np.where(values > high, high, values)
    return np.where(values < low, low, values)


_ROUNDS_UP: dict[RoundingMode, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    RoundingMode.FLOOR: lambda f, r2, d: np.zeros_like(r2 > 0),
    RoundingMode.CEIL: lambda f, r2, d: r2 > 0,
    RoundingMode.TOWARD_ZERO: lambda f, r2, d: (r2 > 0) & (f < 0),
    RoundingMode.AWAY_FROM_ZERO: lambda f, r2, d: (r2 > 0) & (f >= 0),
    RoundingMode.HALF_TO_EVEN: lambda f, r2, d: (r2 > d) | ((r2 == d) & (f % 2 == 1)),
    RoundingMode.HALF_AWAY_FROM_ZERO: lambda f, r2, d: (r2 > d) | ((r2 == d) & (f >= 0)),
    RoundingMode.HALF_TOWARD_ZERO: lambda f, r2, d: (r2 > d) | ((r2 == d) & (f < 0)),
}
"""Whether n / d rounds to f + 1 rather than f = floor(n / d), given f, twice the
remainder r2 = 2 (n - f d) (0 <= r2 < 2d) and d; r2 = d is a tie."""


def round_quotient(numerator: np.ndarray, denominator: np.ndarray, mode: RoundingMode) -> np.ndarray:
    """R(numerator / denominator), exactly, for integer arrays (object arrays of Python
    ints for unbounded width) with denominator > 0: f = floor(n / d) plus one where the
    mode rounds up (`_ROUNDS_UP`). This is exact rounding in every mode."""
    floor = numerator // denominator
    twice_remainder = 2 * (numerator - floor * denominator)
    return floor + _ROUNDS_UP[mode](floor, twice_remainder, denominator)


def bipolar_sign(values: np.ndarray) -> np.ndarray:
    """+1 where values >= 0 (-0.0 included), else -1 (NaN included), in values' type."""
    ones = np.ones_like(values)
    return np.where(values >= 0.0, ones, -ones)


# ----------------------------------------------------------------------------------------
# Casts
# ----------------------------------------------------------------------------------------


def _expressed_dtype(qtype: QuantizedType) -> np.dtype:
    """numpy type of the expressed arithmetic; bf16 has none (numpy computes it in f32,
    which rounds differently), so it is refused rather than computed wrongly."""
    if isinstance(qtype.expressed_type, BFloat16Type):
        raise NotImplementedError(f"no numpy reference for bf16 arithmetic ({qtype})")
    return numpy_dtype(qtype.expressed_type)


def scale_and_round(
    x: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    low: int,
    high: int,
    rounding: RoundingMode,
    zero_point_first: bool,
) -> np.ndarray:
    """The grid point of x, as integer-valued floats in [low, high]:

        zero_point_first:  R(clamp(x / scale + zero_point, low, high))      in x's float type
        otherwise:         clamp(R(x / scale), low - zp, high - zp) + zp     (an int64 zp:
                                                                           float64, exact)

    `scale` and `zero_point` broadcast against x and have x's float type where the sum is a
    float one (QONNX's float32 `zeropt`); see the module docstring for the float steps."""
    scaled = x / scale
    if zero_point_first:
        return round_with(clamp(scaled + zero_point, low, high), rounding)
    offset = clamp(round_with(scaled, rounding), low - zero_point, high - zero_point)
    return offset + zero_point


def quantize(
    x: np.ndarray,
    qtype: QuantizedType,
    rounding: RoundingMode = RoundingMode.HALF_TO_EVEN,
    zero_point_first: bool = False,
    saturate: bool = True,
) -> np.ndarray:
    """`quant.qcast` of x (the expressed type's array) to `qtype`'s stored integers:

        q = clamp(R(x / s) + zp, storage_min, storage_max)       (ONNX QuantizeLinear)
        q = clamp(R(x / s + zp), storage_min, storage_max)       (zero_point_first, QONNX)

    with s rounded to the expressed type, `x / s` (and `+ zp` when first) computed in it,
    s and zp per element from `parameter_arrays(x.shape)`. Bipolar: q = +1 if x >= 0 else -1
    (the sign of x, as QONNX's BipolarQuant; NaN gives -1). A NaN input gives storage_min,
    as onnxruntime's QuantizeLinear does on x86 (its float clamp keeps the bound where x / s
    is NaN); +-inf saturate. (qonnx's Quant returns NaN, which no stored integer holds.) Float
    storage: the bit pattern `minifloat.encode(x / s, saturate)` (NaN gives the format's NaN;
    `saturate` False: overflow to the format's infinity or NaN)."""
    dtype = _expressed_dtype(qtype)
    scale, zero_point = qtype.parameter_arrays(x.shape)
    x, scale = x.astype(dtype, copy=False), scale.astype(dtype)
    if isinstance(qtype, BipolarQuantizedType):
        return bipolar_sign(x).astype(numpy_dtype(qtype))
    if isinstance(qtype, FloatQuantizedType):
        return encode(x / scale, qtype.semantics, saturate=saturate)
    low, high = qtype.value_range()
    if zero_point_first:
        zero_point = zero_point.astype(dtype)
    grid = scale_and_round(x, scale, zero_point, low, high, rounding, zero_point_first)
    grid = np.where(np.isnan(grid), low, grid)
    # The float bounds of a wide storage range may round outward (f32: 2^31 - 1 -> 2^31).
    return clamp(grid.astype(np.int64), low, high).astype(numpy_dtype(qtype))


def dequantize(q: np.ndarray, qtype: QuantizedType) -> np.ndarray:
    """`quant.dcast`: x = (q - zp) * s, the difference exact and converted to the expressed
    type, the product rounded once in it. Equals ONNX DequantizeLinear's reference (which
    converts q to f32 before subtracting) wherever |q| and |q - zp| are below 2^p."""
    dtype = _expressed_dtype(qtype)
    scale, zero_point = qtype.parameter_arrays(q.shape)
    if isinstance(qtype, FloatQuantizedType):
        return decode(q, qtype.semantics).astype(dtype) * scale.astype(dtype)
    return (q.astype(np.int64) - zero_point).astype(dtype) * scale.astype(dtype)


def exact_ratios(numerator_scales: np.ndarray, denominator_scales: np.ndarray) -> np.ndarray:
    """s_in / s_out of the doubles' exact values, elementwise, as an object array of Fractions."""
    return np.frompyfunc(lambda a, b: Fraction(a) / Fraction(b), 2, 1)(numerator_scales, denominator_scales)


def _lowest_terms(in_scale: np.ndarray, out_scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, d) with n / d = s_in / s_out exactly, in lowest terms (object arrays, d > 0)."""
    ratios = exact_ratios(in_scale, out_scale)
    part = np.frompyfunc(lambda f, name: getattr(f, name), 2, 1)
    return part(ratios, "numerator"), part(ratios, "denominator")


ScaleRatio = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""How a requantization takes s_in / s_out: from the two scale arrays, integer arrays (n, d > 0)
with s_in / s_out = n / d (exact) or ~= n / d (a fixed-point multiplier over 2^shift)."""


def requantize_by_ratio(
    q: np.ndarray,
    in_type: UniformQuantizedType,
    out_type: UniformQuantizedType,
    ratio: ScaleRatio,
    rounding: RoundingMode = RoundingMode.HALF_TO_EVEN,
    zero_point_first: bool = False,
) -> np.ndarray:
    """q_out = clamp(R((q - zp_in) * n / d) + zp_out, min_out, max_out), or with
    `zero_point_first` clamp(R((q - zp_in) * n / d + zp_out), min_out, max_out), per element
    with (n, d) = ratio(s_in, s_out): R is `round_quotient` on Python ints (no overflow)."""
    in_scale, in_zero_point = in_type.parameter_arrays(q.shape)
    out_scale, out_zero_point = out_type.parameter_arrays(q.shape)
    numerator, denominator = ratio(in_scale, out_scale)
    product = (q.astype(object) - in_zero_point.astype(object)) * numerator
    out_zero_point = out_zero_point.astype(object)
    if zero_point_first:
        grid = round_quotient(product + out_zero_point * denominator, denominator, rounding)
    else:
        grid = round_quotient(product, denominator, rounding) + out_zero_point
    low, high = out_type.value_range()
    return clamp(grid, low, high).astype(numpy_dtype(out_type))


def requantize(
    q: np.ndarray,
    in_type: UniformQuantizedType,
    out_type: UniformQuantizedType,
    rounding: RoundingMode = RoundingMode.HALF_TO_EVEN,
    zero_point_first: bool = False,
) -> np.ndarray:
    """`quant.requant`, in exact rational arithmetic on the scales' double values:

        q_out = clamp(R((q - zp_in) * s_in / s_out) + zp_out, min_out, max_out)
        q_out = clamp(R((q - zp_in) * s_in / s_out + zp_out), min_out, max_out)   (zero_point_first)

    Per element, with s_in / s_out = n / d in lowest terms (`requantize_by_ratio`)."""
    return requantize_by_ratio(q, in_type, out_type, _lowest_terms, rounding, zero_point_first)


# ----------------------------------------------------------------------------------------
# Storage reinterpretation (quant.scast)
# ----------------------------------------------------------------------------------------


def to_storage(q: np.ndarray, qtype: QuantizedType, integer: IntegerType | None = None) -> np.ndarray:
    """`quant.scast` to the storage integers: the stored value's bit pattern, read as
    `integer` (default: the signless storage type). Uniform: the low N bits of q, read as
    uiN for an unsigned `integer`, else as a signed N-bit value (numpy: for i1 a bool whose
    set bit is -1). Bipolar: the bit b = (q + 1) / 2."""
    storage = integer or qtype.storage_integer_type()
    if isinstance(qtype, FloatQuantizedType) and not isinstance(storage, IntegerType):
        return q.astype(np.uint8).view(numpy_dtype(storage))
    if isinstance(qtype, BipolarQuantizedType):
        return ((q.astype(np.int64) + 1) // 2).astype(numpy_dtype(storage))
    read = read_unsigned if storage.signedness.data == Signedness.UNSIGNED else read_signed
    return read(q, storage.width.data).astype(numpy_dtype(storage))


def from_storage(bits: np.ndarray, qtype: QuantizedType) -> np.ndarray:
    """`quant.scast` from signless storage integers: the inverse of `to_storage`.
    Uniform: the low N bits read as iN or uN (the type's signedness). Bipolar: q = 2b - 1."""
    if isinstance(qtype, BipolarQuantizedType):
        return (2 * bits.astype(np.int64) - 1).astype(numpy_dtype(qtype))
    if isinstance(qtype, FloatQuantizedType):
        raw = bits.view(np.uint8) if bits.dtype.itemsize == 1 and bits.dtype.kind not in "iub" else bits
        return read_unsigned(raw, qtype.storage_width).astype(numpy_dtype(qtype))
    read = read_signed if qtype.is_signed else read_unsigned
    return read(bits, qtype.storage_width).astype(numpy_dtype(qtype))
