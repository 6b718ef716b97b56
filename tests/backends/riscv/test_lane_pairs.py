"""`bitfold-riscv-pair-lanes` (backends/riscv/schedule/lane_pairs.py) under qemu on RV64IM against numpy's
int64 matmul: lane sums that reach both ends of the lane bound, -2^31 + 1 and 2^31 - 1, come out
exact in both lanes, for signed and unsigned activations."""

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (fixture)

from bitfold.backends.riscv.schedule.lane_pairs import BitfoldRiscvPairLanesPass

ROWS, DEPTH, CHANNELS = 4, 8, 8


def contraction_ir(activation: str, extension: str, weights: np.ndarray, bias: np.ndarray) -> str:
    w = ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in weights)
    b = ", ".join(str(v) for v in bias)
    return f"""
func.func @kernel(%a: tensor<{ROWS}x{DEPTH}x{activation}>) -> tensor<{ROWS}x{CHANNELS}xi32> {{
  %w = arith.constant dense<[{w}]> : tensor<{CHANNELS}x{DEPTH}xi16>
  %bias = arith.constant dense<[{b}]> : tensor<{CHANNELS}xi32>
  %e = tensor.empty() : tensor<{ROWS}x{CHANNELS}xi32>
  %init = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}}
      ins(%bias : tensor<{CHANNELS}xi32>) outs(%e : tensor<{ROWS}x{CHANNELS}xi32>) {{
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }} -> tensor<{ROWS}x{CHANNELS}xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
      affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %w : tensor<{ROWS}x{DEPTH}x{activation}>, tensor<{CHANNELS}x{DEPTH}xi16>)
      outs(%init : tensor<{ROWS}x{CHANNELS}xi32>) {{
  ^bb0(%x: {activation}, %y: i16, %acc: i32):
    %xe = arith.{extension} %x : {activation} to i32
    %ye = arith.extsi %y : i16 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }} -> tensor<{ROWS}x{CHANNELS}xi32>
  func.return %r : tensor<{ROWS}x{CHANNELS}xi32>
}}
"""


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
    ir = contraction_ir("i8", extension, weights, bias)
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
