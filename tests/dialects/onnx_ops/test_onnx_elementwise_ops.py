"""onnx elementwise ops against onnxruntime: exact, except Sigmoid, Tanh, Exp and the other
float64 activations (see there)."""

import numpy as np
import pytest
from onnx_node_oracle import assert_close, assert_exact

RNG = np.random.default_rng(3)

BROADCAST_SHAPES = [
    ((3, 4), (3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 1), (1, 5)),
    ((1, 3, 1, 2), (4, 1, 5, 1)),
    ((), (2, 3)),
    ((5,), ()),
    ((), ()),
]


def values(shape, dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.floating):
        return (RNG.standard_normal(shape) * 10).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize(("a_shape", "b_shape"), BROADCAST_SHAPES)
def test_float_binary_ops_broadcast(op_type, a_shape, b_shape):
    assert_exact(op_type, [values(a_shape, np.float32), values(b_shape, np.float32)])


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.float64])
def test_binary_ops_keep_the_type_and_wrap_around(op_type, dtype):
    assert_exact(op_type, [values((2, 3, 4), dtype), values((3, 1), dtype)])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_integer_div_truncates_toward_zero(dtype):
    a = values((4, 50), dtype)
    b = values((50,), dtype)
    b[b == 0] = 3
    if np.issubdtype(dtype, np.signedinteger):
        a[0, :6], b[:6] = [-7, 7, -7, 7, -6, 6], [2, -2, -2, 2, 4, -4]
        a, b = a[:, b != -1], b[b != -1]  # MIN / -1 overflows (undefined in C++)
    assert_exact("Div", [a, b])


def test_relu():
    assert_exact("Relu", [values((3, 5, 2), np.float32)])
    assert_exact("Relu", [values((7,), np.int8)])
    assert_exact("Relu", [values((), np.float32)])


@pytest.mark.parametrize(
    ("low", "high"),
    [(-1.5, 2.0), (None, 0.5), (-0.25, None), (None, None), (1.0, -1.0)],
)
def test_clip_with_optional_bounds(low, high):
    bounds = [None if v is None else np.array(v, np.float32) for v in (low, high)]
    assert_exact("Clip", [values((4, 6), np.float32) / 5, *bounds])


def test_clip_integers():
    assert_exact("Clip", [values((20,), np.int8), np.array(-8, np.int8), np.array(7, np.int8)])


@pytest.mark.parametrize("op_type", ["Sigmoid", "Tanh"])
def test_sigmoid_tanh(op_type):
    x = np.concatenate([values((200,), np.float32), np.array([0, -0.0, 1e-8, 30, -30, 100, -100], np.float32)])
    # Not exact: onnxruntime approximates these in float32; bitfold rounds the float64 value once.
    assert_close(op_type, [x], rtol=1e-6, atol=1e-7)


def test_exp():
    x = np.concatenate([values((200,), np.float32) / 3, np.array([0, -0.0, 88, 89, -104], np.float32)])
    # Not exact, like Sigmoid: onnxruntime approximates exp in float32.
    assert_close("Exp", [x], rtol=1e-6)


@pytest.mark.parametrize(
    ("op_type", "attributes"),
    [("LeakyRelu", {}), ("LeakyRelu", {"alpha": 0.3}), ("HardSigmoid", {}), ("HardSigmoid", {"alpha": 0.25, "beta": 0.4}),
     ("HardSwish", {})],
)  # fmt: skip
def test_piecewise_linear_activations(op_type, attributes):
    x = np.concatenate([values((300,), np.float32) / 3, np.array([0, -0.0, -3, 3, -2.5, 2.5, 1e-30], np.float32)])
    assert_exact(op_type, [x], **attributes)


@pytest.mark.parametrize(
    ("op_type", "attributes"),
    [("Elu", {}), ("Elu", {"alpha": 0.5}), ("Selu", {}), ("Celu", {"alpha": 2.0}), ("Softplus", {}), ("Softsign", {})],
)
def test_float64_activations(op_type, attributes):
    x = np.concatenate([values((300,), np.float32) / 3, np.array([0, -0.0, -20, 20, 1e-30, -1e-30], np.float32)])
    # Not exact, like Exp: onnxruntime computes in float32 with approximations of its own.
    assert_close(op_type, [x], rtol=1e-6, atol=1e-7, **attributes)


@pytest.mark.parametrize("alpha", [1.0, -0.5])
def test_thresholded_relu(alpha):
    x = np.concatenate([values((300,), np.float32) / 3, np.array([0, -0.0, 1, -1, -0.5, 1e-30], np.float32)])
    assert_exact("ThresholdedRelu", [x], alpha=alpha)


CAST_TYPES = {
    1: np.float32,
    2: np.uint8,
    3: np.int8,
    5: np.int16,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
    10: np.float16,
    11: np.float64,
    12: np.uint32,
}


@pytest.mark.parametrize("to", sorted(CAST_TYPES))
def test_cast_from_float_truncates_and_rounds(to):
    x = np.array([0.0, 1.5, -1.5, 2.7, -2.7, 100.25, -0.0, 0.1, 65504.0, 1e-8], np.float32)
    if not np.issubdtype(CAST_TYPES[to], np.signedinteger) and CAST_TYPES[to] != np.bool_:
        x = np.abs(x)  # negative to unsigned is undefined in ONNX
    assert_exact("Cast", [x], to=to)


@pytest.mark.parametrize("to", sorted(CAST_TYPES))
def test_cast_from_integers(to):
    assert_exact("Cast", [values((30,), np.int32)], to=to)
    assert_exact("Cast", [np.array([True, False, True])], to=to)


def test_cast_float64_to_float32_rounds_to_nearest_even():
    x = np.array([1 + 2**-24, 1 + 3 * 2**-24, 1e300, -1e-300, 0.1], np.float64)
    assert_exact("Cast", [x], to=1)


@pytest.mark.parametrize(
    ("op_type", "attributes"), [("Sigmoid", {}), ("Tanh", {}), ("Identity", {}), ("Cast", {"to": 6})]
)
def test_rank_0_tensors(op_type, attributes):
    assert_close(op_type, [np.array(0.75, np.float32)], rtol=1e-6, **attributes)
    assert_exact("Clip", [np.array(0.75, np.float32), np.array(-0.5, np.float32), np.array(0.5, np.float32)])


def test_identity():
    assert_exact("Identity", [values((2, 3), np.float32)])
    assert_exact("Identity", [values((4,), np.uint8)])
