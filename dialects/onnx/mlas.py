"""The float32 arithmetic of onnxruntime's CPU kernels on x86-64 (MLAS), bit for bit: the
quantized ops of `contrib.py` and `quantization.py`'s QLinearConv and QLinearMatMul share it.

Notation (the op docstrings use it):
- all float arithmetic is float32 (`fl(...)` rounds one step to float32), scales are float32;
- `cvt(v)` is x86 `cvtps2dq`: round half to even to int32, and INT32_MIN for NaN and for
  |v| >= 2^31 (an overflow saturates low, not high);
- `sat(v)` clamps to the result's integer range ([0, 255] for ui8, [-128, 127] for i8);
- `dq(x) = fl(x_scale * float(x - x_zero_point))` (the difference is an exact integer);
- `quantize(v) = sat(cvt(clamp(fl(v / y_scale), low - y_zp, high - y_zp)) + y_zp)`
  (MLAS `MlasQuantizeLinear`, ONNX QuantizeLinear's rounding: half to even before the zero
  point is added);
- `requantize(acc, scale) = cvt(clamp(fl(float(acc) * scale), low - y_zp, high - y_zp)) + y_zp`
  (MLAS `MlasRequantizeOutput`; `float(acc)` rounds an int32 above 2^24 to nearest even);
- a missing zero point is 0.
Other CPUs (ARM NEON, POWER) run other MLAS kernels (fixed-point QLinearAdd, ...) whose results
differ in the last bit; bitfold follows x86-64, and where MLAS picks a kernel by instruction set
(QLinearAdd) the one of x86-64 with AVX2 and FMA3.
"""

import numpy as np

F32 = np.float32

INT32_MIN = -(2**31)
"""What x86 `cvtps2dq` returns for NaN and out-of-range values (the "integer indefinite")."""


def x86_round(values: np.ndarray) -> np.ndarray:
    """`cvt(values)`, as int64: round half to even, INT32_MIN for NaN and for magnitudes of
    2^31 and above."""
    wide = np.asarray(values, dtype=np.float64)
    in_range = np.abs(wide) < 2.0**31
    return np.where(in_range, np.rint(np.where(in_range, wide, 0.0)), INT32_MIN).astype(np.int64)


def integer_zero_point(zero_point: np.ndarray | None) -> int:
    """A per-tensor zero point as a Python int (0 when absent)."""
    return 0 if zero_point is None else int(zero_point.reshape(-1)[0])


def float_scalar(value: np.ndarray) -> np.float32:
    """A per-tensor scale as a float32 scalar."""
    return F32(value.reshape(-1)[0])


def mlas_dequantize(x: np.ndarray, scale: np.float32, zero_point: int) -> np.ndarray:
    """`dq(x) = fl(scale * float(x - zero_point))`, float32."""
    return (x.astype(np.int64) - zero_point).astype(F32) * scale


def _round_and_shift(scaled: np.ndarray, zero_point: int, low: int, high: int) -> np.ndarray:
    """`sat(cvt(clamp(scaled, low - zero_point, high - zero_point)) + zero_point)`, as int64:
    the last steps of both `quantize` and `requantize`."""
    clamped = np.minimum(np.maximum(scaled, F32(low - zero_point)), F32(high - zero_point))
    return np.clip(x86_round(clamped) + zero_point, low, high)


def mlas_quantize(values: np.ndarray, scale: np.float32, zero_point: int, low: int, high: int) -> np.ndarray:
    """`quantize(values)` (MlasQuantizeLinear), as int64 in [low, high]."""
    return _round_and_shift(np.asarray(values, dtype=F32) / scale, zero_point, low, high)


def mlas_requantize(accumulator: np.ndarray, scale: np.ndarray, zero_point: int, low: int, high: int) -> np.ndarray:
    """`requantize(accumulator, scale)` (MlasRequantizeOutput), as int64 in [low, high];
    `scale` (float32) broadcasts against the int32 accumulator."""
    product = accumulator.astype(np.int32).astype(F32) * np.asarray(scale, dtype=F32)
    return _round_and_shift(product, zero_point, low, high)


def requantization_scale(input_scale: np.ndarray, weight_scale: np.ndarray, result_scale: np.ndarray) -> np.ndarray:
    """`fl(fl(input_scale * weight_scale) / result_scale)` in float32, broadcasting: the scale
    onnxruntime's QLinearConv and QLinearMatMul requantize with (per weight channel where
    `weight_scale` is)."""
    product = np.asarray(input_scale, dtype=F32) * np.asarray(weight_scale, dtype=F32)
    return product / np.asarray(result_scale, dtype=F32)


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 `fma(a, b, c)`: a * b + c rounded once to float32 (x86 `vfmadd`), exactly.
    a * b is exact in float64; the float64 sum's error is recovered (TwoSum), and where that sum
    lies exactly halfway between two float32 values the error decides the side."""
    product = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    addend = np.asarray(c, dtype=np.float64)
    total = product + addend
    virtual = total - product
    error = (product - (total - virtual)) + (addend - virtual)
    rounded = total.astype(F32)
    toward = np.nextafter(rounded, np.where(total > rounded, np.inf, -np.inf).astype(F32))
    tie = (total != rounded) & (total == (rounded.astype(np.float64) + toward.astype(np.float64)) / 2)
    return np.where(tie & (error * (total - rounded) > 0), toward, rounded)
