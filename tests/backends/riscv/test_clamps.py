"""Clamps (`bitfold-riscv-noop-clamps`; without Zbb a branch over a move a bound,
`branch_bounds.py`; with Zbb `max`/`min`) and the value ranges that remove no-op ones
(`value_ranges.py`): a per-channel requantization with its zero point and a two-sided clamp under
qemu against numpy's integer arithmetic, on accumulators at the extremes of i32 and around every
bound (below, at, inside and above the range); a clamp whose operand is read again after it;
unsigned bounds; and each range rule against numpy on random operands drawn from its ranges."""

import numpy as np
import pytest
from test_codegen_execution import (  # noqa: F401 (the fixture)
    assemble_rv32,
    needs_qemu,
    parse,
    riscv_toolchain,
    run_kernel,
)
from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg

from bitfold.backends.riscv.lowering.value_ranges import body_ranges

MULTIPLIERS = [1 << 30, (1 << 31) - 1, 1518500250, 1073741825]
SHIFTS = [1, 9, 4, 31]
ZERO_POINT = 7
TABLES = {"m": MULTIPLIERS, "k": SHIFTS, "r": [1 << (k - 1) for k in SHIFTS]}
"""Per channel: the multiplier M, the shift k and the rounding term 2^(k-1)."""
BODY = f"""  ^bb0(%a: i32, %mc: i32, %kc: i32, %rc: i32, %o: i8):
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %zp = arith.constant {ZERO_POINT} : i32
    %low, %high = arith.mulsi_extended %a, %mc : i32
    %rounded = arith.addi %high, %rc : i32
    %s = arith.shrsi %rounded, %kc : i32
    %z = arith.addi %s, %zp : i32
    %c1 = arith.maxsi %z, %lo : i32
    %c2 = arith.minsi %c1, %hi : i32
    %t = arith.trunci %c2 : i32 to i8
    linalg.yield %t : i8
"""
"""The requantization's body: the high word of acc x M, rounded half up, shifted, the zero point
added, clamped to i8."""
MAPS = "affine_map<(c, i) -> (c, i)>, affine_map<(c, i) -> (c)>, affine_map<(c, i) -> (c)>, affine_map<(c, i) -> (c)>, affine_map<(c, i) -> (c, i)>"


def requantize_ir(n: int) -> str:
    """out[c, i] = clamp(((acc * M[c]) >> 32 + 2^(k[c]-1)) >> k[c] + 7, -128, 127): high word of the
    product, rounded half up, shifted by the per-channel table k."""
    channels = len(SHIFTS)
    return f"""
func.func @requantize(%acc: tensor<{channels}x{n}xi32>) -> tensor<{channels}x{n}xi8> {{
  %m = arith.constant dense<{TABLES["m"]}> : tensor<{channels}xi32>
  %k = arith.constant dense<{TABLES["k"]}> : tensor<{channels}xi32>
  %r = arith.constant dense<{TABLES["r"]}> : tensor<{channels}xi32>
  %e = tensor.empty() : tensor<{channels}x{n}xi8>
  %y = linalg.generic {{indexing_maps = [{MAPS}], iterator_types = ["parallel", "parallel"]}} ins(%acc, %m, %k, %r : tensor<{channels}x{n}xi32>, tensor<{channels}xi32>, tensor<{channels}xi32>, tensor<{channels}xi32>) outs(%e : tensor<{channels}x{n}xi8>) {{
{BODY}  }} -> tensor<{channels}x{n}xi8>
  func.return %y : tensor<{channels}x{n}xi8>
}}
"""


def requantize_reference(acc: np.ndarray) -> np.ndarray:
    m = np.array(MULTIPLIERS, dtype=object)[:, None]
    k = np.array(SHIFTS, dtype=object)[:, None]
    high = (acc.astype(object) * m) >> 32
    y = ((high + (1 << (k - 1))) >> k) + ZERO_POINT
    return np.clip(y, -128, 127).astype(np.int8)


