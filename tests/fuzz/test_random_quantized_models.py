"""Properties of random one-node quantization models against the oracles: where onnxruntime
(QuantizeLinear / DequantizeLinear) or qonnx (Quant) runs the model, bitfold runs it too and
agrees bit for bit, unless bitfold's documented policy refuses it (scales not finite and
positive); where the oracle refuses it, bitfold refuses it in one `FrontendError` line."""

import numpy as np
import onnx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from models.runners import onnxruntime_session
from onnx import TensorProto, helper, numpy_helper
from qonnx.custom_op.general.intquant import int_quant, resolve_rounding_mode

import bitfold
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model

ZERO_POINT_TYPES = {13: [np.int8, np.uint8], 21: [np.int8, np.uint8, np.int16, np.uint16]}
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def qdq_models(draw):
    opset = draw(st.sampled_from([13, 21]))
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    block_size = draw(st.sampled_from([0, 0, 1, 2, 3, -1])) if opset >= 21 else 0
    granularity = draw(st.sampled_from(["tensor", "axis", "blocked", "wrong"]))
    in_range = -len(shape) <= axis < len(shape)
    if granularity == "axis" and in_range:
        parameter_shape = [shape[axis]]
    elif granularity == "blocked" and in_range and block_size > 0:
        parameter_shape = [-(-d // block_size) if i == axis % len(shape) else d for i, d in enumerate(shape)]
    elif granularity == "wrong":
        parameter_shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=2))
    else:
        parameter_shape = []
    dtype = draw(st.sampled_from(ZERO_POINT_TYPES[opset]))
    info = np.iinfo(dtype)
    count = int(np.prod(parameter_shape))
    scales = draw(st.lists(st.sampled_from([0.5, 0.125, 0.03, 2.0, 0.0, -1.0, float("nan")]), min_size=count, max_size=count))
    zero_points = draw(st.lists(st.integers(max(info.min, -200), min(info.max, 200)), min_size=count, max_size=count))
    dequantize = draw(st.booleans())
    attributes = {"axis": axis} | ({"block_size": block_size} if opset >= 21 else {})
    scale = np.array(scales, np.float32).reshape(parameter_shape)
    zero_point = np.array(zero_points, dtype).reshape(parameter_shape)
    x_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype)) if dequantize else TensorProto.FLOAT
    y_type = TensorProto.FLOAT if dequantize else helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node("DequantizeLinear" if dequantize else "QuantizeLinear", ["x", "s", "z"], ["y"], name="n", **attributes)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", x_type, shape)],
                              [helper.make_tensor_value_info("y", y_type, shape)],
                              [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zero_point, "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = (rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype) if dequantize
         else (rng.normal(0, 20, shape) * rng.choice([1, 1, 1e30], shape)).astype(np.float32))
    return model, x, scale


def onnxruntime_outputs(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray | None:
    try:
        return onnxruntime_session(model, optimize=True, log_severity=4).run(None, {"x": x})[0]
    except Exception:  # noqa: BLE001 - any failure is the oracle's refusal
        return None


@SETTINGS
@given(qdq_models())
def test_qdq_models_agree_with_onnxruntime(case):
    model, x, scale = case
    expected = onnxruntime_outputs(model, x)
    try:
        module = import_model(model.SerializeToString())
    except FrontendError as error:
        assert "\n" not in str(error)
        policy = not (np.isfinite(scale) & (scale > 0)).all()
        assert expected is None or policy, f"bitfold refuses what onnxruntime runs: {error}"
        return
    assert expected is not None, "bitfold accepts what onnxruntime refuses"
    (got,) = bitfold.run(module, {"x": x}).values()
    np.testing.assert_array_equal(got, expected)


@st.composite
def qonnx_quant_models(draw):
    bits = draw(st.sampled_from([1.0, 2.0, 4.0, 8.0, 0.0, 2.5, -1.0, float("nan")]))
    signed, narrow = draw(st.sampled_from([0, 1, 2])), draw(st.sampled_from([0, 1]))
    mode = draw(st.sampled_from(["ROUND", "FLOOR", "CEIL", "UP", "DOWN", "HALF_UP", "HALF_DOWN", "BANANA"]))
    scale = draw(st.sampled_from([0.25, 0.1, 1.0, 0.0, -0.5]))
    zeropt = draw(st.sampled_from([0.0, 1.0, -2.0]))
    node = helper.make_node("Quant", ["x", "s", "z", "b"], ["y"], name="n", domain="qonnx.custom_op.general",
                            signed=signed, narrow=narrow, rounding_mode=mode)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8])],
                              [numpy_helper.from_array(np.float32(v), n) for n, v in [("s", scale), ("z", zeropt), ("b", bits)]])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("qonnx.custom_op.general", 1)])
    x = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).normal(0, 3, 8).astype(np.float32)
    return model, x, (np.float32(scale), np.float32(zeropt), np.float32(bits), signed, narrow, mode)


def qonnx_outputs(x, scale, zeropt, bits, signed, narrow, mode) -> np.ndarray | None:
    """qonnx's reference, with the input checks of qonnx's IntQuant (flags 0/1 as the QONNX
    spec states them; one integer bit width) and a known rounding mode (`resolve_rounding_mode`,
    which qonnx's bipolar path skips)."""
    if signed not in (0, 1) or not (np.isfinite(bits) and float(bits).is_integer() and bits >= 1):
        return None
    try:
        resolve_rounding_mode(mode)
    except ValueError:
        return None
    try:
        with np.errstate(all="ignore"):
            return int_quant(x, scale, zeropt, bits, signed, narrow, mode)
    except ValueError:
        return None


@SETTINGS
@given(qonnx_quant_models())
def test_qonnx_quant_models_agree_with_qonnx(case):
    model, x, parameters = case
    expected = qonnx_outputs(x, *parameters)
    try:
        module = import_model(model.SerializeToString())
    except FrontendError as error:
        assert "\n" not in str(error)
        assert expected is None or not parameters[0] > 0, f"bitfold refuses what qonnx runs: {error}"
        return
    assert expected is not None, "bitfold accepts what qonnx refuses"
    (got,) = bitfold.run(module, {"x": x}).values()
    np.testing.assert_array_equal(got, expected.astype(np.float32))
