"""The com.microsoft ops' `evaluate` against onnxruntime's CPU kernels: bit for bit."""

import zlib

import numpy as np
import onnx
import pytest
from contrib_oracle import assert_exact, onnx_node_oracle
from models.runners import onnxruntime_session
from onnxruntime.capi.onnxruntime_pybind11_state import get_all_operator_schema

import bitfold
from bitfold.dialects.onnx import contrib, mlas
from bitfold.load import load_module

F32 = np.float32
TYPES = [np.uint8, np.int8]


def codes(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def scalar(value, dtype=F32):
    return np.array(value, dtype=dtype)


def scale(rng, low=0.002, high=0.1):
    return scalar(rng.uniform(low, high))


def zero_point(rng, dtype):
    return codes(rng, dtype, ())


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((37,), (37,)), ((2, 3, 5), (5,)), ((2, 3, 5), (2, 3, 1)), ((1,), (3, 7)), ((3, 7), ()), ((4, 1), (1, 9)), ((1, 9), (4, 1))],
)
@pytest.mark.parametrize("op_type", ["QLinearAdd", "QLinearMul"])
def test_binary(op_type, dtype, a_shape, b_shape):
    rng = np.random.default_rng(zlib.crc32(repr((op_type, a_shape, b_shape)).encode()))
    for _ in range(10):
        a, b = codes(rng, dtype, a_shape), codes(rng, dtype, b_shape)
        zps = [zero_point(rng, dtype) for _ in range(3)]
        assert_exact(op_type, [a, scale(rng), zps[0], b, scale(rng), zps[1], scale(rng, 0.01, 0.2), zps[2]])


@pytest.mark.parametrize("dtype", TYPES)
def test_binary_power_of_two_scales(dtype):
    """Power-of-two scales put many results on ties (x.5) before rounding."""
    rng = np.random.default_rng(7)
    a, b = codes(rng, dtype, (64,)), codes(rng, dtype, (64,))
    for op_type in ("QLinearAdd", "QLinearMul"):
        assert_exact(op_type, [a, scalar(0.25), zero_point(rng, dtype), b, scalar(0.125), zero_point(rng, dtype), scalar(0.5), zero_point(rng, dtype)])


GEMM_TYPES = [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)]


@pytest.mark.parametrize("a_type, b_type", GEMM_TYPES)
@pytest.mark.parametrize("per_column", [False, True])
@pytest.mark.parametrize("trans_a, trans_b", [(0, 0), (1, 1)])
@pytest.mark.parametrize("bias", [None, "row", "full"])
def test_qgemm_quantized(a_type, b_type, per_column, trans_a, trans_b, bias):
    rng = np.random.default_rng(11)
    m, k, n = 5, 33, 7
    a = codes(rng, a_type, (k, m) if trans_a else (m, k))
    b = codes(rng, b_type, (n, k) if trans_b else (k, n))
    b_scale = rng.uniform(0.001, 0.01, n).astype(F32) if per_column else scale(rng, 0.001, 0.01)
    b_zero_point = codes(rng, b_type, (n,)) if per_column else zero_point(rng, b_type)
    c = None if bias is None else rng.integers(-5000, 5000, (n,) if bias == "row" else (m, n)).astype(np.int32)
    inputs = [a, scale(rng), zero_point(rng, a_type), b, b_scale, b_zero_point, c, scale(rng, 0.05, 0.5), zero_point(rng, a_type)]
    assert_exact("QGemm", inputs, transA=trans_a, transB=trans_b, alpha=0.75)


@pytest.mark.parametrize("a_type, b_type", GEMM_TYPES)
def test_qgemm_float_output(a_type, b_type):
    rng = np.random.default_rng(12)
    a, b = codes(rng, a_type, (3, 17)), codes(rng, b_type, (17, 4))
    c = rng.integers(-5000, 5000, (3, 4)).astype(np.int32)
    assert_exact("QGemm", [a, scale(rng), zero_point(rng, a_type), b, rng.uniform(0.001, 0.01, 4).astype(F32), codes(rng, b_type, (4,)), c])


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("shape, channels_last", [((2, 3, 5, 7), 0), ((1, 4, 9), 0), ((2, 5, 3, 6), 1), ((1, 1, 300), 0)])
def test_global_average_pool(dtype, shape, channels_last):
    rng = np.random.default_rng(13)
    for _ in range(5):
        x = codes(rng, dtype, shape)
        inputs = [x, scale(rng), zero_point(rng, dtype), scale(rng, 0.005, 0.1), zero_point(rng, dtype)]
        assert_exact("QLinearGlobalAveragePool", inputs, channels_last=channels_last)