def accumulators(n: int) -> np.ndarray:
    """Per channel: the i32 extremes, the accumulators whose results are each bound and its
    neighbours (found from the reference), and random ones."""
    rng = np.random.default_rng(5)
    rows = []
    for c, (m, k) in enumerate(zip(MULTIPLIERS, SHIFTS)):
        edges = [-(1 << 31), (1 << 31) - 1, 0, -1, 1]
        for target in (-128 - ZERO_POINT, 127 - ZERO_POINT):
            center = int(target * (1 << (32 + k)) // m)
            edges += [center + d for d in range(-3, 4)] + [center + d * (1 << (32 + k)) // m for d in (-1, 1)]
        values = np.clip(np.array(edges, dtype=np.int64), -(1 << 31), (1 << 31) - 1)
        rest = rng.integers(-(1 << 31), 1 << 31, size=n - len(values), dtype=np.int64)
        rows.append(np.concatenate([values, rest]))
    return np.array(rows, dtype=np.int32)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im", "rv32im_zbb", "rv64im_zbb"])
def test_requantization_clamp_is_exact(target, tmp_path):
    """Branches without Zbb (`lower_integers.BRANCH_BOUNDS`), `max`/`min` with it (`ZBB_BOUNDS`)."""
    acc = accumulators(64)
    (out,) = run_kernel(requantize_ir(acc.shape[1]), [acc], target, tmp_path)
    np.testing.assert_array_equal(out, requantize_reference(acc))


LIVE_OPERAND_IR = """
func.func @clamp(%x: tensor<64xi32>, %u: tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>) {
  %e = tensor.empty() : tensor<64xi32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<64xi32>) outs(%e : tensor<64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %lo = arith.constant -1000 : i32
    %hi = arith.constant 1000 : i32
    %c1 = arith.maxsi %a, %lo : i32
    %c2 = arith.minsi %c1, %hi : i32
    %d = arith.subi %c2, %a : i32
    linalg.yield %d : i32
  } -> tensor<64xi32>
  %v = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%u : tensor<64xi32>) outs(%e : tensor<64xi32>) {
  ^bb0(%b: i32, %p: i32):
    %ulo = arith.constant 16 : i32
    %uhi = arith.constant -16 : i32
    %u1 = arith.maxui %b, %ulo : i32
    %u2 = arith.minui %u1, %uhi : i32
    linalg.yield %u2 : i32
  } -> tensor<64xi32>
  func.return %y, %v : tensor<64xi32>, tensor<64xi32>
}
"""
"""clamp(x, -1000, 1000) - x, x read again after its clamp; and u clamped to [16, 2^32 - 16] unsigned."""


def edge_values(bounds: tuple[int, int]) -> np.ndarray:
    """64 int32 values: the i32 extremes, each bound and its neighbours, 0, and random ones."""
    edges = [-(1 << 31), (1 << 31) - 1, 0, -1, 1] + [b + d for b in bounds for d in (-2, -1, 0, 1, 2)]
    rest = np.random.default_rng(7).integers(-(1 << 31), 1 << 31, size=64 - len(edges), dtype=np.int64)
    return np.concatenate([np.array(edges, dtype=np.int64), rest]).astype(np.int32)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im", "rv32im_zbb"])
def test_clamp_of_a_live_operand_and_unsigned_bounds(target, tmp_path):
    x = edge_values((-1000, 1000))
    u = edge_values((16, -16))
    y, v = run_kernel(LIVE_OPERAND_IR, [x, u], target, tmp_path)
    np.testing.assert_array_equal(y, np.clip(x.astype(np.int64), -1000, 1000) - x)
    np.testing.assert_array_equal(v.view(np.uint32), np.clip(u.view(np.uint32), 16, (1 << 32) - 16))


def test_branch_bounds_assemble(tmp_path):
    """GNU as and llvm-mc both take the numeric local labels, one `1:` a bound."""
    assembly = assemble_rv32(LIVE_OPERAND_IR, tmp_path)
    assert assembly.count("\n1:\n") == assembly.count(", 1f") > 0


def bufferized_requantize_ir() -> str:
    """The requantization on memrefs, its tables constant globals (the form the pass sees)."""
    globals_ = "\n".join(
        f'"memref.global"() <{{sym_name = "{name}", type = memref<4xi32>, initial_value = dense<{values}> : '
        f'tensor<4xi32>, sym_visibility = "private", constant}}> : () -> ()'
        for name, values in TABLES.items()
    )
    gets = "\n".join(f"  %{name} = memref.get_global @{name} : memref<4xi32>" for name in TABLES)
    return f"""{globals_}
func.func @requantize(%acc: memref<4x8xi32>, %out: memref<4x8xi8>) {{
{gets}
  linalg.generic {{indexing_maps = [{MAPS}], iterator_types = ["parallel", "parallel"]}} ins(%acc, %m, %k, %r : memref<4x8xi32>, memref<4xi32>, memref<4xi32>, memref<4xi32>) outs(%out : memref<4x8xi8>) {{
{BODY}  }}
  func.return
}}
"""


def test_ranges_hold_on_random_operands():
    module = parse(bufferized_requantize_ir())
    generic = next(op for op in module.walk() if isinstance(op, linalg.GenericOp))
    block = generic.body.block
    ranges = body_ranges(generic)
    a, m, k, r = block.args[:4]
    assert ranges[m] == (min(MULTIPLIERS), max(MULTIPLIERS)) and ranges[k] == (1, 31)
    rng = np.random.default_rng(3)
    samples = {a: rng.integers(-(1 << 31), 1 << 31, size=2000, dtype=np.int64)}
    for argument in (m, k, r):
        samples[argument] = rng.integers(ranges[argument][0], ranges[argument][1] + 1, size=2000)
    for op in block.ops:
        if isinstance(op, arith.ConstantOp):
            samples[op.result] = np.full(2000, op.value.value.data, dtype=np.int64)
        elif isinstance(op, arith.MulSIExtendedOp):
            samples[op.high] = (samples[op.lhs].astype(object) * samples[op.rhs]) >> 32
        elif isinstance(op, arith.AddiOp):
            samples[op.result] = samples[op.lhs] + samples[op.rhs]
        elif isinstance(op, arith.ShRSIOp):
            samples[op.result] = samples[op.lhs].astype(object) >> samples[op.rhs]
        elif isinstance(op, arith.MaxSIOp | arith.MinSIOp):
            pick = np.maximum if isinstance(op, arith.MaxSIOp) else np.minimum
            samples[op.result] = pick(samples[op.lhs], samples[op.rhs])
        else:
            continue
        result = next(res for res in op.results if res in samples)
        low, high = ranges[result]
        assert low <= min(samples[result]) and max(samples[result]) <= high, op.name
