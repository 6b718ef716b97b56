"""Resize's coordinate transformations and interpolation taps, one axis at a time (ONNX Resize
opset 19, as onnxruntime computes it): what `onnx.Resize`'s reference and its float lowering
share.

Along a resized axis of input length `in` and output length `out`, output index x reads the
float32 source coordinate c(x) (`source_coordinates`); mode nearest picks one index, modes
linear and cubic weigh taps around c:

- linear: taps floor(c), floor(c) + 1 with weights 1 - r, r (r = c - floor(c));
- cubic: taps floor(c) - 1 .. floor(c) + 2 with Keys' weights for `cubic_coeff_a` = A:
  W(d) = ((A + 2) d - (A + 3)) d^2 + 1 for |d| <= 1, ((A d - 5 A) d + 8 A) d - 4 A for
  1 < |d| < 2, at the distances d = 1 + r, r, 1 - r, 2 - r; with exclude_outside the weights
  of taps outside [0, in - 1] become 0 and the rest are divided by their sum.

A tap outside [0, in - 1] reads the nearest edge element (onnxruntime clamps the linear
coordinate to [0, in - 1] first: the same values). With tf_crop_and_resize, an output whose
coordinate lies outside [0, in - 1] along any axis is `extrapolation_value` instead.
Weights are float64 from the float32 coordinate; antialias (a wider filter when downscaling) is
not implemented."""

import numpy as np

TAPS = {"linear": 2, "cubic": 4}
"""Taps per output element and axis of each interpolating mode"""

COORDINATE_TRANSFORMATIONS = ("half_pixel", "pytorch_half_pixel", "half_pixel_symmetric", "asymmetric",
                              "align_corners", "tf_half_pixel_for_nearest", "tf_crop_and_resize")  # fmt: skip


def source_coordinates(
    mode: str, out_size: int, in_size: int, scale: np.float32, roi: tuple[float, float] = (0.0, 1.0)
) -> np.ndarray:
    """Float32 input coordinates of the output positions 0..out_size-1 along one axis, computed
    in float32 in onnxruntime's operation order (the rounding then decides ties the same way).
    `roi` (start, end) is read by tf_crop_and_resize only."""
    x = np.arange(out_size, dtype=np.float32)
    half = np.float32(0.5)
    if mode == "half_pixel":
        return (x + half) / scale - half
    if mode == "pytorch_half_pixel":
        return (x + half) / scale - half if out_size > 1 else np.zeros_like(x)
    if mode == "tf_half_pixel_for_nearest":
        return (x + half) / scale
    if mode == "asymmetric":
        return x / scale
    if mode == "align_corners":
        return x * np.float32(in_size - 1) / np.float32(out_size - 1) if out_size > 1 else np.zeros_like(x)
    if mode == "half_pixel_symmetric":
        adjustment = np.float32(out_size) / (scale * np.float32(in_size))
        offset = np.float32(in_size) / np.float32(2) * (np.float32(1) - adjustment)
        return offset + (x + half) / scale - half
    if mode == "tf_crop_and_resize":
        start, end = np.float32(roi[0]), np.float32(roi[1])
        last = np.float32(in_size - 1)
        if out_size == 1:
            return np.full_like(x, np.float32(0.5) * (start + end) * last)
        return start * last + x * (end - start) * last / np.float32(out_size - 1)
    raise ValueError(f"onnx.Resize: unknown coordinate_transformation_mode '{mode}'")


def _cubic_weights(ratio: np.ndarray, a: float) -> np.ndarray:
    """Keys' weights (module docstring) of the taps floor(c) - 1 .. floor(c) + 2, one row per r."""
    near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1  # noqa: E731 (|d| <= 1)
    far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # noqa: E731 (1 < |d| < 2)
    return np.stack([far(1 + ratio), near(ratio), near(1 - ratio), far(2 - ratio)], axis=-1)


def interpolation_taps(
    mode: str, coordinates: np.ndarray, in_size: int, cubic_coeff_a: float = -0.75, exclude_outside: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(indices, weights), both of shape (out, taps): the input indices each output element
    reads (clamped to [0, in - 1]) and their float64 weights (module docstring)."""
    wide = coordinates.astype(np.float64)
    if mode == "linear":
        wide = np.clip(wide, 0, in_size - 1)  # onnxruntime's clamp: equal to reading the edge
    base = np.floor(wide)
    ratio = wide - base
    offsets = np.arange(TAPS[mode]) - (TAPS[mode] // 2 - 1)
    taps = base.astype(np.int64)[:, None] + offsets
    if mode == "linear":
        weights = np.stack([1 - ratio, ratio], axis=-1)
    else:
        weights = _cubic_weights(ratio, cubic_coeff_a)
        if exclude_outside:
            weights = np.where((taps >= 0) & (taps < in_size), weights, 0.0)
            weights /= weights.sum(axis=-1, keepdims=True)
    return np.clip(taps, 0, in_size - 1), weights


def outside_roi(coordinates: np.ndarray, in_size: int) -> np.ndarray:
    """The outputs of tf_crop_and_resize that take `extrapolation_value` along this axis."""
    return (coordinates < 0) | (coordinates > in_size - 1)


def interpolate(x: np.ndarray, axis: int, indices: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """y[..., o, ...] = sum_t weights[o, t] x[..., indices[o, t], ...] along `axis`, in x's dtype."""
    gathered = np.take(x, indices, axis=axis)  # the taps become the axis after `axis`
    shape = [1] * x.ndim + [1]
    shape[axis], shape[axis + 1] = weights.shape
    return (gathered * weights.reshape(shape).astype(x.dtype)).sum(axis=axis + 1)
