"""Calibration statistics: the range each quantization point should cover, from observed values.

Methods, over the values a point took on every sample:
- `minmax`: [min, max].
- `percentile`: the `PERCENTILE` (99.999) percentile of |x| as a symmetric bound, or the
  (100 - p, p) percentiles for an asymmetric scheme, clipped to [min, max] (onnxruntime's
  percentile calibrator).
- `mse`: [a min, a max] with a among `MSE_CANDIDATES` minimizing the mean squared error of
  quantizing the values with the scheme's type for that range (a uniform subsample of at most
  `MSE_SAMPLE` values)."""

from collections.abc import Callable

import numpy as np

from bitfold.dialects.quant import QuantizedType
from bitfold.dialects.quant_semantics import dequantize, quantize

METHODS = ("minmax", "percentile", "mse")
PERCENTILE = 99.999
MSE_CANDIDATES = np.linspace(0.05, 1.0, 96)
MSE_SAMPLE = 1 << 20


def _percentile_range(values: np.ndarray, symmetric: bool) -> tuple[float, float]:
    low, high = float(values.min()), float(values.max())
    if symmetric:
        bound = float(np.percentile(np.abs(values), PERCENTILE))
        return max(low, -bound), min(high, bound)
    return max(low, float(np.percentile(values, 100 - PERCENTILE))), min(high, float(np.percentile(values, PERCENTILE)))


def _mse_range(values: np.ndarray, type_for: Callable[[float, float], QuantizedType]) -> tuple[float, float]:
    step = max(1, values.size // MSE_SAMPLE)
    sample = values.ravel()[::step].astype(np.float64)
    low, high = float(values.min()), float(values.max())

    def error(fraction: float) -> float:
        qtype = type_for(low * fraction, high * fraction)
        return float(np.mean((dequantize(quantize(sample, qtype), qtype) - sample) ** 2))

    best = min(MSE_CANDIDATES, key=error)
    return low * float(best), high * float(best)


def calibrated_range(values: np.ndarray, method: str, symmetric: bool,
                     type_for: Callable[[float, float], QuantizedType]) -> tuple[float, float]:
    """The range [lo, hi] a point quantizes for `values` by `method` (module docstring);
    `type_for(lo, hi)` is the scheme's type for a range (used by `mse`)."""
    if method == "minmax":
        return float(values.min()), float(values.max())
    if method == "percentile":
        return _percentile_range(values, symmetric)
    if method == "mse":
        return _mse_range(values, type_for)
    raise ValueError(f"unknown calibration method '{method}' (one of {', '.join(METHODS)})")
