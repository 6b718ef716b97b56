"""onnx nn ops (Conv, Gemm, MatMul, pools, BatchNormalization, Softmax) against onnxruntime.

Float sums cannot be compared exactly (onnxruntime sums in float32 in its own order; bitfold
rounds a float64 sum once): `assert_close_sums` bounds the difference by 1e-6 of the sum of the
terms' magnitudes. Integer results and max pooling are exact."""

import numpy as np
import pytest
from onnx_node_oracle import assert_close, assert_close_sums, assert_exact, run_both
from xdsl.dialects.builtin import IntegerAttr

RNG = np.random.default_rng(20261121)


def floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "bias", "attributes"),
    [
        ((1, 3, 7, 9), (4, 3, 3, 3), True, {}),
        ((2, 3, 7, 9), (4, 3, 3, 2), True, {"pads": [1, 0, 2, 1], "strides": [2, 1]}),
        ((1, 2, 11, 8), (3, 2, 3, 3), False, {"dilations": [2, 3], "pads": [2, 1, 1, 3]}),
        ((1, 4, 9, 9), (6, 2, 3, 3), True, {"group": 2, "pads": [1, 1, 1, 1]}),
        ((2, 5, 8, 7), (5, 1, 3, 3), True, {"group": 5, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
        ((1, 3, 6, 6), (6, 1, 2, 2), False, {"group": 3, "kernel_shape": [2, 2]}),
        ((2, 4, 11, 9), (4, 1, 3, 2), True, {"group": 4, "dilations": [2, 3], "pads": [2, 1, 0, 3]}),
        ((2, 3, 12), (6, 1, 5), True, {"group": 3, "strides": [2], "pads": [2, 2]}),
        ((1, 3, 10, 7), (2, 3, 4, 3), True, {"auto_pad": "SAME_UPPER", "strides": [3, 2]}),
        ((1, 3, 10, 7), (2, 3, 4, 3), True, {"auto_pad": "SAME_LOWER", "strides": [3, 2]}),
        ((1, 3, 10, 7), (2, 3, 4, 3), True, {"auto_pad": "VALID", "strides": [2, 2]}),
        ((3, 4, 13), (5, 4, 3), True, {"pads": [2, 1], "strides": [2], "dilations": [2]}),
        ((2, 2, 5, 4, 6), (3, 2, 2, 3, 2), True, {"pads": [1, 0, 1, 0, 1, 1]}),
        ((2, 16, 16, 16), (32, 16, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    ],
)
def test_conv(x_shape, w_shape, bias, attributes):
    inputs = [floats(*x_shape), floats(*w_shape), floats(w_shape[0]) if bias else None]
    assert_close_sums("Conv", inputs, **attributes)


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
def test_conv_same_with_dilations_against_the_reference_evaluator(auto_pad):
    # onnxruntime refuses dilations with SAME padding.
    inputs = [floats(1, 3, 9, 10), floats(2, 3, 3, 2), None]
    assert_close_sums("Conv", inputs, oracle="reference", auto_pad=auto_pad, dilations=[2, 3], strides=[2, 1])


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "c_shape", "attributes"),
    [
        ((3, 5), (5, 4), (4,), {}),
        ((5, 3), (5, 4), (3, 4), {"transA": 1, "alpha": 0.5, "beta": 2.0}),
        ((3, 5), (4, 5), (3, 1), {"transB": 1}),
        ((5, 3), (4, 5), None, {"transA": 1, "transB": 1, "alpha": -1.5}),
        ((2, 7), (7, 3), (), {"beta": 0.25}),
    ],
)
def test_gemm(a_shape, b_shape, c_shape, attributes):
    inputs = [floats(*a_shape), floats(*b_shape), None if c_shape is None else floats(*c_shape)]
    assert_close_sums("Gemm", inputs, **attributes)


MATMUL_SHAPES = [
    ((3, 5), (5, 4)),
    ((2, 3, 5), (5, 4)),
    ((2, 1, 3, 5), (3, 5, 2)),
    ((5,), (5, 4)),
    ((3, 5), (5,)),
    ((5,), (5,)),
]


@pytest.mark.parametrize(("a_shape", "b_shape"), MATMUL_SHAPES)
def test_matmul_float(a_shape, b_shape):
    assert_close_sums("MatMul", [floats(*a_shape), floats(*b_shape)])


@pytest.mark.parametrize(("a_shape", "b_shape"), MATMUL_SHAPES[:3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_matmul_integer_is_exact(a_shape, b_shape, dtype):
    a, b = (RNG.integers(-1000, 1000, shape).astype(dtype) for shape in (a_shape, b_shape))
    assert_exact("MatMul", [a, b])


POOL_CASES = [
    ((1, 2, 7, 9), {"kernel_shape": [3, 3]}),
    ((2, 3, 7, 9), {"kernel_shape": [3, 2], "strides": [2, 3], "pads": [1, 0, 1, 1]}),
    ((1, 2, 8, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ((1, 2, 7, 6), {"kernel_shape": [2, 3], "strides": [2, 2], "pads": [1, 1, 0, 1], "ceil_mode": 1}),
    # ceil_mode drops the last window of axis 2: it would start in the end padding
    ((1, 2, 6, 5), {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0, 1, 1], "ceil_mode": 1}),
    ((1, 2, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 8, 9), {"kernel_shape": [4, 3], "strides": [3, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 8, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "VALID"}),
    ((2, 3, 11), {"kernel_shape": [4], "strides": [3], "pads": [2, 1]}),
    ((1, 2, 4, 5, 6), {"kernel_shape": [2, 2, 3], "strides": [1, 2, 2], "pads": [0, 1, 1, 1, 0, 1]}),
]
DILATED_POOL_CASES = [
    ((1, 2, 9, 10), {"kernel_shape": [3, 2], "dilations": [2, 3], "pads": [1, 1, 2, 0]}),
    ((1, 2, 9, 10), {"kernel_shape": [2, 2], "dilations": [2, 2], "strides": [2, 3], "ceil_mode": 1}),
]


@pytest.mark.parametrize(("shape", "attributes"), POOL_CASES + DILATED_POOL_CASES)
def test_max_pool_values(shape, attributes):
    assert_exact("MaxPool", [floats(*shape)], **attributes)


@pytest.mark.parametrize(("shape", "attributes"), POOL_CASES + DILATED_POOL_CASES)
@pytest.mark.parametrize("storage_order", [0, 1])
def test_max_pool_indices(shape, attributes, storage_order):
    assert_exact("MaxPool", [floats(*shape)], outputs=2, storage_order=storage_order, **attributes)


def test_max_pool_indices_pick_the_first_maximum_and_int8_pads_never_win():
    x = RNG.integers(-128, -126, (2, 3, 6, 7)).astype(np.int8)
    assert_exact("MaxPool", [x], outputs=2, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])


@pytest.mark.parametrize(("shape", "attributes"), POOL_CASES + DILATED_POOL_CASES)
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_average_pool(shape, attributes, count_include_pad):
    assert_close_sums("AveragePool", [floats(*shape)], count_include_pad=count_include_pad, **attributes)


@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (1, 4, 9), (1, 2, 3, 4, 5)])
def test_global_average_pool(shape):
    assert_close_sums("GlobalAveragePool", [floats(*shape)])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 4), (1, 2, 3, 2, 2)])
