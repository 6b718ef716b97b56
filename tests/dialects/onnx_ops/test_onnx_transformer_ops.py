"""The ops of transformer and modern CNN exports against onnxruntime (onnx's reference
evaluator where onnxruntime lacks the op at the opset): Expand, Tile, Where, Mod, Sqrt,
Reciprocal and integer Pow, ReduceSum and ReduceMean of integers exact; the float64
references (Erf, Gelu, Mish, float Pow, float ReduceSum / ReduceMean, LayerNormalization,
InstanceNormalization) within the bound their docstrings state."""

import numpy as np
import pytest
from onnx_node_oracle import assert_close, assert_close_sums, assert_exact

RNG = np.random.default_rng(20)


def floats(*shape, scale=3.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def ints(*shape, dtype=np.int32, low=-100, high=100) -> np.ndarray:
    return RNG.integers(low, high, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize(
    ("x_shape", "shape"),
    [((3, 1), [2, 3, 4]), ((1, 4), [3, 1]), ((2, 3), [3]), ((), [2, 2]), ((4,), [1, 1, 4]), ((2, 1, 3), [1])],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_expand_broadcasts_both_ways(x_shape, shape, dtype):
    x = RNG.integers(-5, 5, x_shape).astype(dtype)
    assert_exact("Expand", [x, np.array(shape, np.int64)])


@pytest.mark.parametrize(("shape", "repeats"), [((2, 3), [2, 1]), ((2, 3), [1, 3]), ((1, 2, 2), [3, 2, 1]), ((4,), [0])])
def test_tile(shape, repeats):
    assert_exact("Tile", [ints(*shape, dtype=np.uint8, low=0, high=255), np.array(repeats, np.int64)])


@pytest.mark.parametrize(("c_shape", "x_shape", "y_shape"), [((2, 3), (2, 3), (2, 3)), ((3,), (2, 1), ()), ((1, 4), (3, 1), (3, 4))])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64])
def test_where_broadcasts_three_ways(c_shape, x_shape, y_shape, dtype):
    condition = RNG.integers(0, 2, c_shape).astype(bool)
    assert_exact("Where", [condition, ints(*x_shape).astype(dtype), ints(*y_shape).astype(dtype)])


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_integer_mod_signs(fmod, dtype):
    a = ints(4, 25, low=-120, high=120).astype(dtype)
    b = ints(25, low=-9, high=9).astype(dtype)
    b[b == 0] = 7
    assert_exact("Mod", [a, b], fmod=fmod)


def test_float_fmod_keeps_the_dividend_sign():
    b = floats(6)
    b[b == 0] = 1.5
    assert_exact("Mod", [floats(3, 6, scale=20), b], fmod=1)


def test_sqrt_and_reciprocal_are_correctly_rounded():
    x = np.abs(floats(300)) + np.float32(1e-3)
    assert_exact("Sqrt", [np.concatenate([x, np.array([0, 1e-30, 3e38], np.float32)])])
    assert_exact("Reciprocal", [np.concatenate([floats(300), np.array([1e-30, -3e38, 7], np.float32)])])


def test_float_pow_within_one_rounding():
    x = np.abs(floats(4, 50)) + np.float32(0.01)
    # onnxruntime calls C's powf (not always correctly rounded); bitfold rounds float64 once
    assert_close("Pow", [x, floats(50, scale=2)], rtol=2**-23)
    assert_exact("Pow", [floats(4, 50), np.array(2.0, np.float32)])  # squares: both correctly rounded


def test_integer_pow():
    assert_exact("Pow", [ints(30, low=-9, high=9), ints(30, low=0, high=5)])
    assert_exact("Pow", [ints(30, dtype=np.int64, low=-9, high=9), np.array(3, np.int64)])


def test_erf():
    x = np.concatenate([floats(400, scale=1.5), np.array([0, -0.0, 1e-8, 4, -6, 10], np.float32)])
    assert_close("Erf", [x], rtol=2**-23, atol=1e-7)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_opset_20(approximate):
    x = np.concatenate([floats(400), np.array([0, -0.0, 1e-8, 12, -12], np.float32)])
    # onnxruntime computes 1 + tanh(...) in float32, which cancels for negative x (an absolute
    # error up to a few float32 ulps of 1 times |x| / 2); bitfold rounds the float64 value once
    atol = 1e-7 if approximate == "none" else 4 * 2**-24 * np.max(np.abs(x))
    assert_close("Gelu", [x], rtol=1e-6, atol=atol, opset=20, approximate=approximate)


def test_mish():
    x = np.concatenate([floats(400), np.array([0, 25, -25, 1e-8], np.float32)])
    assert_close("Mish", [x], rtol=1e-6, atol=1e-7, opset=18)


@pytest.mark.parametrize("op_type", ["ReduceSum", "ReduceMean"])
@pytest.mark.parametrize(("axes", "keepdims"), [(None, 1), (None, 0), ([1], 1), ([2, 0], 0), ([0, 2], 1)])
def test_float_sums(op_type, axes, keepdims):
    data = floats(3, 4, 5)
    axes_input = None if axes is None else np.array(axes, dtype=np.int64)
    assert_close_sums(op_type, [data, axes_input], rtol=2**-22, keepdims=keepdims, opset=18)


@pytest.mark.parametrize("op_type", ["ReduceSum", "ReduceMean"])
@pytest.mark.parametrize("axes", [None, [1], [0, 2], [-1, 0]])
def test_integer_sums(op_type, axes):
    data = ints(3, 4, 5, low=-1000, high=1000)
    assert_exact(op_type, [data, None if axes is None else np.array(axes, np.int64)], keepdims=0, opset=18)


@pytest.mark.parametrize("op_type", ["ReduceSum", "ReduceMean", "ReduceMax"])
def test_empty_axes(op_type):
    data = floats(2, 3)
    assert_exact(op_type, [data, np.array([], np.int64)], noop_with_empty_axes=1, opset=18)
    assert_close_sums(op_type, [data, np.array([], np.int64)], rtol=2**-22, opset=18)


@pytest.mark.parametrize(("axis", "with_bias"), [(-1, True), (1, True), (2, False), (0, True)])
def test_layer_normalization_with_stash_outputs(axis, with_bias):
    x = floats(2, 3, 8)
    normalized = x.shape[axis:] if axis >= 0 else x.shape[axis:]
    scale, bias = floats(*normalized), (floats(*normalized) if with_bias else None)
    assert_close("LayerNormalization", [x, scale, bias], outputs=3, rtol=1e-5, atol=1e-5, axis=axis, epsilon=1e-3)


def test_layer_normalization_y_only():
    x = floats(4, 16)
    assert_close("LayerNormalization", [x, floats(16), floats(16)], rtol=1e-5, atol=1e-5)


def test_instance_normalization():
    x = floats(2, 3, 5, 4)
    assert_close("InstanceNormalization", [x, floats(3), floats(3)], rtol=1e-5, atol=1e-5, epsilon=1e-2)
