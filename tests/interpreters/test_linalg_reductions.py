"""The numpy interpreter on `linalg.generic` with reduction iterators (any body, any order of
iterator kinds), `linalg.index` in bodies, and `tensor.extract` / reshapes: compared with
numpy computing the same thing directly."""

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import InterpretationError

from bitfold.interpreter import run
from bitfold.load import full_context

RNG = np.random.default_rng(11)


def _run(text: str, *inputs: np.ndarray) -> list[np.ndarray]:
    module = Parser(full_context(), text).parse_module()
    module.verify()
    return list(run(module, list(inputs)).values())


def _int8(shape) -> np.ndarray:
    return RNG.integers(-128, 128, shape).astype(np.int8)


MULTIPLY_ACCUMULATE = """
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32"""


@pytest.mark.parametrize(
    "dims, kinds, x_map, w_map, y_map",
    [
        ("i, j, k", '"parallel", "parallel", "reduction"', "(i, k)", "(k, j)", "(i, j)"),
        ("k, i, j", '"reduction", "parallel", "parallel"', "(i, k)", "(k, j)", "(i, j)"),
        ("i, k, j", '"parallel", "reduction", "parallel"', "(i, k)", "(k, j)", "(i, j)"),
        ("j, k, i", '"parallel", "reduction", "parallel"', "(i, k)", "(k, j)", "(j, i)"),  # transposed result
    ],
)
def test_matmul(dims: str, kinds: str, x_map: str, w_map: str, y_map: str):
    m, k, n = 5, 7, 3
    y_shape = "3x5" if y_map == "(j, i)" else "5x3"
    text = f"""
func.func @main(%x: tensor<{m}x{k}xi8>, %w: tensor<{k}x{n}xi8>, %bias: tensor<{y_shape}xi32>) -> tensor<{y_shape}xi32> {{
  %r = linalg.generic {{indexing_maps = [affine_map<({dims}) -> {x_map}>, affine_map<({dims}) -> {w_map}>,
                                         affine_map<({dims}) -> {y_map}>], iterator_types = [{kinds}]}}
       ins(%x, %w : tensor<{m}x{k}xi8>, tensor<{k}x{n}xi8>) outs(%bias : tensor<{y_shape}xi32>) {{{MULTIPLY_ACCUMULATE}
  }} -> tensor<{y_shape}xi32>
  func.return %r : tensor<{y_shape}xi32>
}}"""
    x, w = _int8((m, k)), _int8((k, n))
    bias = RNG.integers(-1000, 1000, (3, 5) if y_map == "(j, i)" else (5, 3)).astype(np.int32)
    (y,) = _run(text, x, w, bias)
    expected = x.astype(np.int32) @ w.astype(np.int32)
    np.testing.assert_array_equal(y, bias + (expected.T if y_map == "(j, i)" else expected))


def test_matmul_64_cube():
    text = f"""
func.func @main(%x: tensor<64x64xi8>, %w: tensor<64x64xi8>) -> tensor<64x64xi32> {{
  %e = tensor.empty() : tensor<64x64xi32>
  %z = arith.constant 0 : i32
  %init = linalg.generic {{indexing_maps = [affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}} ins(%z : i32) outs(%e : tensor<64x64xi32>) {{
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }} -> tensor<64x64xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                                         affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}}
       ins(%x, %w : tensor<64x64xi8>, tensor<64x64xi8>) outs(%init : tensor<64x64xi32>) {{{MULTIPLY_ACCUMULATE}
  }} -> tensor<64x64xi32>
  func.return %r : tensor<64x64xi32>
}}"""
    x, w = _int8((64, 64)), _int8((64, 64))
    (y,) = _run(text, x, w)
    np.testing.assert_array_equal(y, x.astype(np.int32) @ w.astype(np.int32))


def _conv_reference(x: np.ndarray, w: np.ndarray, stride: int, dilation: int, out_hw: int) -> np.ndarray:
    n, _, _, _ = x.shape
    f, c, kh, kw = w.shape
    y = np.zeros((n, f, out_hw, out_hw), np.int64)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dilation, i * dilation + stride * (out_hw - 1) + 1, stride)
            cols = slice(j * dilation, j * dilation + stride * (out_hw - 1) + 1, stride)
            y += np.einsum("nchw,fc->nfhw", x[:, :, rows, cols].astype(np.int64), w[:, :, i, j].astype(np.int64))
    return y.astype(np.int32)


