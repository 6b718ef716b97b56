"""Float8 QDQ models through the quant form and back: imported, onnx-to-quant (qcast / dcast with float
storage), written in QDQ and QCDQ; onnxruntime runs the written model with the source model's numbers (the
source run by onnxruntime too, no bitfold numbers involved), and bitfold re-imports it with the same float8
values. QONNX holds no float8 tensor: refused with one line. QONNX FloatQuant (which stays a `qonnx.FloatQuant`
op) is written back as FloatQuant: the qonnx wheel's fp8 model runs in qonnx's executor as the original does."""

import numpy as np
import onnx
import onnxruntime
import pytest
from models.minifloat_cases import CASES, qdq_model
from models.qonnx_models import SHIPPED_QONNX_MODELS
from models.runners import run_qonnx
from onnx import TensorProto
from xdsl.context import Context

import bitfold
from bitfold.backends.onnx import ExportError, export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.frontends.onnx import import_model
from bitfold.passes.onnx_to_quant import OnnxToQuantPass

FLOAT8 = [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ]


def quant_form(model):
    module = import_model(model.SerializeToString())
    OnnxToQuantPass().apply(Context(), module)
    return module


def run_z(model, x: np.ndarray) -> np.ndarray:
    """onnxruntime's dequantized output z (it returns no numpy array of a float8 type)."""
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(["z"], {"x": x})[0]


@pytest.mark.parametrize("form", [QdqForm, QcdqForm], ids=lambda f: f.name)
@pytest.mark.parametrize("code", FLOAT8, ids=TensorProto.DataType.Name)
@pytest.mark.parametrize("per_axis", [False, True])
@pytest.mark.parametrize("saturate", [1, 0])
def test_round_trip_runs_like_the_source_in_onnxruntime(form, code, per_axis, saturate):
    x = CASES.reshape(-1, 2)
    scale = np.array([0.375, 3.0], np.float32) if per_axis else np.array(0.375, np.float32)
    source = qdq_model(code, saturate, scale, shape=list(x.shape))
    written = export_model(quant_form(source), form())
    assert [n.op_type for n in written.graph.node] == ["QuantizeLinear", "DequantizeLinear"]
    (written_saturate,) = [a for a in written.graph.node[0].attribute if a.name == "saturate"]
    assert onnx.helper.get_attribute_value(written_saturate) == saturate
    assert run_z(written, x).tobytes() == run_z(source, x).tobytes()
    again = bitfold.run(import_model(written.SerializeToString()), {"x": x})
    want = bitfold.run(import_model(source.SerializeToString()), {"x": x})
    assert again["y"].dtype == want["y"].dtype and again["y"].tobytes() == want["y"].tobytes()


def test_qonnx_refuses_float8_with_one_line():
    module = quant_form(qdq_model(TensorProto.FLOAT8E4M3FN, 1, np.array(0.5, np.float32)))
    with pytest.raises(ExportError, match="QONNX holds no integer tensors: .* reinterprets quantized values as f8E4M3FN"):
        export_model(module, QonnxForm())


def test_float_quant_round_trips_through_qonnx(tmp_path):
    (shipped,) = [m for m in SHIPPED_QONNX_MODELS if "FloatQuant" in m.ops]
    written = export_model(quant_form(onnx.load(shipped.path)), QonnxForm())
    assert [n.op_type for n in written.graph.node].count("FloatQuant") == 2
    path = tmp_path / "written.onnx"
    onnx.save(written, path)
    feeds = shipped.feeds()
    (want,), (got,) = run_qonnx(shipped.path, feeds).values(), run_qonnx(path, feeds).values()
    assert got.tobytes() == want.tobytes()
