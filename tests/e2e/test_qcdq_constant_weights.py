"""Brevitas' QCDQ weights (float weights quantized at run time, `QuantizeLinear -> Clip ->
DequantizeLinear`) reach integer code like their QONNX export (issue 12, item 1).

For each weight quantizer of `models.qcdq_weights` (8-bit narrow, 4-bit, 4-bit narrow; per tensor and
per channel):
- the oracles agree that the QCDQ and QONNX networks are one network (onnxruntime on the first,
  qonnx's executor on the second, bit for bit), so the canonical form of the QCDQ model after
  `onnx-to-quant,canonicalize` (and `canonicalize-quant`) must be the QONNX model's, as text up to
  value names: the weight is one integer constant of the narrow type;
- `onnx-to-integer` takes it, and bitfold-run on the integer IR, and the model compiled for rv32im and
  run under qemu, are within one output step of onnxruntime (qemu bit-exact to bitfold-run);
- every ONNX form holds it: the QDQ and QCDQ exports compute onnxruntime's numbers on the source bit
  for bit, QOp (QLinearConv: integer sums, float32 requantization) and QONNX within one step.
"""

import numpy as np
import pytest
from models import qcdq_weights
from models.qcdq_weights import CONFIGS, OUTPUT_SCALE
from models.runners import run_onnxruntime, run_qonnx
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.canonicalize import CanonicalizePass

import bitfold
from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.load import full_context, import_onnx
from bitfold.passes.canonicalize_quant import CanonicalizeQuantPass
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.pipelines import OnnxToIntegerPipeline

SEEDS = (0, 1)
IDS = [config.name for config in CONFIGS]


def _imported(model) -> ModuleOp:
    return import_onnx(model.SerializeToString(), None, model.graph.name)


def _module(model, *passes) -> ModuleOp:
    module = _imported(model)
    for stage in passes:
        stage.apply(full_context(), module)
    return module


def _anonymous_text(module: ModuleOp) -> str:
    """The module's text with every value named by position (`%0`, `%1`, ...)."""
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            value.name_hint = None
    return str(module)


def _steps(actual: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(actual.astype(np.float64) - expected).max() / OUTPUT_SCALE)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_oracles_agree_the_forms_are_one_network(config):
    for seed in SEEDS:
        feeds = qcdq_weights.inputs(seed)
        qcdq = run_onnxruntime(qcdq_weights.qcdq_model(config), feeds)["y"]
        np.testing.assert_array_equal(run_qonnx(qcdq_weights.qonnx_model(config), feeds)["y"], qcdq)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("passes", [(OnnxToQuantPass(), CanonicalizePass()),
                                    (OnnxToQuantPass(), CanonicalizePass(), CanonicalizeQuantPass())],
                         ids=["canonicalize", "canonicalize-quant"])
def test_canonical_form_equals_the_qonnx_export(config, passes):
    qcdq = _anonymous_text(_module(qcdq_weights.qcdq_model(config), *passes))
    assert qcdq == _anonymous_text(_module(qcdq_weights.qonnx_model(config), *passes))
    assert "quant.requant" not in qcdq
    low, high = config.range
    weight_storage = f"i{config.bits}<{low}:{high}>:" if config.narrow else f"i{config.bits}:"
    assert qcdq.count('"onnx.Constant"') == 1 and f"!quant.uniform<{weight_storage}" in qcdq


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_integer_pipeline_within_one_step_of_onnxruntime(config):
    model = qcdq_weights.qcdq_model(config)
    module = _module(model, OnnxToIntegerPipeline())
    for seed in SEEDS:
        feeds = qcdq_weights.inputs(seed)
        assert _steps(bitfold.run(module, feeds)["y"], run_onnxruntime(model, feeds)["y"]) <= 1 + 1e-6


@pytest.mark.parametrize("config", [CONFIGS[1], CONFIGS[5]], ids=[IDS[1], IDS[5]])
def test_rv32im_within_one_step_of_onnxruntime(config, tmp_path):
    from conftest import require_tools

    from bitfold.compile import compile_model

    require_tools("qemu-riscv32")
    model = qcdq_weights.qcdq_model(config)
    compiled = compile_model(_imported(model), "rv32im")
    feeds = qcdq_weights.inputs(0)
    stored = compiled.quantize(feeds)
    actual = compiled.run_qemu(stored, tmp_path)
    np.testing.assert_array_equal(actual[0], compiled.run_reference(stored)[0])
    assert _steps(compiled.dequantize(actual)[0], run_onnxruntime(model, feeds)["y"]) <= 1 + 1e-6


FORMS = {"qdq": (QdqForm, run_onnxruntime, 0), "qcdq": (QcdqForm, run_onnxruntime, 0),
         "qop": (QopForm, run_onnxruntime, 1), "qonnx": (QonnxForm, run_qonnx, 1)}
"""form: (exporter, oracle, largest difference from the source in output steps)."""


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("form", list(FORMS))
def test_every_form_exports_the_constant_weights(config, form):
    exporter, oracle, steps = FORMS[form]
    model = qcdq_weights.qcdq_model(config)
    exported = export_model(_module(model, OnnxToQuantPass(), CanonicalizePass()), exporter())
    for seed in SEEDS:
        feeds = qcdq_weights.inputs(seed)
        assert _steps(oracle(exported, feeds)["y"], run_onnxruntime(model, feeds)["y"]) <= steps + 1e-6
