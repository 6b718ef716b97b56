"""Register-tiled loop nests (`bitfold-riscv-register-tiled-loops`) under qemu against numpy: matrix
products and convolutions of shapes whose bounds the tiles divide and do not, strided windows,
packed sub-byte weights, per-channel tables sharing one pointer, and the same kernels planned
for fewer registers (smaller tiles, loads not hoisted). The oracle is numpy's integer
arithmetic on the definition of each kernel."""

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, riscv_toolchain, run_kernel  # noqa: F401 (the fixture)
from xdsl.ir.affine import AffineExpr

from bitfold.backends.riscv import pipeline
from bitfold.backends.riscv.schedule.loop_nest_plan import (
    Access,
    CostModel,
    Dim,
    linear_form,
    merge_contiguous,
    plan_nest,
)
from bitfold.backends.riscv.schedule.weight_panels import pack_rows

TARGETS = ["rv32im", "rv64im"]


def matmul_ir(m: int, k: int, n: int, weights: np.ndarray, weight_type: str, extension: str) -> str:
    """x (m x k, u8 read as extui) @ w (k x n constant) with the zero point 3 subtracted from x."""
    return f"""
func.func @mm(%x: tensor<{m}x{k}xi8>) -> tensor<{m}x{n}xi32> {{
  %w = arith.constant dense<{weights.tolist()}> : tensor<{k}x{n}x{weight_type}>
  %e = tensor.empty() : tensor<{m}x{n}xi32>
  %z = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} outs(%e : tensor<{m}x{n}xi32>) {{
  ^bb0(%o: i32):
    %c = arith.constant 7 : i32
    linalg.yield %c : i32
  }} -> tensor<{m}x{n}xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%x, %w : tensor<{m}x{k}xi8>, tensor<{k}x{n}x{weight_type}>) outs(%z : tensor<{m}x{n}xi32>) {{
  ^bb0(%a: i8, %b: {weight_type}, %acc: i32):
    %ae = arith.extui %a : i8 to i32
    %zp = arith.constant 3 : i32
    %as = arith.subi %ae, %zp : i32
    %be = arith.{extension} %b : {weight_type} to i32
    %p = arith.muli %as, %be : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }} -> tensor<{m}x{n}xi32>
  func.return %r : tensor<{m}x{n}xi32>
}}
"""


def matmul_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 7 + (x.view(np.uint8).astype(np.int64) - 3) @ w.astype(np.int64)


@needs_qemu
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("m", "k", "n"), [(1, 40, 12), (5, 7, 3), (8, 24, 16), (3, 13, 10), (16, 16, 9), (1, 24, 48)])
def test_matmul_shapes(m, k, n, target, tmp_path):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    w = rng.integers(-128, 128, size=(k, n))
    x = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    (out,) = run_kernel(matmul_ir(m, k, n, w, "i8", "extsi"), [x], target, tmp_path)
    np.testing.assert_array_equal(out, matmul_reference(x, w).astype(np.int32))


@needs_qemu
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("bits", "extension"), [(4, "extsi"), (4, "extui"), (2, "extsi"), (3, "extsi")])
def test_packed_sub_byte_weights(bits, extension, target, tmp_path):
    rng = np.random.default_rng(bits)
    low, high = (0, 2**bits) if extension == "extui" else (-(2 ** (bits - 1)), 2 ** (bits - 1))
    w = rng.integers(low, high, size=(18, 8))
    x = rng.integers(-128, 128, size=(4, 18), dtype=np.int8)
    (out,) = run_kernel(matmul_ir(4, 18, 8, w, f"i{bits}", extension), [x], target, tmp_path)
    np.testing.assert_array_equal(out, matmul_reference(x, w).astype(np.int32))


@needs_qemu
@pytest.mark.parametrize("budget", [27, 16, 10])
def test_smaller_register_budgets_compute_the_same(budget, tmp_path, monkeypatch):
    """Fewer registers for the tiles: smaller tiles and, at the smallest, inputs reloaded in the
    innermost loop instead of held through it; spilling allowed at the last budget only."""
    monkeypatch.setattr(pipeline, "TILE_REGISTER_BUDGETS", (budget,))
    rng = np.random.default_rng(budget)
    w = rng.integers(-128, 128, size=(32, 8))
    x = rng.integers(-128, 128, size=(8, 32), dtype=np.int8)
    (out,) = run_kernel(matmul_ir(8, 32, 8, w, "i8", "extsi"), [x], "rv32im", tmp_path)
    np.testing.assert_array_equal(out, matmul_reference(x, w).astype(np.int32))


