"""A binary convolution's XNOR-popcount with its two elementwise epilogues (the correction
`c - 2 * count`, then the sign threshold `(c - 2 * count) * d >= t`, the form of
`passes/quant_to_integer`), as the count compared with a table (`count_thresholds.py`) or
composed into one epilogue (`fused_epilogue.compose_epilogues`), fused into the popcount nest,
under qemu against numpy: words all zeros and all ones in
the activations and the weights, and thresholds equal to the value they test (the `>=` edge)."""

import re

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (the fixture)

import bitfold
from bitfold.backends.riscv import compile_to_assembly
from bitfold.backends.riscv.schedule.count_thresholds import BitfoldRiscvCountThresholdsPass, threshold_tables

WORDS, ROWS, COLUMNS, CHANNELS = 2, 4, 8, 4
"""32-bit words per pixel, the output's rows, columns and channels (a 3 x 3 window, no padding)."""


def dense(values: np.ndarray) -> str:
    return np.array2string(values, separator=", ", threshold=1 << 20, max_line_width=1 << 20)


def binary_conv_ir(w: np.ndarray, corr: np.ndarray, d: np.ndarray, t: np.ndarray, element: str) -> str:
    """out[c, h, x] = ((corr[c, h, x] - 2 * sum popcount(x ^ w)) * d[c] >= t[c]) as `element`: i1
    (the form quant-to-integer makes: `bitfold-riscv-count-thresholds` compares the count with a
    table), or i8 (the two epilogues composed as they are; with a dead read of the output)."""
    x_type = f"tensor<1x{WORDS}x{ROWS + 2}x{COLUMNS + 2}xi32>"
    acc_type = f"tensor<1x{CHANNELS}x{ROWS}x{COLUMNS}xi32>"
    out_type = f"tensor<1x{CHANNELS}x{ROWS}x{COLUMNS}x{element}>"
    widen = ("    %unused = arith.trunci %o : i8 to i1\n" if element == "i8" else "")
    result = "%r" if element == "i8" else "%b"
    # bits are stored one a byte as the bipolar type says (`backends/kernel/sub_byte_outputs.py`)
    result_attribute = ' {quant.type = "!quant.bipolar<f32, 1.000000e+00>"}' if element == "i1" else ""
    identity = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    return f"""
func.func @kernel(%x: {x_type}) -> ({out_type}{result_attribute}) {{
  %w = arith.constant dense<{dense(w)}> : tensor<{CHANNELS}x{WORDS}x3x3xi32>
  %corr = arith.constant dense<{dense(corr)}> : tensor<{CHANNELS}x{ROWS}x{COLUMNS}xi16>
  %d = arith.constant dense<{dense(d)}> : tensor<{CHANNELS}x1x1xi32>
  %t = arith.constant dense<{dense(t)}> : tensor<{CHANNELS}x1x1xi32>
  %zero = arith.constant dense<0> : tensor<i32>
  %e = tensor.empty() : {acc_type}
  %filled = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, {identity}],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%zero : tensor<i32>) outs(%e : {acc_type}) {{
  ^bb0(%z: i32, %o: i32):
    linalg.yield %z : i32
  }} -> {acc_type}
  %count = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>,
      affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}}
      ins(%x, %w : {x_type}, tensor<{CHANNELS}x{WORDS}x3x3xi32>) outs(%filled : {acc_type}) {{
  ^bb0(%a: i32, %b: i32, %s: i32):
    %v = arith.xori %a, %b : i32
    %n = math.ctpop %v : i32
    %r = arith.addi %s, %n : i32
    linalg.yield %r : i32
  }} -> {acc_type}
  %e2 = tensor.empty() : {acc_type}
  %dot = linalg.generic {{indexing_maps = [{identity}, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, {identity}],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%count, %corr : {acc_type}, tensor<{CHANNELS}x{ROWS}x{COLUMNS}xi16>) outs(%e2 : {acc_type}) {{
  ^bb0(%c: i32, %k: i16, %o: i32):
    %ke = arith.extsi %k : i16 to i32
    %one = arith.constant 1 : i32
    %twice = arith.shli %c, %one : i32
    %r = arith.subi %ke, %twice : i32
    linalg.yield %r : i32
  }} -> {acc_type}
  %e3 = tensor.empty() : {out_type}
  %y = linalg.generic {{indexing_maps = [{identity}, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>,
      affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, {identity}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%dot, %t, %d : {acc_type}, tensor<{CHANNELS}x1x1xi32>, tensor<{CHANNELS}x1x1xi32>) outs(%e3 : {out_type}) {{
  ^bb0(%v: i32, %tc: i32, %dc: i32, %o: {element}):
{widen}    %p = arith.muli %v, %dc : i32
    %b = arith.cmpi sge, %p, %tc : i32
    %r = arith.extui %b : i1 to i8
    linalg.yield {result} : {element}
  }} -> {out_type}
  func.return %y : {out_type}
}}
"""


