// RUN: bitfold-opt %s -p onnx-data-movement-to-linalg | filecheck %s

// Tile (2x3 by repeats [2, 1]): the input reshaped to 1x2x1x3, broadcast to 2x2x1x3 (repeat,
// size per axis), then collapsed to 4x3.

func.func @tile(%x: tensor<2x3xi8>) -> tensor<4x3xi8> {
  %repeats = "onnx.Constant"() {value = dense<[2, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Tile"(%x, %repeats) : (tensor<2x3xi8>, tensor<2xi64>) -> tensor<4x3xi8>
  func.return %r : tensor<4x3xi8>
}
// CHECK:      func.func @tile(%x: tensor<2x3xi8>) -> tensor<4x3xi8> {
// CHECK-NEXT:   %[[S:.*]] = tensor.expand_shape %x {{\[\[}}0 : i64, 1 : i64], [2 : i64, 3 : i64]] output_shape [1, 2, 1, 3] : tensor<2x3xi8> into tensor<1x2x1x3xi8>
// CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<2x2x1x3xi8>
// CHECK-NEXT:   %[[B:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S]] : tensor<1x2x1x3xi8>) outs(%[[E]] : tensor<2x2x1x3xi8>) {
// CHECK-NEXT:   ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:     linalg.yield %[[IN]] : i8
// CHECK-NEXT:   } -> tensor<2x2x1x3xi8>
// CHECK-NEXT:   %r = tensor.collapse_shape %[[B]] {{\[\[}}0 : i64, 1 : i64], [2 : i64, 3 : i64]] : tensor<2x2x1x3xi8> into tensor<4x3xi8>
// CHECK-NEXT:   func.return %r : tensor<4x3xi8>
