"""`bitfold-riscv-wide-binary-words` (backends/riscv/schedule/binary_words.py) against numpy: an
XNOR-popcount contraction of 32-bit words (bits of every pattern, the sign bit included) equals
sum popcount(x xor w), run by bitfold's interpreter before and after the pass and compiled for
rv64im and rv64im_zbb under qemu."""

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (fixture)

import bitfold
from bitfold.backends.riscv.schedule.binary_words import BitfoldRiscvWideBinaryWordsPass

ROWS, WORDS, CHANNELS = 3, 6, 4


def xnor_ir(weights: np.ndarray) -> str:
    w = ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in weights)
    return f"""
func.func @kernel(%x: tensor<{ROWS}x{WORDS}xi32>) -> tensor<{ROWS}x{CHANNELS}xi32> {{
  %w = arith.constant dense<[{w}]> : tensor<{CHANNELS}x{WORDS}xi32>
  %e = tensor.empty() : tensor<{ROWS}x{CHANNELS}xi32>
  %zero = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      outs(%e : tensor<{ROWS}x{CHANNELS}xi32>) {{
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  }} -> tensor<{ROWS}x{CHANNELS}xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
      affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x, %w : tensor<{ROWS}x{WORDS}xi32>, tensor<{CHANNELS}x{WORDS}xi32>) outs(%zero : tensor<{ROWS}x{CHANNELS}xi32>) {{
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %d = arith.xori %a, %b : i32
    %n = math.ctpop %d : i32
    %s = arith.addi %acc, %n : i32
    linalg.yield %s : i32
  }} -> tensor<{ROWS}x{CHANNELS}xi32>
  func.return %r : tensor<{ROWS}x{CHANNELS}xi32>
}}
"""


def case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights, activations, numpy's counts)."""
    rng = np.random.default_rng(4)
    weights = rng.integers(-(2**31), 2**31, size=(CHANNELS, WORDS))
    weights[0], weights[1, ::2] = -1, -(2**31)
    x = rng.integers(-(2**31), 2**31, size=(ROWS, WORDS)).astype(np.int32)
    x[0] = 0
    bits = np.bitwise_xor(x.view(np.uint32)[:, None, :], weights.astype(np.int32).view(np.uint32)[None, :, :])
    return weights, x, np.bitwise_count(bits).sum(axis=-1).astype(np.int32)


def test_interpreter_equal_before_and_after():
    weights, x, expected = case()
    module = parse(xnor_ir(weights))
    BitfoldRiscvWideBinaryWordsPass().apply(None, module)
    assert "math.ctpop %" in str(module) and "tensor<3x3xi64>" in str(module)
    for ir in (parse(xnor_ir(weights)), module):
        (out,) = bitfold.run(ir, [x]).values()
        np.testing.assert_array_equal(np.asarray(out), expected)


@needs_qemu
@pytest.mark.parametrize("target", ["rv64im", "rv64im_zbb"])
def test_wide_words_under_qemu(target, tmp_path):
    weights, x, expected = case()
    (out,) = run_kernel(xnor_ir(weights), [x], target, tmp_path)
    np.testing.assert_array_equal(out, expected)
