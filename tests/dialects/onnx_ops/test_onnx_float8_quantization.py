"""QuantizeLinear / DequantizeLinear with float8 and float4 storage, imported and run by bitfold, against
onnx's reference evaluator (bit for bit, every type, saturating or not, per tensor and per axis) and
onnxruntime (its CPU provider has the four float8 types, not float4): bit for bit when saturating; not
saturating, onnxruntime gives the largest finite float8e4m3fn value (where the specification and onnx's
reference give NaN) and NaN for float8e5m2 (where they give infinity) just above the largest value, so
there the test asserts only that the two oracles disagree beyond the format's range."""

import ml_dtypes
import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from models.minifloat_cases import CASES, qdq_model

import bitfold
from bitfold.frontends.onnx import import_model

FLOAT8 = {TensorProto.FLOAT8E4M3FN: 448.0, TensorProto.FLOAT8E4M3FNUZ: 240.0,
          TensorProto.FLOAT8E5M2: 57344.0, TensorProto.FLOAT8E5M2FNUZ: 57344.0}
"""The float8 types and their largest finite values."""

TYPES = [*FLOAT8, TensorProto.FLOAT4E2M1]


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: equal bit patterns, or both NaN."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    return (a32.view(np.uint32) == b32.view(np.uint32)) | (np.isnan(a32) & np.isnan(b32))


def run_both(model: onnx.ModelProto, x: np.ndarray):
    with np.errstate(invalid="ignore", over="ignore"):
        want = ReferenceEvaluator(model).run(None, {"x": x})
    got = bitfold.run(import_model(model.SerializeToString()), {"x": x})
    return list(got.values()), want


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("code", TYPES, ids=TensorProto.DataType.Name)
def test_per_tensor_matches_onnx_reference(code, saturate):
    x = CASES.reshape(-1, 2)
    (y, z), (want_y, want_z) = run_both(qdq_model(code, saturate, np.array(0.375, np.float32), shape=list(x.shape)), x)
    assert y.dtype == want_y.dtype
    assert y.view(np.uint8).tobytes() == want_y.view(np.uint8).tobytes()
    assert same_bits(z, want_z).all()


@pytest.mark.parametrize("code", TYPES, ids=TensorProto.DataType.Name)
def test_per_axis_matches_onnx_reference(code):
    x = (np.random.default_rng(3).standard_normal((5, 3, 4)) * [[1.0], [40.0], [3000.0]]).astype(np.float32)
    scale = np.array([0.01, 0.5, 3.0], np.float32)
    (y, z), (want_y, want_z) = run_both(qdq_model(code, 1, scale, axis=1, shape=list(x.shape)), x)
    assert y.view(np.uint8).tobytes() == want_y.view(np.uint8).tobytes()
    assert same_bits(z, want_z).all()


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("code", FLOAT8, ids=TensorProto.DataType.Name)
def test_float8_matches_onnxruntime(code, saturate):
    x = CASES.reshape(-1, 2)
    model = qdq_model(code, saturate, np.array(1.0, np.float32), shape=list(x.shape))
    model.graph.output.pop(0)  # onnxruntime returns no numpy array of a float8 type: compare the dequantized z
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x})
    got = bitfold.run(import_model(model.SerializeToString()), {"x": x})["z"]
    differ = ~same_bits(got, want)
    if saturate:
        assert not differ.any(), list(zip(x[differ][:8], got[differ][:8], want[differ][:8]))
    else:
        assert (np.abs(x[differ]) > FLOAT8[code]).all()
        assert (np.isnan(got[differ]) | np.isinf(got[differ])).all()


def test_dequantize_every_float8_pattern_matches_onnxruntime():
    """The 256 patterns as a constant (onnxruntime takes no float8 numpy input), times a scale input."""
    for code in FLOAT8:
        patterns = np.arange(256, dtype=np.uint8).view(helper.tensor_dtype_to_np_dtype(code)).reshape(16, 16)
        node = helper.make_node("DequantizeLinear", ["x", "s"], ["z"])
        graph = helper.make_graph([node], "dq", [helper.make_tensor_value_info("s", TensorProto.FLOAT, [])],
                                  [helper.make_tensor_value_info("z", TensorProto.FLOAT, [16, 16])],
                                  [onnx.numpy_helper.from_array(patterns, "x")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        model.ir_version = 10
        scale = np.array(0.25, np.float32)
        got = bitfold.run(import_model(model.SerializeToString()), {"s": scale})["z"]
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        (want,) = session.run(None, {"s": scale})
        assert same_bits(got, want).all(), code


def test_nonzero_float8_zero_point_is_refused():
    model = qdq_model(TensorProto.FLOAT8E4M3FN, 1, np.array(1.0, np.float32))
    model.graph.initializer[1].CopyFrom(onnx.numpy_helper.from_array(np.array(2.0, np.float32).astype(ml_dtypes.float8_e4m3fn), "zp"))
    with pytest.raises(Exception, match="'y_zero_point' of a f8E4M3FN quantization must be zero"):
        import_model(model.SerializeToString())
