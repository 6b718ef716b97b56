"""QDQ models with float data movement before the first QuantizeLinear or after the last
DequantizeLinear (tests/models/producer_layouts, the tf2onnx / tflite2onnx layouts) compile for
RV32IM with no float code: the movement runs on the stored integers (canonicalize-quant's
`hoist_quantize` and `sink_dequantize`), so the function takes the integers of the model's own
input layout (NHWC). Under qemu the outputs equal bitfold's interpreter on the same integer IR
bit for bit; that interpreter's outputs, dequantized, are within one output step of onnxruntime
(ORT_DISABLE_ALL: float Conv / Gemm between the quantizers), and equal to it where the model
only moves and quantizes data.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from models import producer_layouts
from models.runners import run_onnxruntime

from bitfold.compile import CompiledModel, compile_model
from bitfold.load import load_module

TARGET = "rv32im"
MOVEMENT_ONLY = [name for name in producer_layouts.names() if producer_layouts.MACS[name] == 0]


@functools.cache
def compiled(name: str) -> CompiledModel:
    return compile_model(load_module(str(producer_layouts.path(name))), TARGET)


@functools.cache
def reference(name: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The stored inputs and bitfold's interpreter outputs on the compiled integer IR."""
    stored = compiled(name).quantize(producer_layouts.inputs(name))
    return stored, compiled(name).run_reference(stored)


@pytest.mark.parametrize("name", producer_layouts.names())
def test_function_takes_the_producers_layout(name):
    (port,) = compiled(name).inputs
    assert port.shape == producer_layouts.inputs(name)["input"].shape


@pytest.mark.parametrize("name", producer_layouts.names())
def test_qemu_equals_bitfold_run(name, tmp_path):
    stored, outputs = reference(name)
    actual = compiled(name).run_qemu(stored, tmp_path)
    for port, got, want in zip(compiled(name).outputs, actual, outputs, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape, port.name
        np.testing.assert_array_equal(got, want, err_msg=f"{name}: {port.name}")


@pytest.mark.parametrize("name", producer_layouts.names())
def test_bitfold_run_within_one_step_of_onnxruntime(name):
    expected = run_onnxruntime(producer_layouts.path(name), producer_layouts.inputs(name))
    dequantized = compiled(name).dequantize(reference(name)[1])
    for port, got in zip(compiled(name).outputs, dequantized, strict=True):
        step = max(port.qtype.scale_values())
        off = np.abs(got.astype(np.float64) - expected[port.name].astype(np.float64))
        assert off.max() <= step * (1 + 1e-6), f"{name}: {port.name} off by {off.max() / step:.2f} steps"


@pytest.mark.parametrize("name", MOVEMENT_ONLY)
def test_movement_only_equals_onnxruntime(name):
    expected = run_onnxruntime(producer_layouts.path(name), producer_layouts.inputs(name))
    dequantized = compiled(name).dequantize(reference(name)[1])
    for port, got in zip(compiled(name).outputs, dequantized, strict=True):
        np.testing.assert_array_equal(got, expected[port.name], err_msg=f"{name}: {port.name}")