POOLS = [
    dict(kernel_shape=[3, 3]),
    dict(kernel_shape=[2, 3], strides=[2, 1], pads=[1, 0, 1, 2]),
    dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
    dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    dict(kernel_shape=[2, 2], auto_pad="SAME_UPPER"),
    dict(kernel_shape=[3], strides=[2], pads=[1, 1]),
    dict(kernel_shape=[7, 6]),  # the whole image, no padding: onnxruntime's global path
    dict(kernel_shape=[2, 2, 2], strides=[1, 2, 1]),
]


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("attributes", POOLS)
@pytest.mark.parametrize("channels_last", [0, 1])
def test_average_pool(dtype, attributes, channels_last):
    rng = np.random.default_rng(14)
    spatial = {1: (11,), 2: (7, 6), 3: (4, 5, 3)}[len(attributes["kernel_shape"])]
    shape = (2, *spatial, 3) if channels_last else (2, 3, *spatial)
    for _ in range(3):
        x = codes(rng, dtype, shape)
        inputs = [x, scale(rng), zero_point(rng, dtype), scale(rng, 0.005, 0.1), zero_point(rng, dtype)]
        assert_exact("QLinearAveragePool", inputs, channels_last=channels_last, **attributes)


@pytest.mark.parametrize("dtype", TYPES)
def test_average_pool_ties(dtype):
    """Power-of-two scales: averages of 4 codes land on x.5 and x.25 before rounding."""
    rng = np.random.default_rng(15)
    x = codes(rng, dtype, (1, 2, 6, 6))
    assert_exact("QLinearAveragePool", [x, scalar(0.5), zero_point(rng, dtype), scalar(0.25), zero_point(rng, dtype)], kernel_shape=[2, 2], strides=[2, 2])


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(dtype, axis):
    rng = np.random.default_rng(16)
    shapes = {0: [(2, 3, 4), (1, 3, 4), (3, 3, 4)], 1: [(2, 1, 4), (2, 5, 4), (2, 2, 4)], -1: [(2, 3, 1), (2, 3, 4), (2, 3, 2)]}[axis]
    y_scale, y_zero_point = scale(rng), zero_point(rng, dtype)
    inputs = [y_scale, y_zero_point]
    for i, shape in enumerate(shapes):
        same = i == 0  # the first input is already in Y's quantization
        inputs += [codes(rng, dtype, shape), y_scale if same else scale(rng), y_zero_point if same else zero_point(rng, dtype)]
    assert_exact("QLinearConcat", inputs, axis=axis)


@pytest.mark.parametrize("dtype", TYPES)
def test_sigmoid(dtype):
    """Every code, for many quantization parameters (the table is all there is)."""
    rng = np.random.default_rng(17)
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype).reshape(16, 16)
    for _ in range(40):
        inputs = [x, scale(rng, 0.005, 0.2), zero_point(rng, dtype), scale(rng, 1 / 512, 1 / 128), zero_point(rng, dtype)]
        assert_exact("QLinearSigmoid", inputs)
    assert_exact("QLinearSigmoid", [x, scalar(0.1), None, scalar(1 / 256), np.zeros((), dtype)])  # absent x_zero_point


@pytest.mark.parametrize("dtype", TYPES)
def test_leaky_relu(dtype):
    rng = np.random.default_rng(18)
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype)
    for _ in range(20):
        inputs = [x, scale(rng), zero_point(rng, dtype), scale(rng), zero_point(rng, dtype)]
        assert_exact("QLinearLeakyRelu", inputs, alpha=float(rng.uniform(0.0, 0.5)))
    assert_exact("QLinearLeakyRelu", [x, scalar(0.05), None, scalar(0.05), np.zeros((), dtype)])  # default alpha


