"""The torchvision fixtures (`models.torchvision`, QDQ per channel) compiled and run under qemu,
bit-exact to `bitfold-run` on the same integer IR (slow; each compile takes 10-70 CPU s):
ShuffleNetV2's channel split and shuffle (Slice, Split, Transpose) and ResNet-18's residual adds on
rv32im (bitfold's code generator) and on rv64imv (MLIR and LLVM), the RegNetX-style network's grouped
convolutions on rv32im, MobileNetV3-Small's HardSwish and squeeze-excite and EfficientNet-B0 (SiLU, squeeze-excite
with Sigmoid) on rv64imv. MobileNetV3-Small's ops on rv32im (HardSwish chains as one table lookup,
backends/riscv/schedule/tabulated_elementwise.py; the squeeze-excite gate fused) run end to end on a
MobileNetV3-style block of the same ops (tests/backends/riscv/test_elementwise_chains.py: 4 s of
compile instead of the network's 56 s). The QOperator forms import to the same quant form as QDQ
(test_torchvision_models.py compares them with onnxruntime); their compiled path is the MLPerf Tiny
QOperator models' (tests/models/mlperf_tiny).

EfficientNet-B0 whole on rv32im takes over 2 CPU minutes to compile: there its first three MBConv
blocks (`EFFICIENTNET_PREFIX_OUTPUT`: stem, depthwise convolutions, SiLU, squeeze-excite, a residual
Add; cut from the fixture by onnx.utils.Extractor) run instead, also against onnxruntime within one
output step (the whole network runs on rv64imv above)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx.utils import Extractor

from bitfold.compile import compile_model
from bitfold.load import load_module
from models import torchvision
from models.runners import run_onnxruntime

CASES = [("shufflenet_v2_x0_5", "rv32im"), ("shufflenet_v2_x0_5", "rv64imv"), ("resnet18", "rv32im"),
         ("resnet18", "rv64imv"), ("mobilenet_v3_small", "rv64imv"), ("efficientnet_b0", "rv64imv"),
         ("regnet_x", "rv32im")]
EFFICIENTNET_PREFIX_OUTPUT = "t1530"
"""The DequantizeLinear after the residual Add of EfficientNet-B0's third MBConv block (1 x 8 x 8 x 8)"""


@pytest.mark.slow
@pytest.mark.parametrize(("network", "target"), CASES)
def test_qemu_equals_bitfold_run(network, target, tmp_path):
    name = f"{network}-qdq-u8s8-perchannel"
    assert_qemu_equals_bitfold_run(str(torchvision.path(name)), torchvision.inputs(name), target, tmp_path)


@pytest.mark.slow
def test_efficientnet_prefix_on_rv32im(tmp_path):
    name = "efficientnet_b0-qdq-u8s8-perchannel"
    model = onnx.shape_inference.infer_shapes(onnx.load(torchvision.path(name)))
    onnx.save(Extractor(model).extract_model(["input"], [EFFICIENTNET_PREFIX_OUTPUT]), path := tmp_path / "prefix.onnx")
    (got,) = assert_qemu_equals_bitfold_run(str(path), torchvision.inputs(name), "rv32im", tmp_path)
    (expected,) = run_onnxruntime(path, torchvision.inputs(name)).values()
    dequantize = next(node for node in onnx.load(path).graph.node if node.output[0] == EFFICIENTNET_PREFIX_OUTPUT)
    step = float(next(onnx.numpy_helper.to_array(t) for t in model.graph.initializer if t.name == dequantize.input[1]))
    assert np.abs(got.astype(np.float64) - expected).max() <= step * (1 + 1e-6)


def assert_qemu_equals_bitfold_run(path: str, inputs: dict, target: str, tmp_path) -> list[np.ndarray]:
    """The model compiled for `target` runs under qemu bit-exact to bitfold-run; its outputs dequantized."""
    compiled = compile_model(load_module(path), target)
    stored = compiled.quantize(inputs)
    got = compiled.run_qemu(stored, tmp_path)
    for port, actual, want in zip(compiled.outputs, got, compiled.run_reference(stored), strict=True):
        assert actual.dtype == want.dtype and actual.shape == want.shape, port.name
        np.testing.assert_array_equal(actual, want, err_msg=f"{path} on {target}: {port.name}")
    return compiled.dequantize(got)
