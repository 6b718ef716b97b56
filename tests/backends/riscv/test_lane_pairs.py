"""`bitfold-riscv-pair-lanes` (backends/riscv/schedule/lane_pairs.py) under qemu on RV64IM against numpy's
int64 matmul: lane sums that reach both ends of the lane bound, -2^31 + 1 and 2^31 - 1, come out
exact in both lanes, for signed and unsigned activations."""

import numpy as np
import pytest
from contraction_ir import contraction_ir
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (fixture)

from bitfold.backends.riscv.schedule.lane_pairs import BitfoldRiscvPairLanesPass

ROWS, DEPTH, CHANNELS = 4, 8, 8


@needs_qemu
@pytest.mark.parametrize("extension", ["extsi", "extui"])
def test_lanes_exact_at_the_bound(extension, tmp_path):
    rng = np.random.default_rng(5)
    signed = extension == "extsi"
    x_extreme = -128 if signed else 255
    magnitudes = rng.integers(1, 32768, size=(CHANNELS, DEPTH))
    weights = np.where(np.arange(CHANNELS)[:, None] % 2 == 0, -magnitudes, magnitudes)
    # row 0 holds x_extreme everywhere: every channel's sum is +-|x_extreme| sum|w|, and its bias of
    # the same sign with |bias| + |x_extreme| sum|w| = 2^31 - 1 takes each lane to +-(2^31 - 1)
    totals = x_extreme * weights.sum(axis=1)
    bias = np.sign(totals) * ((1 << 31) - 1 - np.abs(totals))
    ir = contraction_ir(ROWS, "i8", extension, weights, "i16", bias)
    assert "i64" in str(_paired(ir))
    x = rng.integers(-128, 127, size=(ROWS, DEPTH), endpoint=True).astype(np.int8)
    x[0] = np.int8(-128) if signed else np.int8(-1)  # 255 as u8
    values = x.astype(np.int64) if signed else x.view(np.uint8).astype(np.int64)
    expected = values @ weights.T + bias
    assert set(np.abs(expected[0])) == {(1 << 31) - 1}
    (out,) = run_kernel(ir, [x], "rv64im", tmp_path)
    np.testing.assert_array_equal(out, expected.astype(np.int32))


def _paired(ir: str):
    module = parse(ir)
    BitfoldRiscvPairLanesPass().apply(None, module)
    return module
