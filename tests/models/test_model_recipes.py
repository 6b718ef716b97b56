"""The test-model catalogue itself: every model builds, is valid ONNX, and runs under its oracle.

Also sanity checks of the recipes: each form contains the ops that define it, and the QDQ and
QOperator variants of one float model (same quantize_static configuration) agree within
quantization error, as does each with its float original.
"""

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from models.qonnx_models import QONNX_DOMAIN, SHIPPED_QONNX_MODELS, shipped_model_paths
from models.quantized import CALIBRATION_SEED
from models.recipes import FORMS, NETWORKS, RECIPES, names
from models.runners import run_qonnx


def _ops(model):
    return [(n.domain or "", n.op_type) for n in model.graph.node]


def test_catalogue_is_partitioned_by_form():
    model_names = {form: names(form) for form in FORMS}
    assert sorted(sum(model_names.values(), [])) == sorted(RECIPES)
    for form, listed in model_names.items():
        assert listed, f"no {form} models"


@pytest.mark.parametrize("catalogue_model_name", names())
def test_model_builds_checks_and_runs(catalogue_model_name, model_catalogue):
    path = model_catalogue.path(catalogue_model_name)
    model = onnx.load(path)
    assert model.ir_version <= 13  # what onnxruntime 1.31 loads
    onnx.checker.check_model(model, full_check=RECIPES[catalogue_model_name].form != "qonnx")
    outputs = model_catalogue.run(catalogue_model_name, model_catalogue.inputs(catalogue_model_name, seed=0))
    assert set(outputs) == {o.name for o in model.graph.output}
    for value in outputs.values():
        assert np.all(np.isfinite(value))
    # deterministic: a second run on the same inputs gives the same numbers
    again = model_catalogue.run(catalogue_model_name, model_catalogue.inputs(catalogue_model_name, seed=0))
    for name, value in outputs.items():
        np.testing.assert_array_equal(value, again[name])


@pytest.mark.parametrize("catalogue_model_name", names())
def test_form_contents(catalogue_model_name, model_catalogue):
    """Each model holds the ops that define its form, and nothing of the others."""
    form = RECIPES[catalogue_model_name].form
    ops = _ops(model_catalogue.load(catalogue_model_name))
    types = {t for _, t in ops}
    qlinear = {t for t in types if t.startswith("QLinear") or t in ("QGemm", "MatMulInteger", "ConvInteger")}
    custom = {t for d, t in ops if d == QONNX_DOMAIN}
    if form == "float":
        assert not types & {"QuantizeLinear", "DequantizeLinear", "Clip"} and not qlinear and not custom
    elif form in ("qdq", "qcdq"):
        assert {"QuantizeLinear", "DequantizeLinear"} <= types and not qlinear and not custom
        assert ("Clip" in types) == (form == "qcdq")
    elif form == "qop":
        assert qlinear and not custom
    else:
        assert "Quant" in custom
        assert not types & {"QuantizeLinear", "DequantizeLinear"}


@pytest.mark.parametrize("qcdq_model_name", names("qcdq"))
def test_qcdq_clips_every_activation_pair(qcdq_model_name, model_catalogue):
    """Every activation QuantizeLinear feeds only a Clip, whose 4-bit bounds match the storage type."""
    model = model_catalogue.load(qcdq_model_name)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    consumers = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    quantizers = [n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] not in inits]
    assert quantizers
    for q in quantizers:
        (clip,) = consumers[q.output[0]]
        assert clip.op_type == "Clip"
        lo, hi = inits[clip.input[1]], inits[clip.input[2]]
        assert (int(lo), int(hi)) in ((0, 15), (-8, 7))
        assert {n.op_type for n in consumers[clip.output[0]]} == {"DequantizeLinear"}


def _output_scale(model):
    """Scale of the DequantizeLinear producing the (single) graph output."""
    out = model.graph.output[0].name
    dq = next(n for n in model.graph.node if out in n.output)
    assert dq.op_type == "DequantizeLinear"
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return float(inits[dq.input[1]])


@pytest.mark.parametrize("network", NETWORKS)
@pytest.mark.parametrize("config", ["u8s8", "u8s8-perchannel", "s8s8-perchannel", "u8u8"])
def test_qdq_and_qop_agree(network, config, model_catalogue):
    """The QDQ and QOp variants of one configuration compute the same function within a few output
    quantization steps (QOp rounds once per integer op; QDQ executed literally computes in float
    between DQ and Q), and both stay close to the float model. Inputs are calibration samples, so no
    tensor leaves its calibrated range (random inputs beyond it saturate, which is not an error)."""
    qdq, qop = f"{network}-qdq-{config}", f"{network}-qop-{config}"
    step = _output_scale(model_catalogue.load(qdq))
    for sample in range(3):
        inputs = model_catalogue.inputs(qdq, CALIBRATION_SEED + sample)
        a = next(iter(model_catalogue.run(qdq, inputs).values()))
        b = next(iter(model_catalogue.run(qop, inputs).values()))
        f = next(iter(model_catalogue.run(f"{network}-float", inputs).values()))
        assert np.abs(a - b).max() <= 3 * step + 1e-6, (qdq, qop, np.abs(a - b).max(), step)
        spread = np.abs(f).max()
        assert np.abs(a - f).max() <= 0.1 * spread + 3 * step, (qdq, np.abs(a - f).max(), spread)


def test_shipped_qonnx_listing_is_complete():
    assert shipped_model_paths() == sorted(m.relpath for m in SHIPPED_QONNX_MODELS)


@pytest.mark.parametrize("shipped_qonnx_model", SHIPPED_QONNX_MODELS, ids=lambda m: m.relpath)
def test_shipped_qonnx_models_run_as_listed(shipped_qonnx_model):
    """`runs` is true: qonnx's executor runs the stored file; false: it refuses it as stored. All of
    them run after qonnx's cleanup."""
    if shipped_qonnx_model.runs:
        outputs = run_qonnx(shipped_qonnx_model.path, shipped_qonnx_model.feeds())
        assert all(np.all(np.isfinite(v)) for v in outputs.values())
    else:
        with pytest.raises(Exception, match="unspecified tensor shapes"):
            run_qonnx(shipped_qonnx_model.path, shipped_qonnx_model.feeds())
    cleaned = shipped_qonnx_model.cleaned_model()
    outputs = run_qonnx(cleaned, shipped_qonnx_model.cleaned_feeds(cleaned))
    assert all(np.all(np.isfinite(v)) for v in outputs.values())


@pytest.mark.parametrize("qonnx_model_name", names("qonnx"))
def test_every_qonnx_model_runs_under_qonnx_only_executor(qonnx_model_name, model_catalogue):
    """QONNX models need qonnx's executor: onnxruntime alone does not know the custom domain."""
    import onnxruntime

    with pytest.raises(Exception):
        onnxruntime.InferenceSession(str(model_catalogue.path(qonnx_model_name)))
