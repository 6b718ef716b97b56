"""`bitfold-riscv-narrow-lanes` (backends/riscv/schedule/narrow_lanes.py) against numpy's int64
matmul: i4 activations (signed or unsigned) by 8-bit weights whose lane sums reach the ends of a
16-bit lane (-2^15 exactly for signed activations; within 8 of both ends otherwise), plus an int32
bias far outside any lane. Run by bitfold's interpreter before and after the pass, and compiled
(two lanes a word on RV32IM, four a doubleword on RV64IM) and run under qemu."""

import numpy as np
import pytest
from contraction_ir import contraction_ir
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (fixture)

import bitfold
from bitfold.backends.riscv.schedule.narrow_lanes import (
    BitfoldRiscvNarrowLanesPass,
    chunk_length,
    field_bits,
    lane_count,
    lane_sum_bounds,
    pack_lanes,
)

ROWS, DEPTH, CHANNELS = 5, 64, 4
LONG_DEPTH = 256
"""a reduction whose lane sums need chunks: 8 * 60 * 256 > 2^15"""
PACKED_TYPE = {"rv32im": "tensor<2x64xi32>", "rv64im": "tensor<1x64xi64>"}
"""the packed weights: CHANNELS / K words of K lanes"""


def spread(total: int) -> np.ndarray:
    """DEPTH int8 weights of one sign summing to `total`."""
    magnitude, remainder = divmod(abs(total), DEPTH)
    values = np.full(DEPTH, magnitude) + (np.arange(DEPTH) < remainder)
    return np.sign(total) * values