def softmax_node_model(x: np.ndarray, parameters: list[np.ndarray], **attributes) -> onnx.ModelProto:
    """One QLinearSoftmax node (`opset` is one of its attributes, which the node oracle's
    keyword arguments cannot carry)."""
    names = ["x_scale", "x_zero_point", "y_scale", "y_zero_point"]
    node = onnx.helper.make_node("QLinearSoftmax", ["x", *names], ["y"], domain=contrib.DOMAIN, **attributes)
    element = onnx.helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = onnx.helper.make_graph(
        [node], "softmax",
        [onnx.helper.make_tensor_value_info("x", element, x.shape)],
        [onnx.helper.make_tensor_value_info("y", element, x.shape)],
        [onnx.numpy_helper.from_array(p, n) for p, n in zip(parameters, names, strict=True)],
    )  # fmt: skip
    opsets = [onnx.helper.make_opsetid("", 13), onnx.helper.make_opsetid(contrib.DOMAIN, 1)]
    model = onnx.helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return model


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize(("shape", "attributes"), [
    ((4, 10), {"opset": 13}), ((2, 5, 7), {"opset": 13, "axis": 1}), ((3, 300), {"opset": 13, "axis": -1}),
    ((2, 3, 7), {"opset": 12, "axis": 1}), ((2, 3, 7), {"opset": 12}),
])  # fmt: skip
def test_softmax(dtype, shape, attributes, tmp_path):
    rng = np.random.default_rng(19)
    for y_scale in (1 / 256, 1 / 255, 0.01):
        x = codes(rng, dtype, shape)
        x.reshape(-1)[: shape[-1]] = np.iinfo(dtype).max  # a row of equal values
        x.reshape(-1)[shape[-1]] = np.iinfo(dtype).min  # one value at the bottom of its row
        parameters = [scale(rng, 0.01, 0.3), zero_point(rng, dtype), scalar(y_scale), zero_point(rng, dtype)]
        path = tmp_path / "softmax.onnx"
        onnx.save(softmax_node_model(x, parameters, **attributes), path)
        (expected,) = onnxruntime_session(path).run(None, {"x": x})
        (actual,) = bitfold.run(load_module(str(path)), {"x": x}).values()
        assert actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)


def test_fused_multiply_add_rounds_once():
    """a * b + c = 1 + 2^-23 + 2^-24 - 2^-70 lies just below the float32 midpoint of 1 + 2^-23
    and 1 + 2^-22; its float64 rounding is that midpoint, which would round to even (up)."""
    a, b, c = F32(2**-24 * (1 + 2**-23)), F32(1 - 2**-23), F32(1 + 2**-23)
    assert mlas.fused_multiply_add(np.array(a), np.array(b), np.array(c)) == c


def test_importer_contract():
    assert contrib.DOMAIN == "com.microsoft"
    assert contrib.op_class_for("QGemm", 1) is contrib.QGemmOp
    assert contrib.op_class_for("QuantizeLinear", 1) is None
    assert contrib.op_class_for("QLinearAdd", 0) is None
    defaults = contrib.QLinearAveragePoolOp.ATTRIBUTE_DEFAULTS
    assert set(defaults) == {"auto_pad", "ceil_mode", "channels_last", "count_include_pad"}
    assert contrib.QLinearLeakyReluOp.ATTRIBUTE_DEFAULTS["alpha"].value.data == pytest.approx(0.01)


@pytest.mark.parametrize("op_class", contrib.OPS, ids=lambda op: op.name)
def test_attribute_defaults_follow_onnxruntime_schema(op_class):
    """`ATTRIBUTE_DEFAULTS` are the defaults of onnxruntime's own contrib schema, encoded as
    `base.py` says, and every attribute the schema declares the op declares too."""
    op_type = op_class.name.removeprefix("onnx.")
    (schema,) = [s for s in get_all_operator_schema() if s.domain == contrib.DOMAIN and s.name == op_type]
    expected = {}
    for name, attribute in schema.attributes.items():
        default = onnx.AttributeProto.FromString(attribute._default_value)
        if default.name:
            expected[name] = onnx_node_oracle.xdsl_attribute(default)
    assert op_class.ATTRIBUTE_DEFAULTS == expected
    assert set(schema.attributes) == set(op_class.get_irdl_definition().attributes)
