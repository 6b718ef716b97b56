"""The four MLPerf Tiny networks (tests/models/mlperf_tiny, QDQ per channel) compiled for rv64imv by the
LLVM backend run under qemu at VLEN 128 and 256, from one assembly, with outputs equal bit for bit to
bitfold's interpreter on the same integer IR (the issue's acceptance: not slow-marked, about 40 s)."""

import numpy as np
import pytest
from conftest import require_tools
from models import mlperf_tiny

from bitfold.compile import compile_model
from bitfold.load import load_module


@pytest.mark.parametrize("name", [f"{network}-qdq-u8s8-perchannel" for network in mlperf_tiny.NETWORKS])
def test_rvv_equals_bitfold_run_at_vlen_128_and_256(name, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22", "qemu-riscv64", "riscv64-linux-gnu-gcc")
    compiled = compile_model(load_module(str(mlperf_tiny.path(name))), "rv64imv")
    stored = compiled.quantize(mlperf_tiny.inputs(name))
    expected = compiled.run_reference(stored)
    for vlen in (128, 256):
        actual = compiled.run_qemu(stored, tmp_path / str(vlen), vlen)
        for port, got, want in zip(compiled.outputs, actual, expected, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{name} at VLEN {vlen}: {port.name}")
