"""The LLVM backend (`backends/llvm`, `compile_model(..., backend="llvm")` and its LLVM-only targets) on
a representative subset of the quantized test models, one of each network and form: under qemu with the
vector extension (rv32imv, rv64imv at VLEN 128 and 256; rv64gcv and VLEN 512 on one model), with
`--backend llvm` on rv32im (also equal to bitfold's own code generator), and natively on the host through
ctypes; every output bit for bit equal to bitfold's interpreter on the same integer IR. Every other quantized
test model, one target a form (QDQ on rv64imv, QOperator and QONNX on rv32im: every network on both), is
slow-marked. Each model compiles once a session and target (`catalogue_compilations`). Without the tools
these tests skip, except under CI, where they fail."""

import numpy as np
import pytest
from conftest import require_tools
from models.recipes import names

LLVM_TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22")
QEMU_TOOLS = ("qemu-riscv32", "qemu-riscv64", "riscv64-linux-gnu-gcc", "riscv64-unknown-elf-gcc")
MODELS = [
    "mlp-qdq-u8s8-perchannel",
    "cnn_depthwise-qdq-s8s8",
    "cnn_depthwise-qdq-u8s4-perchannel",
    "residual-qop-u8u8",
    "pooling-qdq-u8s8-perchannel",
    "mlp-qdq-u16s8",
    "residual-qonnx-w4a6",
    "mlp-qonnx-bipolar",
    "pooling-qonnx-trunc",
]


@pytest.fixture
def compiled_and_stored(model_catalogue, catalogue_compilations):
    """`(name, target, backend="llvm") -> (compiled, stored)`: the model compiled once a session, its
    seed-0 inputs as the stored integers."""

    def get(name, target, backend="llvm"):
        compiled = catalogue_compilations(name, target, backend)
        return compiled, compiled.quantize(model_catalogue.inputs(name, seed=0))

    return get


def assert_equal(actual, expected, where):
    for got, want in zip(actual, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape, where
        np.testing.assert_array_equal(got, want, err_msg=where)


@pytest.mark.parametrize("target", ["rv32imv", "rv64imv"])
@pytest.mark.parametrize("name", MODELS)
def test_vector_code_equals_bitfold_run_at_every_vlen(name, target, compiled_and_stored, tmp_path):
    require_tools(*LLVM_TOOLS, *QEMU_TOOLS)
    compiled, stored = compiled_and_stored(name, target)
    assert "vsetvli" in compiled.assembly or "vsetivli" in compiled.assembly  # vector code
    expected = compiled.run_reference(stored)
    for vlen in (128, 256):
        assert_equal(compiled.run_qemu(stored, tmp_path / str(vlen), vlen), expected, f"{name} {target} VLEN {vlen}")


@pytest.mark.parametrize(("target", "vlen"), [("rv64imv", 512), ("rv64gcv", 128), ("rv64gcv", 256)])
def test_one_binary_at_vlen_512_and_on_rv64gcv(target, vlen, compiled_and_stored, tmp_path):
    require_tools(*LLVM_TOOLS, *QEMU_TOOLS)
    compiled, stored = compiled_and_stored("cnn_depthwise-qdq-u8s8-perchannel", target)
    assert_equal(compiled.run_qemu(stored, tmp_path, vlen), compiled.run_reference(stored), f"{target} VLEN {vlen}")


@pytest.mark.parametrize("name", MODELS)
def test_llvm_and_bitfold_code_generators_agree_on_rv32im(name, compiled_and_stored, tmp_path):
    require_tools(*LLVM_TOOLS, *QEMU_TOOLS)
    llvm, stored = compiled_and_stored(name, "rv32im")
    own, _ = compiled_and_stored(name, "rv32im", backend="xdsl")
    expected = llvm.run_reference(stored)
    assert_equal(llvm.run_qemu(stored, tmp_path / "llvm"), expected, f"{name} llvm")
    assert_equal(own.run_qemu(stored, tmp_path / "xdsl"), expected, f"{name} xdsl")


@pytest.mark.parametrize("name", MODELS)
def test_host_object_equals_bitfold_run(name, compiled_and_stored, tmp_path):
    require_tools(*LLVM_TOOLS)
    compiled, stored = compiled_and_stored(name, "host")
    assert_equal(compiled.run_native(stored, tmp_path), compiled.run_reference(stored), f"{name} host")


ALL_QUANTIZED = [name for name in names() if not name.endswith("-float")]


EVERY_MODEL_CASES = [
    pytest.param(name, target := "rv64imv" if "-qdq-" in name else "rv32im", id=f"{name}-{target}")
    for name in ALL_QUANTIZED
    if name not in MODELS
]
"""The quantized models but `MODELS`, whose QDQ ones the tests above run on rv64imv (VLEN 128 and 256) and
the others on rv32im with the same assertion."""


@pytest.mark.slow
@pytest.mark.parametrize(("name", "target"), EVERY_MODEL_CASES)
def test_every_quantized_model(name, target, compiled_and_stored, tmp_path):
    """Every quantized test model, not only the subset above: the LLVM backend on rv64imv or rv32im."""
    require_tools(*LLVM_TOOLS, *QEMU_TOOLS)
    compiled, stored = compiled_and_stored(name, target)
    assert_equal(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), f"{name} {target}")


@pytest.mark.parametrize("backend", ["xdsl", "llvm"])
def test_unsigned_4_bit_output_is_zero_extended(model_catalogue, compiled_and_stored, tmp_path, backend):
    """A u4 output (QCDQ, Clip to 0..15) as bytes 0..15 from both code generators: dequantized,
    onnxruntime's outputs exactly."""
    require_tools(*LLVM_TOOLS, *QEMU_TOOLS)
    name = "mlp-qdq-u8s8-perchannel-qcdq4"
    inputs = model_catalogue.inputs(name, seed=0)
    compiled, stored = compiled_and_stored(name, "rv32im", backend)
    actual = compiled.run_qemu(stored, tmp_path)
    assert all(0 <= int(v.min()) and int(v.max()) <= 15 for v in actual)
    for port, got in zip(compiled.outputs, compiled.dequantize(actual), strict=True):
        np.testing.assert_array_equal(got, model_catalogue.run(name, inputs)[port.name], err_msg=port.name)
