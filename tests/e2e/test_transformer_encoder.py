"""The two-layer transformer encoder (tests/models/transformer: torch export, onnxruntime's static
QDQ, dynamic and MatMulNBits quantizations) against onnxruntime with graph optimizations off:

- bitfold-run on the imported model (each op's reference): within float32 rounding (the float ops
  compute in float64 and round once; onnxruntime accumulates in float32), the QDQ model bit for bit;
- the integer IR (`onnx-to-integer`: LayerNorm, Erf, the 4-bit weights' float MatMuls and the
  dynamic quantization as float islands, attention's Q.K^T and P.V integer):
  - QDQ: within QDQ_BOUND_STEPS output steps. Every op is exact or within one step of its own
    oracle (integer Softmax: one step, docs/integer-ir.md; the float islands' f32 LayerNorm and
    erf in another order), and a step moved in layer 0 moves later requantizations by a step
    more through the Gemms (measured: 3 steps at most, 219 of 512 outputs off by any);
  - dynamic and MatMulNBits (float activations throughout): within float32 rounding
    (DynamicQuantizeLinear and MatMulInteger are the reference's bits, docs/float-islands.md);
- compiled for rv32im (soft float) and rv64imv, run under qemu bit-exact to bitfold-run on the
  same integer IR (slow: rv32im compiles take 1.5 to 2.5 minutes a model)."""

import numpy as np
import pytest
from conftest import require_tools
from models.runners import run_onnxruntime
from models.transformer import FORMS, inputs, path
from xdsl.context import Context

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline

CASES = [(form, "rv64imv") for form in FORMS] + [("qdq", "rv32im")]
"""every form on the vector target; rv32im (soft-float islands, about 100 s a model) on the QDQ one"""
QDQ_BOUND_STEPS = 4
"""max |integer IR - onnxruntime| of the QDQ encoder, in output steps (module docstring)"""
FLOAT_TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
"""float32 rounding of 64- and 128-term sums and of the islands' exp / erf / sqrt (a few ulp)"""


@pytest.fixture(scope="module")
def onnxruntime_outputs() -> dict[str, np.ndarray]:
    return {form: run_onnxruntime(path(form), inputs())["output"] for form in FORMS}


@pytest.mark.parametrize("form", FORMS)
def test_bitfold_run_follows_onnxruntime(form, onnxruntime_outputs):
    want = onnxruntime_outputs[form]
    module = import_model(str(path(form)))
    (imported,) = bitfold.run(module, inputs()).values()
    if form == "qdq":
        np.testing.assert_array_equal(imported, want)
    else:
        np.testing.assert_allclose(imported, want, **FLOAT_TOLERANCE)
    OnnxToIntegerPipeline().apply(Context(), module)
    (integer,) = bitfold.run(module, inputs()).values()
    if form == "qdq":
        step = float(np.min(np.diff(np.unique(want))))
        steps = np.abs(np.asarray(integer, np.float64) - want) / step
        assert steps.max() <= QDQ_BOUND_STEPS + 1e-3
    else:
        np.testing.assert_allclose(integer, want, **FLOAT_TOLERANCE)


@pytest.fixture(scope="session")
def compiled_encoders():
    """(form, target) -> the compilation, made once per session on first use."""
    cache = {}

    def get(form: str, target: str):
        if (form, target) not in cache:
            cache[form, target] = compile_model(load_module(str(path(form))), target)
        return cache[form, target]

    return get


@pytest.mark.slow
@pytest.mark.parametrize(("form", "target"), CASES)
def test_qemu_is_bit_exact_to_bitfold_run(form, target, compiled_encoders, onnxruntime_outputs, tmp_path):
    require_tools("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc", "mlir-opt-22", "clang-22")
    compiled = compiled_encoders(form, target)
    stored = compiled.quantize(inputs())
    reference = compiled.run_reference(stored)
    for got, want in zip(compiled.run_qemu(stored, tmp_path), reference, strict=True):
        np.testing.assert_array_equal(
            np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8), err_msg=f"{form} {target}"
        )
    (dequantized,) = compiled.dequantize(reference)
    assert np.all(np.isfinite(dequantized)) and dequantized.shape == onnxruntime_outputs[form].shape