def conv_ir(c: int, oc: int, size: int, stride: int, weights: np.ndarray, multipliers: np.ndarray,
            groups: int = 1) -> str:
    """NCHW 3x3 convolution without padding, int32 accumulators, then a per-channel
    elementwise epilogue y = (acc * mult[c] + add[c]) >> 4 clamped to i8 (two per-channel
    tables: they share one panel and one pointer). With `groups`, output channel o reads the
    input channels (o floordiv (oc / groups)) * gc + i, i < gc = c / groups."""
    out = (size - 3) // stride + 1
    gc = c // groups
    channel = "i" if groups == 1 else f"(o floordiv {oc // groups}) * {gc} + i"
    adds = (np.arange(oc) * 5 - 9).tolist()
    return f"""
func.func @conv(%x: tensor<1x{c}x{size}x{size}xi8>) -> tensor<1x{oc}x{out}x{out}xi8> {{
  %w = arith.constant dense<{weights.tolist()}> : tensor<{oc}x{gc}x3x3xi8>
  %mult = arith.constant dense<{multipliers.tolist()}> : tensor<{oc}xi32>
  %add = arith.constant dense<{adds}> : tensor<{oc}xi32>
  %e = tensor.empty() : tensor<1x{oc}x{out}x{out}xi32>
  %z = linalg.generic {{indexing_maps = [affine_map<(n, o, h, w) -> (n, o, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} outs(%e : tensor<1x{oc}x{out}x{out}xi32>) {{
  ^bb0(%o: i32):
    %zero = arith.constant 0 : i32
    linalg.yield %zero : i32
  }} -> tensor<1x{oc}x{out}x{out}xi32>
  %acc = linalg.generic {{indexing_maps = [affine_map<(n, o, h, w, i, kh, kw) -> (n, {channel}, h * {stride} + kh, w * {stride} + kw)>, affine_map<(n, o, h, w, i, kh, kw) -> (o, i, kh, kw)>, affine_map<(n, o, h, w, i, kh, kw) -> (n, o, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}} ins(%x, %w : tensor<1x{c}x{size}x{size}xi8>, tensor<{oc}x{gc}x3x3xi8>) outs(%z : tensor<1x{oc}x{out}x{out}xi32>) {{
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %t = arith.addi %s, %p : i32
    linalg.yield %t : i32
  }} -> tensor<1x{oc}x{out}x{out}xi32>
  %e8 = tensor.empty() : tensor<1x{oc}x{out}x{out}xi8>
  %y = linalg.generic {{indexing_maps = [affine_map<(n, o, h, w) -> (n, o, h, w)>, affine_map<(n, o, h, w) -> (o)>, affine_map<(n, o, h, w) -> (o)>, affine_map<(n, o, h, w) -> (n, o, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%acc, %mult, %add : tensor<1x{oc}x{out}x{out}xi32>, tensor<{oc}xi32>, tensor<{oc}xi32>) outs(%e8 : tensor<1x{oc}x{out}x{out}xi8>) {{
  ^bb0(%v: i32, %m: i32, %d: i32, %o: i8):
    %vm = arith.muli %v, %m : i32
    %vd = arith.addi %vm, %d : i32
    %four = arith.constant 4 : i32
    %sh = arith.shrsi %vd, %four : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %c1 = arith.maxsi %sh, %lo : i32
    %c2 = arith.minsi %c1, %hi : i32
    %r = arith.trunci %c2 : i32 to i8
    linalg.yield %r : i8
  }} -> tensor<1x{oc}x{out}x{out}xi8>
  func.return %y : tensor<1x{oc}x{out}x{out}xi8>
}}
"""


