"""Minifloats: the float8 and float4 storage formats (ONNX FLOAT8E4M3FN, FLOAT8E4M3FNUZ,
FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1; MLIR `f8E4M3FN`, `f8E4M3FNUZ`, `f8E5M2`,
`f8E5M2FNUZ`, `f4E2M1FN`): rounding float32 values into a format and reading them back, in
integer arithmetic on the float32 bits, so that the same formulas serve as the numpy
reference and as the compiled code.

A format is xDSL's `FloatSemantics` (LLVM's `fltSemantics`): E exponent bits, M mantissa
bits, bias B, a sign bit; its specials as its `nonfinite` behaviour and `nan_encoding` say
(`f8E5M2`: IEEE infinities and NaNs; `f8E4M3FN`: no infinities, NaN = S.1111.111;
`*FNUZ`: NaN = 1.0000.000, no -0; `f4E2M1FN`: no specials). emin = 1 - B is the exponent
of the smallest normal value, 2^(emin - M) the subnormal step; `max_code` is the largest
finite magnitude's bits (f8E4M3FN 0x7E = 448, f8E4M3FNUZ 0x7F = 240, f8E5M2 0x7B = 57344,
f8E5M2FNUZ 0x7F = 57344, f4E2M1FN 0x7 = 6).

Encoding (`encode`), for float32 bits u = s.e.f (sign s, biased exponent e, fraction f):
    E = max(e, 1) - 127, sig = f + 2^23 [e > 0]          (|x| = sig * 2^(E - 23), exactly)
    k = 23 - M + max(emin - E, 0)                        (bits below the target's step)
    n = (sig + 2^(k-1) - 1 + ((sig >> k) & 1)) >> k      (sig / 2^k rounded half to even)
    code = (max(E - emin, 0) << M) + n
A carry of n into the next binade (n = 2^(M+1), or 2^M from a subnormal) is the next
exponent's code, so one addition covers every case. Then, in this order: NaN (|u| above
the infinity pattern) gives the format's NaN; code > max_code (infinities included) gives
max_code when saturating, else the format's overflow value (infinity, NaN, or for formats
without specials max_code); the sign is or-ed in at bit E + M, except that FNUZ formats have
no -0 (a zero is 0x00) and one NaN (0x80). This is ONNX's conversion (the Cast operator's
tables, `saturate` as QuantizeLinear's attribute), and bit for bit onnx's reference
implementation (ml_dtypes); a NaN into f4E2M1FN, which has none, gives the zero of the
opposite sign as ml_dtypes does.

Decoding (`decode`) is exact: a table of 2^(1 + E + M) float32 values indexed by the bits.
"""

from functools import cache

import numpy as np
from xdsl.dialects.builtin import (
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    FloatNanEncoding,
    FloatNonfiniteBehavior,
    FloatSemantics,
    ReducedPrecisionFloatType,
)
from xdsl.ir import Attribute

FLOAT_STORAGE_TYPES: tuple[type[ReducedPrecisionFloatType], ...] = (
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2Type,
    Float8E5M2FNUZType,
    Float4E2M1FNType,
)
"""The float types bitfold quantizes to: ONNX's float8 and float4 quantization types."""

F32_MANTISSA_BITS = 23
F32_BIAS = 127
F32_INFINITY = 0x7F800000
"""float32 |x| bits of +infinity; anything above is a NaN."""


def is_float_storage(element: Attribute) -> bool:
    return isinstance(element, FLOAT_STORAGE_TYPES)


def numpy_float_storage_dtype(element: Attribute) -> np.dtype:
    """The ml_dtypes dtype holding values of a float storage type (one byte each, as ONNX's
    numpy_helper holds them)."""
    import ml_dtypes

    dtypes = {
        Float8E4M3FNType: ml_dtypes.float8_e4m3fn,
        Float8E4M3FNUZType: ml_dtypes.float8_e4m3fnuz,
        Float8E5M2Type: ml_dtypes.float8_e5m2,
        Float8E5M2FNUZType: ml_dtypes.float8_e5m2fnuz,
        Float4E2M1FNType: ml_dtypes.float4_e2m1fn,
    }
    return np.dtype(dtypes[type(element)])


def sign_bit(semantics: FloatSemantics) -> int:
    return 1 << semantics.sign_shift


def is_fnuz(semantics: FloatSemantics) -> bool:
    return semantics.nan_encoding is FloatNanEncoding.NEGATIVE_ZERO


def max_code(semantics: FloatSemantics) -> int:
    """The bits of the largest finite magnitude."""
    all_ones = (1 << semantics.sign_shift) - 1
    if semantics.nonfinite is FloatNonfiniteBehavior.IEEE:
        return (semantics.max_exponent << semantics.mantissa_bits) - 1
    if semantics.nonfinite is FloatNonfiniteBehavior.NAN_ONLY and semantics.nan_encoding is FloatNanEncoding.ALL_ONES:
        return all_ones - 1
    return all_ones