def case() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x, w, corr, d, t, numpy's output): channel 0's weights all ones, channel 1's all zeros,
    the first rows of x all zeros and all ones; each channel's threshold equal to the value at
    two of its pixels."""
    rng = np.random.default_rng(11)
    x = rng.integers(-(2**31), 2**31, size=(1, WORDS, ROWS + 2, COLUMNS + 2)).astype(np.int32)
    x[:, :, 0], x[:, :, 1, : COLUMNS // 2] = 0, -1
    w = rng.integers(-(2**31), 2**31, size=(CHANNELS, WORDS, 3, 3)).astype(np.int32)
    w[0], w[1] = -1, 0
    corr = rng.integers(540, 600, size=(CHANNELS, ROWS, COLUMNS)).astype(np.int16)
    d = np.array([1, -1, 1, -1], dtype=np.int32).reshape(CHANNELS, 1, 1)
    windows = np.stack([x[0, :, i : i + ROWS, j : j + COLUMNS] for i in range(3) for j in range(3)], axis=1)
    words = windows.view(np.uint32)[None] ^ w.reshape(CHANNELS, WORDS, 9).view(np.uint32)[:, :, :, None, None]
    count = np.bitwise_count(words).sum(axis=(1, 2)).astype(np.int64)
    value = (corr.astype(np.int64) - 2 * count) * d
    t = np.stack([value[c, 0, 0] for c in range(CHANNELS)]).astype(np.int32).reshape(CHANNELS, 1, 1)
    value[:, 1, 1] = t[:, 0, 0]  # a second pixel exactly at the threshold
    corr[:, 1, 1] = (t[:, 0, 0] * d[:, 0, 0] + 2 * count[:, 1, 1]).astype(np.int16)
    return x, w, corr, d, t, (value >= t).astype(np.int8)[None]


def fused(assembly: str) -> bool:
    """No word store but the frame's: the counts never leave the registers."""
    return not re.search(r"\bsw \w+, -?\d+\((?!sp\))", assembly)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im", "rv32im_zbb", "rv64im_zbb"])
@pytest.mark.parametrize("element", ["i1", "i8"])
def test_fused_threshold_at_the_edges(target, element, tmp_path):
    x, w, corr, d, t, expected = case()
    ir = binary_conv_ir(w, corr, d, t, element)
    assert fused(compile_to_assembly(parse(ir), target, "kernel"))
    (out,) = run_kernel(ir, [x], target, tmp_path)
    np.testing.assert_array_equal(out, expected)


def test_count_compared_with_a_table():
    """`bitfold-riscv-count-thresholds` alone: one compare of the count left (no shift, no
    threshold table, no multiply: the weights of the channels whose sign is -1 complemented),
    and bitfold's interpreter still gives numpy's bits."""
    x, w, corr, d, t, expected = case()
    module = parse(binary_conv_ir(w, corr, d, t, "i1"))
    BitfoldRiscvCountThresholdsPass().apply(None, module)
    text = str(module)
    assert "arith.shli" not in text and "arith.cmpi slt" in text and "arith.cmpi sge" not in text
    assert "arith.muli" not in text
    (out,) = bitfold.run(module, [x]).values()
    np.testing.assert_array_equal(np.asarray(out).astype(np.int8), expected)


def test_threshold_tables_equal_the_compare():
    """`threshold_tables` against the compare it replaces, A c + B >= 0, for every count c in
    [0, C]: random and edge slopes (0, +-1, +-2, large) and offsets (at and around the steps)."""
    bound = 96
    rng = np.random.default_rng(2)
    a = np.concatenate([np.array([0, 0, 1, -1, 2, -2, 3, -3, 97, -97]), rng.integers(-5, 6, size=190)])
    b = np.concatenate([np.array([0, -1, 0, 0, -1, 1, -96, 96, 5, -5]), rng.integers(-300, 301, size=190)])
    s, w = threshold_tables(a, b, bound)
    c = np.arange(bound + 1)[:, None]
    np.testing.assert_array_equal(s * c < w, a * c + b >= 0)
    assert np.all(np.abs(w) <= bound + 1)
