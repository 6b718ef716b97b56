"""QLinearConv and QLinearMatMul against onnxruntime, bit for bit: u8 / s8, per-tensor and
per-channel weights, and ties (requantization scale 0.5, small unsaturated accumulators, odd
zero points: onnxruntime rounds before adding the zero point, onnx's reference after)."""

import numpy as np
import pytest
from onnx_node_oracle import assert_exact

RNG = np.random.default_rng(20261122)

TYPES = [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)]


def integers(dtype, *shape: int, low: int | None = None, high: int | None = None) -> np.ndarray:
    """Random values of `dtype` in [low, high] (default: its whole range)."""
    info = np.iinfo(dtype)
    low, high = info.min if low is None else low, info.max if high is None else high
    return RNG.integers(low, high + 1, shape).astype(dtype)


def zero_point(dtype, value: int, channels: int = 0) -> np.ndarray:
    return np.full((channels,) if channels else (), value, dtype=dtype)


def scale(value: float, channels: int = 0) -> np.ndarray:
    if not channels:
        return np.array(value, dtype=np.float32)
    return (value * RNG.uniform(0.5, 2.0, channels)).astype(np.float32)


@pytest.mark.parametrize(("x_type", "w_type"), TYPES)
@pytest.mark.parametrize("per_channel", [False, True])
def test_qlinearconv(x_type, w_type, per_channel):
    channels = 4 if per_channel else 0
    x, w = integers(x_type, 2, 3, 7, 6), integers(w_type, 4, 3, 3, 3)
    bias = RNG.integers(-5000, 5000, 4).astype(np.int32)
    y_zp = 131 if x_type == np.uint8 else 3
    inputs = [x, scale(0.031), zero_point(x_type, 7), w, scale(0.017, channels), zero_point(w_type, 0, channels),
              scale(0.9), zero_point(x_type, y_zp), bias]
    assert_exact("QLinearConv", inputs, pads=[1, 0, 1, 2], strides=[2, 1])


@pytest.mark.parametrize(("x_type", "w_type"), TYPES)
def test_qlinearconv_depthwise_ties(x_type, w_type):
    x, w = integers(x_type, 1, 4, 6, 6, low=0, high=5), integers(w_type, 4, 1, 3, 3, low=0, high=3)
    y_zp = 129 if x_type == np.uint8 else -3  # odd: onnx's reference rounds these ties the other way
    inputs = [x, scale(0.5), zero_point(x_type, 1), w, scale(1.0), zero_point(w_type, 0),
              scale(1.0), zero_point(x_type, y_zp)]
    assert_exact("QLinearConv", inputs, group=4, pads=[1, 1, 1, 1])


@pytest.mark.parametrize(("a_type", "b_type"), TYPES)
@pytest.mark.parametrize("per_channel", [False, True])
def test_qlinearmatmul(a_type, b_type, per_channel):
    columns = 5 if per_channel else 0
    a, b = integers(a_type, 2, 3, 8), integers(b_type, 8, 5)
    y_zp = 127 if a_type == np.uint8 else -1
    inputs = [a, scale(0.023), zero_point(a_type, 9), b, scale(0.011, columns), zero_point(b_type, 0, columns),
              scale(0.37), zero_point(a_type, y_zp)]
    assert_exact("QLinearMatMul", inputs)


@pytest.mark.parametrize(("a_type", "b_type"), TYPES)
def test_qlinearmatmul_ties(a_type, b_type):
    a, b = integers(a_type, 6, 4, low=0, high=7), integers(b_type, 4, 7, low=0, high=6)
    y_zp = 3 if a_type == np.uint8 else 1  # odd: onnx's reference rounds these ties the other way
    inputs = [a, scale(0.25), zero_point(a_type, 0), b, scale(0.125), zero_point(b_type, 1),
              scale(0.0625), zero_point(a_type, y_zp)]
    assert_exact("QLinearMatMul", inputs)
