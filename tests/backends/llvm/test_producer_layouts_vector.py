"""The producer-layout fixtures (tests/models/producer_layouts: float data movement before the first
quantizer or after the last, moved to the integer side) compiled for rv64imv by the LLVM backend run
under qemu with outputs equal bit for bit to bitfold's interpreter on the same integer IR."""

import numpy as np
import pytest
from conftest import require_tools
from models import producer_layouts

from bitfold.compile import compile_model
from bitfold.load import load_module


@pytest.mark.parametrize("name", producer_layouts.names())
def test_rvv_equals_bitfold_run(name, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22", "qemu-riscv64", "riscv64-linux-gnu-gcc")
    compiled = compile_model(load_module(str(producer_layouts.path(name))), "rv64imv")
    stored = compiled.quantize(producer_layouts.inputs(name))
    expected = compiled.run_reference(stored)
    for port, got, want in zip(compiled.outputs, compiled.run_qemu(stored, tmp_path), expected, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=f"{name}: {port.name}")
