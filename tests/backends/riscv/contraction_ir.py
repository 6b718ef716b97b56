"""The int32 contraction the lane-packing passes rewrite, as MLIR text: a bias broadcast into the
accumulator, then r[i, c] += ext(x[i, k]) * extsi(w[c, k]) over k, with the weights a constant."""

import numpy as np


def contraction_ir(rows: int, activation: str, extension: str, weights: np.ndarray, weight_type: str,
                   bias: np.ndarray) -> str:
    """`func.func @kernel(x: rows x depth x activation) -> rows x channels x i32` for weights of shape
    (channels, depth) held as `weight_type`; `extension` (extsi / extui) widens the activations."""
    channels, depth = weights.shape
    w = ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in weights)
    b = ", ".join(str(v) for v in bias)
    x_type, w_type, r_type = (f"tensor<{rows}x{depth}x{activation}>", f"tensor<{channels}x{depth}x{weight_type}>",
                              f"tensor<{rows}x{channels}xi32>")
    return f"""
func.func @kernel(%a: {x_type}) -> {r_type} {{
  %w = arith.constant dense<[{w}]> : {w_type}
  %bias = arith.constant dense<[{b}]> : tensor<{channels}xi32>
  %e = tensor.empty() : {r_type}
  %init = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}}
      ins(%bias : tensor<{channels}xi32>) outs(%e : {r_type}) {{
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }} -> {r_type}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
      affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %w : {x_type}, {w_type})
      outs(%init : {r_type}) {{
  ^bb0(%x: {activation}, %y: {weight_type}, %acc: i32):
    %xe = arith.{extension} %x : {activation} to i32
    %ye = arith.extsi %y : {weight_type} to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }} -> {r_type}
  func.return %r : {r_type}
}}
"""
