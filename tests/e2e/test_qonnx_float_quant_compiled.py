"""The qonnx wheel's FloatQuant model (`floatquant_exec/qonnx_act_weight_fp8.onnx`, read from the installed
qonnx package: Brevitas' QuantLinear 3 -> 16 with fp8 e4m3 input and weight quantizers, a float bias)
compiled: the input FloatQuant is a float island (passes/float_quant_to_linalg.py), the weights' is
computed at compile time, the Gemm is a float island.

- On the shipped input (test_data/), the compiled function's quantizer outputs equal Brevitas' golden
  activations (activation.npz) bit for bit, and its output lies within GEMM_BOUND of the golden output
  and of qonnx's executor;
- on 10 random inputs, within the same bound of qonnx's executor;
- rv32im (soft float), rv32imf and rv64imv under qemu, bit-exact to bitfold-run on the same integer IR.

GEMM_BOUND: the island sums y_j = b_j + sum_k x_k w_jk in f32, one rounding per operation, in its
order; the reference sums the same K = 3 products and the bias in its own order (possibly with FMA).
Both lie within gamma_(K+1) * (sum_k |x_k w_jk| + |b_j|) of the exact value (gamma_n = n u / (1 - n u),
u = 2^-24), so they differ by at most twice that."""

import functools
from pathlib import Path

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.qonnx_models import SHIPPED_QONNX_MODELS
from models.runners import run_qonnx

from bitfold.backends.llvm import VECTOR_TARGETS
from bitfold.compile import CompiledModel, compile_model
from bitfold.frontends.onnx import import_model

SHIPPED = next(m for m in SHIPPED_QONNX_MODELS if m.relpath == "floatquant_exec/qonnx_act_weight_fp8.onnx")
DATA = Path(SHIPPED.path).parent / "test_data"
QUANTIZERS = ("input_quant", "weight_quant")
TARGETS = ("rv32im", "rv32imf", "rv64imv")
UNIT_ROUNDOFF = 2.0**-24


def probed_model() -> onnx.ModelProto:
    """The shipped model with its two FloatQuant outputs as graph outputs too (after `11`)."""
    model = onnx.load(SHIPPED.path)
    golden = np.load(DATA / "activation.npz")
    quantizers = [n for n in model.graph.node if n.op_type == "FloatQuant"]
    model.graph.output.extend(
        onnx.helper.make_tensor_value_info(n.output[0], onnx.TensorProto.FLOAT, golden[name].shape)
        for n, name in zip(quantizers, QUANTIZERS, strict=True))
    return model


@functools.cache
def compiled(target: str) -> CompiledModel:
    return compile_model(import_model(probed_model().SerializeToString()), target)


def gemm_bound(x_q: np.ndarray, w_q: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """2 gamma_(K+1) (sum_k |x_k w_jk| + |b_j|) per output (module docstring)."""
    k = x_q.shape[-1]
    gamma = (k + 1) * UNIT_ROUNDOFF / (1 - (k + 1) * UNIT_ROUNDOFF)
    magnitude = np.abs(x_q.astype(np.float64)) @ np.abs(w_q.astype(np.float64)).T + np.abs(bias.astype(np.float64))
    return 2 * gamma * magnitude


def _bias() -> np.ndarray:
    return next(onnx.numpy_helper.to_array(i) for i in onnx.load(SHIPPED.path).graph.initializer if i.name == "bias")


def test_shipped_input_gives_the_golden_data():
    model = compiled("rv32imf")
    x, golden = np.load(DATA / "input.npy"), np.load(DATA / "activation.npz")
    output, *quantized = model.run_reference(model.quantize({"x.1": x}))
    for got, name in zip(quantized, QUANTIZERS, strict=True):
        assert got.tobytes() == golden[name].astype(np.float32).tobytes(), name
    bound = gemm_bound(*quantized, _bias())
    for want in (np.load(DATA / "output.npy"), run_qonnx(SHIPPED.path, {"x.1": x})["11"]):
        assert np.all(np.abs(output.astype(np.float64) - want) <= bound)


def test_random_inputs_follow_qonnx_within_the_bound():
    model = compiled("rv32imf")
    for seed in range(10):
        feeds = SHIPPED.feeds(seed)
        output, x_q, w_q = model.run_reference(model.quantize(feeds))
        want = run_qonnx(SHIPPED.path, feeds)["11"]
        assert np.all(np.abs(output.astype(np.float64) - want) <= gemm_bound(x_q, w_q, _bias())), seed


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_qemu_is_bit_exact_to_bitfold_run(target, tmp_path):
    require_tools("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc",
                  *(("mlir-opt-22", "mlir-translate-22", "clang-22") if target in VECTOR_TARGETS else ()))
    model = compiled(target)
    for seed in range(3):
        stored = model.quantize(SHIPPED.feeds(seed))
        for got, want in zip(model.run_qemu(stored, tmp_path / str(seed)), model.run_reference(stored), strict=True):
            assert got.tobytes() == want.tobytes(), f"{target} seed {seed}"