def conv_reference(x, w, multipliers, stride, groups=1):
    oc, gc = w.shape[:2]
    out = (x.shape[2] - 3) // stride + 1
    acc = np.zeros((groups, oc // groups, out, out), dtype=np.int64)
    for kh in range(3):
        for kw in range(3):
            window = x[0, :, kh : kh + stride * out : stride, kw : kw + stride * out : stride].astype(np.int64)
            taps = w[:, :, kh, kw].astype(np.int64).reshape(groups, oc // groups, gc)
            acc += np.einsum("gchw,goc->gohw", window.reshape(groups, gc, out, out), taps)
    acc = acc.reshape(oc, out, out)
    adds = np.arange(oc) * 5 - 9
    y = (acc * multipliers[:, None, None] + adds[:, None, None]) >> 4
    return np.clip(y, -128, 127).astype(np.int8)[None]


@needs_qemu
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("c", "oc", "size", "stride"), [(3, 8, 10, 1), (4, 6, 11, 2), (8, 16, 6, 1)])
def test_convolution_and_per_channel_epilogue(c, oc, size, stride, target, tmp_path):
    rng = np.random.default_rng(c * oc + size)
    w = rng.integers(-128, 128, size=(oc, c, 3, 3))
    multipliers = rng.integers(1, 9, size=oc)
    x = rng.integers(-128, 128, size=(1, c, size, size), dtype=np.int8)
    (out,) = run_kernel(conv_ir(c, oc, size, stride, w, multipliers), [x], target, tmp_path)
    np.testing.assert_array_equal(out, conv_reference(x, w, multipliers, stride))


@needs_qemu
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("c", "oc", "groups", "size", "stride"), [(8, 16, 2, 6, 1), (12, 6, 3, 7, 2), (16, 16, 4, 10, 1)])
def test_grouped_convolution(c, oc, groups, size, stride, target, tmp_path):
    """Groups as an outer loop (`group_dimensions.py`): each output channel reads its group's
    input channels only."""
    rng = np.random.default_rng(c * oc + groups)
    w = rng.integers(-128, 128, size=(oc, c // groups, 3, 3))
    multipliers = rng.integers(1, 9, size=oc)
    x = rng.integers(-128, 128, size=(1, c, size, size), dtype=np.int8)
    (out,) = run_kernel(conv_ir(c, oc, size, stride, w, multipliers, groups), [x], target, tmp_path)
    np.testing.assert_array_equal(out, conv_reference(x, w, multipliers, stride, groups))


def test_linear_forms_of_indexing_expressions():
    d = [AffineExpr.dimension(i) for i in range(3)]
    assert linear_form(d[0] * 2 + d[2] + 5, 3) == ([2, 0, 1], 5)
    assert linear_form(d[1] // 1, 3) == ([0, 1, 0], 0)
    assert linear_form(d[1] // 2, 3) is None
    assert linear_form(d[1] % 4, 3) is None


def test_contiguous_parallel_dimensions_merge():
    """(c, h, w) requantization of a contiguous CHW tensor with a per-channel table: h and w
    become one dimension of h * w; c stays (the table does not walk it contiguously)."""
    dims = [Dim(8, True), Dim(4, True), Dim(5, True)]
    tensor = Access((80, 20, 4), 0, 4)
    table = Access((4, 0, 0), 0, 4)
    merged_dims, merged = merge_contiguous(dims, [tensor, table])
    assert merged_dims == [Dim(8, True), Dim(20, True)]
    assert [a.stride for a in merged] == [(80, 4), (4, 0)]


def test_plans_fit_the_registers_they_are_given():
    """A 64x64x64 product planned for fewer registers gets no larger a tile."""
    dims = [Dim(64, True), Dim(64, True), Dim(64, False)]
    accesses = [Access((64, 0, 1), 0, 1), Access((0, 1, 64), 0, 1), Access((256, 4, 0), 0, 4)]
    cost = CostModel(body_operations=2, n_outputs=1, n_inputs=2)
    tiles = []
    for registers in (27, 20, 12):
        plan = plan_nest(list(dims), list(accesses), cost, registers)
        tiles.append(len(plan.tile_points()))
        assert cost.estimate(plan)[1] <= registers or len(plan.body_points()) == 1
    assert tiles == sorted(tiles, reverse=True) and tiles[0] > tiles[-1]


def test_a_matrix_vector_product_tiles_sixteen_outputs():
    """A 128 x 128 matrix by a vector: one parallel dimension, 16 outputs share each activation
    load; the weights, each read once, are not counted as held (`held_row`)."""
    dims = [Dim(1, True), Dim(128, True), Dim(128, False)]
    accesses = [Access((128, 0, 1), 0, 1), Access((0, 128, 1), 0, 1), Access((512, 4, 0), 0, 4)]
    cost = CostModel(body_operations=2, n_outputs=1, n_inputs=2)
    plan = plan_nest(dims, accesses, cost, 27)
    assert plan.steps == [16, 4] and cost.estimate(plan)[1] <= 27


def test_a_nest_planned_again_gets_an_equal_plan_of_its_own():
    """`plan_nest` makes each distinct nest's plan once: asked again, it hands out an equal plan
    whose lists are not the first one's, so a caller changing its copy changes no other."""
    dims = [Dim(16, True), Dim(16, True), Dim(32, False)]
    accesses = [Access((32, 0, 1), 0, 1), Access((0, 32, 1), 0, 1), Access((64, 4, 0), 0, 4)]
    cost = CostModel(body_operations=2, n_outputs=1, n_inputs=2)
    first = plan_nest(list(dims), list(accesses), cost, 27)
    expected = (list(first.steps), list(first.loops), first.reloaded, first.window)
    first.steps.append(0)
    first.loops.clear()
    again = plan_nest(list(dims), list(accesses), cost, 27)
    assert (again.steps, again.loops, again.reloaded, again.window) == expected
    assert again.dims == first.dims and again.dims is not first.dims


@pytest.mark.parametrize("bits", [1, 2, 3, 4])
def test_packed_rows_hold_every_value(bits):
    """Rows of 5 values, `8 // bits` a byte from the low bits up, each row starting a byte."""
    rng = np.random.default_rng(bits)
    values = rng.integers(-(2 ** (bits - 1)), 2 ** (bits - 1), size=15) if bits > 1 else rng.integers(0, 2, size=15)
    packed = pack_rows(values, 5, bits).astype(np.int64) & 0xFF
    per_byte = 8 // bits
    row_bytes = -(-5 // per_byte)
    assert len(packed) == 3 * row_bytes
    for index, value in enumerate(values):
        row, j = divmod(index, 5)
        byte = packed[row * row_bytes + j // per_byte]
        assert (byte >> (j % per_byte * bits)) & ((1 << bits) - 1) == value & ((1 << bits) - 1)
