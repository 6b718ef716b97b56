"""The float-island fixture models (models.float_islands: a float first Conv, Sigmoid on an i32
accumulator, a Reduce/Div/Tanh/Gemm/Softmax island) on bitfold's scalar backend: rv32im (soft-float
libgcc calls) and rv32imf (F) under qemu, bit-exact to bitfold's interpreter on the same integer IR.
An i32 accumulator entering an island is converted without i64 (lower-quant's dcast), which rv32 lacks."""

import numpy as np
import pytest
from conftest import require_tools
from models import float_islands

from bitfold.compile import compile_model
from bitfold.load import load_module


@pytest.mark.slow
@pytest.mark.parametrize("target", ["rv32im", "rv32imf"])
@pytest.mark.parametrize("name", float_islands.names())
def test_scalar_code_under_qemu_is_bit_exact_to_the_integer_ir(name, target, tmp_path):
    require_tools("riscv64-unknown-elf-gcc", "qemu-riscv32")
    compiled = compile_model(load_module(str(float_islands.path(name))), target)
    for seed in range(3):
        stored = compiled.quantize(float_islands.inputs(name, seed))
        ran = compiled.run_qemu(stored, tmp_path / str(seed))
        for got, want in zip(ran, compiled.run_reference(stored), strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {target} seed {seed}")
