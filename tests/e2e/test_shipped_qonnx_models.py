"""The ONNX models shipped inside the qonnx package import and run under bitfold-run like
qonnx's executor runs them (the models whose shapes qonnx leaves unspecified are run after
qonnx's own `cleanup_model`, as qonnx's flows do). FloatQuant (minifloat quantization) is
outside bitfold's integer scope for now and must be refused with one clear line."""

import numpy as np
import onnx
import pytest
from models.qonnx_models import SHIPPED_QONNX_MODELS
from models.runners import run_qonnx

import bitfold
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model

MAX_ORDER_DEPENDENT_FRACTION = 1e-3

INTEGER_MODELS = [m for m in SHIPPED_QONNX_MODELS if "FloatQuant" not in m.ops]
FLOAT_QUANT_MODELS = [m for m in SHIPPED_QONNX_MODELS if "FloatQuant" in m.ops]


@pytest.mark.parametrize("shipped", INTEGER_MODELS, ids=lambda m: m.relpath)
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
def test_float_quant_is_refused_clearly(shipped):
    with pytest.raises(FrontendError, match=r"unsupported op 'FloatQuant' \(domain '[\w.]+'\) at node"):
        import_model(shipped.path)
