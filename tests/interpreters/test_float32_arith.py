"""The interpreter computes f32 arith as IEEE binary32, one rounding to nearest even per op (never a
float64 intermediate), as the generated code does (docs/float-islands.md): a generic body chaining
every op of a float island against the same chain in numpy float32 scalars."""

import numpy as np
from xdsl.parser import Parser

import bitfold
from bitfold.load import full_context

N = 4096
BODY = """
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    %d = arith.divf %s, %b : f32
    %t = arith.subf %d, %c : f32
    %n = arith.negf %t : f32
    %mx = arith.maximumf %n, %a : f32
    %mn = arith.minimumf %mx, %c : f32
    %lt = arith.cmpf olt, %mn, %a : f32
    %sel = arith.select %lt, %mn, %s : f32
    %bits = arith.bitcast %sel : f32 to i32
    %one = arith.constant 1 : i32
    %next = arith.addi %bits, %one : i32
    %up = arith.bitcast %next : i32 to f32
    %i = arith.fptosi %p : f32 to i32
    %back = arith.sitofp %i : i32 to f32
    %out = arith.addf %up, %back : f32
"""


def _module():
    shape = f"tensor<{N}xf32>"
    text = f"""func.func @chain(%x: {shape}, %y: {shape}, %z: {shape}) -> {shape} {{
  %e = tensor.empty() : {shape}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%x, %y, %z : {shape}, {shape}, {shape}) outs(%e : {shape}) {{
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):{BODY}    linalg.yield %out : f32
  }} -> {shape}
  func.return %r : {shape}
}}"""
    return Parser(full_context(), text).parse_module()


def _numpy_chain(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a * b
    s = p + c
    d = s / b
    t = d - c
    mn = np.minimum(np.maximum(-t, a), c)
    sel = np.where(mn < a, mn, s).astype(np.float32)
    up = (sel.view(np.int32) + np.int32(1)).view(np.float32)
    back = np.trunc(p).astype(np.int32).astype(np.float32)
    return up + back


def test_every_f32_op_rounds_once_in_binary32():
    rng = np.random.default_rng(3)
    a, b, c = (rng.normal(0, 100, N).astype(np.float32) for _ in range(3))
    (got,) = bitfold.run(_module(), [a, b, c]).values()
    want = _numpy_chain(a, b, c)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got).view(np.int32), want.view(np.int32))
    fused = ((a.astype(np.float64) * b + c).astype(np.float32) != a * b + c).sum()
    assert fused > 0  # the inputs do tell a float64 intermediate from binary32 steps


def test_math_exp_and_tanh_run_as_their_expansion():
    """math.exp / math.tanh on f32 compute the bits of expand-float-math's sequences."""
    from bitfold.passes.expand_float_math import ExpandFloatMathPass

    text = f"""func.func @f(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %e = tensor.empty() : tensor<{N}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%x : tensor<{N}xf32>) outs(%e : tensor<{N}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    %y = math.exp %t : f32
    %z = math.exp %a : f32
    %s = arith.addf %y, %z : f32
    linalg.yield %s : f32
  }} -> tensor<{N}xf32>
  func.return %r : tensor<{N}xf32>
}}"""
    ctx = full_context()
    module = Parser(ctx, text).parse_module()
    x = np.random.default_rng(5).normal(0, 20, N).astype(np.float32)
    (before,) = bitfold.run(module, [x]).values()
    ExpandFloatMathPass().apply(ctx, module)
    assert "math." not in str(module)
    (after,) = bitfold.run(module, [x]).values()
    np.testing.assert_array_equal(np.asarray(before).view(np.int32), np.asarray(after).view(np.int32))


def test_expanded_roundeven_is_numpy_rint_bit_for_bit():
    """expand-float-math's roundeven against numpy's rint (ties to even), signed zeros included."""
    from bitfold.passes.expand_float_math import ExpandFloatMathPass

    x = np.concatenate([np.arange(-600, 600) * np.float32(0.25), [-0.0, 0.0, -0.5, 0.5, 2.0**23 + 1, -(2.0**24), 1e30],
                        np.random.default_rng(9).normal(0, 1e5, 2000)]).astype(np.float32)  # fmt: skip
    n = x.size
    text = f"""func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %e = tensor.empty() : tensor<{n}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%x : tensor<{n}xf32>) outs(%e : tensor<{n}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %y = math.roundeven %a : f32
    linalg.yield %y : f32
  }} -> tensor<{n}xf32>
  func.return %r : tensor<{n}xf32>
}}"""
    ctx = full_context()
    module = Parser(ctx, text).parse_module()
    ExpandFloatMathPass().apply(ctx, module)
    assert "math." not in str(module)
    (y,) = bitfold.run(module, [x]).values()
    np.testing.assert_array_equal(np.asarray(y).view(np.int32), np.rint(x).view(np.int32))


def _run_math(name: str, x: np.ndarray) -> np.ndarray:
    """math.<name> on f32 elementwise, run by the interpreter (its expand-float-math sequence)."""
    n = x.size
    text = f"""func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %e = tensor.empty() : tensor<{n}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%x : tensor<{n}xf32>) outs(%e : tensor<{n}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %y = math.{name} %a : f32
    linalg.yield %y : f32
  }} -> tensor<{n}xf32>
  func.return %r : tensor<{n}xf32>
}}"""
    (y,) = bitfold.run(Parser(full_context(), text).parse_module(), [x]).values()
    return np.asarray(y)


def test_expanded_sqrt_is_correctly_rounded():
    """expand-float-math's sqrt equals numpy's correctly rounded float32 sqrt bit for bit over the
    whole exponent range, subnormals, +-0 and +inf; negative values and NaN give the canonical
    quiet NaN 0x7FC00000."""
    rng = np.random.default_rng(11)
    bits = np.concatenate([rng.integers(0, 0x7F800000, 3000), rng.integers(1, 0x00800000, 300),
                           [0, 1, 0x7FFFFF, 0x800000, 0x7F7FFFFF, 0x7F800000, 0x80000000, 0x80000001, 0xBF800000,
                            0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00000]]).astype(np.uint32)  # fmt: skip
    x = bits.view(np.float32)
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    want[np.isnan(want)] = np.float32(np.nan)
    np.testing.assert_array_equal(_run_math("sqrt", x).view(np.uint32), want.view(np.uint32))
    assert np.float32(np.nan).view(np.uint32) == 0x7FC00000


def test_expanded_erf_within_its_documented_bound():
    """expand-float-math's erf within 2.5e-7 of math.erf (float64), both branches and the tails."""
    import math

    x = np.concatenate([np.random.default_rng(12).normal(0, 2, 2000), np.linspace(-6, 6, 1201),
                        [0.0, -0.0, 1e-30, 30, -1e30]]).astype(np.float32)  # fmt: skip
    want = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert np.abs(_run_math("erf", x) - want).max() < 2.5e-7