@pytest.mark.parametrize("stride, dilation", [(1, 1), (2, 1), (1, 2)])
def test_conv2d_nchw(stride: int, dilation: int):
    """4 parallel + 3 reduction dims: 1x8x8x8 outputs of an 8x4x3x3 kernel (4x3x3 reduction
    points), with strides and dilations in the input's map."""
    out_hw, c, f = 8, 4, 8
    in_hw = stride * (out_hw - 1) + dilation * 2 + 1
    x_shape, w_shape, y_shape = f"1x{c}x{in_hw}x{in_hw}", f"{f}x{c}x3x3", f"1x{f}x{out_hw}x{out_hw}"
    dims = "(n, f, h, w, c, kh, kw)"
    text = f"""
func.func @main(%x: tensor<{x_shape}xi8>, %w: tensor<{w_shape}xi8>) -> tensor<{y_shape}xi32> {{
  %e = tensor.empty() : tensor<{y_shape}xi32>
  %r = linalg.generic {{indexing_maps = [
         affine_map<{dims} -> (n, c, h * {stride} + kh * {dilation}, w * {stride} + kw * {dilation})>,
         affine_map<{dims} -> (f, c, kh, kw)>, affine_map<{dims} -> (n, f, h, w)>],
       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}}
       ins(%x, %w : tensor<{x_shape}xi8>, tensor<{w_shape}xi8>) outs(%e : tensor<{y_shape}xi32>) {{{MULTIPLY_ACCUMULATE}
  }} -> tensor<{y_shape}xi32>
  func.return %r : tensor<{y_shape}xi32>
}}"""
    x, w = _int8((1, c, in_hw, in_hw)), _int8((f, c, 3, 3))
    (y,) = _run(text, x, w)
    np.testing.assert_array_equal(y, _conv_reference(x, w, stride, dilation, out_hw))


