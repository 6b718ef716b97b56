"""The ONNX models shipped inside the qonnx package import and run under bitfold-run like
qonnx's executor runs them (the models whose shapes qonnx leaves unspecified are run after
qonnx's own `cleanup_model`, as qonnx's flows do). The FloatQuant (fp8) model also reproduces
the golden data shipped beside it (Brevitas' quantized input and weights, and its output)."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from models.qonnx_models import SHIPPED_QONNX_MODELS
from models.runners import run_qonnx

import bitfold
from bitfold.frontends.onnx import import_model

MAX_ORDER_DEPENDENT_FRACTION = 1e-3

FLOAT_QUANT_MODELS = [m for m in SHIPPED_QONNX_MODELS if "FloatQuant" in m.ops]


@pytest.mark.parametrize("shipped", SHIPPED_QONNX_MODELS, ids=lambda m: m.relpath)
def test_shipped_model_runs_like_qonnx(shipped, tmp_path):
    if shipped.runs:
        model, feeds = onnx.load(shipped.path), shipped.feeds()
    else:
        model = shipped.cleaned_model()
        feeds = shipped.cleaned_feeds(model)
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    expected = run_qonnx(path, feeds)
    actual = bitfold.run(import_model(path), feeds)
    assert actual.keys() == expected.keys()
    for name, want in expected.items():
        # Float compute (Conv, MatMul, Add) sums in another order than onnxruntime: float
        # outputs agree to rounding (rtol 1e-5). Where such a sum feeds a quantizer, an
        # element at a rounding boundary can land one step apart and carry on through later
        # layers: those elements are counted and bounded like the catalogue's (0.1%).
        close = np.isclose(actual[name], want, rtol=1e-5, atol=1e-5)
        print(f"\n{shipped.relpath}:{name}: {close.size - close.sum()} of {close.size} elements "
              f"differ beyond float rounding")
        assert close.mean() > 1 - MAX_ORDER_DEPENDENT_FRACTION


@pytest.mark.parametrize("shipped", FLOAT_QUANT_MODELS, ids=lambda m: m.relpath)
def test_float_quant_reproduces_the_shipped_golden_data(shipped):
    """test_data/ beside the model: Brevitas' input, the outputs of its input and weight quantizers
    (activation.npz; bitfold-run's FloatQuant results bit for bit) and the layer's output (Gemm sums
    in float: to float rounding)."""
    data = Path(shipped.path).parent / "test_data"
    x, golden = np.load(data / "input.npy"), np.load(data / "activation.npz")
    module = import_model(shipped.path)
    outputs = bitfold.run(module, {"x.1": x})
    (output,) = outputs.values()
    np.testing.assert_allclose(output, np.load(data / "output.npy"), rtol=1e-5, atol=1e-6)
    model = onnx.load(shipped.path)
    quantizers = [n for n in model.graph.node if n.op_type == "FloatQuant"]
    names = ("input_quant", "weight_quant")
    model.graph.output.extend(onnx.helper.make_tensor_value_info(n.output[0], onnx.TensorProto.FLOAT, golden[name].shape)
                              for n, name in zip(quantizers, names, strict=True))
    probed = bitfold.run(import_model(model.SerializeToString()), {"x.1": x})
    for node, name in zip(quantizers, names, strict=True):
        assert probed[node.output[0]].tobytes() == golden[name].astype(np.float32).tobytes(), name
