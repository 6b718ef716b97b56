"""bench/riscv_kernels.py's C kernels compute the case's reference bit for bit: every hand-tuned
(register-tiled, pre-packed) kernel and the plain ones the tiled ones lack, run once on rv32im under the
instruction counter. Skipped where the tools are missing, except under CI, where it fails."""

import numpy as np
import pytest
from bench_scripts import counting_bench
from conftest import require_tools

from bitfold.backends.kernel.harness import TARGETS


@pytest.fixture(scope="module")
def bench():
    target = TARGETS["rv32im"]
    require_tools("riscv64-linux-gnu-gcc", target.compiler, target.qemu, "riscv64-unknown-elf-nm")
    return counting_bench("riscv_kernels")


@pytest.mark.parametrize("kernel", ["matmul_s8", "conv3x3_s8", "conv3x3_s4w", "conv3x3_w4a4", "depthwise3x3_s8",
                                    "pointwise_s8"])
def test_c_kernel_equals_the_reference(bench, kernel, tmp_path):
    case = bench.KERNELS[kernel]()
    column = "tiled, gcc -O2" if case.tiled is not None else "gcc -O2"
    counted = bench.count_c(bench.C_COLUMNS[column], case, TARGETS["rv32im"], tmp_path)
    for name, want, got in zip(case.reference, case.reference.values(), counted.outputs, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=f"{kernel}, {column}: {name}")
    assert counted.instructions > case.macs  # at least one instruction a multiply-accumulate
