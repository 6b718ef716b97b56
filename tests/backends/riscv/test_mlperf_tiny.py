"""The MLPerf Tiny networks (tests/models/mlperf_tiny: ResNet-8, DS-CNN, MobileNetV1-0.25 and the
FC autoencoder, each quantized by onnxruntime as QDQ per tensor, QDQ per channel and QOperator)
compile for RV32IM and RV64IM and run under qemu, restricted to the target's ISA, with outputs
equal bit for bit to bitfold's interpreter on the same integer IR (one target a form: per-tensor
and per-channel QDQ on RV32IM, QOperator on RV64IM, so that every network runs on both targets and
the suite stays within its 15 minutes: the forms differ in their parameter tables, not their loops;
MobileNetV1, whose compilation takes longest, on per-channel QDQ only); that interpreter's outputs,
dequantized, are within one output quantization step of onnxruntime running the quantized model
(ORT_DISABLE_ALL), for every form. No model may be refused (issue 10's acceptance).

Each model compiles once per target per session (`Compilations`); the interpreter runs once per
model, on the integer IR of `lower_model`: the target-independent stages every compilation starts
from, so the same IR the assembly was made from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from models import mlperf_tiny
from models.runners import run_onnxruntime

from bitfold.compile import CompiledModel, LoweredModel, compile_model, lower_model
from bitfold.load import load_module

TARGETS = ("rv32im", "rv64im")
TARGETS_OF_FORM = {"qdq-u8s8": ("rv32im",), "qdq-u8s8-perchannel": ("rv32im",), "qop-u8s8": ("rv64im",)}
QEMU_ONLY = {"mobilenet_v1": "mobilenet_v1-qdq-u8s8-perchannel"}
"""network -> its one form compiled and run under qemu"""
CASES = [
    (name, target)
    for name in mlperf_tiny.names()
    if QEMU_ONLY.get(mlperf_tiny.network_of(name), name) == name
    for target in TARGETS_OF_FORM[mlperf_tiny.form_of(name)]
]


@dataclass
class Reference:
    """One model's input as the integers the compiled function takes, and the interpreter's outputs."""

    stored: list[np.ndarray]
    outputs: list[np.ndarray]
    lowered: LoweredModel
    """The integer IR that was interpreted (its ports dequantize the outputs)."""


@dataclass
class Compilations:
    """`compile_model` of each fixture for each target, and the reference run of each fixture,
    made on first request and kept (a refusal is kept too, and raised again)."""

    _compiled: dict[tuple[str, str], CompiledModel | Exception] = field(default_factory=dict)
    _references: dict[str, Reference] = field(default_factory=dict)

    def compiled(self, name: str, target: str) -> CompiledModel:
        key = (name, target)
        if key not in self._compiled:
            try:
                self._compiled[key] = compile_model(load_module(str(mlperf_tiny.path(name))), target)
            except Exception as error:  # the refusal, raised again for the test that asks
                self._compiled[key] = error
        result = self._compiled[key]
        if isinstance(result, Exception):
            raise result
        return result

    def reference(self, name: str) -> Reference:
        if name not in self._references:
            lowered = lower_model(load_module(str(mlperf_tiny.path(name))))
            stored = lowered.quantize(mlperf_tiny.inputs(name))
            self._references[name] = Reference(stored, lowered.run_reference(stored), lowered)
        return self._references[name]


@pytest.fixture(scope="module")
def compilations() -> Compilations:
    return Compilations()


@pytest.mark.parametrize(("name", "target"), CASES)
def test_qemu_equals_bitfold_run(name, target, compilations, tmp_path):
    compiled = compilations.compiled(name, target)
    reference = compilations.reference(name)
    stored = compiled.quantize(mlperf_tiny.inputs(name))
    for mine, shared in zip(stored, reference.stored, strict=True):
        np.testing.assert_array_equal(mine, shared, err_msg=f"{name}: {target} quantizes the input differently")
    actual = compiled.run_qemu(stored, tmp_path)
    for port, got, want in zip(compiled.outputs, actual, reference.outputs, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape, port.name
        np.testing.assert_array_equal(got, want, err_msg=f"{name} on {target}: {port.name}")


@pytest.mark.parametrize("name", mlperf_tiny.names())
def test_bitfold_run_within_one_step_of_onnxruntime(name, compilations):
    reference = compilations.reference(name)
    expected = run_onnxruntime(mlperf_tiny.path(name), mlperf_tiny.inputs(name))
    dequantized = reference.lowered.dequantize(reference.outputs)
    for port, got in zip(reference.lowered.outputs, dequantized, strict=True):
        (step,) = set(port.qtype.scale_values())  # onnxruntime quantizes activations per tensor
        want = expected[port.name]
        assert got.shape == want.shape, port.name
        off = np.abs(got.astype(np.float64) - want.astype(np.float64))
        assert off.max() <= step * (1 + 1e-6), (
            f"{name}: {port.name} differs from onnxruntime by up to {off.max() / step:.2f} steps of {step:g} "
            f"({np.count_nonzero(off > step / 2)} of {off.size} elements off by a step or more)")
