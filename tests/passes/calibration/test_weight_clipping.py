"""MSE-optimal weight clipping (`weight_type(..., clip=True)`, the `mse` method): per channel, the
squared quantization error of the clipped scale is at most that of max|w| (the fraction 1 is a
candidate) and is smaller on Gaussian weights at 4 bits, where clipping the tails pays."""

import numpy as np
import pytest
from xdsl.dialects.builtin import f32

from bitfold.dialects.quant_semantics import dequantize, quantize
from bitfold.passes.calibration.schemes import Scheme, weight_type


def _channel_errors(weights: np.ndarray, qtype) -> np.ndarray:
    error = (dequantize(quantize(weights, qtype), qtype) - weights) ** 2
    return error.reshape(weights.shape[0], -1).sum(axis=1)


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_clipping_never_increases_a_channels_error(bits):
    weights = np.random.default_rng(bits).standard_normal((16, 8, 3, 3)).astype(np.float32)
    plain = _channel_errors(weights, weight_type(weights, Scheme(bits, True), 0, f32))
    clipped = _channel_errors(weights, weight_type(weights, Scheme(bits, True), 0, f32, clip=True))
    assert np.all(clipped <= plain * (1 + 1e-6))
    if bits == 4:
        assert clipped.sum() < 0.9 * plain.sum()


def test_clipping_per_tensor_and_zero_channels():
    weights = np.random.default_rng(0).standard_normal((4, 32)).astype(np.float32)
    weights[2] = 0
    per_channel = weight_type(weights, Scheme(4, True), 0, f32, clip=True)
    assert per_channel.scale_values()[2] == 1.0
    per_tensor = weight_type(weights, Scheme(4, True), None, f32, clip=True)
    plain = weight_type(weights, Scheme(4, True), None, f32)
    assert per_tensor.scale_values()[0] < plain.scale_values()[0]


def test_ternary_weights_take_the_least_squares_scale():
    """2-bit weights are ternary {-s, 0, s}: with s = max|w| a Gaussian channel keeps only its tails
    (|w| > max|w| / 2); the clipped scale keeps a larger share nonzero and has less squared error
    than s = max|w| computed here by hand."""
    weights = np.random.default_rng(3).standard_normal((8, 64)).astype(np.float32)
    ternary = weight_type(weights, Scheme(2, True), 0, f32)
    stored = quantize(weights, ternary)
    assert set(np.unique(stored)) <= {-1, 0, 1}
    peaks = np.abs(weights).max(axis=1, keepdims=True)
    by_peak = np.clip(np.round(weights / peaks), -1, 1) * peaks
    assert np.all(_channel_errors(weights, ternary) < ((by_peak - weights) ** 2).sum(axis=1))
    assert np.count_nonzero(stored) > np.count_nonzero(by_peak)
