"""The committed MLPerf Tiny fixtures are what scripts/make_mlperf_tiny_models.py makes: the
recorded MAC counts are those of the architectures (and the benchmark's published figures), each
file holds the ops of its form, and each quantized model stays close to its float network."""

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from models import mlperf_tiny
from models.mlperf_tiny.architectures import BUILDERS, INPUT_SHAPES, multiply_accumulates
from models.runners import onnxruntime_session, run_onnxruntime

PUBLISHED_MACS = {"resnet8": 12.5e6, "dscnn": 2.7e6, "mobilenet_v1": 7.5e6, "autoencoder": 0.264e6}
"""Multiply-accumulates per inference in the MLPerf Tiny paper (Banbury et al., 2021, table 1)."""
QUANTIZATION_ERROR = 0.1
"""Largest output error of an 8-bit model, relative to the float output's largest magnitude."""


@pytest.mark.parametrize("network", mlperf_tiny.NETWORKS)
def test_recorded_macs_are_the_architectures(network):
    counted = multiply_accumulates(BUILDERS[network]())
    assert mlperf_tiny.macs(network) == counted
    assert counted == pytest.approx(PUBLISHED_MACS[network], rel=0.02)


@pytest.mark.parametrize("name", mlperf_tiny.names())
def test_fixture_holds_its_form(name):
    model = onnx.load(mlperf_tiny.path(name))
    onnx.checker.check_model(model, full_check=True)
    ops = {node.op_type for node in model.graph.node}
    form = mlperf_tiny.form_of(name)
    if form.startswith("qdq"):
        assert {"QuantizeLinear", "DequantizeLinear"} <= ops and not {op for op in ops if op.startswith("QLinear")}
        initializers = {t.name: t for t in model.graph.initializer}
        per_channel = any(numpy_helper.to_array(initializers[node.input[1]]).size > 1
                          for node in model.graph.node if node.op_type == "DequantizeLinear")
        assert per_channel == form.endswith("perchannel")
    else:
        assert ops & {"QLinearConv", "QGemm"} and "Conv" not in ops and "Gemm" not in ops
    assert mlperf_tiny.manifest()[mlperf_tiny.network_of(name)]["models"][name]["bytes"] == \
        mlperf_tiny.path(name).stat().st_size


@pytest.mark.parametrize("name", mlperf_tiny.names())
def test_quantized_model_is_close_to_its_float_network(name):
    network = mlperf_tiny.network_of(name)
    feeds = mlperf_tiny.inputs(name)
    assert list(feeds["input"].shape) == INPUT_SHAPES[network] and feeds["input"].dtype == np.float32
    (real,) = onnxruntime_session(BUILDERS[network](), optimize=True).run(None, feeds)
    (quantized,) = run_onnxruntime(mlperf_tiny.path(name), feeds).values()
    assert np.abs(quantized - real).max() <= QUANTIZATION_ERROR * np.abs(real).max()
