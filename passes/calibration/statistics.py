"""Calibration statistics: the range each quantization point should cover, from observed values.

Methods, over the values a point took on every sample:
- `minmax`: [min, max].
- `percentile`: onnxruntime's percentile calibrator as `quantize_static` runs it (symmetric
  histogram): `HISTOGRAM_BINS` (2048) equal bins of |x| (float32) between min |x| and max |x|;
  t = the upper edge (in float32) of the first bin where the cumulative fraction of the values
  reaches `PERCENTILE` (99.999) %; the range [max(min, -t), min(max, t)].
- `mse`: [a min, a max] with a among `MSE_CANDIDATES` minimizing the mean squared error of
  quantizing the values with the scheme's type for that range (a uniform subsample of at most
  `MSE_SAMPLE` values)."""

from collections.abc import Callable

import numpy as np

from bitfold.dialects.quant import QuantizedType
from bitfold.dialects.quant_semantics import dequantize, quantize

METHODS = ("minmax", "percentile", "mse")
PERCENTILE = 99.999
HISTOGRAM_BINS = 2048
MSE_CANDIDATES = np.linspace(0.05, 1.0, 96)
MSE_SAMPLE = 1 << 20


def _percentile_range(values: np.ndarray) -> tuple[float, float]:
    magnitudes = np.abs(values.astype(np.float32))
    counts, edges = np.histogram(magnitudes, bins=HISTOGRAM_BINS)
    cumulative = np.cumsum(counts / counts.sum())
    bound = float(edges.astype(np.float32)[np.searchsorted(cumulative, PERCENTILE / 100)])
    return max(float(values.min()), -bound), min(float(values.max()), bound)


def _mse_range(values: np.ndarray, type_for: Callable[[float, float], QuantizedType]) -> tuple[float, float]:
    step = max(1, values.size // MSE_SAMPLE)
    sample = values.ravel()[::step].astype(np.float64)
    low, high = float(values.min()), float(values.max())

    def error(fraction: float) -> float:
        qtype = type_for(low * fraction, high * fraction)
        return float(np.mean((dequantize(quantize(sample, qtype), qtype) - sample) ** 2))

    best = min(MSE_CANDIDATES, key=error)
    return low * float(best), high * float(best)


def calibrated_range(values: np.ndarray, method: str,
                     type_for: Callable[[float, float], QuantizedType]) -> tuple[float, float]:
    """The range [lo, hi] a point quantizes for `values` by `method` (module docstring);
    `type_for(lo, hi)` is the scheme's type for a range (used by `mse`)."""
    if method == "minmax":
        return float(values.min()), float(values.max())
    if method == "percentile":
        return _percentile_range(values)
    if method == "mse":
        return _mse_range(values, type_for)
    raise ValueError(f"unknown calibration method '{method}' (one of {', '.join(METHODS)})")
