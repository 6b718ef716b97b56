"""bitfold-llvm-fptosi-by-bits computes fptosi's truncation toward zero for every f32 in the i32 range:
the rewritten IR run by the interpreter against numpy's exact truncation (float64 of the f32)."""

import numpy as np
from xdsl.context import Context
from xdsl.parser import Parser

import bitfold
from bitfold.backends.llvm.truncation_by_bits import BitfoldLlvmFptosiByBitsPass
from bitfold.load import full_context


def _truncating_module(ctx: Context, n: int):
    text = f"""func.func @t(%x: tensor<{n}xf32>) -> tensor<{n}xi32> {{
  %e = tensor.empty() : tensor<{n}xi32>
  %y = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%x : tensor<{n}xf32>) outs(%e : tensor<{n}xi32>) {{
  ^bb0(%a: f32, %b: i32):
    %i = arith.fptosi %a : f32 to i32
    linalg.yield %i : i32
  }} -> tensor<{n}xi32>
  func.return %y : tensor<{n}xi32>
}}"""
    return Parser(ctx, text).parse_module()


def test_truncation_by_bits_equals_fptosi_on_the_i32_range():
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, 0.49999997, -0.9999999, 1.0, -1.0, 2.0**23, 2.0**23 + 1, 2.0**24 + 2, -(2.0**31), 2.0**31 - 128]
    x = np.concatenate([rng.normal(0, 1, 2000), rng.normal(0, 1e6, 2000), rng.uniform(-(2**31) + 128, 2**31 - 128, 2000),
                        np.arange(-300, 300) * 0.25, edges]).astype(np.float32)  # fmt: skip
    ctx = full_context()
    module = _truncating_module(ctx, x.size)
    BitfoldLlvmFptosiByBitsPass().apply(ctx, module)
    assert "arith.fptosi" not in str(module)
    (y,) = bitfold.run(module, [x]).values()
    np.testing.assert_array_equal(np.asarray(y).astype(np.int64), np.trunc(x.astype(np.float64)).astype(np.int64))
