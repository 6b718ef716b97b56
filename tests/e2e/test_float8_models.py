"""float8 / float4 QDQ models with a contraction (tests/models/float8_models.py): the contraction has no
integer form (float storage bits are no integers), so it is a float island between lower-quant's
float-storage casts (encode by integer arithmetic on the f32 bits, decode by table).

- The integer IR run by bitfold's interpreter against onnx's reference evaluator, on 5 seeded inputs:
  every output the same value or the adjacent representable one of the output format (the float
  island sums in another order than the reference; a different last bit moves a value only across
  a rounding boundary of the output format: the float-island bound, docs/float-islands.md).
- Compiled for rv32im (soft float), rv32imf and rv64imv (LLVM) and run under qemu: bit-exact to
  bitfold-run on the same integer IR.
"""

import functools

import numpy as np
import pytest
from conftest import require_tools
from models import float8_models
from onnx.reference import ReferenceEvaluator

import bitfold
from bitfold.backends.llvm import VECTOR_TARGETS
from bitfold.compile import CompiledModel, compile_model
from bitfold.dialects.minifloat import decode_table
from bitfold.frontends.onnx import import_model
from bitfold.load import full_context
from bitfold.passes.pipelines import OnnxToIntegerPipeline

TARGETS = ("rv32im", "rv32imf", "rv64imv")
SEEDS = range(5)
BOUND_POSITIONS = 1
"""max distance between bitfold's and the reference's output, in positions along the sorted
representable values of the output's format"""


def _model_bytes(name: str) -> bytes:
    return float8_models.MODELS[name]().SerializeToString()


def _grid(compiled: CompiledModel) -> np.ndarray:
    """The sorted distinct values the output can take: its format's values (or integers) times the scale."""
    (port,) = compiled.outputs
    qtype = port.qtype
    semantics = getattr(qtype, "semantics", None)
    if semantics is not None:
        values = decode_table(semantics).astype(np.float64)
    else:
        low, high = qtype.value_range()
        values = np.arange(low, high + 1, dtype=np.float64)
    values = values[np.isfinite(values)] * qtype.scale_values()[0]
    return np.unique(values.astype(np.float32))


@functools.cache
def integer_ir(name: str):
    module = import_model(_model_bytes(name))
    OnnxToIntegerPipeline().apply(full_context(), module)
    return module


@functools.cache
def compiled(name: str, target: str) -> CompiledModel:
    return compile_model(import_model(_model_bytes(name)), target)


@pytest.mark.parametrize("name", float8_models.MODELS)
def test_integer_ir_follows_onnx_reference(name):
    reference = ReferenceEvaluator(float8_models.MODELS[name]())
    grid = _grid(compiled(name, "rv32imf"))
    differing = 0
    for seed in SEEDS:
        feeds = float8_models.inputs(name, seed)
        (want,) = reference.run(None, feeds)
        got = bitfold.run(integer_ir(name), feeds)["y"]
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.isin(want, grid).all() and np.isin(got, grid).all()
        positions = np.abs(np.searchsorted(grid, got) - np.searchsorted(grid, want))
        assert positions.max() <= BOUND_POSITIONS, f"{name} seed {seed}"
        differing += int(np.count_nonzero(positions))
    print(f"\n{name}: {differing} outputs one position off onnx's reference")


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", float8_models.MODELS)
def test_qemu_is_bit_exact_to_bitfold_run(name, target, tmp_path):
    require_tools("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc",
                  *(("mlir-opt-22", "mlir-translate-22", "clang-22") if target in VECTOR_TARGETS else ()))
    model = compiled(name, target)
    for seed in SEEDS[:2]:
        stored = model.quantize(float8_models.inputs(name, seed))
        (got,), (want,) = model.run_qemu(stored, tmp_path / str(seed)), model.run_reference(stored)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), f"{name} {target} seed {seed}"