def test_maxpool_unsigned():
    """A 3x3 stride-2 max pool of u8 storage in i8: the window's iterators are the reduction."""
    text = """
func.func @main(%x: tensor<1x2x9x9xi8>, %window: tensor<3x3xi8>) -> tensor<1x2x4x4xi8> {
  %e = tensor.empty() : tensor<1x2x4x4xi8>
  %lowest = arith.constant 0 : i8
  %init = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> ()>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
       ins(%lowest : i8) outs(%e : tensor<1x2x4x4xi8>) {
  ^bb0(%v: i8, %o: i8):
    linalg.yield %v : i8
  } -> tensor<1x2x4x4xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w, i, j) -> (n, c, h * 2 + i, w * 2 + j)>,
                                        affine_map<(n, c, h, w, i, j) -> (i, j)>,
                                        affine_map<(n, c, h, w, i, j) -> (n, c, h, w)>],
       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
       ins(%x, %window : tensor<1x2x9x9xi8>, tensor<3x3xi8>) outs(%init : tensor<1x2x4x4xi8>) {
  ^bb0(%a: i8, %unused: i8, %acc: i8):
    %m = arith.maxui %acc, %a : i8
    linalg.yield %m : i8
  } -> tensor<1x2x4x4xi8>
  func.return %r : tensor<1x2x4x4xi8>
}"""
    x = _int8((1, 2, 9, 9))
    (y,) = _run(text, x, np.zeros((3, 3), np.int8))
    windows = np.lib.stride_tricks.sliding_window_view(x.view(np.uint8), (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    np.testing.assert_array_equal(y.view(np.uint8), windows.max(axis=(4, 5)))


def test_argmax_first_of_ties():
    """Two carried outputs: the running maximum and the reduction index where it was first
    reached (`linalg.index` of the reduction dim); ties keep the earlier index."""
    text = """
func.func @main(%x: tensor<6x20xi8>) -> (tensor<6xi8>, tensor<6xi32>) {
  %lowest = arith.constant dense<-128> : tensor<6xi8>
  %zero = arith.constant dense<0> : tensor<6xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
       ins(%x : tensor<6x20xi8>) outs(%lowest, %zero : tensor<6xi8>, tensor<6xi32>) {
  ^bb0(%a: i8, %best: i8, %at: i32):
    %c0 = arith.constant 0 : index
    %k = linalg.index 1 : index
    %k32 = arith.index_cast %k : index to i32
    %greater = arith.cmpi sgt, %a, %best : i8
    %first = arith.cmpi eq, %k, %c0 : index
    %take = arith.ori %greater, %first : i1
    %value = arith.select %take, %a, %best : i8
    %index = arith.select %take, %k32, %at : i32
    linalg.yield %value, %index : i8, i32
  } -> tensor<6xi8>, tensor<6xi32>  // xDSL 0.74 parses the result types without parentheses
  func.return %r#0, %r#1 : tensor<6xi8>, tensor<6xi32>
}"""
    x = RNG.integers(-4, 4, (6, 20)).astype(np.int8)  # many ties
    best, at = _run(text, x)
    np.testing.assert_array_equal(best, x.max(axis=1))
    np.testing.assert_array_equal(at, x.argmax(axis=1))


def test_order_of_two_reduction_dims_is_lexicographic():
    """acc * 3 + x wraps in i32 and depends on the order of the points: (r0, r1) in
    lexicographic order, r0 outermost, whichever positions the dims have among the loops."""
    text = """
func.func @main(%x: tensor<4x5x6xi32>) -> tensor<5xi32> {
  %one = arith.constant dense<1> : tensor<5xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(r0, p, r1) -> (r0, p, r1)>, affine_map<(r0, p, r1) -> (p)>],
                       iterator_types = ["reduction", "parallel", "reduction"]}
       ins(%x : tensor<4x5x6xi32>) outs(%one : tensor<5xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %c3 = arith.constant 3 : i32
    %m = arith.muli %acc, %c3 : i32
    %s = arith.addi %m, %a : i32
    linalg.yield %s : i32
  } -> tensor<5xi32>
  func.return %r : tensor<5xi32>
}"""
    x = RNG.integers(-(2**31), 2**31, (4, 5, 6)).astype(np.int32)
    (y,) = _run(text, x)
    expected = np.ones(5, np.int64)
    for r0 in range(4):
        for r1 in range(6):
            expected = (expected * 3 + x[r0, :, r1]) & 0xFFFFFFFF
    np.testing.assert_array_equal(y, expected.astype(np.uint32).view(np.int32))


def test_full_reduction_to_a_scalar_tensor():
    text = """
func.func @main(%x: tensor<3x4xi16>) -> tensor<i32> {
  %zero = arith.constant dense<0> : tensor<i32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
       ins(%x : tensor<3x4xi16>) outs(%zero : tensor<i32>) {
  ^bb0(%a: i16, %acc: i32):
    %w = arith.extsi %a : i16 to i32
    %s = arith.addi %acc, %w : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  func.return %r : tensor<i32>
}"""
    x = RNG.integers(-30000, 30000, (3, 4)).astype(np.int16)
    (y,) = _run(text, x)
    assert y.shape == () and int(y) == int(x.astype(np.int64).sum())


def test_output_map_using_a_reduction_dim_is_gathered_at_every_point():
    """out[i, k floordiv 2] = out * 3 + x[i, k]: the output element changes with the reduction
    point, so each point reads what the previous points wrote, in order."""
    text = """
func.func @main(%x: tensor<3x8xi32>, %init: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k floordiv 2)>],
                       iterator_types = ["parallel", "reduction"]}
       ins(%x : tensor<3x8xi32>) outs(%init : tensor<3x4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %c3 = arith.constant 3 : i32
    %m = arith.muli %acc, %c3 : i32
    %s = arith.addi %m, %a : i32
    linalg.yield %s : i32
  } -> tensor<3x4xi32>
  func.return %r : tensor<3x4xi32>
}"""
    x, init = RNG.integers(-100, 100, (3, 8)).astype(np.int32), RNG.integers(-100, 100, (3, 4)).astype(np.int32)
    (y,) = _run(text, x, init)
    np.testing.assert_array_equal(y, (init * 3 + x[:, 0::2]) * 3 + x[:, 1::2])


def test_linalg_index_in_a_parallel_body():
    text = """
func.func @main() -> tensor<3x4xi32> {
  %e = tensor.empty() : tensor<3x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
       outs(%e : tensor<3x4xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c10 = arith.constant 10 : index
    %t = arith.muli %i, %c10 : index
    %s = arith.addi %t, %j : index
    %v = arith.index_cast %s : index to i32
    linalg.yield %v : i32
  } -> tensor<3x4xi32>
  func.return %r : tensor<3x4xi32>
}"""
    (y,) = _run(text)
    np.testing.assert_array_equal(y, np.arange(3)[:, None] * 10 + np.arange(4)[None, :])


def test_extract_gather_lookup_table():
    """out[i, j] = table[x[i, j] as unsigned]: a data-dependent gather in the body."""
    text = """
func.func @main(%x: tensor<4x5xi8>, %table: tensor<256xi16>) -> tensor<4x5xi16> {
  %e = tensor.empty() : tensor<4x5xi16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<4x5xi8>) outs(%e : tensor<4x5xi16>) {
  ^bb0(%a: i8, %o: i16):
    %wide = arith.extui %a : i8 to i32
    %k = arith.index_cast %wide : i32 to index
    %v = tensor.extract %table[%k] : tensor<256xi16>
    linalg.yield %v : i16
  } -> tensor<4x5xi16>
  func.return %r : tensor<4x5xi16>
}"""
    x, table = _int8((4, 5)), RNG.integers(-30000, 30000, 256).astype(np.int16)
    (y,) = _run(text, x, table)
    np.testing.assert_array_equal(y, table[x.view(np.uint8)])


def test_extract_with_clamped_indices_in_a_reduction():
    """A 1-D convolution with zero padding written as a gather: linalg.index of the parallel
    and reduction dims, clamped, read with tensor.extract, masked with select."""
    text = """
func.func @main(%x: tensor<10xi8>, %w: tensor<3xi8>) -> tensor<10xi32> {
  %zero = arith.constant dense<0> : tensor<10xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
       ins(%w : tensor<3xi8>) outs(%zero : tensor<10xi32>) {
  ^bb0(%b: i8, %acc: i32):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c9 = arith.constant 9 : index
    %zero8 = arith.constant 0 : i8
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %ik = arith.addi %i, %k : index
    %at = arith.subi %ik, %c1 : index
    %low = arith.maxsi %at, %c0 : index
    %clamped = arith.minsi %low, %c9 : index
    %inside = arith.cmpi eq, %at, %clamped : index
    %read = tensor.extract %x[%clamped] : tensor<10xi8>
    %a = arith.select %inside, %read, %zero8 : i8
    %a32 = arith.extsi %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<10xi32>
  func.return %r : tensor<10xi32>
}"""
    x, w = _int8(10), _int8(3)
    (y,) = _run(text, x, w)
    np.testing.assert_array_equal(y, np.correlate(np.pad(x.astype(np.int32), 1), w.astype(np.int32), mode="valid"))


def test_extract_at_top_level_and_out_of_bounds():
    text = """
func.func @main(%x: tensor<3x4xi8>, %i: index) -> i8 {
  %c2 = arith.constant 2 : index
  %v = tensor.extract %x[%i, %c2] : tensor<3x4xi8>
  func.return %v : i8
}"""
    x = _int8((3, 4))
    (v,) = _run(text, x, np.int64(1))
    assert int(v) == int(x[1, 2])
    with pytest.raises(InterpretationError, match="out of bounds"):
        _run(text, x, np.int64(-1))


def test_reshapes():
    text = """
func.func @main(%x: tensor<2x3x4xi8>) -> (tensor<6x4xi8>, tensor<2x3x2x2xi8>, tensor<4x6xi8>, tensor<24xi8>) {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xi8> into tensor<6x4xi8>
  %e = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xi8> into tensor<2x3x2x2xi8>
  %shape = arith.constant dense<[4, 6]> : tensor<2xi64>
  %r = tensor.reshape %x(%shape) : (tensor<2x3x4xi8>, tensor<2xi64>) -> tensor<4x6xi8>
  %flat = tensor.collapse_shape %x [[0, 1, 2]] : tensor<2x3x4xi8> into tensor<24xi8>
  func.return %c, %e, %r, %flat : tensor<6x4xi8>, tensor<2x3x2x2xi8>, tensor<4x6xi8>, tensor<24xi8>
}"""
    x = _int8((2, 3, 4))
    c, e, r, flat = _run(text, x)
    np.testing.assert_array_equal(c, x.reshape(6, 4))
    np.testing.assert_array_equal(e, x.reshape(2, 3, 2, 2))
    np.testing.assert_array_equal(r, x.reshape(4, 6))
    np.testing.assert_array_equal(flat, x.reshape(24))