@pytest.mark.parametrize("epsilon", [1e-5, 0.1])
def test_batch_normalization(shape, epsilon):
    channels = shape[1]
    variance = RNG.uniform(0.1, 2.0, channels).astype(np.float32)
    inputs = [floats(*shape), floats(channels), floats(channels), floats(channels), variance]
    # Not exact: bitfold rounds the float64 formula once; onnxruntime folds it into a float32
    # multiply-add, so results near zero differ by a few ulp of the terms (hence atol).
    assert_close("BatchNormalization", inputs, rtol=1e-6, atol=1e-6, epsilon=epsilon)


def test_batch_normalization_training_mode_is_refused():
    channels = 3
    inputs = [floats(2, channels, 4), *(floats(channels) for _ in range(3)), np.ones(channels, np.float32)]
    op, _, _ = run_both("BatchNormalization", inputs)
    op.attributes["training_mode"] = IntegerAttr(1, 64)
    with pytest.raises(NotImplementedError, match="training mode"):
        op.evaluate(inputs)


@pytest.mark.parametrize(("shape", "axis"), [((3, 7), -1), ((2, 3, 5), 1), ((2, 3, 5), 0), ((2, 3, 5), -2), ((4,), 0)])
def test_softmax(shape, axis):
    x = floats(*shape) * 4
    # Not exact: onnxruntime approximates exp in float32; bitfold rounds the float64 formula once.
    assert_close("Softmax", [x], rtol=1e-6, atol=1e-7, axis=axis)
