"""The torchvision fixtures (`models.torchvision`: ShuffleNetV2 x0.5, MobileNetV3-Small,
EfficientNet-B0, ResNet-18, each quantize_static QDQ per channel and QOperator):

- `bitfold-run` on the integer IR (onnx-to-integer) within one output step of onnxruntime
  (ORT_DISABLE_ALL, integer kernels exact on every CPU; measured: equal on every output but
  `PROPAGATED_STEPS`);
  ResNet-18 in the quick suite, the others slow (5-30 s each in the interpreter);
- compiled and run under qemu: `test_torchvision_qemu.py`."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import bitfold
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline
from models import torchvision
from models.runners import run_onnxruntime

QUICK = ("resnet18",)
PROPAGATED_STEPS = {"regnet_x-qop-u8s8": 3}
"""Output steps off where one-step differences of inner layers propagate: the integer IR's
fixed-point requantization and onnxruntime's float32 one (QLinearConv) differ by one step at
near-ties (8 outputs of the RegNetX-style network's second convolution, measured node by node),
and 19 layers on, the QGemm's outputs are up to 3 steps apart."""


def marked(name: str):
    return name if name.startswith(QUICK) else pytest.param(name, marks=pytest.mark.slow)


@pytest.mark.parametrize("name", [marked(name) for name in torchvision.names()])
def test_bitfold_run_within_one_step_of_onnxruntime(name):
    module = load_module(str(torchvision.path(name)))
    OnnxToIntegerPipeline().apply(full_context(), module)
    assert "onnx.Conv" not in str(module)  # every Conv in integers: no float island
    feeds = torchvision.inputs(name)
    (expected,) = run_onnxruntime(torchvision.path(name), feeds).values()
    (actual,) = bitfold.run(module, feeds).values()
    assert actual.shape == expected.shape
    step = output_step(name)
    # both outputs are dequantized integers (q - zp) * step in float32: compare the integers
    off = np.abs(np.rint(actual.astype(np.float64) / step) - np.rint(expected.astype(np.float64) / step))
    assert off.max() <= PROPAGATED_STEPS.get(name, 1), f"{name}: up to {off.max():.0f} steps of {step:g} off"


def output_step(name: str) -> float:
    """The scale of the DequantizeLinear that makes the graph output (both forms end in one)."""
    model = onnx.load(torchvision.path(name))
    producer = next(node for node in model.graph.node if model.graph.output[0].name in node.output)
    assert producer.op_type == "DequantizeLinear"
    return float(next(numpy_helper.to_array(t) for t in model.graph.initializer if t.name == producer.input[1]))