def case(extension: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(weights, bias, activations as stored, their values): rows 0 and 1 hold the activation
    range's ends, which take channels 0 and 1 to the ends of a 16-bit lane."""
    rng = np.random.default_rng(21)
    signed = extension == "extsi"
    lo, hi = (-8, 7) if signed else (0, 15)
    extreme = lo if signed else hi  # the larger magnitude
    reach = (1 << 15) // abs(extreme)  # sum |w| with |extreme| * sum |w| <= 2^15
    weights = np.stack([spread(reach), spread(-(reach - 1) if signed else -reach),
                        rng.integers(-8, 8, DEPTH), rng.integers(-128, 128, DEPTH) // 16])
    bias = np.array([1_000_000_000, -1_000_000_000, 123_456_789, -7], np.int64)
    values = rng.integers(lo, hi, size=(ROWS, DEPTH), endpoint=True)
    values[0], values[1] = lo, hi
    stored = values.astype(np.int8)  # one element a byte, sign- or zero-extended (docs/riscv-abi.md)
    return weights, bias, stored, values


@pytest.mark.parametrize("extension", ["extsi", "extui"])
def test_interpreter_equal_before_and_after(extension):
    weights, bias, stored, values = case(extension)
    expected = values @ weights.T + bias
    lanes = expected[:2, :2] - bias[:2]
    assert lanes.min() >= -(1 << 15) and lanes.max() <= (1 << 15) - 1
    assert (1 << 15) - abs(lanes).max() <= 8 and (extension == "extui" or lanes.min() == -(1 << 15))
    ir = contraction_ir(ROWS, "i4", extension, weights, "i8", bias)
    for xlen in (32, 64):
        module = parse(ir)
        BitfoldRiscvNarrowLanesPass(xlen=xlen).apply(None, module)
        assert "arith.shrsi" in str(module)
        (before,) = bitfold.run(parse(ir), [stored]).values()
        (after,) = bitfold.run(module, [stored]).values()
        np.testing.assert_array_equal(np.asarray(before), expected)
        np.testing.assert_array_equal(np.asarray(after), expected)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
@pytest.mark.parametrize("extension", ["extsi", "extui"])
def test_lanes_exact_at_the_bound_under_qemu(extension, target, tmp_path):
    weights, bias, stored, values = case(extension)
    ir = contraction_ir(ROWS, "i4", extension, weights, "i8", bias)
    module = parse(ir)
    BitfoldRiscvNarrowLanesPass(xlen=int(target[2:4])).apply(None, module)
    assert PACKED_TYPE[target] in str(module)
    (out,) = run_kernel(ir, [stored], target, tmp_path)
    np.testing.assert_array_equal(out, (values @ weights.T + bias).astype(np.int32))


@pytest.mark.parametrize(("lo", "hi", "bits"), [(0, 0, 1), (-1, 0, 1), (-32768, 32767, 16), (-32769, 0, 17),
                                                (0, 32768, 17), (-512, 511, 10), (-513, 5, 11)])
def test_field_bits_is_the_narrowest_signed_field(lo, hi, bits):
    assert field_bits(lo, hi) == bits
    assert -(1 << (bits - 1)) <= lo and hi < 1 << (bits - 1)


def test_lane_count_takes_the_most_lanes_that_divide_the_channels():
    assert lane_count(16, 32, 32) == 2 and lane_count(17, 32, 32) is None
    assert lane_count(10, 32, 32) == 2 and lane_count(10, 30, 32) == 3
    assert lane_count(16, 8, 64) == 4 and lane_count(16, 6, 64) is None and lane_count(12, 10, 64) == 5


def test_lane_sums_bounds_and_packing():
    weights = np.array([[3, -2], [-8, 7]])
    lows, highs = lane_sum_bounds(weights, 0, -8, 7)
    assert lows.tolist() == [-8 * 3 + 7 * -2, -8 * 7 + 7 * -8] and highs.tolist() == [7 * 3 + 16, 64 + 49]
    packed = pack_lanes(weights, 0, 2, 16, 32)  # w[0] + 2^16 w[1], as a signed 32-bit word
    assert packed.tolist() == [[3 - 8 * 65536, -2 + 7 * 65536]]
    assert pack_lanes(np.array([[-1], [-1], [-1], [-1]]), 0, 4, 16, 64).tolist() == [[-1 - 65536 - 2**32 - 2**48]]


def long_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights, bias, activations) of LONG_DEPTH terms: channel 0's weights all 60, so x = -8
    everywhere (row 0) takes it to -8 * 60 * 256 = -122880, four chunks' worth of 16-bit lanes."""
    rng = np.random.default_rng(8)
    weights = rng.integers(-60, 61, size=(CHANNELS, LONG_DEPTH))
    weights[0] = 60
    x = rng.integers(-8, 8, size=(ROWS, LONG_DEPTH)).astype(np.int8)
    x[0] = -8
    return weights, np.array([5, -5, 1 << 30, -(1 << 30)]), x


def test_chunked_reduction_in_the_interpreter():
    weights, bias, x = long_case()
    ir = contraction_ir(ROWS, "i4", "extsi", weights, "i8", bias)
    module = parse(ir)
    BitfoldRiscvNarrowLanesPass(xlen=32).apply(None, module)
    assert "tensor<5x2x4xi32>" in str(module)  # two lanes a word, four chunks of 64 terms (8 * 60 * 64 = 2^15)
    expected = x.astype(np.int64) @ weights.T + bias
    assert expected[0, 0] == -8 * 60 * LONG_DEPTH + 5
    (after,) = bitfold.run(module, [x]).values()
    np.testing.assert_array_equal(np.asarray(after), expected)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_chunked_reduction_under_qemu(target, tmp_path):
    weights, bias, x = long_case()
    (out,) = run_kernel(contraction_ir(ROWS, "i4", "extsi", weights, "i8", bias), [x], target, tmp_path)
    np.testing.assert_array_equal(out, (x.astype(np.int64) @ weights.T + bias).astype(np.int32))


def test_chunk_length_is_the_longest_divisor_that_fits():
    weights = np.full((2, 80), 100)  # -8 * 100 per term: 40 terms reach -32000, 80 would -64000
    assert chunk_length(weights, 0, 1, (-8, 7), 16) == 40
    assert chunk_length(np.full((2, 96), 100), 0, 1, (-8, 7), 16) == 32  # 48 would reach -38400
    assert chunk_length(np.full((2, 81), 100), 0, 1, (-8, 7), 16) is None  # 27 fits, but under 32 products
    assert chunk_length(np.full((2, 80), 127), 0, 1, (-128, 127), 16) is None  # 2 terms at most: too short
