"""Export of plain imported IR (no quant pass): float models and QDQ / QCDQ models written
back as QDQ compute what the source model computes under onnxruntime, bit for bit, and keep
its node names and graph input / output names."""

import numpy as np
import onnx
import pytest
from models.recipes import names
from models.runners import run_onnxruntime

from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.frontends.onnx import import_model

QDQ_MODELS = [n for n in names("qdq") + names("qcdq") if "-s8s8" in n or "u8s4" in n or "u16" in n or "qcdq4a" in n]
"""A spread of the QDQ and QCDQ catalogue: 8-bit, native int4, 16-bit, com.microsoft Q/DQ, Clip."""


def _assert_same_outputs(original: onnx.ModelProto, exported: onnx.ModelProto, inputs) -> None:
    expected, actual = run_onnxruntime(original, inputs), run_onnxruntime(exported, inputs)
    assert actual.keys() == expected.keys()
    for name, want in expected.items():
        assert actual[name].dtype == want.dtype and np.array_equal(actual[name], want), name


def _assert_names_kept(original: onnx.ModelProto, exported: onnx.ModelProto) -> None:
    assert [i.name for i in exported.graph.input] == [i.name for i in original.graph.input if i.name not in {t.name for t in original.graph.initializer}]
    assert [o.name for o in exported.graph.output] == [o.name for o in original.graph.output]
    assert {n.name for n in exported.graph.node} == {n.name for n in original.graph.node}


@pytest.mark.parametrize("form", [QdqForm, QonnxForm], ids=lambda f: f.name)
@pytest.mark.parametrize("name", names("float"))
def test_float_model_round_trips_exactly(name, form, model_catalogue):
    original = model_catalogue.load(name)
    exported = export_model(import_model(model_catalogue.path(name)), form())
    assert exported.ir_version <= 13 and exported.opset_import[0].version == 13
    _assert_names_kept(original, exported)
    _assert_same_outputs(original, exported, model_catalogue.inputs(name, seed=0))


@pytest.mark.parametrize("name", QDQ_MODELS)
def test_qdq_model_exports_as_itself(name, model_catalogue):
    original = model_catalogue.load(name)
    exported = export_model(import_model(model_catalogue.path(name)), QdqForm())
    _assert_names_kept(original, exported)
    for seed in (0, 1):
        _assert_same_outputs(original, exported, model_catalogue.inputs(name, seed=seed))


def test_native_int4_needs_opset_21(model_catalogue):
    exported = export_model(import_model(model_catalogue.path("mlp-qdq-u8s4-perchannel")), QdqForm())
    assert exported.opset_import[0].version == 21 and exported.ir_version == 10