def nan_code(semantics: FloatSemantics, negative: np.ndarray) -> np.ndarray:
    """The bits a NaN of the given sign becomes (see the module docstring)."""
    sign = np.where(negative, sign_bit(semantics), 0)
    if semantics.nonfinite is FloatNonfiniteBehavior.FINITE_ONLY:
        return sign_bit(semantics) - sign
    if is_fnuz(semantics):
        return np.full_like(sign, sign_bit(semantics))
    if semantics.nan_encoding is FloatNanEncoding.ALL_ONES:
        return sign | (sign_bit(semantics) - 1)
    return sign | (semantics.max_exponent << semantics.mantissa_bits) | (1 << (semantics.mantissa_bits - 1))


def overflow_code(semantics: FloatSemantics, saturate: bool) -> int:
    """The magnitude bits of a value beyond max_code (before the sign): max_code when
    saturating or without specials, else infinity (IEEE) or NaN."""
    if saturate or semantics.nonfinite is FloatNonfiniteBehavior.FINITE_ONLY:
        return max_code(semantics)
    if semantics.nonfinite is FloatNonfiniteBehavior.IEEE:
        return semantics.max_exponent << semantics.mantissa_bits
    return sign_bit(semantics) if is_fnuz(semantics) else sign_bit(semantics) - 1


def round_shift(significand: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """significand / 2^shift rounded half to even (shift >= 1, int64 arrays)."""
    return (significand + (np.int64(1) << (shift - 1)) - 1 + ((significand >> shift) & 1)) >> shift


def encode(x: np.ndarray, semantics: FloatSemantics, saturate: bool = True) -> np.ndarray:
    """The bits (uint8) of x (float32, or converted to it exactly) in the format, by the
    module docstring's formulas."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.int64)
    negative = bits >> 31 == 1
    magnitude = bits & 0x7FFFFFFF
    biased = magnitude >> F32_MANTISSA_BITS
    exponent = np.maximum(biased, 1) - F32_BIAS
    significand = (magnitude & ((1 << F32_MANTISSA_BITS) - 1)) + np.where(biased > 0, 1 << F32_MANTISSA_BITS, 0)
    mantissa_bits, emin = semantics.mantissa_bits, 1 - semantics.exponent_bias
    shift = np.minimum(F32_MANTISSA_BITS - mantissa_bits + np.maximum(emin - exponent, 0), 62)
    code = (np.maximum(exponent - emin, 0) << mantissa_bits) + round_shift(significand, shift)
    code = np.where(code > max_code(semantics), overflow_code(semantics, saturate), code)
    fnuz_nan_or_zero = is_fnuz(semantics) & ((code == 0) | (code == sign_bit(semantics)))
    code = np.where(negative & ~fnuz_nan_or_zero, code | sign_bit(semantics), code)
    code = np.where(magnitude > F32_INFINITY, nan_code(semantics, negative), code)
    return code.astype(np.uint8)


@cache
def decode_table(semantics: FloatSemantics) -> np.ndarray:
    """The float32 value of each bit pattern of the format (exact):
        e = 0:   (-1)^s * f * 2^(emin - M)
        e > 0:   (-1)^s * (2^M + f) * 2^(e - B - M)
    and the specials (NaN as float32's quiet NaN of the pattern's sign bit, as ml_dtypes
    reads them)."""
    codes = np.arange(1 << semantics.bitwidth, dtype=np.int64)
    mantissa_bits, bias = semantics.mantissa_bits, semantics.exponent_bias
    field = (codes >> mantissa_bits) & semantics.max_exponent
    fraction = codes & semantics.max_mantissa
    significand = np.where(field > 0, fraction + (1 << mantissa_bits), fraction)
    power = np.maximum(field, 1) - bias - mantissa_bits
    values = np.ldexp(significand.astype(np.float64), power)
    negative = (codes >> semantics.sign_shift) & 1 == 1
    values = np.where(negative, -values, values).astype(np.float32)
    if semantics.nonfinite is FloatNonfiniteBehavior.IEEE:
        special = field == semantics.max_exponent
        values = np.where(special & (fraction == 0), np.where(negative, -np.inf, np.inf), values)
        values = np.where(special & (fraction != 0), np.where(negative, -np.nan, np.nan), values)
    elif is_fnuz(semantics):
        values = np.where(codes == sign_bit(semantics), -np.nan, values)
    elif semantics.nonfinite is FloatNonfiniteBehavior.NAN_ONLY:
        values = np.where((codes & (sign_bit(semantics) - 1)) == sign_bit(semantics) - 1,
                          np.where(negative, -np.nan, np.nan), values)
    return values.astype(np.float32)


def decode(bits: np.ndarray, semantics: FloatSemantics) -> np.ndarray:
    """The float32 values of bit patterns (any integer array, or an ml_dtypes array of the
    format), exactly: `decode_table` looked up."""
    bits = np.asarray(bits)
    if bits.dtype.itemsize == 1 and bits.dtype.kind not in "iub":
        bits = bits.view(np.uint8)
    return decode_table(semantics)[bits.astype(np.int64) & ((1 << semantics.bitwidth) - 1)]
