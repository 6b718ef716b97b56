"""Quantization schemes: uniform types from observed ranges and from weights.

A `Scheme` is a bit width (1..16), symmetric or not, and whether scales are powers of two.

- Activations, asymmetric: the range [lo, hi] is widened to hold 0, `s = (hi - lo) / (2^N - 1)`,
  `zp = round(-lo / s)`, unsigned storage [0, 2^N - 1] (onnxruntime's asymmetric uint8 scheme).
- Activations, symmetric (zero point 0): a range without negatives takes unsigned [0, 2^N - 1]
  with `s = hi / (2^N - 1)`; otherwise the narrow signed range [-(2^(N-1) - 1), 2^(N-1) - 1] with
  `s = max(|lo|, |hi|) / (2^(N-1) - 1)`; N = 1 signed is bipolar with `s = max(|lo|, |hi|)`.
- Weights: always symmetric, narrow signed per output channel (`axis`) or per tensor,
  `s = max|w| / (2^(N-1) - 1)`; N = 1 is bipolar with `s = mean|w|` (the scale that minimizes
  the squared error of sign(w) s). A channel of zeros gets s = 1. N = 2 is ternary
  {-s, 0, +s}: with s = max|w| every weight below max|w| / 2 would become 0, so its peak is always
  clipped as below (the least-squares scale ternary networks use). With `clip_weights` (the `mse`
  method) the peak max|w| of each channel is replaced by `a max|w|`, a among
  `WEIGHT_CLIP_FRACTIONS`, minimizing the channel's squared quantization error
  sum (w - s clamp(round(w / s), -L, L))^2 with s = a max|w| / L, L = 2^(N-1) - 1.
- Power of two: `s` rounded up to `2^ceil(log2 s)` (the range still fits; requantization between
  such scales is a plain shift).
- Biases: int32 on the accumulator grid, `s_b = s_x s_w` (per channel with the weights),
  `q = round_half_even(b / s_b)` (onnxruntime's bias quantization).
Scales are computed in the expressed type's arithmetic (f32 for f32 models), as onnxruntime's
quantizer does, so equal ranges give bit-identical scales. Storage is canonical
(docs/canonical-quant-form.md): `u8<0:63>` for 6 bits unsigned."""

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import AnyFloat

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.quant import BipolarQuantizedType, QuantizedType, UniformQuantizedType
from bitfold.passes.utils.canonical_storage import canonical_storage

WEIGHT_CLIP_FRACTIONS = np.linspace(0.3, 1.0, 71)
"""Candidate clipping fractions of a channel's peak |w| (steps of 0.01)."""
TERNARY_BITS = 2
"""Narrow symmetric 2-bit weights are ternary: stored values -1, 0, 1."""
SMALLEST_RANGE = 1e-8
"""A range narrower than this (a constant activation) is widened to it, so the scale is positive."""


@dataclass(frozen=True)
class Scheme:
    bits: int
    symmetric: bool = False
    power_of_two: bool = False

    def __post_init__(self):
        if not 1 <= self.bits <= 16:
            raise ValueError(f"bit widths are 1..16, got {self.bits}")

    def scale(self, value: np.ndarray) -> np.ndarray:
        value = np.maximum(value, value.dtype.type(SMALLEST_RANGE))
        return np.exp2(np.ceil(np.log2(value))).astype(value.dtype) if self.power_of_two else value


def _uniform(bits_range: tuple[int, int], expressed: AnyFloat, scales, zero_points=0,
             axis: int | None = None) -> UniformQuantizedType:
    width, signed = canonical_storage(*bits_range)
    return UniformQuantizedType.get(width, signed, expressed, scales, zero_points, axis=axis,
                                    storage_range=bits_range)


def activation_type(low: float, high: float, scheme: Scheme, expressed: AnyFloat) -> QuantizedType:
    """The type quantizing values observed in [low, high] (module docstring)."""
    n, real = scheme.bits, numpy_dtype(expressed).type
    if not scheme.symmetric:
        low, high = real(min(low, 0.0)), real(max(high, 0.0))
        scale = scheme.scale(np.asarray((high - low) / real(2**n - 1)))
        zero_point = int(np.clip(np.round(-low / scale), 0, 2**n - 1))
        return _uniform((0, 2**n - 1), expressed, float(scale), zero_point)
    if low >= 0:
        return _uniform((0, 2**n - 1), expressed, float(scheme.scale(np.asarray(real(high) / real(2**n - 1)))))
    magnitude = real(max(abs(low), abs(high)))
    if n == 1:
        return BipolarQuantizedType.get(expressed, float(scheme.scale(np.asarray(magnitude))))
    limit = 2 ** (n - 1) - 1
    return _uniform((-limit, limit), expressed, float(scheme.scale(np.asarray(magnitude / real(limit)))))


def _clipped_peaks(magnitudes: np.ndarray, peaks: np.ndarray, limit: int, axis: int | None) -> np.ndarray:
    """Each channel's (or the tensor's) peak scaled by the fraction of `WEIGHT_CLIP_FRACTIONS`
    with the least squared quantization error (module docstring)."""
    rows = (np.moveaxis(magnitudes, axis, 0) if axis is not None else magnitudes).reshape(peaks.size, -1)
    rows = rows.astype(np.float64)
    flat_peaks = np.asarray(peaks, np.float64).reshape(-1, 1)
    errors = []
    for fraction in WEIGHT_CLIP_FRACTIONS:
        scale = np.where(flat_peaks > 0, fraction * flat_peaks / limit, 1.0)
        stored = np.minimum(np.round(rows / scale), limit)
        errors.append(np.sum((rows - stored * scale) ** 2, axis=1))
    best = WEIGHT_CLIP_FRACTIONS[np.argmin(np.stack(errors), axis=0)]
    return (best.reshape(np.shape(peaks)) * peaks).astype(peaks.dtype)


def weight_type(weights: np.ndarray, scheme: Scheme, axis: int | None, expressed: AnyFloat,
                clip: bool = False) -> QuantizedType:
    """The symmetric type of `weights`, per channel along `axis` or per tensor, the peaks clipped
    for the least squared error with `clip` (module docstring)."""
    reduced = tuple(d for d in range(weights.ndim) if d != axis) if axis is not None else None
    real = numpy_dtype(expressed).type
    magnitudes = np.abs(weights.astype(real))
    if scheme.bits == 1:
        scales = scheme.scale(np.where(magnitudes.max(axis=reduced) > 0, magnitudes.mean(axis=reduced), real(1)))
        return BipolarQuantizedType.get(expressed, scales.tolist() if axis is not None else float(scales), axis)
    limit = 2 ** (scheme.bits - 1) - 1
    peaks = magnitudes.max(axis=reduced)
    if clip or scheme.bits == TERNARY_BITS:
        peaks = _clipped_peaks(magnitudes, peaks, limit, axis)
    scales = scheme.scale(np.where(peaks > 0, peaks / real(limit), real(1)))
    return _uniform((-limit, limit), expressed, scales.tolist() if axis is not None else float(scales), 0, axis)


def bias_values(bias: np.ndarray, input_scale: float, weight_scales: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int32 values, scales) of a bias on the accumulator grid `s_x s_w` (module docstring)."""
    scales = input_scale * np.asarray(weight_scales, dtype=np.float64)
    values = np.round(bias.astype(np.float64) / scales)
    info = np.iinfo(np.int32)
    if np.any(values < info.min) or np.any(values > info.max):
        raise ValueError("a bias does not fit int32 on the accumulator grid")
    return values.astype(np.int32), np.broadcast_to(scales, bias.shape).copy()
