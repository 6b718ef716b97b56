"""bitfold's outer-product schedule on RVV (`backends/llvm/vector_contraction.py`) against the issue's
targets, on bench/riscv_kernels.py's kernels: bit-exact to each case's numpy reference (the C kernels'
arithmetic) at VLEN 128, 256 and 512 from one assembly, the matmul 64^3 s8 on rv64imv at VLEN 128 within
60,000 instructions (clang-19 -O3 autovectorized C: 488,162), the 3x3 and depthwise 3x3 convolutions
with at least 5x fewer instructions than clang-19 -O3 -march=rv64imv on the plain C kernels."""

import numpy as np
import pytest
from bench_scripts import counting_bench
from conftest import require_tools

from bitfold.backends.llvm import harness_target
from bitfold.compile import compile_model
from bitfold.load import import_onnx

MATMUL_TARGET = 60_000
CONVOLUTION_FACTOR = 5
TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22", "clang-19", "qemu-riscv64", "riscv64-linux-gnu-gcc",
         "riscv64-unknown-elf-nm")


@pytest.fixture(scope="module")
def bench():
    require_tools(*TOOLS)
    return counting_bench("riscv_kernels")


def counted(bench, name, tmp_path, vlen=128):
    case = bench.KERNELS[name]()
    model, _, _ = bench.bitfold_model(case)
    compiled = compile_model(import_onnx(model.SerializeToString(), None, name), "rv64imv", name)
    (activations,) = [case.plain.inputs[port.name] for port in compiled.inputs]
    result = compiled.count_qemu([activations], tmp_path / f"bitfold{vlen}", vlen)
    (expected,) = case.reference.values()
    np.testing.assert_array_equal(result.outputs[0], expected, err_msg=f"{name} at VLEN {vlen}")
    return case, compiled, result.instructions


def clang_vector_c(bench, case, tmp_path) -> int:
    column = bench.CColumn(bench.plain, lambda target: ["clang-19", "-O3", "--target=riscv64-unknown-elf",
                                                        *target.machine_flags, "-ffreestanding"], None)
    workdir = tmp_path / "clang"
    workdir.mkdir()
    c = bench.count_c(column, case, harness_target("rv64imv"), workdir)
    (expected,) = case.reference.values()
    np.testing.assert_array_equal(c.outputs[0], expected)
    return c.instructions


def test_matmul_within_the_target_at_every_vlen(bench, tmp_path):
    _, compiled, instructions = counted(bench, "matmul_s8", tmp_path)
    assert "vwmacc.vx" in compiled.assembly
    assert instructions <= MATMUL_TARGET
    for vlen in (256, 512):
        counted(bench, "matmul_s8", tmp_path, vlen)


@pytest.mark.parametrize("name", ["conv3x3_s8", "depthwise3x3_s8"])
def test_convolutions_5x_fewer_than_autovectorized_c(bench, name, tmp_path):
    case, _, instructions = counted(bench, name, tmp_path)
    counted(bench, name, tmp_path, 256)
    assert instructions * CONVOLUTION_FACTOR <= clang_vector_c(bench, case, tmp_path)
